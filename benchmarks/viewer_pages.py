"""Run viewer on a very long episode: seconds to the first and a later page of steps, over HTTP.

    python benchmarks/viewer_pages.py [--steps 1000000]

Writes one run whose goal 0 has ``--steps`` steps (about 200 bytes each) to a temporary folder,
serves it with the viewer and times ``/runs/<run>/episodes/0`` (first page), a page in the middle
and the report. Issue 24's target: the first page of a 10^6-step run in under 2 s (before paging, it
gave no page in 20 s).
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

import httpx
from starlette.applications import Starlette

from shopsim.agents.reports.viewer import STEPS_PER_PAGE, viewer_routes
from shopsim.simsite.server import ServerThread


def _write_run(run: Path, steps: int) -> int:
    run.mkdir(parents=True)
    (run / "summary.json").write_text(json.dumps({"agent": "bench", "episodes": 1, "score": 0.0}))
    (run / "episodes.jsonl").write_text(json.dumps({"goal_index": 0, "reward": 0.0, "steps": steps}) + "\n")
    with (run / "traces.jsonl").open("w") as f:
        for i in range(steps):
            f.write(json.dumps({"goal_index": 0, "step": i, "action": f"click[item {i}]", "page_type": "results",
                                "observation": f"page {i} " + "x" * 120, "valid_actions": {"clickables": ["a"]}}) + "\n")
    return (run / "traces.jsonl").stat().st_size


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=1_000_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        size = _write_run(Path(tmp) / "long", args.steps)
        print(f"run of {args.steps:,} steps, traces.jsonl {size / 1e6:.0f} MB")
        print(f"{'page':<28} {'seconds':>8} {'status':>6}")
        with ServerThread(Starlette(routes=viewer_routes(tmp))) as srv, httpx.Client(timeout=600) as c:
            middle = args.steps // STEPS_PER_PAGE // 2
            for label, url in (("episode, first page", "/runs/long/episodes/0"),
                               (f"episode, page {middle}", f"/runs/long/episodes/0?page={middle}"),
                               ("run report", "/runs/long"), ("run list", "/runs")):
                start = time.perf_counter()
                r = c.get(srv.base_url + url)
                print(f"{label:<28} {time.perf_counter() - start:>8.3f} {r.status_code:>6}")


if __name__ == "__main__":
    main()
