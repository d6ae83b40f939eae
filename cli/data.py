"""``shopsim data``: generate catalogs, prepare them once (a WebShop store, or v8's folder), verify, split."""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

from shopsim.cli.options import print_table
from shopsim.errors import ConfigError, DataError
from shopsim.simsite.profiles import PROFILES, get_profile

__all__ = ["register"]


def _prepare_profile(args: argparse.Namespace) -> str:
    """``--profile``, or the profile the inputs imply: ``--archive`` is v8's, ``--data`` WebShop's."""
    if args.profile is not None:
        return args.profile
    wanted = "archive" if args.archive is not None else "data"
    return next(name for name, p in PROFILES.items() if p.prepare_input == wanted)


def cmd_prepare(args: argparse.Namespace) -> int:
    """Prepare a catalog once: a WebShop store (``--data DIR``) or v8's verified, indexed folder."""
    profile = _prepare_profile(args)
    if get_profile(profile).prepare_input == "archive":
        return _prepare_v8(args)
    if args.archive is not None:
        raise ConfigError("--archive is the shopsim-v8 profile's input; the webshop profile prepares --data DIR")
    if args.data is None:
        raise ConfigError("data prepare needs --data DIR (a folder of WebShop-format files)")
    if args.manifest is not None or args.engine is not None or args.no_verify:
        raise ConfigError("--manifest, --no-verify and --engine are shopsim-v8 options; a webshop store holds the "
                          "lucene index")
    from shopsim.simsite.store import prepare_store

    t0 = time.perf_counter()
    m = prepare_store(args.data, args.out, seed=args.seed, num_products=args.num_products, workers=args.workers,
                      nouns=args.nouns)
    seconds = time.perf_counter() - t0
    size = sum(f.size for f in m.files.values())
    if args.json:
        print(json.dumps({**m.model_dump(exclude={"files", "sources"}), "out": args.out, "bytes": size,
                          "seconds": round(seconds, 3)}))
        return 0
    print(f"shopsim data prepare: {args.data} -> {args.out} ({seconds:.1f} s)")
    print_table([
        ("format", f"{m.format} (shopsim {m.shopsim_version})"),
        ("products (records read)", f"{m.products} ({m.records})"),
        ("goals (synthetic, seed " + str(m.seed) + ")", str(m.goals)),
        ("human goals", str(m.human_goals)),
        ("index", f"lucene: {m.terms} terms, {m.postings} postings"),
        ("noun tags", m.nouns or "none: titles are tagged when bought (--nouns tags them here)"),
        ("store", f"{len(m.files)} files, {size / 1e6:.1f} MB; open with --data {args.out}"),
    ])
    return 0


def _prepare_v8(args: argparse.Namespace) -> int:
    """Verify the archive's checksums, exclude unrecoverable products, build and save the index."""
    from shopsim.simsite.v8.store import prepare_v8

    archive = args.archive or args.data
    if archive is None:
        raise ConfigError("data prepare --profile shopsim-v8 needs --archive FILE (the products .json or .json.gz)")
    report = prepare_v8(archive, args.out, manifest=args.manifest, engine=args.engine or "default",
                        verify=not args.no_verify)
    if args.json:
        print(json.dumps(dict(report), ensure_ascii=False))
        return 0
    print(f"shopsim data prepare: {archive} -> {args.out}")
    print_table([
        ("archive sha256", report["archive_sha256"] + ("" if report["verified"] else "  (NOT verified: --no-verify)")),
        ("json sha256", report["json_sha256"]),
        ("products (in -> kept)", f"{report['products_in']} -> {report['products']}"),
        ("excluded (2+ price-changing axes)", f"{report['excluded']} (reasons in {args.out}/exclusions.json)"),
        ("tasks (in -> kept)", f"{report['tasks_in']} -> {report['tasks']}"),
        ("persona tasks", str(report["persona_tasks"])),
        ("search index", f"{report['engine']} engine, saved with its manifest in {args.out}/index"),
    ])
    return 0


def cmd_generate(args: argparse.Namespace) -> int:
    """Write a seeded catalog of any size in WebShop's formats, streamed, with a progress bar."""
    from shopsim.progress import Progress
    from shopsim.simsite.catalog.generator import MAX_PRODUCTS, generate

    if not 0 <= args.products <= MAX_PRODUCTS:
        raise ConfigError(f"--products {args.products}: must be between 0 and {MAX_PRODUCTS}")
    if args.seed < 0:
        raise ConfigError(f"--seed {args.seed}: must be >= 0")
    if args.workers is not None and args.workers < 1:
        raise ConfigError(f"--workers {args.workers}: must be >= 1")
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise ConfigError(f"--out {out}: exists and is not a folder")
    bar = Progress("generate", args.products, " products")
    t0 = time.perf_counter()
    try:
        counts = generate(out, args.products, args.seed, args.workers, progress=bar.set)
    except OSError as exc:
        raise DataError(f"{out}: cannot write: {exc.strerror or exc}") from exc
    finally:
        bar.close()
    seconds = time.perf_counter() - t0
    if args.json:
        print(json.dumps({**counts, "out": str(out), "seconds": round(seconds, 3)}))
        return 0
    size = sum(counts["files"].values())
    print(f"shopsim data generate: {counts['products']} products (seed {counts['seed']}) -> {out} ({seconds:.1f} s)")
    print_table([
        ("files", ", ".join(counts["files"])),
        ("size", f"{size / 1e6:.1f} MB"),
        ("with options", str(counts["with_options"])),
        ("instructions (synthetic goals' products)", str(counts["instructions"])),
        ("human instructions", str(counts["human_instructions"])),
        ("next", f"shopsim data prepare --data {out} --out STORE"),
    ])
    return 0


def cmd_verify(args: argparse.Namespace) -> int:
    """Check every store file's SHA-256 and recorded setting; re-stamp the store when all agree."""
    from shopsim.simsite.store import is_store, verify_store
    from shopsim.simsite.store.manifest import STAMP
    from shopsim.simsite.v8.store import MANIFEST as V8_MANIFEST

    if not is_store(args.store) and os.path.lexists(Path(args.store) / V8_MANIFEST):
        return _verify_v8(args)
    if not is_store(args.store):
        raise DataError(f"{args.store}: not a prepared store (no store.json); prepare one with shopsim data prepare")
    restamped = not os.path.lexists(Path(args.store) / STAMP)
    t0 = time.perf_counter()
    m = verify_store(Path(args.store))
    seconds = time.perf_counter() - t0
    size = sum(f.size for f in m.files.values())
    if args.json:
        print(json.dumps({"ok": True, "store": args.store, "files": len(m.files), "bytes": size,
                          "seconds": round(seconds, 3), "stamp_rewritten": restamped}))
        return 0
    print(f"shopsim data verify: {args.store}: ok, {len(m.files)} files, {size / 1e6:.1f} MB match the manifest's "
          f"SHA-256 and settings ({seconds:.1f} s)" + (f"; {STAMP} was missing: written again" if restamped else ""))
    return 0


def _verify_v8(args: argparse.Namespace) -> int:
    """A v8 prepared folder: its products' and index's SHA-256 and the index arrays, as opening checks them."""
    from shopsim.simsite.v8.store import open_v8_data

    t0 = time.perf_counter()
    shop = open_v8_data(args.store)
    seconds = time.perf_counter() - t0
    products = len(shop.catalog.products)
    if args.json:
        print(json.dumps({"ok": True, "store": args.store, "profile": "shopsim-v8", "products": products,
                          "seconds": round(seconds, 3)}))
        return 0
    print(f"shopsim data verify: {args.store}: ok, shopsim-v8 prepared folder: {products} products and the search "
          f"index match the manifests' SHA-256 ({seconds:.1f} s)")
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
    if get_profile(args.profile).goal_kind != "task":
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
    """Add ``data generate``, ``prepare``, ``verify``, ``split``, ``annotate-budgets`` and ``demos`` (and ``fetch``)."""
    data = sub.add_parser("data", help="generate, prepare and verify catalogs; build task splits")
    dsub = data.add_subparsers(dest="data_command", required=True)
    gen = dsub.add_parser("generate", help="write a seeded catalog of any size in WebShop's formats")
    gen.add_argument("--products", type=int, required=True, help="number of products (WebShop's full set: 1180000)")
    gen.add_argument("--seed", type=int, default=0)
    gen.add_argument("--out", required=True, help="folder to write the four catalog files into")
    gen.add_argument("--workers", type=int, default=None, help="processes (default: 1 below 50k products, else all CPUs)")
    gen.add_argument("--json", action="store_true")
    gen.set_defaults(func=cmd_generate)
    prep = dsub.add_parser("prepare", help="webshop: build an on-disk store from --data DIR; shopsim-v8: verify, "
                                           "clean and index --archive FILE")
    prep.add_argument("--profile", default=None, choices=sorted(PROFILES),
                      help="default: shopsim-v8 with --archive, else webshop")
    prep.add_argument("--data", default=None, help="webshop: the folder of WebShop-format files to prepare")
    prep.add_argument("--archive", default=None, help="shopsim-v8: the products archive (.json or .json.gz)")
    prep.add_argument("--out", required=True, help="folder to write the store (or the prepared v8 data) into")
    prep.add_argument("--seed", type=int, default=0, help="webshop: seed of the stored prices and goals")
    prep.add_argument("--num-products", type=int, default=None, help="webshop: use only the first N product records")
    prep.add_argument("--workers", type=int, default=None,
                      help="webshop: processes (default: 1 for small catalogs, else all CPUs)")
    prep.add_argument("--nouns", action=argparse.BooleanOptionalAction, default=None,
                      help="webshop: tag the titles' nouns for the type reward (default: catalogs of up to 5,000 products)")
    prep.add_argument("--manifest", default=None,
                      help="shopsim-v8: JSON with archive_sha256 and/or json_sha256 (annotate-budgets writes one); "
                           "required unless --no-verify")
    prep.add_argument("--no-verify", action="store_true",
                      help="shopsim-v8: prepare an archive without its manifest (recorded as verified: false)")
    prep.add_argument("--engine", default=None, choices=("default", "fts5", "numpy"), help="shopsim-v8: search engine")
    prep.add_argument("--json", action="store_true")
    prep.set_defaults(func=cmd_prepare)
    ver = dsub.add_parser("verify", help="check a store's every file against its manifest's SHA-256 and settings "
                                         "(or a shopsim-v8 prepared folder's products and index)")
    ver.add_argument("store", help="a folder written by shopsim data prepare (either profile)")
    ver.add_argument("--json", action="store_true")
    ver.set_defaults(func=cmd_verify)
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
    _add_fetch(dsub)  # HOOK: `shopsim data fetch` from cli/data_fetch.py, when that module exists
    from shopsim.cli.data_annotate import add_annotate_parser
    from shopsim.cli.data_demos import add_demos_parser

    add_annotate_parser(dsub)
    add_demos_parser(dsub)


def _add_fetch(dsub: argparse._SubParsersAction) -> None:
    """Add ``data fetch`` (its own module, written separately); nothing when the module is absent."""
    try:
        from shopsim.cli.data_fetch import add_fetch_parser  # type: ignore[import-not-found]
    except ModuleNotFoundError as exc:
        if exc.name != "shopsim.cli.data_fetch":
            raise
        return
    add_fetch_parser(dsub)
