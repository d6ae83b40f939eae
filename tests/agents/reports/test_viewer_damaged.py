"""The run viewer over damaged and very large run folders, on a real server (and in Chromium).

Before: files of the wrong shape (rewards that are null, strings, objects or too large for a float;
valid_actions that are lists; summaries nested 5,000 deep) made ``/runs``, ``/runs/<run>``, the
episode page and ``/compare-runs`` answer 500; an episode page parsed and sorted every step of the
goal, so a run of a million steps gave no page in 20 s. Now a damaged run is a 422 page that says
what is wrong (the list marks it ``damaged`` and shows the others), and an episode's steps come
``STEPS_PER_PAGE`` at a time, read only as far as the page needs.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette

from shopsim.agents.reports.charts import MAX_BARS
from shopsim.agents.reports.viewer import STEPS_PER_PAGE, viewer_routes
from shopsim.simsite.server import ServerThread

EPISODE = {"goal_index": 0, "reward": 1.0, "steps": 2, "truncated": False, "reward_info": {"r_type": 1.0}}
STEP = {"goal_index": 0, "step": 0, "action": "search[x]", "observation": "o", "page_type": "search",
        "valid_actions": {"has_search_bar": True, "clickables": []}}
DAMAGED = {
    "null-reward": ({**EPISODE, "reward": None}, STEP),
    "string-reward": ({**EPISODE, "reward": "high"}, STEP),
    "nested": ({**EPISODE, "reward": {"a": [1]}, "reward_info": [1, 2]}, {**STEP, "step": "x", "valid_actions": [1]}),
    "string-info": ({**EPISODE, "reward_info": "str"}, {**STEP, "valid_actions": {"clickables": 5}}),
    "huge": ({**EPISODE, "reward": 10**400}, {**STEP, "step": 10**30}),
}


def _write_run(folder: Path, episodes: list[Any], steps: list[Any], summary: Any = None) -> None:
    folder.mkdir(parents=True)
    (folder / "episodes.jsonl").write_text("".join(json.dumps(e) + "\n" for e in episodes))
    (folder / "traces.jsonl").write_text("".join(json.dumps(s) + "\n" for s in steps))
    if summary is not None:
        (folder / "summary.json").write_text(summary if isinstance(summary, str) else json.dumps(summary))


@pytest.fixture(scope="module")
def viewer(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    root = tmp_path_factory.mktemp("runs")
    wrong_summary = {"agent": ["x"], "score": "s", "episodes": {"a": 1}, "success_rate": None, "status": 5}
    for name, (episode, step) in DAMAGED.items():
        _write_run(root / name, [episode], [step], wrong_summary)
    _write_run(root / "deep-summary", [EPISODE], [STEP], "[" * 5000 + "]" * 5000)
    _write_run(root / "good", [EPISODE], [STEP, {**STEP, "step": 1}], {"agent": "rule", "episodes": 1, "score": 100.0})
    # a long episode, built small: 25 pages of steps, and then a tail of lines a reader must never need
    long = [{**STEP, "step": i, "observation": f"observation {i}"} for i in range(25 * STEPS_PER_PAGE)]
    _write_run(root / "long", [{**EPISODE, "steps": len(long)}], long, {"agent": "rule", "episodes": 1})
    with (root / "long" / "traces.jsonl").open("a") as f:
        f.write(json.dumps({**STEP, "step": "not a number", "observation": "TAIL"}) + "\n")
    with ServerThread(Starlette(routes=viewer_routes(root))) as srv:
        yield srv.base_url


def _is_panel(r: httpx.Response, what: str) -> None:
    assert r.status_code == 422, (r.request.url, r.status_code, r.text[:300])
    assert "cannot be shown: its files are damaged" in r.text and what in r.text, r.text[:500]
    assert "Traceback" not in r.text


@pytest.mark.parametrize("name", [*sorted(DAMAGED), "deep-summary"])
def test_damaged_run_is_an_error_panel_never_a_500(viewer: str, name: str) -> None:
    with httpx.Client(base_url=viewer, timeout=30) as c:
        listing = c.get("/runs")
        assert listing.status_code == 200 and "good" in listing.text and name in listing.text
        for url in (f"/runs/{name}", f"/runs/{name}/episodes/0", f"/compare-runs?a={name}&b=good"):
            r = c.get(url)
            assert r.status_code < 500, (url, r.text[:300])
            if r.status_code != 200:  # some shapes are shown as they are (escaped); none is a 500
                assert r.status_code in (404, 422), (url, r.status_code)
                if r.status_code == 422:
                    _is_panel(r, name)
        assert c.get("/runs/good").status_code == 200  # the intact run is still served


def test_each_damaged_shape_is_named(viewer: str) -> None:
    with httpx.Client(base_url=viewer, timeout=30) as c:
        _is_panel(c.get("/runs/string-reward"), "could not convert string to float")
        _is_panel(c.get("/runs/huge/episodes/0"), "OverflowError")
        _is_panel(c.get("/runs/deep-summary"), "nested too deeply")
        _is_panel(c.get("/compare-runs?a=nested&b=good"), "the comparison of")


def test_long_episode_is_paged(viewer: str) -> None:
    with httpx.Client(base_url=viewer, timeout=30) as c:
        first = c.get("/runs/long/episodes/0")
        assert first.status_code == 200
        shown = [int(n) for n in re.findall(r'id="step-(\d+)"', first.text)]
        assert shown == list(range(STEPS_PER_PAGE))
        assert 'href="?page=1"' in first.text and "earlier steps" not in first.text
        assert "TAIL" not in first.text
        page3 = c.get("/runs/long/episodes/0?page=3")
        assert [int(n) for n in re.findall(r'id="step-(\d+)"', page3.text)] == list(range(300, 400))
        assert 'href="?page=2"' in page3.text and 'href="?page=4"' in page3.text
        last = c.get("/runs/long/episodes/0?page=25")  # the one line past 25 full pages: the tail, shown as text
        assert last.status_code == 200 and "TAIL" in last.text and "later steps" not in last.text
        assert c.get("/runs/long/episodes/0?page=26").status_code == 404
        assert c.get("/runs/long/episodes/0?page=-1").status_code == 400
        assert c.get("/runs/long/episodes/0?page=x").status_code == 400


def test_report_of_a_long_episode_bins_its_steps_chart(viewer: str) -> None:
    r = httpx.get(f"{viewer}/runs/long", timeout=30)
    assert r.status_code == 200
    steps = 25 * STEPS_PER_PAGE
    width = -(-(steps + 1) // MAX_BARS)
    last = MAX_BARS - 1
    assert f"{last * width}–{last * width + width - 1}" in r.text  # MAX_BARS bins, not a bar per length
    assert f">{steps - 1}<" not in r.text


@pytest.mark.slow
def test_damaged_run_panel_in_chromium(viewer: str, chromium_path: str | None, browser_shutdown: None) -> None:
    from shopsim.adapters.browser_source import _Browser

    context = _Browser.get(chromium_path, True).browser.new_context()
    try:
        page = context.new_page()
        response = page.goto(f"{viewer}/runs/string-reward")
        assert response is not None and response.status == 422
        assert "cannot be shown" in page.locator("p").first.inner_text()
        page.goto(f"{viewer}/runs")
        row = page.locator("tr", has_text="deep-summary")
        assert row.count() == 1 and page.locator("a", has_text="good").count() == 1
    finally:
        context.close()
