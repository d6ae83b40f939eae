"""``shopsim search``: rank queries with a profile's engine, one JSON line per query, or one as a table.

The output lines have the shape of WebShop's golden ranking file (``query``, ``results`` as
``[asin, score]`` best first), so two runs, two engines or shopsim and WebShop can be diffed, and
``--compare REF`` says how far a run is from a reference and exits 1 when any ranking differs.
Scores are rounded to five decimals; the ``lucene`` engine reports them as Pyserini does.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from shopsim.cli.options import load_shop, print_table, shop_args
from shopsim.errors import ConfigError, DataError
from shopsim.simsite.profiles import ShopLike

__all__ = ["register"]

MAX_QUERY_LINE = 100_000


def _read_queries(path: str) -> Iterator[tuple[dict[str, Any], str]]:
    """``(record, query)`` per line of a JSONL file; each record needs a string ``query``."""
    p = Path(path)
    if not p.is_file():
        raise ConfigError(f"--queries {path}: no such file")
    with p.open(encoding="utf-8", errors="strict") as f:
        lines = enumerate(f, 1)
        while True:
            try:
                n, line = next(lines)
            except StopIteration:
                return
            except UnicodeDecodeError:
                raise DataError(f"{path}: not UTF-8 text") from None
            if not line.strip():
                continue
            if len(line) > MAX_QUERY_LINE:
                raise DataError(f"{path}:{n}: line longer than {MAX_QUERY_LINE} characters")
            try:
                rec = json.loads(line)
            except json.JSONDecodeError as exc:
                raise DataError(f"{path}:{n}: not JSON ({exc.msg})") from None
            if not isinstance(rec, dict) or not isinstance(rec.get("query"), str):
                raise DataError(f"{path}:{n}: expected an object with a string \"query\"")
            yield rec, rec["query"]


def _ranker(shop: ShopLike, k: int) -> Any:
    """``query -> [(asin, score), ...]`` as the profile's session would search it."""
    from shopsim.simsite.lucene.bm25 import anserini_scores
    from shopsim.simsite.search import LuceneEngine

    engine = shop.search_engine
    if shop.profile.engine_scored:
        if not hasattr(engine, "scored"):
            raise ConfigError(f"the {type(engine).__name__} engine reports no scores")

        def rank(query: str) -> list[tuple[str, float]]:
            hits = engine.scored(query.lower(), k)  # WebShop lower-cases what it searches
            if isinstance(engine, LuceneEngine):
                return list(zip([a for a, _ in hits], anserini_scores([s for _, s in hits]), strict=True))
            return hits

        return rank
    return lambda query: engine.search(query, k)


def _compare(ours: list[list[str]], ref_path: str) -> tuple[list[tuple[str, str]], bool]:
    refs = [[r[0] for r in rec.get("results", [])] for rec, _ in _read_queries(ref_path)]
    if len(refs) != len(ours):
        raise DataError(f"--compare {ref_path}: {len(refs)} queries, but --queries has {len(ours)}")
    n = max(1, len(ours))
    same = {depth: sum(a[:depth] == b[:depth] for a, b in zip(ours, refs, strict=True)) for depth in (1, 10, 50)}
    full = sum(a == b for a, b in zip(ours, refs, strict=True))
    rows = [(f"same top-{d} in order", f"{same[d]}/{len(ours)} ({100 * same[d] / n:.2f}%)") for d in (1, 10, 50)]
    rows.append(("identical rankings", f"{full}/{len(ours)} ({100 * full / n:.2f}%)"))
    return rows, full == len(ours)


def cmd_search(args: argparse.Namespace) -> int:
    """Rank one query (a table) or a JSONL file of them (JSONL out)."""
    if (args.query is None) == (args.queries is None):
        raise ConfigError("give one QUERY or --queries FILE.jsonl")
    if args.k is not None and not 1 <= args.k <= 1000:
        raise ConfigError(f"--k {args.k}: must be between 1 and 1000")
    shop = load_shop(args)
    k = args.k or shop.profile.results_per_query
    rank = _ranker(shop, k)
    if args.query is not None:
        hits = rank(args.query)
        print(f"shopsim search: {len(hits)} results for {args.query!r} ({shop.profile.name}, "
              f"{len(shop.products)} products)")
        for i, (asin, score) in enumerate(hits, 1):
            print(f"  {i:>3}  {asin:<12} {score:>9.4f}  {shop.products[asin].title[:70]}")
        return 0
    t0 = time.perf_counter()
    out_lines, rankings = [], []
    for _, query in _read_queries(args.queries):
        hits = rank(query)
        rankings.append([a for a, _ in hits])
        out_lines.append(json.dumps({"query": query, "results": [[a, round(s, 5)] for a, s in hits]}, ensure_ascii=False))
    seconds = time.perf_counter() - t0
    if args.out in (None, "-"):
        sys.stdout.write("".join(line + "\n" for line in out_lines))
    else:
        tmp = Path(f"{args.out}.tmp")
        tmp.write_text("".join(line + "\n" for line in out_lines), encoding="utf-8")
        os.replace(tmp, args.out)
    say = print if args.out not in (None, "-") else (lambda *a: print(*a, file=sys.stderr))
    say(f"shopsim search: {len(out_lines)} queries in {seconds:.2f} s "
        f"({1000 * seconds / max(1, len(out_lines)):.2f} ms each) -> {args.out or 'stdout'}")
    if args.compare:
        rows, identical = _compare(rankings, args.compare)
        say(f"compared with {args.compare}:")
        if say is print:
            print_table(rows)
        else:
            for key, value in rows:
                say(f"  {key}  {value}")
        return 0 if identical else 1
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``search`` to the command line."""
    se = sub.add_parser("search", help="rank queries with the profile's search engine (JSONL, or a table for one query)")
    se.add_argument("query", nargs="?", default=None, help="one query, printed as a table")
    se.add_argument("--queries", default=None, help="a JSONL file with a \"query\" per line")
    se.add_argument("--out", default=None, help="where the JSONL rankings go (default: stdout)")
    se.add_argument("--k", type=int, default=None, help="results per query (default: the profile's, 50 for webshop)")
    se.add_argument("--compare", default=None, metavar="REF.jsonl",
                    help="a reference ranking file in the same shape: report agreement; exit 1 if any differs")
    shop_args(se)
    se.set_defaults(func=cmd_search)
