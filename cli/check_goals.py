"""``shopsim check-goals``: can each goal be solved from a search of its instruction? (ceiling)."""

from __future__ import annotations

import argparse

from shopsim.cli.options import load_shop, print_table, shop_args

__all__ = ["register"]


def cmd_check_goals(args: argparse.Namespace) -> int:
    """Report per-goal ceilings and the overall ceiling score of a goal set."""
    from shopsim.simsite.profiles import get_profile

    shop = load_shop(args)
    goals = shop.goal_indices(args.goals)
    rep = get_profile(args.profile).part("goal_checker")(shop, goals, pages=args.pages)
    if args.json:
        print(rep.model_dump_json(exclude=None if args.per_goal else {"per_goal"}))
        return 0
    print(f"shopsim check-goals: goals={args.goals} ({rep.goals} goals) on {len(shop.products)} products; "
          f"oracle over {rep.pages} result pages of the instruction's search")
    print_table([
        ("ceiling score (100 x mean best reward)", f"{rep.ceiling_score:.1f}"),
        ("reward 1.0 reachable", f"{100 * rep.reachable_rate:.1f}%"),
        ("r_success reachable", f"{100 * rep.strict_reachable_rate:.1f}%"),
        ("target ASIN in results", f"{100 * rep.target_in_results_rate:.1f}%"),
        ("target itself scores 1.0", f"{100 * rep.target_reachable_rate:.1f}%"),
        ("results per goal", f"{rep.results_per_goal:.1f}"),
        ("noun tagger", rep.noun_source),
        ("time", f"{rep.seconds:.1f} s"),
    ])
    stuck = [r for r in rep.per_goal if not r.reachable]
    shown = rep.per_goal if args.per_goal else stuck[: args.show]
    if shown:
        title = "goals" if args.per_goal else f"unreachable goals (first {len(shown)} of {len(stuck)})"
        print(f"\n  {title}: goal, best reward, target rank, instruction")
        for r in shown:
            rank = str(r.target_rank) if r.target_rank else "-"
            print(f"  {r.goal_index:>5}  {r.best_reward:.3f}  {rank:>4}  {r.instruction[:90]}")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``check-goals`` to the command line."""
    cg = sub.add_parser("check-goals", help="per-goal ceiling: the best reward reachable from the instruction's search")
    cg.add_argument("--goals", default="test", help="'A:B', 'N', 'A,B,C' or test/eval/train (default: test)")
    cg.add_argument("--pages", type=int, default=5,
                    help="result pages an oracle looks through (webshop: 10 a page, max 5; shopsim-v8: 20 a page)")
    cg.add_argument("--show", type=int, default=10, help="list this many unreachable goals")
    cg.add_argument("--per-goal", action="store_true", help="list (or, with --json, include) every goal")
    cg.add_argument("--json", action="store_true")
    shop_args(cg)
    cg.set_defaults(func=cmd_check_goals)
