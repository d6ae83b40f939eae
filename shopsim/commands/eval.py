"""``shopsim eval``: evaluate an agent through any page source, in parallel, resumably."""

from __future__ import annotations

import argparse
import json

from shopsim.agents.registry import AGENTS, make_agent
from shopsim.commands import agent_options, load_shop, print_table, shop_args
from shopsim.errors import ConfigError

__all__ = ["register"]


def cmd_eval(args: argparse.Namespace) -> int:
    """Evaluate an agent through a page source and write traces, episodes and a summary."""
    from shopsim.agents.runner import EvalConfig, run_eval
    from shopsim.simsite.goals import parse_goal_spec
    from shopsim.simsite.profiles import get_profile

    profile = get_profile(args.profile)
    if profile.name != "webshop" and args.adapter != "inprocess":
        raise ConfigError(f"--profile {profile.name} evaluates in-process for now (--adapter inprocess); "
                          "its HTTP API is served by `shopsim serve --profile` for your own clients")
    options = agent_options(args.agent_option)
    make_agent(args.agent, args.seed, options)  # fail early on an unknown agent or bad options
    if args.adapter == "replay":
        from shopsim.agents.replay_goals import ReplayGoals

        replay = ReplayGoals(args.bundle, args.goal_file, args.bundle_map)  # a bad pairing fails here, in one line
        n_goals, n_products = len(replay.goals), 0
        goals = parse_goal_spec(args.goals, n_goals)
        replay.check(goals)
    elif args.bundle_map:
        raise ConfigError("--bundle-map is for --adapter replay")
    else:
        shop = load_shop(args)
        n_goals, n_products = len(shop.goals), len(shop.products)
        goals = shop.goal_indices(args.goals)
    max_steps = args.max_steps or profile.default_max_actions or 15
    cfg = EvalConfig(agent=args.agent, adapter=args.adapter, browser_mode=args.browser_mode, data=args.data,
                     num_products=args.num_products, human_goals=args.human_goals, goals=goals,
                     workers=args.workers, seed=args.seed, out=args.out, max_steps=max_steps,
                     strict=args.strict, base_url=args.url, browser_path=args.browser, screenshots=args.screenshots,
                     agent_options=options, bundle=args.bundle, goal_file=args.goal_file, bundle_map=args.bundle_map,
                     profile=profile.name, task_mode=args.task_mode, engine=args.engine)
    summary, extra = run_eval(cfg)
    if args.json:
        print(json.dumps({**summary.model_dump(), **extra, "out": args.out}))
        return 0
    s = summary
    mode = "/" + args.browser_mode if args.adapter == "browser" else ""
    print(f"shopsim eval: profile={profile.name} agent={args.agent} adapter={args.adapter}{mode} goals={args.goals} "
          f"({s.episodes} episodes, {extra['episodes_run_now']} run now)" + (f" on {n_products} products" if n_products else ""))
    rows = [("score (100 x mean reward)", f"{s.score:.1f}"), ("success rate", f"{100 * s.success_rate:.1f}%"),
            ("r_strict / r_success", f"{s.r_strict:.3f} / {s.r_success:.3f}"),
            ("attribute / option / price / type", f"{s.r_att:.3f} / {s.r_option:.3f} / {s.r_price:.3f} / {s.r_type:.3f}"),
            ("average steps", f"{s.avg_steps:.2f}"),
            ("unique items / searches per episode", f"{extra['unique_items']:.2f} / {extra['searches_per_episode']:.2f}"),
            ("wall time", f"{extra['seconds']:.1f} s")]
    if extra.get("bundles"):
        used = [f"{b['path']} ({len(b['goals'])})" for b in extra["bundles"]]
        rows.append(("bundles (episodes)", ", ".join(used[:3]) + (f", ... {len(used)} in all" if len(used) > 3 else "")))
    if extra.get("agent_stats"):
        t = extra["agent_stats"]["total"]
        rows.append(("model requests / tokens (prompt + completion)",
                     f"{t.get('requests', 0)} / {t.get('total_tokens', 0)} ({t.get('prompt_tokens', 0)} + "
                     f"{t.get('completion_tokens', 0)})"))
        rows.append(("protocol errors / repairs / fallbacks / retries",
                     f"{t.get('protocol_errors', 0)} / {t.get('repairs', 0)} / {t.get('fallbacks', 0)} / {t.get('retries', 0)}"))
    if "resume" in extra:
        r = extra["resume"]
        dropped = sum(r["episode_lines_dropped"].values()), sum(r["trace_lines_dropped"].values())
        rows.append(("resumed: done before / rerun", f"{r['episodes_done']} / {r['episodes_rerun']} "
                     f"(dropped {dropped[0]} episode + {dropped[1]} trace lines; details in summary.json)"))
    print_table(rows)
    print(f"traces: {args.out}/traces.jsonl  summary: {args.out}/summary.json  report: {args.out}/report.html")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``eval`` to the command line."""
    from shopsim.agents.runner import ADAPTERS

    ev = sub.add_parser("eval", help="evaluate an agent through a page source; write traces and a summary")
    ev.add_argument("--agent", default="rule", help=f"one of {', '.join(sorted(AGENTS))}")
    ev.add_argument("--adapter", default="inprocess", choices=ADAPTERS)
    ev.add_argument("--browser-mode", default="click", choices=("url", "click"))
    ev.add_argument("--browser", default=None, help="path to a Chromium executable")
    ev.add_argument("--url", default=None, help="a running shop server (default: start one on 127.0.0.1)")
    ev.add_argument("--goals", default="0:100", help="'A:B', 'N', 'A,B,C' or test/eval/train")
    ev.add_argument("--workers", type=int, default=1)
    ev.add_argument("--out", default="runs/latest", help="run folder (resumes when it has finished episodes)")
    ev.add_argument("--max-steps", type=int, default=None,
                    help="actions per episode (default: 15 for webshop, the profile's action limit otherwise)")
    ev.add_argument("--task-mode", default=None, choices=("standard", "persona"),
                    help="shopsim-v8: show every task in this mode (default: each task's own)")
    ev.add_argument("--strict", action="store_true")
    ev.add_argument("--screenshots", action="store_true", help="save a screenshot per browser step")
    ev.add_argument("--json", action="store_true")
    ev.add_argument("--agent-option", action="append", metavar="KEY=VALUE", help="an agent setting (repeatable)")
    ev.add_argument("--bundle", default=None, help="replay: a recorded bundle (it serves every goal), or a folder "
                                                   "of bundles (each carrying its goal, or paired by --bundle-map)")
    ev.add_argument("--goal-file", default=None, help="replay: goals (JSONL, WebShop's goal format; default: the "
                                                      "goals the bundles carry)")
    ev.add_argument("--bundle-map", default=None, help="replay: JSON or JSONL mapping goal index or goal id (asin) "
                                                       "to a bundle folder (relative to --bundle, else to this file)")
    shop_args(ev)
    ev.set_defaults(func=cmd_eval)


