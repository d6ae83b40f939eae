"""``shopsim transfer``: run an agent on a replayed real-site bundle and score the purchase like the sim."""

from __future__ import annotations

import argparse
import json
import os
import stat

from shopsim.errors import ConfigError

__all__ = ["register"]


def cmd_transfer(args: argparse.Namespace) -> int:
    """Replay the bundle with the goal's instruction; print reward, r_strict, r_success and the breakdown."""
    from shopsim.adapters.bundle import Bundle
    from shopsim.agents.base import Agent
    from shopsim.agents.registry import make_agent
    from shopsim.agents.transfer.bundle_episode import ScriptedAgent, run_transfer
    from shopsim.simsite.goals import load_goal_file

    if (args.agent is None) == (args.actions is None):
        raise ConfigError("give exactly one of --agent NAME or --actions FILE")
    for option, path in (("--goal", args.goal), ("--actions", args.actions)):
        _regular_or_missing(option, path)
    bundle = Bundle.load(args.bundle)
    if args.goal is not None:
        goals = load_goal_file(args.goal)
    elif bundle.manifest.goal is not None:  # recorded with `shopsim record --goal FILE`
        goals = [bundle.manifest.goal]
    else:
        raise ConfigError(f"--goal FILE is needed: bundle {args.bundle} carries no goal "
                          "(record it with `shopsim record --goal FILE` to save one)")
    if not 0 <= args.goal_index < len(goals):
        raise ConfigError(f"--goal-index {args.goal_index} out of range: {args.goal or 'the bundle'} has "
                          f"{len(goals)} goals")
    agent: Agent
    if args.actions:
        from shopsim.adapters.record import read_actions

        agent = ScriptedAgent(read_actions(args.actions))
    else:
        agent = make_agent(args.agent, args.seed)
    result = run_transfer(bundle, goals[args.goal_index], agent, max_steps=args.max_steps,
                          action_model=args.action_model)
    if args.json:
        print(json.dumps(result.model_dump()))
        return 0
    b = result.breakdown or {}
    print(f"shopsim transfer: agent={result.agent} bundle={result.bundle} goal={result.goal_asin}")
    print(f"  actions: {' -> '.join(result.actions)}")
    print(f"  purchased: {result.purchased_id or 'nothing'}  reward={result.reward:.3f}  "
          f"r_strict={result.r_strict:.3f}  r_success={result.r_success:.0f}")
    if b:
        print(f"  r_type={b['r_type']} r_att={b['r_att']:.3f} r_option={b['r_option']} r_price={b['r_price']} "
              f"price_paid={b.get('price_paid')} options={b.get('options_chosen')}")
    return 0


def _regular_or_missing(option: str, path: str | None) -> None:
    """Refuse a FIFO, device or folder given as a file: reading one would block or fail obscurely.

    A missing file is left to its loader, which says so in its own words.
    """
    from shopsim.regular_files import file_kind

    try:
        mode = os.stat(path).st_mode if path else None
    except (OSError, ValueError):
        return
    if mode is not None and not stat.S_ISREG(mode):
        raise ConfigError(f"{option} {path} is {file_kind(mode)}, not a regular file")


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``transfer`` to the command line."""
    p = sub.add_parser("transfer", help="run an agent on a replayed real-site bundle and score its purchase")
    p.add_argument("--agent", default=None, help="agent name (rule, random, ...)")
    p.add_argument("--actions", default=None, help="instead of an agent: a file with one action per line")
    p.add_argument("--bundle", required=True, help="bundle folder (see shopsim.adapters.bundle)")
    p.add_argument("--goal", default=None, help="goals in WebShop's goal format (JSONL, or one goal as .json; see "
                                                "`shopsim goals export`); default: the goal the bundle carries")
    p.add_argument("--goal-index", type=int, default=0, help="which goal of --goal (default 0)")
    p.add_argument("--max-steps", type=int, default=15)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--action-model", choices=("sim", "native"), default="sim",
                   help="sim (default): pages shown with the sim's conventions and action model (search bar on "
                        "the search page only); native: the site's search bar on every page")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=cmd_transfer)
