"""``shopsim run``: evaluate an agent in-process (a user's agent, or any under ``--agent-timeout``: in a
watched worker process, as ``eval`` plays it) and print WebShop's metrics.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from collections import Counter
from typing import TYPE_CHECKING, Any

from shopsim.agents.registry import AGENTS, check_agent, make_agent
from shopsim.cli.options import agent_options, load_shop, max_steps_for, print_table, shop_args

if TYPE_CHECKING:
    from shopsim.agents.episode import EpisodeResult
    from shopsim.agents.evaluation.config import EvalConfig

__all__ = ["register"]


def cmd_run(args: argparse.Namespace) -> int:
    """Evaluate an agent in-process on a goal range and print WebShop's metrics."""
    from shopsim.adapters.env import ShopEnv
    from shopsim.agents.episode import agent_failure_counts, run_episode
    from shopsim.agents.evaluation.config import EvalConfig
    from shopsim.agents.evaluation.pool import isolated
    from shopsim.agents.reports.metrics import summarize
    from shopsim.agents.reports.summary_text import agent_failure_line
    from shopsim.cli.options import agent_timeouts
    from shopsim.simsite.profiles import get_profile

    t0 = time.perf_counter()
    profile = get_profile(args.profile)
    max_steps = max_steps_for(args, profile)  # refuses a mode the profile lacks before anything loads
    step_timeout, episode_timeout = agent_timeouts(args.agent_timeout)
    shop = load_shop(args)
    v8 = profile.episode_rules  # the env enforces the limit and task mode
    options = agent_options(args.agent_option)
    goals = shop.goal_indices(args.goals)
    watched = EvalConfig(agent=args.agent, goals=goals, out="", data=args.data, num_products=args.num_products,
                         human_goals=args.human_goals, seed=args.seed, max_steps=max_steps, strict=args.strict,
                         agent_options=options, profile=profile.name, task_mode=args.task_mode,
                         interaction_mode=args.interaction_mode, engine=args.engine,
                         step_timeout=step_timeout, episode_timeout=episode_timeout)
    if isolated(watched, 1):  # a timeout, or an agent that is not built in: in a worker process, as eval plays it
        check_agent(args.agent, args.seed, options)
        results = _play_watched(watched)
    else:
        env = ShopEnv(shop, strict=args.strict, max_steps=max_steps if v8 else None,
                      task_mode=args.task_mode if v8 else None,
                      interaction_mode=args.interaction_mode if v8 else "single_turn")
        agent = make_agent(args.agent, args.seed, options)
        if len(goals) > 50:
            shop.prime_nouns()
        results = [run_episode(env, agent, g, seed=args.seed, max_steps=max_steps) for g in goals]
    summary = summarize(results)
    failed = agent_failure_counts(r.agent_failure for r in results)
    elapsed = time.perf_counter() - t0
    if args.json:
        print(json.dumps({**summary.model_dump(), "agent": args.agent, "goals": args.goals, "profile": profile.name,
                          "catalog_products": len(shop.products), "seconds": round(elapsed, 3),
                          **({"agent_failures": failed} if failed else {})}))
        return 0
    s = summary
    print(f"shopsim run: profile={profile.name} agent={args.agent} goals={args.goals} ({s.episodes} episodes) on "
          f"{len(shop.products)} products, {len(shop.goals)} goals, noun tagger: {shop.nouns.source}")
    if v8:
        ends = Counter(r.termination or "none" for r in results)
        print(f"  reward is {profile.top_level_reward}; terminations: "
              + ", ".join(f"{k} {v}" for k, v in sorted(ends.items())))
    rows = [("score (100 x mean reward)", f"{s.score:.1f}"), ("success rate", f"{100 * s.success_rate:.1f}%"),
            ("r_strict (mean)", f"{s.r_strict:.3f}"), ("r_success (mean)", f"{s.r_success:.3f}"),
            ("attribute sub-score", f"{s.r_att:.3f}"), ("option sub-score", f"{s.r_option:.3f}"),
            ("price sub-score", f"{s.r_price:.3f}"), ("type sub-score", f"{s.r_type:.3f}"),
            ("average steps", f"{s.avg_steps:.2f}"), ("wall time", f"{elapsed:.1f} s")]
    print_table(rows)
    if failed:
        print(agent_failure_line(failed, "shopsim eval records it per episode (agent_failure)"))
    return 0


def _play_watched(cfg: EvalConfig) -> list[EpisodeResult]:
    """Play ``cfg``'s goals in a worker process the way ``eval`` does (its files go to a folder
    thrown away after): an agent that overruns ``--agent-timeout``, exits or crashes fails its episode.
    """
    from shopsim.agents.episode import EpisodeResult
    from shopsim.agents.evaluation.pool import run_todo

    records: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="shopsim-run-") as tmp:
        run_todo(cfg.model_copy(update={"out": tmp}), cfg.goals, records.append)
    order = {g: i for i, g in enumerate(cfg.goals)}
    return [EpisodeResult.model_validate(r) for r in sorted(records, key=lambda r: order[r["goal_index"]])]


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``run`` to the command line."""
    from shopsim.cli.options import agent_timeout_arg
    run = sub.add_parser("run", help="evaluate an agent in-process and print the results")
    run.add_argument("--agent", default="rule",
                     help=f"one of {', '.join(sorted(AGENTS))}, an installed shopsim.agents entry point, or module:Class")
    run.add_argument("--agent-option", action="append", metavar="KEY=VALUE",
                     help="an agent setting, typed by the agent's constructor, e.g. model=... or timeout=30 "
                          "for the llm agent (repeatable)")
    run.add_argument("--goals", default="0:500", help="'A:B', 'N', 'A,B,C' or test/eval/train")
    run.add_argument("--max-steps", type=int, default=None,
                     help="actions per episode (default: 15 for webshop, the profile's action limit otherwise)")
    run.add_argument("--task-mode", default=None, choices=("standard", "persona"),
                     help="shopsim-v8: show every task in this mode (default: each task's own)")
    run.add_argument("--interaction-mode", default="single_turn", choices=("single_turn", "multi_turn"),
                     help="shopsim-v8: multi_turn adds ask[question], answered by the shopper simulator (40 actions); "
                          "default single_turn")
    run.add_argument("--strict", action="store_true", help="ShopSimulator's strict rules")
    run.add_argument("--json", action="store_true", help="print one JSON object")
    agent_timeout_arg(run)
    shop_args(run)
    run.set_defaults(func=cmd_run)
