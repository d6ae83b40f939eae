"""``shopsim data demos``: session logs (``shopsim serve --log-dir``, WebShop's MTurk logs) -> imitation-learning JSONL."""

from __future__ import annotations

import argparse
import os
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, cast

from shopsim.cli.options import load_shop, shop_args
from shopsim.errors import ConfigError, DataError
from shopsim.simsite.profiles import get_profile

if TYPE_CHECKING:
    from shopsim.simsite.shop import Shop

__all__ = ["add_demos_parser", "cmd_demos"]


def cmd_demos(args: argparse.Namespace) -> int:
    """Write every log's episode, step, search and choice records to ``--out`` (all or nothing)."""
    from shopsim.agents.demos import StepRecord, demo_records, load_goal_indices

    if not get_profile(args.profile).session_logs:
        raise ConfigError("data demos reads WebShop-format session logs; use the webshop profile's catalog")
    folder = args.logs or args.trajectories
    if not Path(folder).is_dir():
        raise DataError(f"{folder}: no such folder of session logs")
    indices = load_goal_indices(args.human_goal_list) if args.human_goal_list else None
    shop = cast("Shop", load_shop(args))  # a session_logs profile (checked above) is WebShop's: a Shop
    out = Path(args.out)
    if out.suffix == ".jsonl" and out.resolve().parent == Path(folder).resolve():
        raise ConfigError(f"--out {out} is inside the log folder {folder}: the next run would read it as a session log")
    tmp = out.with_name(f".{out.name}.{os.getpid()}.part")
    counts: Counter[str] = Counter()
    try:
        with open(tmp, "w", encoding="utf-8") as f:
            for record in demo_records(folder, shop, args.state_format, indices):
                counts[type(record).__name__] += 1
                counts["unrendered"] += isinstance(record, StepRecord) and record.state is None
                f.write(record.model_dump_json() + "\n")
        os.replace(tmp, out)
    except OSError as exc:
        raise DataError(f"--out {out}: cannot write: {exc.strerror or exc}") from exc
    finally:
        tmp.unlink(missing_ok=True)
    steps = counts["StepRecord"]
    print(f"shopsim data demos: {counts['EpisodeRecord']} sessions, {steps} steps ({steps - counts['unrendered']} "
          f"with their state on this catalog), {counts['SearchRecord']} searches, {counts['ChoiceRecord']} choices "
          f"-> {out}")
    return 0


def add_demos_parser(dsub: argparse._SubParsersAction) -> None:
    """Add ``data demos``."""
    p = dsub.add_parser("demos", help="turn session logs into imitation-learning records (JSONL)",
                        description="Read WebShop-format session logs (one <session>.jsonl per session, as "
                                    "shopsim serve --log-dir and WebShop's MTurk logs write them), read the action "
                                    "between each pair of pages, render each page again on the catalog, and write "
                                    "episode, step, search (instruction -> query) and choice (state, actions, label) "
                                    "records, one JSON object a line.")
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--logs", metavar="DIR", help="a folder written by shopsim serve --log-dir")
    src.add_argument("--trajectories", metavar="DIR", help="WebShop's recorded human trajectories (the same format)")
    p.add_argument("--out", required=True, metavar="FILE", help="the JSONL file to write")
    p.add_argument("--state-format", default="text", choices=("text", "text_rich"),
                   help="observation a step's state is rendered in (WebShop's baseline trains on text_rich)")
    p.add_argument("--human-goal-list", default=None, metavar="FILE",
                   help="WebShop's human_goals.json: adds each record's goal index and split (test/eval/train)")
    shop_args(p)
    p.set_defaults(func=cmd_demos)
