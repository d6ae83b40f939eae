"""``shopsim goals export``: write a shop's goals as the goal files ``transfer``, ``record`` and replay read.

The format is exactly what ``simsite.goals.load_goal_file`` reads (WebShop's goal dicts, one JSON
object a line), so a written file loads back to the same goals; exporting beats hand-writing
``goal.model_dump_json()``, which is easy to get subtly wrong (a pretty-printed object, a field lost).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
from pathlib import Path

from shopsim.cli.options import load_shop, shop_args
from shopsim.errors import ConfigError
from shopsim.simsite.profiles import get_profile

__all__ = ["register"]


def cmd_export(args: argparse.Namespace) -> int:
    """Write the selected goals: JSONL, or one goal object when exactly one goes to a ``.json`` file."""
    if get_profile(args.profile).goal_kind != "goal":
        raise ConfigError(f"goals export writes WebShop goals (--profile webshop); {args.profile} has tasks, "
                          "not goal files")
    out = Path(args.out)
    if out.is_dir():
        raise ConfigError(f"--out {out} is a folder; give a file name (goals.jsonl, or goal.json for one goal)")
    shop = load_shop(args)
    indices = shop.goal_indices(args.goals)
    if not indices:
        raise ConfigError(f"--goals {args.goals!r} selects no goals (this shop has {len(shop.goals)})")
    if out.suffix.lower() == ".json" and len(indices) != 1:
        raise ConfigError(f"--out {out}: a .json file holds one goal object and --goals {args.goals!r} selects "
                          f"{len(indices)}; write them to a .jsonl file (one goal a line)")
    # One object a line, never indented: the goal loader reads line by line (a .json file included).
    text = "".join(json.dumps(shop.goal(i).model_dump(), ensure_ascii=False) + "\n" for i in indices)
    tmp = out.with_name(out.name + ".tmp")
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, out)
    except OSError as exc:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise ConfigError(f"cannot write --out {out}: {exc.strerror or exc}") from exc
    what = "1 goal object" if len(indices) == 1 and out.suffix.lower() == ".json" else f"{len(indices)} goals (JSONL)"
    print(f"shopsim goals export: {what} -> {out}")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``goals export`` to the command line."""
    goals = sub.add_parser("goals", help="export a shop's goals as goal files (for transfer, record and replay)")
    gsub = goals.add_subparsers(dest="goals_command", required=True)
    ex = gsub.add_parser("export", help="write goals in WebShop's goal format (what --goal and --goal-file read)")
    ex.add_argument("--goals", required=True, help="'A:B', 'N', 'A,B,C' or test/eval/train")
    ex.add_argument("--out", required=True, help="file to write: .jsonl (one goal a line), or .json for one goal")
    shop_args(ex)
    ex.set_defaults(func=cmd_export)
