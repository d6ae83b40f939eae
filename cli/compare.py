"""``shopsim compare``: two evaluation runs side by side, with a paired per-goal difference."""

from __future__ import annotations

import argparse

__all__ = ["register"]


def cmd_compare(args: argparse.Namespace) -> int:
    """Print both runs' metrics (with intervals) and the paired difference B - A per goal."""
    from shopsim.agents.reports.compare import compare_runs, format_comparison

    result = compare_runs(args.run_a, args.run_b, seed=args.seed)
    if args.json:
        print(result.model_dump_json(exclude={"per_goal"} if not args.per_goal else None))
        return 0
    print(f"shopsim compare: A={args.run_a}  B={args.run_b}")
    print(format_comparison(result))
    if args.per_goal:
        print("\n  goal  reward A  reward B  B - A")
        for d in result.per_goal:
            print(f"  {d.goal_index:>4}  {d.reward_a:8.3f}  {d.reward_b:8.3f}  {d.diff:+.3f}")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``compare`` to the command line."""
    cp = sub.add_parser("compare", help="compare two evaluation runs (paired per goal, bootstrap intervals)")
    cp.add_argument("run_a", metavar="RUN_A", help="run folder written by `shopsim eval --out`")
    cp.add_argument("run_b", metavar="RUN_B", help="the run to compare against RUN_A (differences are B - A)")
    cp.add_argument("--per-goal", action="store_true", help="also list every common goal's rewards")
    cp.add_argument("--seed", type=int, default=0, help="bootstrap seed")
    cp.add_argument("--json", action="store_true")
    cp.set_defaults(func=cmd_compare)
