"""``shopsim transfer-suite``: an agent on the real-page transfer tasks, beside its sim numbers."""

from __future__ import annotations

import argparse
import json
import os
import tempfile
from pathlib import Path
from typing import Any

from shopsim.cli.options import agent_options

__all__ = ["register"]

#: Where the real pages live in the project's layout (``../shared`` beside the checkout).
DEFAULT_REAL = os.path.join("..", "shared", "fixtures", "real")


def cmd_transfer_suite(args: argparse.Namespace) -> int:
    """Run the profile's suite (WebShop's builds bundles in a temporary folder or ``--keep DIR``), print the table."""
    from shopsim.errors import ConfigError
    from shopsim.simsite.profiles import get_profile

    profile = get_profile(args.profile)
    if profile.transfer_tasks is None or profile.transfer_suite is None:
        raise ConfigError(f"profile {profile.name} has no real-page transfer suite")
    tasks = profile.part("transfer_tasks")(args.tasks)
    if args.task:
        wanted = set(args.task)
        unknown = sorted(wanted - {t.id for t in tasks})
        if unknown:
            raise ConfigError(f"unknown task {unknown[0]!r}; tasks: {', '.join(t.id for t in tasks)}")
        tasks = [t for t in tasks if t.id in wanted]
    options = agent_options(args.agent_option)
    real = args.real or os.environ.get("SHOPSIM_REAL_PAGES") or DEFAULT_REAL
    with tempfile.TemporaryDirectory(prefix="shopsim-transfer-") as tmp:
        work = Path(args.keep) if args.keep else Path(tmp) / "bundles"
        report = profile.part("transfer_suite")(
            args.agent, real, work, tasks=tasks, seed=args.seed, max_steps=args.max_steps, sim_goals=args.sim_goals,
            action_model=args.action_model, agent_options=options, sim_data=args.sim_data)
    if args.json:
        print(json.dumps({**report.model_dump(), "gap": report.gap}, ensure_ascii=False))
    else:
        _print_table(profile.name, report)
    return 0


def _print_table(profile: str, report: Any) -> None:
    """One row per task that ran, the tasks skipped with their reasons, then real vs sim."""
    skipped = getattr(report, "skipped", [])
    print(f"shopsim transfer-suite: profile={profile} agent={report.agent} tasks={len(report.tasks)} "
          f"action model={report.action_model}" + (f" skipped={len(skipped)}" if skipped else ""))
    rows = [("task", "shop", "start", "reward", "success", "bought", "steps")]
    rows += [(t.task, t.shop, t.start, f"{t.reward:.3f}", "yes" if t.success else "no",
              "target" if t.purchased_id and t.purchased_id.lower() == t.target.lower() else (t.purchased_id or "-"),
              str(t.steps)) for t in report.tasks]
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for r in rows:
        print("  " + "  ".join(cell.ljust(w) for cell, w in zip(r, widths, strict=True)).rstrip())
    for kind in dict.fromkeys(t.start for t in report.tasks):
        part = [t for t in report.tasks if t.start == kind]
        if part:
            print(f"  start={kind}: {len(part)} tasks, score {100 * sum(t.reward for t in part) / len(part):.1f}, "
                  f"success {100 * sum(t.success for t in part) / len(part):.1f}%")
    for t in skipped:
        print(f"  skipped {t.task}: {t.skipped}")
    if report.real_score is None:
        print("real pages: no task could run (see the reasons above)")
    else:
        print(f"real pages: score {report.real_score:.1f}, success {report.real_success:.1f}%")
    if report.sim_score is not None:
        where = report.sim_data or "the bundled catalog"
        print(f"sim ({report.sim_goals} goals of {where}): score {report.sim_score:.1f}, "
              f"success {report.sim_success:.1f}%")
        if report.gap is not None:
            print(f"gap (sim - real): {report.gap:+.1f} points")


def _count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 0, got {text!r}")
    return value


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``transfer-suite`` to the command line."""
    from shopsim.simsite.profiles import PROFILES

    p = sub.add_parser("transfer-suite", help="run an agent on the real-page transfer tasks and on the sim")
    p.add_argument("--agent", required=True, help="agent name (rule, heuristic, llm, module:Class, ...)")
    p.add_argument("--agent-option", action="append", metavar="KEY=VALUE", help="an agent option (repeatable)")
    p.add_argument("--real", default=None, help="the real pages folder (default: $SHOPSIM_REAL_PAGES, else "
                                                f"{DEFAULT_REAL})")
    p.add_argument("--profile", choices=sorted(PROFILES), default="webshop",
                   help="the contract: webshop (parity view, WebShop's reward; fixtures/transfer/tasks.json) or "
                        "shopsim-v8 (observation_state, v8's reward; fixtures/transfer/tasks_v8.json: Chinese shops)")
    p.add_argument("--tasks", default=None, help="task file (default: the profile's, under fixtures/transfer/)")
    p.add_argument("--task", action="append", help="run only this task id (repeatable)")
    p.add_argument("--sim-goals", type=_count, default=100,
                   help="sim goals to run the same agent on for comparison (0: none; default 100)")
    p.add_argument("--sim-data", default=None, help="the sim catalog for the comparison (default: the bundled one)")
    p.add_argument("--action-model", choices=("sim", "native"), default="sim",
                   help="sim (default): the sim's action model on real pages; native: the site's search bar "
                        "everywhere")
    p.add_argument("--max-steps", type=int, default=15)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--keep", default=None, help="build the task bundles in this new folder and keep them")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=cmd_transfer_suite)
