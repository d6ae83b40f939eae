"""``shopsim eval --adapter browser --trace failures|all``: a real Playwright trace per episode, in real Chromium.

Traces land in ``OUT/traces/goal-<N>.zip`` (``failures`` keeps only episodes with r_success 0),
``episodes.jsonl`` names each, and ``report.html`` links it with the ``playwright show-trace``
command. A model that types its own API key into the shop's search box still leaves no trace of
the key in any file of the run, Playwright's zips included.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

import pytest
from _fake_llm import FakeLLM, call, reply, scripted_shopper, tools_of
from conftest import read_jsonl

from shopsim.agents.evaluation.config import EvalConfig
from shopsim.agents.evaluation.runner import run_eval
from shopsim.agents.reports.metrics import episode_row
from shopsim.cli import main
from shopsim.errors import ConfigError

pytestmark = pytest.mark.slow  # a costly module fixture, or every test is long

KEY = "sk-trace-0123456789abcdef"


def _zip_names(path: Path) -> list[str]:
    with zipfile.ZipFile(path) as z:
        assert z.testzip() is None
        return z.namelist()


def _all_bytes(root: Path) -> list[tuple[str, bytes]]:
    """Every file under ``root`` and, for zips, every member (decompressed)."""
    out = []
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        data = path.read_bytes()
        out.append((str(path), data))
        if path.suffix == ".zip":
            with zipfile.ZipFile(path) as z:
                out.extend((f"{path}!{name}", z.read(name)) for name in z.namelist())
    return out


@pytest.mark.browser
def test_failures_keeps_the_traces_of_failed_episodes_only(tmp_path: Path, web_server, chromium_path,
                                                             browser_shutdown) -> None:
    out = tmp_path / "run"
    cfg = EvalConfig(agent="rule", adapter="browser", goals=[0, 1, 2, 3], out=str(out), base_url=web_server.base_url,
                     browser_path=chromium_path, trace="failures")
    run_eval(cfg, progress=False)
    records = read_jsonl(out / "episodes.jsonl")
    failed = {r["goal_index"] for r in records if episode_row(r).r_success < 1}
    assert failed and failed != {0, 1, 2, 3}, "the rule agent fails some of these goals and succeeds on one"
    assert {r["goal_index"] for r in records if "trace" in r} == failed
    assert sorted(p.name for p in (out / "traces").iterdir()) == sorted(f"goal-{g}.zip" for g in failed)
    for r in records:
        if "trace" in r:
            assert r["trace"] == f"traces/goal-{r['goal_index']}.zip"
            names = _zip_names(out / r["trace"])
            assert "trace.trace" in names and "trace.network" in names
            events = zipfile.ZipFile(out / r["trace"]).read("trace.trace").decode()
            assert f"fixed_{r['goal_index']}" in events  # the episode's own session, from its first page
    summary = json.loads((out / "summary.json").read_text())
    assert summary["traces"] == {"mode": "failures", "folder": "traces", "kept": len(failed),
                                 "example": f"traces/goal-{min(failed)}.zip"}
    report = (out / "report.html").read_text()
    for g in failed:
        assert f'href="traces/goal-{g}.zip"' in report
    assert f"playwright show-trace {out.resolve() / 'traces' / f'goal-{min(failed)}.zip'}" in report


@pytest.mark.browser
def test_all_with_two_workers_and_a_key_typed_into_the_shop(tmp_path: Path, web_server, chromium_path,
                                                             browser_shutdown) -> None:
    fake = FakeLLM()

    def typing_the_key(body: dict[str, Any]) -> dict[str, Any]:
        if "search" in tools_of(body):
            return reply(call("search", {"query": f"{KEY} shoes"}))
        return scripted_shopper(body)

    fake.default = typing_the_key
    out = tmp_path / "run"
    try:
        cfg = EvalConfig(agent="llm", adapter="browser", goals=[0, 1], workers=2, out=str(out),
                         base_url=web_server.base_url, browser_path=chromium_path, trace="all", screenshots=True,
                         agent_options={"base_url": fake.url, "model": "scripted", "api_key": KEY})
        run_eval(cfg, progress=False)
    finally:
        fake.close()
    assert any(KEY in json.dumps(b) for b in fake.requests)  # the key was typed and came back on the pages
    records = read_jsonl(out / "episodes.jsonl")
    assert [r["trace"] for r in records] == ["traces/goal-0.zip", "traces/goal-1.zip"]
    assert not list((out / "traces").glob(".part*"))  # the workers' scratch folders are gone
    assert records[0]["actions"][0] == "search[*** shoes]"
    assert (out / "screenshots" / "0-1.html").exists()  # the results page, the key in its search box
    for name, data in _all_bytes(out):
        assert KEY.encode() not in data.lower(), name
    # the typing is in the trace (click mode types as a keyboard does: shopsim.adapters.browser_input)
    assert "keyboardInsertText" in zipfile.ZipFile(out / "traces" / "goal-0.zip").read("trace.trace").decode()


def test_trace_needs_the_browser_adapter(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", "--adapter", "inprocess", "--trace", "all", "--goals", "0", "--out", str(tmp_path / "a")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--trace all" in err and "--adapter browser" in err and "Traceback" not in err
    assert not (tmp_path / "a").exists()
    with pytest.raises(ConfigError, match="needs --adapter browser"):
        run_eval(EvalConfig(adapter="http", goals=[0], out=str(tmp_path / "b"), trace="failures"), progress=False)
    assert not (tmp_path / "b").exists()
    with pytest.raises(SystemExit):  # argparse's choices
        main(["eval", "--trace", "sometimes", "--out", str(tmp_path / "c")])
