"""``shopsim data``: prepare a catalog once (verify, clean, index) and build task splits."""

from __future__ import annotations

import argparse
import json
import sys

from shopsim.commands import print_table
from shopsim.errors import ConfigError

__all__ = ["register"]


def cmd_prepare(args: argparse.Namespace) -> int:
    """Verify the archive's checksums, exclude unrecoverable products, build and save the index."""
    if args.profile != "shopsim-v8":
        raise ConfigError("data prepare is available for --profile shopsim-v8; a prepared WebShop store is not built yet")
    from shopsim.simsite.v8.store import prepare_v8

    report = prepare_v8(args.archive, args.out, manifest=args.manifest, engine=args.engine)
    if args.json:
        print(json.dumps(dict(report), ensure_ascii=False))
        return 0
    print(f"shopsim data prepare: {args.archive} -> {args.out}")
    print_table([
        ("archive sha256", report["archive_sha256"]),
        ("json sha256", report["json_sha256"]),
        ("products (in -> kept)", f"{report['products_in']} -> {report['products']}"),
        ("excluded (2+ price-changing axes)", f"{report['excluded']} (reasons in {args.out}/exclusions.json)"),
        ("tasks (in -> kept)", f"{report['tasks_in']} -> {report['tasks']}"),
        ("persona tasks", str(report["persona_tasks"])),
        ("search index", f"{report['engine']} engine, saved with its manifest in {args.out}/index"),
    ])
    return 0


def _sizes(text: str, total: int) -> dict[str, int]:
    """``val=400,test=400`` (task counts) or ``val=0.1,test=0.1`` (fractions of the tasks split)."""
    out: dict[str, int] = {}
    for part in text.split(","):
        name, sep, value = part.partition("=")
        try:
            number = float(value)
        except ValueError:
            number = -1.0
        if not sep or not name.strip() or number < 0 or (number >= 1 and number != int(number)):
            raise ConfigError(f"--sizes {text!r}: expected NAME=N or NAME=FRACTION[,...], e.g. val=400,test=400")
        out[name.strip()] = round(number * total) if number < 1 else int(number)
    return out


def cmd_split(args: argparse.Namespace) -> int:
    """Build persona splits from connected task groups and write the explicit task-id lists."""
    if args.profile != "shopsim-v8":
        raise ConfigError("data split builds shopsim-v8 persona splits; use --profile shopsim-v8")
    from shopsim.simsite.v8.shop import V8Shop
    from shopsim.simsite.v8.splits import build_splits, split_tasks, write_split_file

    shop = V8Shop.load(args.data)
    tasks = [t for t in shop.goals if args.tasks == "all" or t.task_mode == "persona"]
    if not tasks:
        raise ConfigError(f"no {args.tasks} tasks in this catalog to split")
    items = split_tasks(tasks)
    result = build_splits(items, _sizes(args.sizes, len(items)), seed=args.seed, large_group=args.large_group)
    write_split_file(result, args.out)
    print(f"shopsim data split: {len(items)} {args.tasks} tasks in {result.stats.get('groups')} connected groups "
          f"(largest {result.stats.get('largest_group')}) -> {args.out}")
    print_table([(name, str(n)) for name, n in result.counts.items()])
    short = result.stats.get("shortfall") or {}
    if any(short.values()):
        print(f"  note: targets not met exactly (whole groups only): short by {short}", file=sys.stderr)
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``data prepare`` and ``data split`` to the command line."""
    from shopsim.simsite.profiles import PROFILES

    data = sub.add_parser("data", help="prepare catalogs and build task splits")
    dsub = data.add_subparsers(dest="data_command", required=True)
    prep = dsub.add_parser("prepare", help="verify a catalog archive, exclude unrecoverable products, build the index")
    prep.add_argument("--profile", default="shopsim-v8", choices=sorted(PROFILES))
    prep.add_argument("--archive", required=True, help="the products archive (.json or .json.gz)")
    prep.add_argument("--manifest", default=None, help="JSON with archive_sha256 and/or json_sha256 to verify")
    prep.add_argument("--out", required=True, help="folder to write the prepared data into")
    prep.add_argument("--engine", default="default", choices=("default", "fts5", "numpy"), help="search engine")
    prep.add_argument("--json", action="store_true")
    prep.set_defaults(func=cmd_prepare)
    sp = dsub.add_parser("split", help="persona splits from connected task groups (explicit task-id lists)")
    sp.add_argument("--profile", default="shopsim-v8", choices=sorted(PROFILES))
    sp.add_argument("--data", default=None, help="a v8 products file or prepared folder (default: bundled)")
    sp.add_argument("--out", required=True, help="split file to write (JSON)")
    sp.add_argument("--sizes", default="val=400,test=400",
                    help="held-out split sizes as task counts (the seed's val=400,test=400) or fractions "
                         "(val=0.1,test=0.1); the rest is train")
    sp.add_argument("--seed", type=int, default=0)
    sp.add_argument("--large-group", type=int, default=20, help="groups larger than this always stay in train")
    sp.add_argument("--tasks", default="persona", choices=("persona", "all"), help="which tasks to split")
    sp.set_defaults(func=cmd_split)
