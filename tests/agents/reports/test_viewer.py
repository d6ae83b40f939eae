"""The trajectory viewer over a real server: run list, report, episodes, screenshots, no traversal."""

from __future__ import annotations

import http.client
import json
import os
import shutil
import zipfile
from pathlib import Path

import httpx
import pytest
from conftest import ServerThread

from shopsim.agents.evaluation.config import EvalConfig
from shopsim.agents.evaluation.runner import run_eval
from shopsim.agents.registry import AGENTS, register_agent
from shopsim.agents.reports.compare import compare_runs
from shopsim.agents.reports.viewer import viewer_routes
from shopsim.agents.rule import RuleAgent
from shopsim.simsite.web import create_app

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 32


class BreaksOnGoal2(RuleAgent):
    """The rule agent, until Ctrl-C lands in it on goal 2 (an agent's own error is only its episode's failure)."""

    def reset(self, seed: int | None = None) -> None:
        if seed == 2:
            raise KeyboardInterrupt


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("runs")
    run_eval(EvalConfig(agent="rule", goals=list(range(5)), out=str(root / "rule")), progress=False)
    run_eval(EvalConfig(agent="random", goals=list(range(3)), out=str(root / "exp" / "random")), progress=False)
    (root / "rule" / "screenshots" / "0-1.png").write_bytes(PNG)
    register_agent("test-viewer-breaks", lambda seed, opts: BreaksOnGoal2())  # built in: played in this process
    try:
        with pytest.raises(KeyboardInterrupt):
            run_eval(EvalConfig(agent="test-viewer-breaks", goals=list(range(4)), out=str(root / "aborted")),
                     progress=False)
    finally:
        AGENTS.pop("test-viewer-breaks")
    killed = root / "killed"  # a run killed before it could write a summary: episodes only
    killed.mkdir()
    shutil.copy(root / "rule" / "config.json", killed / "config.json")
    (killed / "episodes.jsonl").write_text("".join((root / "rule" / "episodes.jsonl").read_text().splitlines(True)[:2]))
    traced = root / "traced"  # a browser run with a Playwright trace for goal 0
    shutil.copytree(root / "rule", traced)
    records = [json.loads(line) for line in (traced / "episodes.jsonl").read_text().splitlines()]
    records[0]["trace"] = "traces/goal-0.zip"
    (traced / "episodes.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    (traced / "traces").mkdir()
    with zipfile.ZipFile(traced / "traces" / "goal-0.zip", "w") as z:
        z.writestr("trace.trace", '{"type": "context-options"}\n')
    evil = root / "evil"
    evil.mkdir()
    step = {"goal_index": 0, "step": 0, "observation": "<script>alert('obs')</script>",
            "valid_actions": {"has_search_bar": True, "clickables": ["<img src=x onerror=alert(1)>"]},
            "action": "search[<script>x</script>]", "reward": 0.0, "page_type": "search", "url": "javascript:alert(1)",
            "next_page_type": "results", "feedback": "ok"}
    (evil / "traces.jsonl").write_text(json.dumps(step) + "\n")
    (evil / "episodes.jsonl").write_text(json.dumps({"goal_index": 0, "reward": 0.0, "steps": 1, "done": False,
                                                     "truncated": True, "reward_info": None, "actions": []}) + "\n")
    (evil / "summary.json").write_text(json.dumps({"agent": "<script>alert('agent')</script>", "episodes": 1}))
    (root / "secret.txt").write_text("outside any run")
    outside = tmp_path_factory.mktemp("outside")
    (outside / "summary.json").write_text("{}")
    (outside / "screenshots").mkdir()
    (outside / "screenshots" / "0-1.png").write_bytes(PNG)
    os.symlink(outside, root / "link", target_is_directory=True)
    return root


@pytest.fixture(scope="module")
def server(bundled_shop, runs):
    with ServerThread(create_app(bundled_shop, extra_routes=viewer_routes(runs))) as srv:
        yield srv


@pytest.fixture(scope="module")
def client(server):
    with httpx.Client(base_url=server.base_url, timeout=30) as c:
        yield c


def _raw_get(server, path: str) -> int:
    """A GET with the path sent exactly as written (no client-side dot-segment clean-up)."""
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    try:
        conn.putrequest("GET", path, skip_accept_encoding=True)
        conn.endheaders()
        resp = conn.getresponse()
        resp.read()
        return resp.status
    finally:
        conn.close()


def test_run_list_shows_runs_and_numbers(client, runs):
    r = client.get("/runs")
    assert r.status_code == 200
    assert 'href="/runs/rule"' in r.text and 'href="/runs/exp/random"' in r.text
    score = json.loads((runs / "rule" / "summary.json").read_text())["score"]
    assert f"{score:.1f}" in r.text
    assert "<script>alert" not in r.text and "&lt;script&gt;" in r.text
    assert 'href="/runs/link"' not in r.text  # a symlink out of the runs folder is not a run


def test_report_page(client):
    r = client.get("/runs/rule")
    assert r.status_code == 200 and r.text.count("<svg") >= 3
    assert 'href="/runs/rule/episodes/0"' in r.text
    nested = client.get("/runs/exp/random")
    assert nested.status_code == 200 and 'href="/runs/exp/random/episodes/2"' in nested.text


def test_episode_page_steps_and_screenshot(client, runs):
    r = client.get("/runs/rule/episodes/0")
    assert r.status_code == 200
    steps = [json.loads(line) for line in (runs / "rule" / "traces.jsonl").read_text().splitlines()]
    first = next(s for s in steps if s["goal_index"] == 0)
    assert "step 0" in r.text and "search[" in r.text and "buy now" in r.text
    assert 'src="/runs/rule/screenshots/0-1.png"' in r.text
    assert first["page_type"] in r.text
    assert 'href="/runs/rule/episodes/1"' in r.text  # next goal
    img = client.get("/runs/rule/screenshots/0-1.png")
    assert img.status_code == 200 and img.headers["content-type"] == "image/png" and img.content == PNG
    assert client.get("/runs/rule/episodes/99").status_code == 404
    assert client.get("/runs/exp/random/episodes/1").status_code == 200


def test_everything_from_a_run_is_escaped(client):
    r = client.get("/runs/evil/episodes/0")
    assert r.status_code == 200
    assert "<script>" not in r.text and "<img src=x" not in r.text
    assert "&lt;script&gt;alert(&#39;obs&#39;)&lt;/script&gt;" in r.text
    assert 'href="javascript' not in r.text


@pytest.mark.parametrize("path", [
    "/runs/../../etc/passwd",
    "/runs/%2e%2e/%2e%2e/etc/passwd",
    "/runs/rule/screenshots/..%2F..%2Fsecret.txt",
    "/runs/rule/screenshots/../../secret.txt",
    "/runs/rule/screenshots/%2e%2e%2fconfig.json",
    "/runs/rule/screenshots/config.json",
    "/runs/..%2Frule",
    "/runs/.hidden",
    "/runs/link",
    "/runs/link/screenshots/0-1.png",
    "/runs/rule/../secret.txt",
    "/runs//etc/passwd",
    "/runs/traced/traces/..%2Fsummary.json",
    "/runs/traced/traces/../summary.json",
    "/runs/traced/traces/goal-1.zip",
    "/runs/traced/traces/goal-0.zip.bak",
    "/runs/link/traces/goal-0.zip",
    "/compare-runs?a=rule&b=..%2F..%2Fetc",
    "/compare-runs?a=rule",
    "/compare-runs?a=link&b=rule",
])
def test_path_traversal_is_refused(server, path):
    assert _raw_get(server, path) in (400, 404)


def test_shop_routes_still_work(client):
    assert client.get("/0").status_code == 200
    assert client.get("/api/health").json()["ok"] is True


def test_aborted_and_incomplete_runs_are_listed_with_their_status(client):
    r = client.get("/runs")
    assert 'href="/runs/aborted"' in r.text and 'href="/runs/killed"' in r.text
    row = r.text[r.text.index('href="/runs/aborted"'):]
    row = row[:row.index("</tr>")]
    assert "aborted" in row and "interrupted (Ctrl-C)" in row
    row = r.text[r.text.index('href="/runs/killed"'):]
    row = row[:row.index("</tr>")]
    assert "incomplete" in row and "no summary.json" in row and ">2</td>" in row  # two episodes so far
    assert ">complete<" in r.text[r.text.index('href="/runs/rule"'):]
    report = client.get("/runs/killed")
    assert report.status_code == 200 and "Incomplete run" in report.text and "2 of 5 goals finished" in report.text
    aborted = client.get("/runs/aborted")
    assert "Aborted run" in aborted.text and "interrupted (Ctrl-C)" in aborted.text


def test_compare_button_shows_the_paired_comparison(client, runs):
    listing = client.get("/runs").text
    assert '<form method="get" action="/compare-runs">' in listing
    assert 'name="a" value="rule"' in listing and 'name="b" value="exp/random"' in listing
    r = client.get("/compare-runs", params={"a": "rule", "b": "exp/random"})
    assert r.status_code == 200
    c = compare_runs(runs / "rule", runs / "exp" / "random")
    p = c.paired
    assert f"{p.mean_diff:+.2f}" in r.text and f"paired over {p.goals} common goals" in r.text.lower()
    assert f"B better on {p.wins} goals, worse on {p.losses}, tied on {p.ties}" in r.text
    assert f"{c.a.metrics.score:.1f} [" in r.text and f"{c.b.metrics.score:.1f} [" in r.text
    assert 'href="/runs/rule/episodes/0"' in r.text and 'href="/runs/exp/random/episodes/0"' in r.text
    assert "<style>" in r.text and "&lt;style&gt;" not in r.text
    evil = client.get("/compare-runs", params={"a": "evil", "b": "rule"})
    assert evil.status_code == 200 and "<script>" not in evil.text


def test_episode_and_report_link_the_playwright_trace(client, runs):
    r = client.get("/runs/traced/episodes/0")
    assert r.status_code == 200 and 'href="/runs/traced/traces/goal-0.zip"' in r.text
    assert f"playwright show-trace {(runs / 'traced' / 'traces' / 'goal-0.zip').resolve()}" in r.text
    assert "traces/goal-1.zip" not in client.get("/runs/traced/episodes/1").text
    z = client.get("/runs/traced/traces/goal-0.zip")
    assert z.status_code == 200 and z.headers["content-type"] == "application/zip"
    assert z.content == (runs / "traced" / "traces" / "goal-0.zip").read_bytes()
    report = client.get("/runs/traced").text
    assert 'href="/runs/traced/traces/goal-0.zip"' in report and "playwright show-trace" in report
