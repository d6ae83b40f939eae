"""What the store's integrity checks cost: open, the arrays read on open, full verify, RSS.

    python benchmarks/store_checks.py --store STORE [--json]
    python benchmarks/store_checks.py --products 20000 [--seed 0] [--workdir DIR]   # generates and prepares

In one process, side by side (A/B, so the machine's load shifts both alike): opening the store
(``StoreData.open``: manifest, sizes, times, sampled fingerprints, reading the arrays) against the
same open without the sampled fingerprints; the part of it that reads the arrays into memory
(since nothing is mapped: :mod:`shopsim.simsite.store.arrays`); ``data verify``'s file hashes
against its whole check (hashes + recorded settings); and the RSS the open adds. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from shopsim.simsite.store.arrays import load_array
from shopsim.simsite.store.data import ARRAYS, StoreData, verify_store
from shopsim.simsite.store.index import INDEX_FILES
from shopsim.simsite.store.manifest import check_store, read_manifest, sample_sha256, verify_files


def _rss_mb() -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def _best(fn: Callable[[], Any], repeat: int) -> float:
    """The fastest of ``repeat`` runs, in seconds (the least disturbed by other processes)."""
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def measure(store: Path) -> dict[str, float]:
    manifest = read_manifest(store)
    rss0 = _rss_mb()
    data = StoreData.open(store)
    rss_open = _rss_mb() - rss0
    del data
    samples = [name for name, e in manifest.files.items() if e.sample is not None]
    open_s = _best(lambda: StoreData.open(store), 20)
    check_s = _best(lambda: check_store(store), 20)
    sample_s = _best(lambda: [sample_sha256(store / n) for n in samples], 20)
    names = [*(f"{a}.npy" for a in ARRAYS), *(n for n in INDEX_FILES if n.endswith(".npy")
                                             and n not in ("index/docs.npy", "index/denom.npy"))]
    arrays_s = _best(lambda: [load_array(store / n) for n in names], 5)
    arrays_mb = sum(manifest.files[n].size for n in names) / 1e6
    hashes_s = _best(lambda: verify_files(store), 1)
    verify_s = _best(lambda: verify_store(store), 1)
    return {"products": manifest.products, "files": len(manifest.files),
            "bytes": sum(e.size for e in manifest.files.values()),
            "open_s": open_s, "open_without_samples_s": open_s - sample_s, "check_store_s": check_s,
            "samples_s": sample_s, "arrays_read_s": arrays_s, "arrays_mb": arrays_mb, "verify_hashes_s": hashes_s,
            "verify_all_s": verify_s, "settings_check_s": verify_s - hashes_s, "open_rss_mb": rss_open,
            "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def prepared(products: int, seed: int, workdir: Path) -> Path:
    """A generated catalog of ``products`` prepared into a store under ``workdir`` (kept when there)."""
    store = workdir / f"store-{products}-{seed}"
    if not (store / "store.json").exists():
        cat = workdir / f"cat-{products}-{seed}"
        for args in (("generate", "--products", str(products), "--seed", str(seed), "--out", str(cat)),
                     ("prepare", "--data", str(cat), "--out", str(store))):
            subprocess.run([sys.executable, "-m", "shopsim.cli", "data", *args], check=True, capture_output=True)
    return store


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--store", type=Path)
    ap.add_argument("--products", type=int, default=20_000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workdir", type=Path, default=Path(tempfile.gettempdir()) / "shopsim-store-checks")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    store = args.store or prepared(args.products, args.seed, args.workdir)
    row = measure(store)
    if args.json:
        print(json.dumps(row))
        return 0
    units = {"bytes": 1e-6}
    for key, value in row.items():
        shown = value * units.get(key, 1)
        print(f"{key + (' (MB)' if key in units else ''):28} {shown:12.4f}" if isinstance(value, float)
              else f"{key + (' (MB)' if key in units else ''):28} {shown:12,.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
