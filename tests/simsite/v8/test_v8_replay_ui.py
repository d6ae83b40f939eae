"""/replay-ui over a real ``runs/`` folder written by ``shopsim eval --profile shopsim-v8``: the overview and an
episode's replay in Chromium, markup from the catalog kept as text, damaged and huge run files answered with a note.
"""

from __future__ import annotations

import gzip
import json
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from shopsim.simsite.server import ServerThread
from shopsim.simsite.v8.catalog import default_v8_catalog

#: Injected into every product title: it must show as text and never run.
INJECTED = '<script>window.__xss=1</script><img src=x onerror="window.__xss=2"><b id="inj">x</b>'


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A runs folder with one real v8 run over a catalog whose titles carry markup, a damaged copy of it,
    and a run whose episodes file is 100 MB without a newline (sparse: no disk used).
    """
    work = tmp_path_factory.mktemp("replay")
    products = json.loads(gzip.decompress(default_v8_catalog().read_bytes()))
    for p in products:
        p["title"] = INJECTED + p["title"]
    catalog = work / "products.json"
    catalog.write_text(json.dumps(products, ensure_ascii=False), encoding="utf-8")
    root = work / "runs"
    exe = str(Path(sys.executable).with_name("shopsim"))
    done = subprocess.run([exe, "eval", "--profile", "shopsim-v8", "--data", str(catalog), "--agent", "heuristic",
                           "--goals", "0:4", "--out", str(root / "heuristic")], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    damaged = root / "damaged"
    shutil.copytree(root / "heuristic", damaged)
    (damaged / "summary.json").write_text("{not json", encoding="utf-8")
    with open(damaged / "episodes.jsonl", "a", encoding="utf-8") as f:
        f.write("garbage\n[1, 2]\n{\"goal_index\": 9, \"reward\": 1.0")  # garbage, a non-object, a torn last line
    with open(damaged / "traces.jsonl", "ab") as f:
        f.write(b'{"goal_index": 0, "step": 99, "observation": "' + b"x" * (9 * 1024 * 1024) + b'"}\n')
    huge = root / "huge"
    huge.mkdir()
    with open(huge / "episodes.jsonl", "wb") as f:
        f.truncate(100 * 1024 * 1024)
    return root


@pytest.fixture(scope="module")
def base(bundled_v8_shop: Any, runs: Path) -> Iterator[str]:
    from shopsim.simsite.v8.service import create_v8_app

    with ServerThread(create_v8_app(bundled_v8_shop, runs_dir=runs)) as srv:
        yield srv.base_url


@pytest.mark.slow
def test_overview_and_episode_data(base: str) -> None:
    data = httpx.get(f"{base}/replay-ui/data/runs").json()
    runs = {r["id"]: r for r in data["runs"]}
    assert set(runs) == {"heuristic", "damaged", "huge"}
    run = runs["heuristic"]
    assert (run["agent"], run["profile"], run["status"], run["episodes"]) == ("heuristic", "shopsim-v8", "complete", 4)
    episodes = httpx.get(f"{base}/replay-ui/data/runs/heuristic/episodes", params={"limit": 3}).json()
    assert episodes["total"] == 4 and [e["goal_index"] for e in episodes["episodes"]] == [0, 1, 2]
    replay = httpx.get(f"{base}/replay-ui/data/runs/heuristic/episodes/0").json()
    assert replay["total_steps"] == replay["episode"]["steps"] == len(replay["steps"])
    first, last = replay["steps"][0], replay["steps"][-1]
    assert first["observation_state"]["page_type"] == "search" and first["action"].startswith("search[")
    assert last["termination"] == replay["episode"]["termination"]
    if last["termination"] == "purchase":
        assert last["reward_detail"]["r_strict"] == replay["episode"]["reward"]
    page = httpx.get(f"{base}/replay-ui/data/runs/heuristic/episodes/0", params={"offset": 1, "limit": 1}).json()
    assert page["steps"] == replay["steps"][1:2]
    for bad in ("offset=-1", "limit=0", "limit=x", "limit=201"):
        r = httpx.get(f"{base}/replay-ui/data/runs/heuristic/episodes?{bad}")
        assert r.status_code == 400 and r.json()["code"] == "invalid_query"
    for path in ("runs/nope/episodes", "runs/..%2F..%2Fetc/episodes", "runs/heuristic/episodes/77"):
        r = httpx.get(f"{base}/replay-ui/data/{path}")
        assert r.status_code == 404 and r.json()["code"] in ("unknown_run", "unknown_episode")


@pytest.mark.slow
def test_damaged_and_huge_runs_answer_with_notes(base: str) -> None:
    damaged = httpx.get(f"{base}/replay-ui/data/runs/damaged/episodes").json()
    assert damaged["total"] == 4 and damaged["run"]["status"] == "incomplete"  # numbers from the episodes instead
    assert any("summary.json is damaged" in n for n in damaged["notes"])
    assert any("3 damaged line(s)" in n for n in damaged["notes"])
    replay = httpx.get(f"{base}/replay-ui/data/runs/damaged/episodes/0").json()
    assert all(s["step"] != 99 for s in replay["steps"])
    assert any("over 8.0 MB skipped" in n for n in replay["notes"])
    huge = httpx.get(f"{base}/replay-ui/data/runs/huge/episodes", timeout=30).json()
    assert huge["total"] == 0 and any("only its first 64.0 MB were read" in n for n in huge["notes"])


def test_missing_runs_folder_is_a_note(bundled_v8_shop: Any, tmp_path: Path) -> None:
    from shopsim.simsite.v8.service import create_v8_app

    with ServerThread(create_v8_app(bundled_v8_shop, runs_dir=tmp_path / "absent")) as srv:
        data = httpx.get(f"{srv.base_url}/replay-ui/data/runs").json()
        page = httpx.get(f"{srv.base_url}/replay-ui")
    assert data["runs"] == [] and "no runs folder" in data["notes"][0]
    assert page.status_code == 200 and "default-src 'none'" in page.headers["content-security-policy"]
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", page.text), "no external assets"
    assert "innerHTML" not in page.text and "insertAdjacentHTML" not in page.text and "document.write" not in page.text


@pytest.mark.slow
@pytest.mark.browser
def test_replay_in_chromium_shows_steps_and_runs_no_injected_script(
        base: str, chromium_path: str | None, browser_shutdown: None) -> None:
    from playwright.sync_api import expect

    from shopsim.adapters.browser_source import _Browser

    context = _Browser.get(chromium_path, True).browser.new_context(viewport={"width": 1280, "height": 900})
    context.set_default_timeout(15_000)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        page.goto(f"{base}/replay-ui")
        expect(page.get_by_role("link", name="heuristic", exact=True)).to_be_visible()
        expect(page.locator("#notes")).to_contain_text("summary.json is damaged")
        page.get_by_role("link", name="heuristic", exact=True).click()
        page.get_by_role("link", name="1", exact=True).click()
        steps = httpx.get(f"{base}/replay-ui/data/runs/heuristic/episodes/1").json()["steps"]
        expect(page.locator("section.step")).to_have_count(len(steps))
        expect(page.locator("section.step .act").first).to_have_text(steps[0]["action"])
        results = page.locator("section.step pre.observation").nth(1)  # the results page the agent saw
        expect(results).to_contain_text(INJECTED)
        page.locator("section.step details summary").first.click()
        expect(page.locator("section.step pre.observation-state").first).to_contain_text('"page_type": "search"')
        assert page.locator("#inj").count() == 0 and page.evaluate("window.__xss") is None
        page.goto(f"{base}/replay-ui#/run/huge/0")
        expect(page.locator("#notes")).to_contain_text("only its first 64.0 MB were read")
        page.goto(f"{base}/replay-ui#/run/nope/0")
        expect(page.locator("#error")).to_contain_text("no run 'nope'")
    finally:
        context.close()
    assert not errors, f"JavaScript errors on /replay-ui: {errors}"


def test_serve_refuses_a_runs_path_that_is_a_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from shopsim.cli import main

    (tmp_path / "runs").write_text("not a folder\n")
    assert main(["serve", "--profile", "shopsim-v8", "--runs", str(tmp_path / "runs"), "--port", "1"]) == 2
    err = capsys.readouterr().err
    assert err.strip().splitlines() == [f"shopsim: error: --runs {tmp_path / 'runs'}: not a folder (give the folder "
                                        "shopsim eval --out writes runs under)"]
