"""``shopsim search-eval``: Recall@1/20/150 and MRR@150 of each task's own product (v8 profile)."""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from shopsim.errors import ConfigError
from shopsim.simsite.profiles import get_profile

__all__ = ["register"]


def cmd_search_eval(args: argparse.Namespace) -> int:
    """Evaluate the v8 index with both oracle queries and print a table (or JSON)."""
    if get_profile(args.profile).search_eval is None:
        raise ConfigError(f"search-eval is for the shopsim-v8 profile (got --profile {args.profile})")
    from shopsim.simsite.v8.search_eval import evaluate_search
    from shopsim.simsite.v8.shop import V8Shop

    if args.split and args.goals:
        raise ConfigError("--split and --goals both choose the tasks: give one")
    goals = f"{_split_file(args)}:{args.split}" if args.split else args.goals
    t0 = time.perf_counter()
    shop = V8Shop.load(args.data, engine=args.engine)  # a prepared folder brings its saved index
    task_ids = [shop.goal(i).task_id for i in shop.goal_indices(goals)] if goals else None
    if task_ids == []:  # recall over no task would print 0.00% as if the index had failed them all
        raise ConfigError(f"{'--split ' + args.split if args.split else '--goals ' + str(goals)} selects no task; "
                          "nothing to evaluate (a source-group split is empty when the archive had no task from "
                          "that source: see annotate-budgets --eval-products)")
    t1 = time.perf_counter()
    rep = evaluate_search(shop.catalog, shop.search_engine, task_ids, workers=args.workers)
    t2 = time.perf_counter()
    if args.json:
        print(rep.model_dump_json(exclude=None if args.per_task else {"gold_ranks"}))
        return 0
    where = f" (split {args.split})" if args.split else ""
    print(f"shopsim search-eval: {rep.tasks} tasks{where} on {rep.products} products; engine {rep.engine}; "
          f"{rep.search_version}; load + index {t1 - t0:.1f} s, queries {t2 - t1:.1f} s ({args.workers} workers)")
    print(f"  {'oracle query':<20} {'Recall@1':>9} {'Recall@20':>10} {'Recall@150':>11} {'MRR@150':>8}")
    for row in rep.rows:
        print(f"  {row.query_kind:<20} {100 * row.recall_at_1:>8.2f}% {100 * row.recall_at_20:>9.2f}% "
              f"{100 * row.recall_at_150:>10.2f}% {row.mrr_at_150:>8.4f}")
    if args.per_task:
        print("\n  task id  simple rank  full rank  (- = not in the top 150)")
        for tid, (s, f) in rep.gold_ranks.items():
            print(f"  {tid:>7}  {s if s else '-':>11}  {f if f else '-':>9}")
    return 0


def _split_file(args: argparse.Namespace) -> Path:
    """``--split-file``, else the source-group file in the prepared folder (or beside the catalog file)."""
    from shopsim.simsite.v8.source_splits import SOURCE_SPLITS_FILE

    if args.split_file:
        return Path(args.split_file)
    if args.data is None:
        raise ConfigError(f"--split {args.split} needs --split-file FILE (the bundled catalog has no {SOURCE_SPLITS_FILE})")
    data = Path(args.data)
    found = (data if data.is_dir() else data.parent) / SOURCE_SPLITS_FILE
    if not found.is_file():
        raise ConfigError(f"--split {args.split}: no {SOURCE_SPLITS_FILE} in {found.parent}; pass --split-file FILE")
    return found


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``search-eval`` to the command line."""
    se = sub.add_parser("search-eval", help="v8 search quality: gold-product Recall@1/20/150 and MRR@150")
    se.add_argument("--profile", default="shopsim-v8", choices=["shopsim-v8", "webshop"],
                    help="only shopsim-v8 has this check (default: shopsim-v8)")
    se.add_argument("--data", default=None,
                    help="a v8 catalog (.json/.json.gz) or a prepared folder (default: the bundled v8 catalog)")
    se.add_argument("--goals", default=None,
                    help="'A:B', 'N', 'A,B,C' (task positions), 'task:ID,ID' or 'splits.json:NAME' (default: all)")
    se.add_argument("--split", default=None,
                    help="a group of the source-group split file (persona_eval, standard_eval, persona_train, ...) "
                         "or of any split file given with --split-file")
    se.add_argument("--split-file", default=None,
                    help="default: task_splits.cleaned.v2.json in the --data folder (or beside the --data file)")
    se.add_argument("--workers", type=int, default=1,
                    help="query threads (the seed's flag); the report is identical for any N, but it is not faster: "
                         "fts5 runs one query at a time on its connection and numpy holds the GIL")
    se.add_argument("--engine", default="default", choices=["default", "fts5", "numpy"])
    se.add_argument("--per-task", action="store_true", help="list (or, with --json, include) each task's gold ranks")
    se.add_argument("--json", action="store_true")
    se.set_defaults(func=cmd_search_eval)
