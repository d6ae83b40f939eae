"""``shopsim record``: record a browsing session (live site or the local sim) into a replayable bundle."""

from __future__ import annotations

import argparse
import json
from contextlib import ExitStack
from urllib.parse import urljoin

from shopsim.errors import ConfigError

__all__ = ["register"]


def cmd_record(args: argparse.Namespace) -> int:
    """Drive Chromium through a session and write the bundle (see ``shopsim.adapters.bundle``)."""
    from shopsim.adapters.record import read_actions, record_session

    if (args.actions is None) == (args.agent is None):
        raise ConfigError("give exactly one of --actions FILE or --agent NAME")
    actions = read_actions(args.actions) if args.actions else None  # before a server or browser starts
    instruction, goal = None, None
    site = args.site or ("simsite" if args.serve else None)
    with ExitStack() as stack:
        start = args.start_url
        if args.serve:
            from shopsim.simsite.server import serve_shop
            from shopsim.simsite.shop import Shop, ShopConfig

            server = stack.enter_context(serve_shop(Shop.from_config(ShopConfig(seed=args.seed))))
            start = urljoin(server.base_url + "/", (start or f"fixed_{args.goal_index or 0}").lstrip("/"))
        if not start:
            raise ConfigError("--start-url is required (or --serve to record the local sim)")
        if site is None:
            from shopsim.translators.detect import detect_site

            site = detect_site("", None, start)
            if site == "unknown":
                raise ConfigError(f"cannot tell the site of {start}: pass --site amazon|ebay|simsite")
        if args.goal:
            from shopsim.simsite.goals import load_goal_file

            goals = load_goal_file(args.goal)
            index = args.goal_index or 0
            if not 0 <= index < len(goals):
                raise ConfigError(f"--goal-index {index} out of range: {args.goal} has {len(goals)} goals")
            goal = goals[index]
            instruction = goal.instruction_text
        agent = None
        if args.agent is not None:
            from shopsim.agents.registry import make_agent

            agent = make_agent(args.agent, args.seed)
        how = "shopsim record " + " ".join(
            f"--{k.replace('_', '-')} {v}" for k, v in (("actions", args.actions), ("agent", args.agent),
                                                          ("goal", args.goal), ("goal_index", args.goal_index))
            if v is not None) + (" --serve" if args.serve else "")
        result = record_session(start, args.out, site=site, actions=actions, agent=agent, instruction=instruction,
                                har=args.har, max_steps=args.max_steps, executable_path=args.browser,
                                recorder_note=how, goal=goal)
    if args.json:
        print(json.dumps(result.model_dump()))
    else:
        print(f"shopsim record: {result.pages} pages, {result.steps} steps -> {result.bundle}"
              + (" (ended with buy now)" if result.purchased else "") + (f", HAR {result.har}" if result.har else ""))
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``record`` to the command line."""
    p = sub.add_parser("record", help="record a browsing session into a replayable bundle")
    p.add_argument("--start-url", default=None, help="first page (with --serve: a path on the local sim, "
                                                      "default /fixed_<goal-index>)")
    p.add_argument("--out", required=True, help="bundle folder to create")
    p.add_argument("--actions", default=None, help="file with one action per line")
    p.add_argument("--agent", default=None, help="agent name (see `shopsim run --help`)")
    p.add_argument("--goal", default=None, help="goal file (JSONL, or one goal as .json; see `shopsim goals export`): "
                                                "the instruction shown to the agent; the goal is saved in the "
                                                "manifest, so `eval --adapter replay` knows which goal the bundle is for")
    p.add_argument("--goal-index", type=int, default=None, help="goal in --goal, or the sim's goal with --serve")
    p.add_argument("--site", choices=["amazon", "ebay", "simsite"], default=None)
    p.add_argument("--serve", action="store_true", help="serve the bundled sim on 127.0.0.1 and record it")
    p.add_argument("--har", action="store_true", help="also save the browser's HAR as session.har")
    p.add_argument("--max-steps", type=int, default=15)
    p.add_argument("--browser", default=None, help="Chromium executable (default: Playwright's or the system one)")
    p.add_argument("--seed", type=int, default=0, help="sim seed (with --serve) and agent seed")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.set_defaults(func=cmd_record)
