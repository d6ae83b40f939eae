"""``shopsim data prepare`` phase by phase: where the seconds go, in the main process and the pool.

    python benchmarks/prepare.py --data DIR [--out STORE] [--workers N] [--json]
    python benchmarks/prepare.py --products 100000 [--seed 0] [--workdir DIR]   # generates the catalog

Prepares the catalog once in this process with each phase of :mod:`shopsim.simsite.store.prepare`
timed (wall seconds and this process's CPU seconds; phases that overlap in threads share the
CPU figure), while a thread samples the worker processes' CPU seconds from ``/proc`` (Linux).
Also printed: the main process's peak RSS, and the load average before and after, since the wall
time on a shared machine depends on it. Nothing here is asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

PHASES = ("load_side_files", "_review_index", "_run_chunks", "_asin_arrays", "_prices", "_goal_arrays",
          "build_postings", "write_manifest")


def _descendants_cpu(root: int) -> dict[int, float]:
    """CPU seconds of every process below ``root`` (by parent links in /proc)."""
    tick = os.sysconf("SC_CLK_TCK")
    children: dict[int, list[tuple[int, float]]] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append((int(name), (int(fields[11]) + int(fields[12])) / tick))
    out: dict[int, float] = {}
    todo = [root]
    while todo:
        for pid, cpu in children.get(todo.pop(), []):
            out[pid] = cpu
            todo.append(pid)
    return out


class _Sampler(threading.Thread):
    """Keeps the largest CPU reading seen of each descendant process until stopped."""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.seen: dict[int, float] = {}
        self.stop = threading.Event()

    def run(self) -> None:
        while not self.stop.wait(0.2):
            for pid, cpu in _descendants_cpu(os.getpid()).items():
                self.seen[pid] = max(self.seen.get(pid, 0.0), cpu)


def _timed(module: Any, name: str, times: dict[str, list[float]]) -> None:
    fn: Callable[..., Any] = getattr(module, name)

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        w, c = time.perf_counter(), time.process_time()
        try:
            return fn(*args, **kwargs)
        finally:
            row = times.setdefault(name, [0.0, 0.0])
            row[0] += time.perf_counter() - w
            row[1] += time.process_time() - c

    setattr(module, name, wrapper)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", help="a catalog folder (default: generate one with --products)")
    ap.add_argument("--products", type=int, default=100_000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workdir", default=str(Path(tempfile.gettempdir()) / "shopsim-bench-prepare"))
    ap.add_argument("--out", help="the store (default: under --workdir, removed afterwards)")
    ap.add_argument("--workers", type=int)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    work = Path(args.workdir)
    data = Path(args.data) if args.data else work / f"catalog-{args.products}-seed{args.seed}"
    if not args.data and not (data / "shop_items.json").exists():
        subprocess.run([sys.executable, "-m", "shopsim.cli", "data", "generate", "--products", str(args.products),
                        "--seed", str(args.seed), "--out", str(data)], check=True, stdout=subprocess.DEVNULL)
    out = Path(args.out) if args.out else work / "store"

    from shopsim.simsite.store import prepare

    times: dict[str, list[float]] = {}
    for name in PHASES:
        _timed(prepare, name, times)
    load_before = os.getloadavg()
    sampler = _Sampler()
    sampler.start()
    wall, cpu = time.perf_counter(), time.process_time()
    manifest = prepare.prepare_store(data, out, workers=args.workers)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    sampler.stop.set()
    sampler.join()
    load_after = os.getloadavg()
    if not args.out:
        shutil.rmtree(out)
    workers = sorted(sampler.seen.values(), reverse=True)
    result = {
        "products": manifest.products, "postings": manifest.postings, "wall_s": round(wall, 2),
        "main_cpu_s": round(cpu, 2), "worker_cpu_s": round(sum(workers), 2),
        "main_peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
        "us_cpu_per_product": round(1e6 * (cpu + sum(workers)) / manifest.products, 1),
        "load_before": [round(x, 2) for x in load_before], "load_after": [round(x, 2) for x in load_after],
        "phases": {name: {"wall_s": round(w, 2), "cpu_s": round(c, 2)} for name, (w, c) in times.items()},
    }
    if args.json:
        print(json.dumps(result))
        return
    print(f"{manifest.products:,} products, {manifest.postings:,} postings: {wall:.1f} s wall; CPU {cpu:.1f} s main + "
          f"{sum(workers):.1f} s workers ({', '.join(f'{x:.1f}' for x in workers[:8])}) = "
          f"{result['us_cpu_per_product']} us/product; main peak RSS {result['main_peak_rss_mb']} MB; "
          f"load {load_before[0]:.2f} -> {load_after[0]:.2f}")
    print("| phase (main process) | wall s | CPU s |\n|---|---|---|")
    for name, (w, c) in times.items():
        print(f"| {name} | {w:.2f} | {c:.2f} |")


if __name__ == "__main__":
    main()
