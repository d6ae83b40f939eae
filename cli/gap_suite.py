"""``shopsim gap-suite``: an agent's drop on skinned and perturbed sim pages beside its real-page drop."""

from __future__ import annotations

import argparse
import os
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, cast

from shopsim.cli.options import load_shop, shop_args
from shopsim.cli.transfer_suite import DEFAULT_REAL
from shopsim.simsite.profiles import get_profile

if TYPE_CHECKING:
    from shopsim.simsite.shop import Shop

__all__ = ["register"]


def cmd_gap_suite(args: argparse.Namespace) -> int:
    """Run the suite, print the table and write ``report.html`` (``--out``)."""
    from shopsim.agents.registry import check_agent
    from shopsim.agents.transfer.gap_report import html_report, text_report
    from shopsim.agents.transfer.gap_suite import DEFAULT_AGENTS, agent_spec, conditions, run_gap_suite
    from shopsim.agents.transfer.suite import load_tasks
    from shopsim.errors import ConfigError

    if args.max_steps < 1 or args.tasks_limit < 0:  # -1 steps scored every condition 0; -1 tasks dropped the last
        raise ConfigError("--max-steps must be at least 1 and --tasks-limit at least 0")
    agents = args.agent or list(DEFAULT_AGENTS)
    for spec in agents:
        check_agent(*agent_spec(spec)[:1], args.seed, agent_spec(spec)[1])  # an unknown agent fails in one line
    perturbs = [p for p in args.perturb.split(";") if p] if args.perturb else None
    conditions(args.perturb_skin, perturbs)  # unknown skins and perturbations fail before anything runs
    real = None if args.no_real else (args.real or os.environ.get("SHOPSIM_REAL_PAGES") or DEFAULT_REAL)
    if real is not None and not Path(real).is_dir():
        print(f"shopsim gap-suite: no real pages at {real}: the real-page drop is left out (give --real DIR)")
        real = None
    tasks = load_tasks(args.tasks) if real is not None else None
    if tasks is not None and args.tasks_limit:
        tasks = tasks[: args.tasks_limit]
    if "browser" not in get_profile(args.profile).adapters:  # skins draw the HTML shop's pages
        raise ConfigError("gap-suite runs the webshop profile (the skins draw WebShop's pages)")
    out = Path(args.out)
    try:  # made now: a file in its place is found before the suite runs, not after
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ConfigError(f"--out {out}: cannot make the report folder ({exc.strerror or exc})") from None
    shop = cast("Shop", load_shop(args))
    with tempfile.TemporaryDirectory(prefix="shopsim-gap-") as tmp:
        report = run_gap_suite(agents, shop, goals=args.goals, seed=args.seed, max_steps=args.max_steps,
                               perturb_skin=args.perturb_skin, perturbs=perturbs, real=real, work=Path(tmp),
                               tasks=tasks)
    print(text_report(report))
    (out / "report.html").write_text(html_report(report), encoding="utf-8")
    (out / "report.json").write_text(report.model_dump_json(indent=1), encoding="utf-8")
    print(f"wrote {out / 'report.html'} and {out / 'report.json'}")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``gap-suite`` to the command line."""
    p = sub.add_parser("gap-suite", help="an agent's drop on skins and perturbations beside its real-page drop")
    p.add_argument("--agent", action="append", metavar="NAME[+KEY=VALUE]",
                   help="agent to run (repeatable; heuristic+max_candidates=1 passes an option); default: rule, "
                        "heuristic, heuristic+max_candidates=1, random")
    p.add_argument("--goals", type=int, default=5, help="sim goals per condition (default 5: a test-sized run)")
    p.add_argument("--perturb-skin", default="amazon", help="the skin the perturbations are drawn over")
    p.add_argument("--perturb", default=None, metavar="SPEC;SPEC",
                   help="the perturbation conditions, ';'-separated (each a --perturb value); default: each one "
                        "alone, and random")
    p.add_argument("--real", default=None, help=f"the real pages folder (default: $SHOPSIM_REAL_PAGES, else {DEFAULT_REAL})")
    p.add_argument("--no-real", action="store_true", help="leave out the real-page transfer suite")
    p.add_argument("--tasks", default=None, help="transfer task file (default: fixtures/transfer/tasks.json)")
    p.add_argument("--tasks-limit", type=int, default=0, help="run only the first N real-page tasks (0: all)")
    p.add_argument("--max-steps", type=int, default=15)
    p.add_argument("--out", default="gap-suite", help="folder for report.html and report.json (default gap-suite/)")
    shop_args(p)
    p.set_defaults(func=cmd_gap_suite)
