"""``shopsim eval`` in parallel worker processes through real Chromium gives the one-worker answer."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from shopsim.agents.evaluation.config import EvalConfig
from shopsim.agents.evaluation.runner import run_eval

pytestmark = [pytest.mark.slow, pytest.mark.browser]


def test_two_browser_workers_match_one(tmp_path: Path, web_server, chromium_path, browser_shutdown) -> None:
    from shopsim.adapters.browser_source import BrowserSource

    # A browser already open in this process must not leak into the workers.
    with BrowserSource(web_server.base_url, executable_path=chromium_path) as src:
        src.reset(0)
    runs = {}
    for workers in (1, 2):
        cfg = EvalConfig(agent="heuristic", adapter="browser", goals=[0, 1, 2, 3], workers=workers,
                         out=str(tmp_path / f"w{workers}"), base_url=web_server.base_url, browser_path=chromium_path)
        summary, _ = run_eval(cfg, progress=False)
        assert summary.episodes == 4
        runs[workers] = [json.loads(x) for x in (tmp_path / f"w{workers}" / "episodes.jsonl").read_text().splitlines()]
    strip = [{k: v for k, v in r.items() if k != "reward_info"} for r in runs[1]]
    assert strip == [{k: v for k, v in r.items() if k != "reward_info"} for r in runs[2]]
    assert (tmp_path / "w2" / "report.html").read_text().count("<svg") >= 3
