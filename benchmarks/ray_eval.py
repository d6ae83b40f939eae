"""Eval episodes/s: the local executor against Ray, at 1 and 2 workers (rule agent, in-process adapter).

    python benchmarks/ray_eval.py [--episodes 48] [--data DIR|STORE] [--address ADDR] [--json]

Each cell plays the same goals of the bundled catalog (or ``--data``) into a fresh folder through
the executor ``shopsim eval`` uses. ``total`` runs from the executor's start (worker processes or
Ray actors starting and building their shops) to the last episode, as a user sees it; ``steady``
from the first finished episode to the last, the rate once started. The Ray cluster starts once,
before the Ray cells (its start-up is printed apart), unless ``--address`` joins a running one.
:func:`rates` returns the rows for other benchmarks (``benchmarks/scale.py``).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import logging
import sys
import tempfile
import time
from typing import Any

from shopsim.agents.evaluation.config import EvalConfig, forget_shop
from shopsim.agents.evaluation.pool import run_todo


def _cell(executor: str, workers: int, goals: list[int], data: str | None, address: str | None) -> dict[str, Any]:
    """One run: total and steady episodes/s."""
    done: list[float] = []
    with tempfile.TemporaryDirectory() as out:
        cfg = EvalConfig(agent="rule", goals=goals, out=out, data=data, workers=workers, executor=executor,  # type: ignore[arg-type]
                         address=address)
        t0 = time.perf_counter()
        if executor == "ray":
            from shopsim.agents.evaluation.ray_executor import run_todo_ray

            run_todo_ray(cfg, goals, lambda rec: done.append(time.perf_counter()))
        else:
            run_todo(cfg, goals, lambda rec: done.append(time.perf_counter()))
        forget_shop()
    total = len(done) / (done[-1] - t0)
    steady = (len(done) - 1) / (done[-1] - done[0]) if len(done) > 1 and done[-1] > done[0] else float("nan")
    return {"executor": executor, "workers": workers, "episodes": len(done), "seconds": round(done[-1] - t0, 2),
            "total ep/s": round(total, 1), "steady ep/s": round(steady, 1)}


def rates(episodes: int = 48, data: str | None = None, address: str | None = None) -> tuple[list[dict[str, Any]], float | None]:
    """The rows (local and Ray, 1 and 2 workers) and the Ray cluster's start-up seconds (None: no Ray)."""
    goals = list(range(episodes))
    rows = [_cell("local", w, goals, data, None) for w in (1, 2)]
    if importlib.util.find_spec("ray") is None:
        return rows + [{"executor": "ray", "workers": w, "note": "ray not installed: pip install shopsim[ray]"}
                       for w in (1, 2)], None
    import ray

    t0 = time.perf_counter()
    if address:
        ray.init(address=address, logging_level=logging.ERROR)
    else:
        ray.init(num_cpus=2, include_dashboard=False, logging_level=logging.ERROR)
    started = time.perf_counter() - t0
    try:
        rows += [_cell("ray", w, goals, data, address) for w in (1, 2)]
    finally:
        ray.shutdown()
    return rows, started


def main() -> int:
    """Print the table (or JSON)."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--episodes", type=int, default=48, help="goals per cell (default 48)")
    ap.add_argument("--data", default=None, help="a WebShop data folder or prepared store (default: bundled)")
    ap.add_argument("--address", default=None, help="a running Ray cluster (default: start a local 2-CPU one)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    rows, started = rates(args.episodes, args.data, args.address)
    if args.json:
        print(json.dumps({"ray_start_s": started, "rows": rows}))
        return 0
    cols = ["executor", "workers", "episodes", "seconds", "total ep/s", "steady ep/s"]
    print("  ".join(f"{c:>11}" for c in cols))
    for r in rows:
        print("  ".join(f"{r.get(c, '')!s:>11}" for c in cols) + (f"  {r['note']}" if "note" in r else ""))
    if started is not None:
        print(f"Ray cluster start (not in the rows): {started:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
