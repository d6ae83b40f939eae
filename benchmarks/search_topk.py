"""Search latency per catalog size, uncached and cached, each beside its target; and the rule's measurement.

    python benchmarks/search_topk.py [STORE ...] [--small DIR] [--queries 300] [--rounds 3] [--k 50]
    python benchmarks/search_topk.py STORE ... --calibrate [--dump FILE.jsonl]

Catalogs: WebShop's 1,000-product small set (``--small``, default ``../shared/data/webshop-small``,
skipped when absent; opened in memory as ``Shop.load`` opens it) and each prepared STORE, e.g. the
seeded 100k and 1.18M stores that ``benchmarks/scale.py --sizes 100k,1.18M --workdir DIR`` leaves in
DIR (``store-100000-seed0``, ``store-1180000-seed0``). Queries, drawn with ``--seed``: ``long``
(goal instructions: what the rule agent sends) and ``short`` (a product's query and a title word).

Per catalog and query set, p50/p95 milliseconds of ``engine.search`` (analysis, top k, ASINs):
``uncached`` (the cache off: every query scored), ``cached`` (each query asked before: agents
repeat their instructions), and ``maxscore only`` (every query pruned, as before issue 21: the
old-vs-new ratio; it still has this version's stored bounds and term scores, so the ratio
understates the change). Every latency is the median of ``--rounds`` rounds, the variants
alternating within a round. ``same`` counts queries whose rankings agree across all of them
(it must be all).

``--calibrate`` times both algorithms forced on each query (medians of 5, alternating) and
prints them by the query's postings in all: the measurement behind the rule in
:mod:`shopsim.simsite.lucene.topk`. Nothing is asserted; on a loaded machine absolute figures move.
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from shopsim.simsite.lucene.bm25 import LuceneRanker
from shopsim.simsite.lucene.topk import Algorithm, score_hits
from shopsim.simsite.search import DEFAULT_CACHE_SIZE, LuceneEngine
from shopsim.simsite.shop import Shop

SMALL = Path(__file__).resolve().parents[2] / "shared" / "data" / "webshop-small"
TARGET_P95_MS = {1_180_000: 10.0}  # issue 21: instruction-length queries at 1.18M products, p95 < 10 ms


def _label(n: int) -> str:
    return f"{n / 1e6:g}M" if n >= 1_000_000 else f"{n / 1e3:g}k"


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def _open(path: Path) -> Shop:
    return Shop.load(path, num_products=1000) if (path / "items_shuffle_1000.json").exists() else Shop.load(path)


def _query_sets(shop: Shop, count: int, seed: int) -> dict[str, list[str]]:
    rng = random.Random(seed)
    products = shop.product_list
    picked = [products[rng.randrange(len(products))] for _ in range(count)]
    return {"long": [shop.goals[rng.randrange(len(shop.goals))].instruction_text for _ in range(count)],
            "short": [f"{p.query} {(p.title.split() or [''])[-1]}" for p in picked]}


def _maxscore_only(index: LuceneRanker, k: int) -> Callable[[str], list[str]]:
    def search(query: str) -> list[str]:
        docs, _ = score_hits(index.hits(query), index.doc_count, index._id_rank, k, "maxscore")
        return index.ids_of(docs.tolist())
    return search


def _searcher(engine: LuceneEngine, k: int) -> Callable[[str], list[str]]:
    return lambda query: engine.search(query, k)


def _latencies(variants: dict[str, Callable[[str], list[str]]], queries: list[str], rounds: int,
               clock: Callable[[], float]) -> tuple[dict[str, list[float]], int]:
    """Per variant, each query's median time over the rounds (ms); and how many rankings agree."""
    times: dict[str, list[list[float]]] = {name: [[] for _ in queries] for name in variants}
    answers: dict[str, list[list[str]]] = {name: [] for name in variants}
    for r in range(rounds):
        for name, fn in variants.items():
            for i, q in enumerate(queries):
                t = clock()
                out = fn(q)
                times[name][i].append((clock() - t) * 1000)
                if r == 0:
                    answers[name].append(out)
    same = sum(len({tuple(a[i]) for a in answers.values()}) == 1 for i in range(len(queries)))
    return {name: [statistics.median(t) for t in per] for name, per in times.items()}, same


def latency_table(catalogs: Sequence[Path], count: int, rounds: int, k: int, seed: int,
                  clock: Callable[[], float], *, quiet: bool = False) -> list[dict[str, Any]]:
    """The p50/p95 table: every catalog, both query sets, uncached, cached and MaxScore only (also returned)."""
    rows: list[dict[str, Any]] = []
    out = (lambda *a, **kw: None) if quiet else print
    out("| products | queries | search | p50 ms | p95 ms | target p95 | same |\n|---|---|---|---|---|---|---|")
    for path in catalogs:
        shop = _open(path)
        index = shop.search_engine.index
        n = len(shop.products)
        uncached = LuceneEngine.from_index(index, cache_size=0)
        cached = LuceneEngine.from_index(index, cache_size=DEFAULT_CACHE_SIZE)
        for name, queries in _query_sets(shop, count, seed).items():
            for q in queries:
                cached.search(q, k)  # every query asked before
            variants = {"uncached": _searcher(uncached, k), "cached": _searcher(cached, k),
                        "maxscore only": _maxscore_only(index, k)}
            lat, same = _latencies(variants, queries, rounds, clock)
            target = TARGET_P95_MS.get(n)
            for variant, values in lat.items():
                p95 = _pct(values, 0.95)
                verdict = "none set" if target is None else f"< {target:g} ms: {'met' if p95 < target else 'MISSED'}"
                rows.append({"products": n, "queries": name, "search": variant, "p50_ms": statistics.median(values),
                             "p95_ms": p95, "target_p95_ms": target, "same": same, "of": len(queries)})
                out(f"| {_label(n)} | {name} | {variant} | {statistics.median(values):.3f} | {p95:.3f} | {verdict} "
                      f"| {same}/{len(queries)} |")
            old, new = statistics.median(lat["maxscore only"]), statistics.median(lat["uncached"])
            out(f"| {_label(n)} | {name} | maxscore only / uncached (p50) | {old / new:.1f}x | | | |")
        sys.stdout.flush()
    return rows


def _forced(index: LuceneRanker, hits: list[Any], k: int, algorithm: Algorithm) -> Callable[[], object]:
    return lambda: score_hits(hits, index.doc_count, index._id_rank, k, algorithm)


def calibrate(catalogs: Sequence[Path], count: int, k: int, seed: int, dump: Path | None,
              clock: Callable[[], float]) -> None:
    """Both algorithms on every query, by postings in all: where exhaustive scoring stops paying."""
    rows: list[dict[str, Any]] = []
    for path in catalogs:
        shop = _open(path)
        index = shop.search_engine.index
        rng = random.Random(seed)
        sets = _query_sets(shop, count, seed)
        words = sorted({w for q in sets["long"] for w in q.split()})
        sets["mixed"] = [" ".join(rng.sample(words, rng.randint(2, 30))) for _ in range(count)]
        for name, queries in sets.items():
            for q in queries:
                hits = index.hits(q)
                if len(hits) < 2:
                    continue
                runs: dict[str, list[float]] = {"exhaustive": [], "maxscore": []}
                for _ in range(5):
                    for algorithm in runs:
                        fn = _forced(index, hits, k, algorithm)  # type: ignore[arg-type]
                        t = clock()
                        fn()
                        runs[algorithm].append((clock() - t) * 1000)
                rows.append({"products": len(shop.products), "set": name, "terms": len(hits),
                             "postings": int(sum(len(p.docs) for p, _ in hits)),
                             **{a: statistics.median(v) for a, v in runs.items()}})
    if dump:
        dump.write_text("".join(json.dumps(r) + "\n" for r in rows))
    edges = [0, 3_000, 10_000, 30_000, 60_000, 100_000, 150_000, 250_000, 500_000, 1_000_000, 10**9]
    print("| products | postings | queries | terms p50 | exhaustive p50 ms | maxscore p50 ms | exhaustive faster |")
    print("|---|---|---|---|---|---|---|")
    for n in sorted({r["products"] for r in rows}):
        for lo, hi in itertools.pairwise(edges):
            sel = [r for r in rows if r["products"] == n and lo <= r["postings"] < hi]
            if sel:
                wins = sum(r["exhaustive"] < r["maxscore"] for r in sel)
                print(f"| {_label(n)} | {lo:,}-{hi:,} | {len(sel)} | {statistics.median(r['terms'] for r in sel):g} | "
                      f"{statistics.median(r['exhaustive'] for r in sel):.3f} | "
                      f"{statistics.median(r['maxscore'] for r in sel):.3f} | {wins}/{len(sel)} |")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("stores", nargs="*", type=Path, help="prepared stores (benchmarks/scale.py --workdir leaves them)")
    ap.add_argument("--small", type=Path, default=SMALL, help="WebShop's small set (skipped when absent)")
    ap.add_argument("--queries", type=int, default=300)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--k", type=int, default=50)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--calibrate", action="store_true", help="time both algorithms per query, by postings")
    ap.add_argument("--dump", type=Path, help="with --calibrate: every query's row as JSON lines")
    ap.add_argument("--json", action="store_true", help="the latency rows as one JSON list, no table")
    ap.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                    help="cpu: this thread's CPU time, steadier than wall time on a shared, loaded machine")
    args = ap.parse_args(argv)
    catalogs = ([args.small] if (args.small / "items_shuffle_1000.json").exists() else []) + list(args.stores)
    if not catalogs:
        ap.error(f"no catalog: {args.small} is absent and no STORE was given")
    clock = time.thread_time if args.clock == "cpu" else time.perf_counter
    if args.calibrate:
        calibrate(catalogs, args.queries, args.k, args.seed, args.dump, clock)
    elif args.json:
        print(json.dumps(latency_table(catalogs, args.queries, args.rounds, args.k, args.seed, clock, quiet=True)))
    else:
        latency_table(catalogs, args.queries, args.rounds, args.k, args.seed, clock)
    return 0


if __name__ == "__main__":
    sys.exit(main())
