"""Search latency on a store: MaxScore's top k against scoring every reached document.

    python benchmarks/search_topk.py STORE [--queries 300] [--k 50] [--seed 0]

Three query sets, drawn with ``--seed``: ``short`` (a product's query and a title word, what
``benchmarks/scale.py`` times), ``long`` (goal instructions, what the rule agent sends) and
``common`` (two or three of the catalog's most frequent words, the worst case for pruning). For
each: p50/p95/max milliseconds of the pruned and the exhaustive search, how many documents each
scored, and whether every answer was identical (it must be). Nothing is asserted.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable

import numpy as np

from shopsim.simsite.lucene import topk
from shopsim.simsite.shop import Shop


def _timed(fn: Callable[[], object], repeat: int = 1) -> tuple[float, object]:
    best, out = float("inf"), None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return best * 1000, out


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("store")
    ap.add_argument("--queries", type=int, default=300)
    ap.add_argument("--k", type=int, default=50)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    shop = Shop.load(args.store)
    index = shop.search_engine.index  # the store's Lucene index
    rng = random.Random(args.seed)
    n = len(shop.products)
    picked = [shop.product_list[rng.randrange(n)] for _ in range(args.queries)]
    frequent = np.argsort(np.asarray(index._idf))[:40]  # the lowest idf: the most documents
    common = [index._term(int(t)).decode() for t in frequent]
    sets = {
        "short": [f"{p.query} {p.title.split()[-1]}" for p in picked],
        "long": [shop.goals[rng.randrange(len(shop.goals))].instruction_text for _ in range(args.queries)],
        "common": [" ".join(rng.sample(common, rng.choice((2, 3)))) for _ in range(args.queries)],
    }
    print(f"{n:,} products, k={args.k}")
    print(f"{'queries':<8} {'engine':<10} {'p50 ms':>8} {'p95 ms':>8} {'max ms':>8} {'scored p50':>11} {'same':>6}")
    for name, queries in sets.items():
        for q in queries[:10]:
            index.scored(q, args.k)
        fast, slow, scored, reached, same = [], [], [], [], 0
        for q in queries:
            hits = index.hits(q)
            ms, a = _timed(lambda q=q: topk.score_hits(index.hits(q), index.doc_count, index._id_rank, args.k))
            fast.append(ms)
            ms, b = _timed(lambda q=q: topk.score_hits_all(index.hits(q), index.doc_count, index._id_rank, args.k))
            slow.append(ms)
            same += all(x.tolist() == y.tolist() for x, y in zip(a, b, strict=True))  # type: ignore[arg-type]
            scored.append(len(topk.candidates(hits, index.doc_count, args.k)))
            reached.append(len(np.unique(np.concatenate([h[0][0] for h in hits]))) if hits else 0)
        for engine, lat, docs in (("maxscore", fast, scored), ("all", slow, reached)):
            print(f"{name:<8} {engine:<10} {statistics.median(lat):8.2f} {_pct(lat, 0.95):8.2f} {max(lat):8.2f} "
                  f"{int(statistics.median(docs)):>11,} {same:>3}/{len(queries)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
