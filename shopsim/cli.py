"""The ``shopsim`` command line: run, serve, translate (more commands join as they land)."""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence

from shopsim.agents.base import Agent
from shopsim.errors import ConfigError, ShopsimError, did_you_mean
from shopsim.simsite.shop import Shop

__all__ = ["main"]

AGENTS = ("rule", "random")


def make_agent(name: str, seed: int) -> Agent:
    from shopsim.agents import RandomAgent, RuleAgent

    if name == "rule":
        return RuleAgent()
    if name == "random":
        return RandomAgent(seed=seed)
    raise ConfigError(f"unknown agent {name!r}; available: {', '.join(AGENTS)}.{did_you_mean(name, AGENTS)}")


def _shop_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--data", default=None, help="folder with WebShop-format files (default: the bundled catalog)")
    p.add_argument("--num-products", type=int, default=None, help="use only the first N products")
    p.add_argument("--human-goals", action="store_true", help="use human-written goals instead of synthetic ones")
    p.add_argument("--seed", type=int, default=0, help="seed for prices, price limits and goal draws")


def _load_shop(args: argparse.Namespace) -> Shop:
    from shopsim.simsite.shop import Shop, ShopConfig

    return Shop.from_config(ShopConfig(data_dir=args.data, num_products=args.num_products,
                                       human_goals=args.human_goals, seed=args.seed))


def cmd_run(args: argparse.Namespace) -> int:
    """Evaluate an agent in-process on a goal range and print WebShop's metrics."""
    from shopsim.adapters.env import ShopEnv
    from shopsim.agents.evaluate import run_episode, summarize
    from shopsim.simsite.goals import parse_goal_spec

    t0 = time.perf_counter()
    shop = _load_shop(args)
    env = ShopEnv(shop, strict=args.strict)
    agent = make_agent(args.agent, args.seed)
    goals = parse_goal_spec(args.goals, len(shop.goals))
    if len(goals) > 50:
        shop.prime_nouns()
    results = [run_episode(env, agent, g, seed=args.seed, max_steps=args.max_steps) for g in goals]
    summary = summarize(results)
    elapsed = time.perf_counter() - t0
    if args.json:
        print(json.dumps({**summary.model_dump(), "agent": args.agent, "goals": args.goals,
                          "catalog_products": len(shop.products), "seconds": round(elapsed, 3)}))
        return 0
    s = summary
    print(f"shopsim run: agent={args.agent} goals={args.goals} ({s.episodes} episodes) on "
          f"{len(shop.products)} products, {len(shop.goals)} goals, noun tagger: {shop.nouns.source}")
    rows = [("score (100 x mean reward)", f"{s.score:.1f}"), ("success rate", f"{100 * s.success_rate:.1f}%"),
            ("r_strict (mean)", f"{s.r_strict:.3f}"), ("r_success (mean)", f"{s.r_success:.3f}"),
            ("attribute sub-score", f"{s.r_att:.3f}"), ("option sub-score", f"{s.r_option:.3f}"),
            ("price sub-score", f"{s.r_price:.3f}"), ("type sub-score", f"{s.r_type:.3f}"),
            ("average steps", f"{s.avg_steps:.2f}"), ("wall time", f"{elapsed:.1f} s")]
    width = max(len(k) for k, _ in rows)
    for k, v in rows:
        print(f"  {k:<{width}}  {v}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The argument parser (exposed for tests and docs)."""
    parser = argparse.ArgumentParser(prog="shopsim", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="evaluate an agent in-process and print the results")
    run.add_argument("--agent", default="rule", help=f"one of {', '.join(AGENTS)}")
    run.add_argument("--goals", default="0:500", help="'A:B', 'N', 'A,B,C' or test/eval/train")
    run.add_argument("--max-steps", type=int, default=15, help="actions per episode before giving up")
    run.add_argument("--strict", action="store_true", help="ShopSimulator's strict rules")
    run.add_argument("--json", action="store_true", help="print one JSON object")
    _shop_args(run)
    run.set_defaults(func=cmd_run)
    for extra in _EXTRA_COMMANDS:
        extra(sub)
    return parser


def cmd_eval(args: argparse.Namespace) -> int:
    """Evaluate an agent through a page source and write traces, episodes and a summary."""
    from shopsim.agents.runner import EvalConfig, run_eval
    from shopsim.simsite.goals import parse_goal_spec

    shop = _load_shop(args)
    make_agent(args.agent, args.seed)  # fail early on an unknown agent
    goals = parse_goal_spec(args.goals, len(shop.goals))
    cfg = EvalConfig(agent=args.agent, adapter=args.adapter, browser_mode=args.browser_mode, data=args.data,
                     num_products=args.num_products, human_goals=args.human_goals, goals=goals,
                     workers=args.workers, seed=args.seed, out=args.out, max_steps=args.max_steps,
                     strict=args.strict, base_url=args.url, browser_path=args.browser, screenshots=args.screenshots)
    summary, extra = run_eval(cfg)
    if args.json:
        print(json.dumps({**summary.model_dump(), **extra, "out": args.out}))
        return 0
    s = summary
    mode = "/" + args.browser_mode if args.adapter == "browser" else ""
    print(f"shopsim eval: agent={args.agent} adapter={args.adapter}{mode} goals={args.goals} "
          f"({s.episodes} episodes, {extra['episodes_run_now']} run now) on {len(shop.products)} products")
    rows = [("score (100 x mean reward)", f"{s.score:.1f}"), ("success rate", f"{100 * s.success_rate:.1f}%"),
            ("r_strict / r_success", f"{s.r_strict:.3f} / {s.r_success:.3f}"),
            ("attribute / option / price / type", f"{s.r_att:.3f} / {s.r_option:.3f} / {s.r_price:.3f} / {s.r_type:.3f}"),
            ("average steps", f"{s.avg_steps:.2f}"),
            ("unique items / searches per episode", f"{extra['unique_items']:.2f} / {extra['searches_per_episode']:.2f}"),
            ("wall time", f"{extra['seconds']:.1f} s")]
    width = max(len(k) for k, _ in rows)
    for k, v in rows:
        print(f"  {k:<{width}}  {v}")
    print(f"traces: {args.out}/traces.jsonl  episodes: {args.out}/episodes.jsonl  summary: {args.out}/summary.json")
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    """Serve the HTML shop and the JSON API."""
    from shopsim.simsite.web import serve

    shop = _load_shop(args)
    print(f"shopsim: serving {len(shop.products)} products and {len(shop.goals)} goals on "
          f"http://{args.host}:{args.port}/ (API docs: /api/docs)", flush=True)
    serve(shop, host=args.host, port=args.port)
    return 0


def _add_eval(sub: argparse._SubParsersAction) -> None:
    from shopsim.agents.runner import ADAPTERS

    ev = sub.add_parser("eval", help="evaluate an agent through a page source; write traces and a summary")
    ev.add_argument("--agent", default="rule", help=f"one of {', '.join(AGENTS)}")
    ev.add_argument("--adapter", default="inprocess", choices=ADAPTERS)
    ev.add_argument("--browser-mode", default="click", choices=("url", "click"))
    ev.add_argument("--browser", default=None, help="path to a Chromium executable")
    ev.add_argument("--url", default=None, help="a running shop server (default: start one on 127.0.0.1)")
    ev.add_argument("--goals", default="0:100", help="'A:B', 'N', 'A,B,C' or test/eval/train")
    ev.add_argument("--workers", type=int, default=1)
    ev.add_argument("--out", default="runs/latest", help="run folder (resumes when it has finished episodes)")
    ev.add_argument("--max-steps", type=int, default=15)
    ev.add_argument("--strict", action="store_true")
    ev.add_argument("--screenshots", action="store_true", help="save a screenshot per browser step")
    ev.add_argument("--json", action="store_true")
    _shop_args(ev)
    ev.set_defaults(func=cmd_eval)


def _add_serve(sub: argparse._SubParsersAction) -> None:
    sv = sub.add_parser("serve", help="serve the shop (HTML, WebShop URL scheme) and the JSON API")
    sv.add_argument("--host", default="127.0.0.1")
    sv.add_argument("--port", type=int, default=3000)
    _shop_args(sv)
    sv.set_defaults(func=cmd_serve)


_EXTRA_COMMANDS: list = [_add_eval, _add_serve]


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``shopsim`` console script."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args))
    except ShopsimError as exc:
        print(f"shopsim: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
