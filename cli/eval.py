"""``shopsim eval``: evaluate an agent through any page source, in parallel, resumably."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any

from shopsim.agents.registry import AGENTS, check_agent
from shopsim.agents.reports.cost import parse_prices
from shopsim.agents.reports.summary_text import agent_failure_line, breakdown_lines, run_line, summary_rows
from shopsim.cli.options import agent_options, load_shop, max_steps_for, print_table, shop_args
from shopsim.errors import ConfigError
from shopsim.simsite.perturb import parse_perturb
from shopsim.simsite.skins import PLAIN_SKIN, SKIN_CHOICES

if TYPE_CHECKING:
    from shopsim.agents.reports.metrics import Summary
    from shopsim.simsite.profiles import Profile

__all__ = ["register"]


def cmd_eval(args: argparse.Namespace) -> int:
    """Evaluate an agent through a page source and write traces, episodes and a summary."""
    from shopsim.agents.evaluation.config import EvalConfig
    from shopsim.agents.evaluation.runner import run_eval
    from shopsim.cli.options import agent_timeouts
    from shopsim.simsite.profiles import get_profile

    profile = get_profile(args.profile)
    max_steps = max_steps_for(args, profile)  # refuses a mode the profile lacks before anything loads
    prices = parse_prices(args.price_per_1k_tokens) if args.price_per_1k_tokens is not None else None
    _refuse_flags_that_do_not_apply(args, profile)
    if args.executor == "ray":  # fail before loading anything: one line that says how to install Ray
        from shopsim.agents.evaluation.ray_executor import require_ray

        require_ray()
    step_timeout, episode_timeout = agent_timeouts(args.agent_timeout)
    options = _agent_options(args)
    check_agent(args.agent, args.seed, options)  # fail early on an unknown agent, bad options, a bad skills file
    goals, n_products = _goals_and_products(args)
    cfg = EvalConfig(agent=args.agent, adapter=args.adapter, browser_mode=args.browser_mode, skin=args.skin, perturb=args.perturb,
                     data=args.data,
                     num_products=args.num_products, human_goals=args.human_goals, goals=goals,
                     workers=args.workers, executor=args.executor, address=args.address, seed=args.seed,
                     out=args.out, max_steps=max_steps,
                     strict=args.strict, base_url=args.url, browser_path=args.browser, screenshots=args.screenshots,
                     agent_options=options, bundle=args.bundle, goal_file=args.goal_file, bundle_map=args.bundle_map,
                     action_model=args.action_model, profile=profile.name, task_mode=args.task_mode,
                     interaction_mode=args.interaction_mode, engine=args.engine, trace=args.trace,
                     price_per_1k_tokens=prices, step_timeout=step_timeout, episode_timeout=episode_timeout)
    try:
        summary, extra = run_eval(cfg)
    except KeyboardInterrupt as stop:  # Ctrl-C, or SIGTERM (RunTerminated): the summary says aborted
        from shopsim.agents.evaluation.runner import RunTerminated

        how = "terminated (SIGTERM)" if isinstance(stop, RunTerminated) else "interrupted"
        print(f"shopsim eval: {how}; finished episodes are kept in {args.out} (summary.json: status aborted); "
              "run the same command again to resume", file=sys.stderr)
        if isinstance(stop, RunTerminated):
            return 143  # 128 + SIGTERM, as the shell reports a process SIGTERM ended
        raise
    if args.json:
        print(json.dumps({**summary.model_dump(), **extra, "out": args.out}))
        return 0
    _print_run(args, profile.name, summary, extra, n_products)
    return 0


def _refuse_flags_that_do_not_apply(args: argparse.Namespace, profile: Profile) -> None:
    """One line for a flag this adapter, profile or executor cannot use, before anything loads."""
    if args.trace != "off" and args.adapter != "browser":
        raise ConfigError(f"--trace {args.trace} records Playwright traces of a real browser: it needs "
                          f"--adapter browser (not {args.adapter})")
    if parse_perturb(args.perturb, args.seed).active and (args.adapter != "browser" or args.url is not None):
        raise ConfigError(f"--perturb {args.perturb} varies the pages of the shop eval starts for --adapter browser"
                          + ("; start the server at --url with `shopsim serve --perturb`" if args.url else ""))
    if args.skin != PLAIN_SKIN and (args.adapter != "browser" or args.url is not None):
        raise ConfigError(f"--skin {args.skin} draws the pages of the shop eval starts for --adapter browser; "
                          + ("a server at --url has its own: start it with `shopsim serve --skin`" if args.url
                             else f"--adapter {args.adapter} reads no HTML pages"))
    if args.adapter not in profile.adapters:
        raise ConfigError(f"--profile {profile.name} runs its episodes through --adapter "
                          f"{' or '.join(profile.adapters)}, not {args.adapter}")
    if args.address is not None and args.executor != "ray":
        raise ConfigError(f"--address {args.address} names a Ray cluster: it needs --executor ray")


def _goals_and_products(args: argparse.Namespace) -> tuple[list[int], int]:
    """The goal indices to play and the catalog's size (0 for replayed bundles); a bad spec fails here."""
    from shopsim.simsite.goals import parse_goal_spec

    if args.adapter == "replay":
        from shopsim.agents.transfer.replay_goals import ReplayGoals

        replay = ReplayGoals(args.bundle, args.goal_file, args.bundle_map)  # a bad pairing fails here, in one line
        goals = parse_goal_spec(args.goals, len(replay.goals))
        replay.check(goals)
        return goals, 0
    if args.bundle_map or args.action_model != "sim":
        raise ConfigError(f"{'--bundle-map' if args.bundle_map else '--action-model'} is for --adapter replay")
    shop = load_shop(args)
    return shop.goal_indices(args.goals), len(shop.products)


def _print_run(args: argparse.Namespace, profile: str, summary: Summary, extra: dict[str, Any], n_products: int) -> None:
    """The terminal summary: what ran, the table, the breakdown, failures and where the files are."""
    mode = "/" + args.browser_mode if args.adapter == "browser" else ""
    on = f" executor=ray ({args.workers} actors)" if args.executor == "ray" else ""
    print(f"shopsim eval: profile={profile} agent={args.agent} adapter={args.adapter}{mode}{on} goals={args.goals} "
          f"({summary.episodes} episodes, {extra['episodes_run_now']} run now)"
          + (f" on {n_products} products" if n_products else ""))
    print_table(summary_rows(summary, extra))
    for line in breakdown_lines(extra.get("breakdown") or {}):
        print(line)
    print(run_line(extra.get("run") or {}))
    if extra.get("agent_failures"):
        print(agent_failure_line(extra["agent_failures"], f"agent_failure in {args.out}/episodes.jsonl"))
    print(f"traces: {args.out}/traces.jsonl  summary: {args.out}/summary.json  report: {args.out}/report.html")
    if extra.get("traces"):
        t = extra["traces"]
        print(f"playwright traces ({t['mode']}): {t['kept']} in {args.out}/{t['folder']}/"
              + (f"; open one with: playwright show-trace {args.out}/{t['example']}" if t.get("example") else ""))


def _agent_options(args: argparse.Namespace) -> dict[str, str]:
    """``--agent-option`` pairs, with ``--skills`` (the assisted conditions' skill context) as one of them."""
    options = agent_options(args.agent_option)
    if args.skills is not None:
        if not args.skills.strip():  # as an option it would read as None: a skill-free run nobody asked for
            raise ConfigError("--skills: give the path of a skill context file (text or markdown)")
        if "skills" in options:
            raise ConfigError("give the skill context once: --skills FILE or --agent-option skills=FILE")
        options["skills"] = args.skills
    return options


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``eval`` to the command line."""
    from shopsim.agents.evaluation.config import ADAPTERS, EXECUTORS, TRACE_MODES
    from shopsim.agents.evaluation.ray_executor import INSTALL_HINT
    from shopsim.cli.options import agent_timeout_arg

    ev = sub.add_parser("eval", help="evaluate an agent through a page source; write traces and a summary")
    ev.add_argument("--agent", default="rule", help=f"one of {', '.join(sorted(AGENTS))}")
    ev.add_argument("--adapter", default="inprocess", choices=ADAPTERS)
    ev.add_argument("--browser-mode", default="click", choices=("url", "click"))
    ev.add_argument("--skin", default="webshop", choices=SKIN_CHOICES,
                    help="browser adapter: the shop's pages drawn like amazon, ebay or a generic shop, or random "
                         "(one per goal): docs/skins.md")
    ev.add_argument("--perturb", default="none", help="browser adapter: " + "seeded page variations over the skin, comma-separated: sponsored, count, order, price_range, "
                         "out_of_stock, lazy, banner, locale=de|fr, labels=de|fr, or random (docs/skins.md)")
    ev.add_argument("--browser", default=None, help="path to a Chromium executable")
    ev.add_argument("--url", default=None, help="a running shop server (default: start one on 127.0.0.1)")
    ev.add_argument("--goals", default="0:100", help="'A:B', 'N', 'A,B,C' or test/eval/train")
    ev.add_argument("--workers", type=int, default=1, help="worker processes (local) or Ray actors (ray)")
    ev.add_argument("--executor", default="local", choices=EXECUTORS,
                    help="local: worker processes on this machine (default); ray: Ray actors, on a local "
                         f"cluster sized by --workers or the one --address names ({INSTALL_HINT})")
    ev.add_argument("--address", default=None, metavar="auto|ray://HOST:PORT",
                    help="--executor ray: connect to this running Ray cluster (default: start a local one)")
    ev.add_argument("--out", default="runs/latest", help="run folder (resumes when it has finished episodes)")
    ev.add_argument("--max-steps", type=int, default=None,
                    help="actions per episode (default: 15 for webshop, the profile's action limit otherwise)")
    ev.add_argument("--task-mode", default=None, choices=("standard", "persona"),
                    help="shopsim-v8: show every task in this mode (default: each task's own)")
    ev.add_argument("--interaction-mode", default="single_turn", choices=("single_turn", "multi_turn"),
                    help="shopsim-v8: multi_turn adds ask[question], answered by the shopper simulator (40 actions); "
                         "default single_turn")
    ev.add_argument("--strict", action="store_true")
    ev.add_argument("--screenshots", action="store_true", help="save a screenshot per browser step")
    ev.add_argument("--trace", default="off", choices=TRACE_MODES,
                    help="browser adapter: save a Playwright trace per episode as OUT/traces/goal-<N>.zip "
                         "(failures: only episodes with r_success 0; all: every episode); open one with "
                         "`playwright show-trace FILE` (default: off)")
    ev.add_argument("--price-per-1k-tokens", default=None, metavar="IN,OUT",
                    help="prices of 1,000 prompt (input) and 1,000 completion (output) tokens, e.g. 0.15,0.6: "
                         "adds the cost per episode and in total (from the agent's token counts) to the "
                         "summary and report; any currency (default: no cost shown)")
    agent_timeout_arg(ev)
    ev.add_argument("--json", action="store_true")
    ev.add_argument("--agent-option", action="append", metavar="KEY=VALUE", help="an agent setting (repeatable)")
    ev.add_argument("--skills", default=None, metavar="FILE",
                    help="a skill context file (text or markdown) the llm agent adds to its system context "
                         "(assisted conditions); its path and SHA-256 go into summary.json's run block")
    ev.add_argument("--bundle", default=None, help="replay: a recorded bundle (it serves every goal), or a folder "
                                                   "of bundles (each carrying its goal, or paired by --bundle-map)")
    ev.add_argument("--goal-file", default=None, help="replay: goals (JSONL, WebShop's goal format; default: the "
                                                      "goals the bundles carry)")
    ev.add_argument("--bundle-map", default=None, help="replay: JSON or JSONL mapping goal index or goal id (asin) "
                                                       "to a bundle folder (relative to --bundle, else to this file)")
    ev.add_argument("--action-model", default="sim", choices=("sim", "native"),
                    help="replay: real pages with the sim's action model (sim, the default: a search bar on the "
                         "search page only) or the site's own search bar on every page (native)")
    shop_args(ev)
    ev.set_defaults(func=cmd_eval)


