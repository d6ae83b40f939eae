"""What an evaluation run reports: cost, breakdown by kind of goal, run metadata, intervals, aborted
runs, and secrets kept out of every file (real runs, a real CLI process, the fake LLM server)."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import zipfile
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from _fake_llm import FakeLLM, call, reply, scripted_shopper, tools_of
from conftest import ROOT, SMALL, needs_small, read_jsonl

import shopsim
from shopsim.agents.evaluation.config import EvalConfig
from shopsim.agents.evaluation.run_meta import git_commit
from shopsim.agents.evaluation.runner import run_eval
from shopsim.agents.redact import Scrubber, is_secret_key, redact_mapping
from shopsim.agents.registry import AGENTS, register_agent
from shopsim.agents.rule import RuleAgent
from shopsim.cli import main
from shopsim.simsite.catalog import default_catalog_dir

pytestmark = pytest.mark.slow  # every test runs an evaluation

KEY = "sk-report-0123456789abcdef"


@pytest.fixture()
def fake():
    server = FakeLLM()
    yield server
    server.close()


def _llm_options(fake: FakeLLM, **extra: str) -> list[str]:
    opts = {"base_url": fake.url, "model": "scripted", **extra}
    return [x for k, v in opts.items() for x in ("--agent-option", f"{k}={v}")]


# ---- cost ---------------------------------------------------------------------------------------
def test_cost_from_token_prices(fake: FakeLLM, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fake.default = scripted_shopper
    priced, free = tmp_path / "priced", tmp_path / "free"
    assert main(["eval", "--agent", "llm", "--goals", "0:3", "--out", str(priced), "--price-per-1k-tokens", "1,2",
                 *_llm_options(fake)]) == 0
    text = capsys.readouterr().out
    summary = json.loads((priced / "summary.json").read_text())
    requests = summary["agent_stats"]["total"]["requests"]
    assert requests == len(fake.requests) > 0
    # the fake bills 10 prompt + 2 completion tokens a request: 10/1000 * 1 + 2/1000 * 2 = 0.014
    cost = summary["cost"]
    assert cost["price_per_1k_tokens"] == {"prompt": 1.0, "completion": 2.0} and cost["episodes"] == 3
    assert cost["total"] == pytest.approx(0.014 * requests)
    per = [0.014 * r["agent_stats"]["requests"] for r in read_jsonl(priced / "episodes.jsonl")]
    assert cost["per_episode"] == pytest.approx(sum(per) / 3) and cost["max_episode"] == pytest.approx(max(per))
    assert "cost (at 1 / 2 per 1k tokens in / out)" in text and f"{cost['total']:.4f} in total" in text
    report = (priced / "report.html").read_text()
    assert "Cost at 1 per 1k prompt tokens and 2 per 1k completion tokens" in report
    assert f"<b>{cost['total']:.4f}</b>" in report and "<th>cost</th>" in report
    assert main(["eval", "--agent", "llm", "--goals", "0:2", "--out", str(free), *_llm_options(fake)]) == 0
    text = capsys.readouterr().out
    assert "cost" not in json.loads((free / "summary.json").read_text()) and "cost (at" not in text
    assert "<th>cost</th>" not in (free / "report.html").read_text()


@pytest.mark.parametrize("prices", ["1", "a,b", "1,-2", "1,2,3", "nan,1"])
def test_bad_prices_are_one_line(prices: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", "--goals", "0", "--out", str(tmp_path / "r"), "--price-per-1k-tokens", prices]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--price-per-1k-tokens" in err and "IN,OUT" in err
    assert not (tmp_path / "r").exists()


# ---- secrets ------------------------------------------------------------------------------------
@pytest.mark.parametrize("where", ["option", "environment"])
def test_an_api_key_is_never_written(where: str, fake: FakeLLM, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                     caplog: pytest.LogCaptureFixture, capsys: pytest.CaptureFixture[str]) -> None:
    """The model even types the key into the shop: it still reaches no file, log or output line."""
    def typing_the_key(body: dict[str, Any]) -> dict[str, Any]:
        if "search" in tools_of(body):
            return reply(call("search", {"query": f"{KEY} shoes"}))
        return scripted_shopper(body)

    fake.default = typing_the_key
    fake.statuses = [429]  # one retry, logged
    fake.retry_after = "0"
    extra = {"api_key": KEY} if where == "option" else {}
    if where == "environment":
        monkeypatch.setenv("SHOPSIM_LLM_API_KEY", KEY)
    out = tmp_path / "run"
    caplog.set_level("INFO")
    assert main(["eval", "--agent", "llm", "--goals", "0:2", "--out", str(out), "--json",
                 *_llm_options(fake, **extra)]) == 0
    printed = capsys.readouterr()
    assert fake.headers[0]["Authorization"] == f"Bearer {KEY}"  # the key was used...
    assert any(KEY in json.dumps(b) for b in fake.requests)  # ...and typed, and shown back on the pages
    files = sorted(p for p in out.rglob("*") if p.is_file())
    assert {p.name for p in files} >= {"config.json", "summary.json", "episodes.jsonl", "traces.jsonl", "report.html"}
    for path in files:
        assert KEY not in path.read_text(encoding="utf-8", errors="replace").lower(), path
    assert KEY not in printed.out + printed.err
    assert any("retry 1 of" in r.getMessage() for r in caplog.records)
    assert all(KEY not in r.getMessage() for r in caplog.records)
    summary = json.loads((out / "summary.json").read_text())
    if where == "option":
        assert summary["run"]["agent_options"]["api_key"] == "***"
        assert json.loads((out / "config.json").read_text())["agent_options"]["api_key"] == "***"
    else:
        assert summary["run"]["env"]["SHOPSIM_LLM_API_KEY"] == "***"
    assert summary["run"]["agent_options"]["model"] == "scripted"  # other options stay readable
    assert read_jsonl(out / "episodes.jsonl")[0]["actions"][0] == "search[*** shoes]"


def test_what_counts_as_a_secret(tmp_path: Path) -> None:
    secret = ["api_key", "OPENAI_API_KEY", "apiKey", "x-api-key", "accessToken", "token", "db_password", "SECRET",
              "Authorization", "aws_secret_access_key", "private_key"]
    plain = ["max_tokens", "model", "base_url", "keyword", "PWD", "monkey", "history_turns", "timeout"]
    assert [k for k in secret if not is_secret_key(k)] == [] and [k for k in plain if is_secret_key(k)] == []
    assert redact_mapping({"api_key": "sk-1", "model": "m", "nested": {"token": "t"}, "password": ""}) == {
        "api_key": "***", "model": "m", "nested": {"token": "***"}, "password": ""}
    scrub = Scrubber.for_run({"api_key": "Sk-Mixed/Case+1"}, environ={"MY_TOKEN": "tok-123456", "HOME": "/home/x"})
    assert scrub.text("a sk-mixed/case+1 b Sk-Mixed%2FCase%2B1 c tok-123456 /home/x") == "a *** b *** c *** /home/x"
    assert not Scrubber.for_run({"api_key": "12345"}, environ={})  # too short to protect anything
    trace = tmp_path / "t.zip"
    with zipfile.ZipFile(trace, "w") as z:
        z.writestr("trace.trace", '{"fill": "tok-123456"}')
        z.writestr("shot.jpeg", b"\xff\xd8tok-123456\xff")  # not text: pixels are left alone
    assert scrub.zip_file(trace) and not scrub.zip_file(trace)
    with zipfile.ZipFile(trace) as z:
        assert z.read("trace.trace") == b'{"fill": "***"}' and z.read("shot.jpeg") == b"\xff\xd8tok-123456\xff"


# ---- breakdown and metadata ---------------------------------------------------------------------
def test_breakdown_by_kind_of_goal(bundled_shop, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "run"
    assert main(["eval", "--agent", "rule", "--goals", "0:60", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    records = read_jsonl(out / "episodes.jsonl")
    for r in records:
        goal = bundled_shop.goal(r["goal_index"])
        n = len(goal.goal_options)
        assert r["goal_groups"] == {"category": goal.category,
                                    "options": "no options" if n == 0 else "1 option" if n == 1 else "2+ options",
                                    "price": "price limit", "source": "synthetic"}
    breakdown = json.loads((out / "summary.json").read_text())["breakdown"]
    assert list(breakdown) == ["category", "options", "price", "source"]
    assert {g for g in breakdown["category"]} == {bundled_shop.goal(g).category for g in range(60)}
    assert len(breakdown["options"]) >= 2  # the bundled goals have both kinds
    for axis, groups in breakdown.items():
        assert sum(g["episodes"] for g in groups.values()) == 60, axis
        for name, g in groups.items():
            mine = [r for r in records if r["goal_groups"][axis] == name]
            assert g["score"] == pytest.approx(100 * sum(r["reward"] for r in mine) / len(mine))
            assert g["score_ci"]["low"] <= g["score"] <= g["score_ci"]["high"]
    assert "by kind of goal" in text and re.search(r"category\s+\w+\s+\d+\.\d ± \d+\.\d", text)
    report = (out / "report.html").read_text()
    assert "By kind of goal" in report and "2+ options" in report and "how many option values" in report


@needs_small
def test_human_goals_are_their_own_group(tmp_path: Path) -> None:
    out = tmp_path / "human"
    run_eval(EvalConfig(agent="rule", goals=list(range(5)), data=str(SMALL), human_goals=True, out=str(out)),
             progress=False)
    assert {r["goal_groups"]["source"] for r in read_jsonl(out / "episodes.jsonl")} == {"human"}
    assert list(json.loads((out / "summary.json").read_text())["breakdown"]["source"]) == ["human"]


class RuleWithOptions(RuleAgent):
    """The rule agent with two options: a secret one and a count that merely sounds like one."""

    def __init__(self, token: str = "", max_tokens: int = 0):
        self.token, self.max_tokens = token, max_tokens


def test_run_metadata(tmp_path: Path) -> None:
    run_eval(EvalConfig(agent="test_eval_reports:RuleWithOptions", goals=[0, 1], seed=3, out=str(tmp_path / "a"),
                        agent_options={"token": "abcdefgh", "max_tokens": "9"}), progress=False)
    meta = json.loads((tmp_path / "a" / "summary.json").read_text())["run"]
    assert datetime.fromisoformat(meta["date"]).tzinfo is not None
    assert meta["shopsim_version"] == shopsim.__version__
    assert (meta["profile"], meta["seed"], meta["engine"]) == ("webshop", 3, "default")
    assert meta["agent"] == "test_eval_reports:RuleWithOptions"
    assert meta["agent_options"] == {"token": "***", "max_tokens": "9"}  # a count of tokens is no secret
    head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True, text=True, check=False)
    if head.returncode == 0:
        assert meta["git"]["commit"] == head.stdout.strip() and isinstance(meta["git"]["dirty"], bool)
    else:
        assert meta["git"] is None
    assert meta["catalog"]["over"] == "files" and "shop_items.json" in meta["catalog"]["files"]
    assert re.fullmatch(r"[0-9a-f]{64}", meta["catalog"]["sha256"])
    # the fingerprint follows the files' content, not where they are
    copy = tmp_path / "catalog"
    copy.mkdir()
    for f in default_catalog_dir().glob("shop_*.json"):
        shutil.copy(f, copy / f.name)
    run_eval(EvalConfig(agent="rule", goals=[0], data=str(copy), out=str(tmp_path / "b")), progress=False)
    same = json.loads((tmp_path / "b" / "summary.json").read_text())["run"]["catalog"]["sha256"]
    reviews = copy / "shop_reviews.json"
    reviews.write_text(json.dumps(json.loads(reviews.read_text()), indent=1))
    run_eval(EvalConfig(agent="rule", goals=[0], data=str(copy), out=str(tmp_path / "c")), progress=False)
    changed = json.loads((tmp_path / "c" / "summary.json").read_text())["run"]["catalog"]["sha256"]
    assert same == meta["catalog"]["sha256"] != changed
    report = (tmp_path / "a" / "report.html").read_text()
    assert meta["catalog"]["sha256"] in report and "abcdefgh" not in report and "shopsim version" in report


def test_git_commit_never_fails(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert git_commit(tmp_path) is None  # not a repository
    monkeypatch.setenv("PATH", str(tmp_path))  # no git at all
    assert git_commit() is None


def test_terminal_prints_intervals(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", "--agent", "random", "--goals", "0:20", "--out", str(tmp_path / "r")]) == 0
    text = capsys.readouterr().out
    ci = json.loads((tmp_path / "r" / "summary.json").read_text())["ci"]["score"]
    assert f"± {(ci['high'] - ci['low']) / 2:.1f} (95% CI {ci['low']:.1f}–{ci['high']:.1f})" in text
    assert re.search(r"success rate\s+\d+\.\d% ± \d+\.\d \(95% CI", text)
    assert re.search(r"run \S+ · shopsim \S+ .*catalog sha256 [0-9a-f]{16} · seed 0", text)


# ---- aborted runs -------------------------------------------------------------------------------
class StoppedOnGoal3(RuleAgent):
    """The rule agent, until Ctrl-C lands in it on goal 3 (the runner seeds an episode with seed + goal).
    An agent's own exception would only fail its episode (``tests/agents/evaluation/test_hostile_agents.py``).
    """

    def reset(self, seed: int | None = None) -> None:
        if seed == 3:
            raise KeyboardInterrupt
        super().reset(seed)


def test_a_stop_leaves_an_aborted_summary_and_resumes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "run"
    monkeypatch.setitem(AGENTS, "test-stopped", AGENTS["rule"])
    register_agent("test-stopped", lambda seed, opts: StoppedOnGoal3())  # built in: played in this process
    cfg = EvalConfig(agent="test-stopped", goals=list(range(6)), out=str(out))
    with pytest.raises(KeyboardInterrupt):
        run_eval(cfg, progress=False)
    summary = json.loads((out / "summary.json").read_text())
    assert summary["status"] == "aborted" and summary["reason"] == "interrupted (Ctrl-C)"
    assert summary["episodes"] == 3 and summary["episodes_missing"] == 3
    assert [r["goal_index"] for r in read_jsonl(out / "episodes.jsonl")] == [0, 1, 2]
    report = (out / "report.html").read_text()
    assert "Aborted run" in report and "3 of 6 goals finished" in report
    _, extra = run_eval(cfg.model_copy(update={"agent": "rule"}), progress=False)  # resume with a fixed agent
    summary = json.loads((out / "summary.json").read_text())
    assert summary["status"] == "complete" and "reason" not in summary and summary["episodes"] == 6
    assert extra["episodes_run_now"] == 3 and "Aborted run" not in (out / "report.html").read_text()


@pytest.mark.parametrize("workers", [1, pytest.param(2, marks=pytest.mark.slow)])
def test_sigterm_stops_the_run_and_says_so(workers: int, tmp_path: Path) -> None:
    out = tmp_path / "run"
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen([sys.executable, "-m", "shopsim.cli", "eval", "--agent", "heuristic", "--goals", "0:1800",
                             "--workers", str(workers), "--out", str(out)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        deadline = time.monotonic() + 240  # a generous bound on start-up, not a speed assertion
        episodes = out / "episodes.jsonl"
        while not (episodes.exists() and episodes.read_text().count("\n") >= 2):
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "no episode finished"
            time.sleep(0.2)
        proc.send_signal(signal.SIGTERM)
        _, stderr = proc.communicate(timeout=240)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 143, stderr
    assert "Traceback" not in stderr and "terminated (SIGTERM)" in stderr and "resume" in stderr
    summary = json.loads((out / "summary.json").read_text())
    assert summary["status"] == "aborted" and summary["reason"] == "terminated (SIGTERM)"
    assert 2 <= summary["episodes"] < 1800 and summary["episodes_missing"] == 1800 - summary["episodes"]
    assert not list(out.glob("traces.part*.jsonl"))  # the steps are folded into traces.jsonl
