"""Run metrics (bootstrap intervals, failure breakdown), report.html, and the eval runner's files."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from conftest import read_jsonl

from shopsim.agents.episode import EpisodeResult
from shopsim.agents.evaluation.config import EvalConfig
from shopsim.agents.evaluation.runner import run_eval
from shopsim.agents.reports.metrics import (
    METRIC_KEYS,
    bootstrap_interval,
    compute_metrics,
    episode_row,
    summarize,
)
from shopsim.agents.reports.report import render_report, write_report
from shopsim.progress import Progress


def _info(**kw):
    base = {"r_type": 1.0, "r_att": 1.0, "r_option": 1.0, "r_price": True, "r_strict": 1.0, "r_success": 1.0,
            "price_limited": True, "purchased_asin": "B0", "target_asin_match": False}
    return {**base, **kw}


SYNTHETIC = [
    {"goal_index": 0, "reward": 1.0, "steps": 4, "done": True, "truncated": False, "reward_info": _info(),
     "actions": ["search[x]", "click[b0]", "click[red]", "click[buy now]"], "unique_items": 1, "searches": 1},
    {"goal_index": 1, "reward": 0.5, "steps": 3, "done": True, "truncated": False,
     "reward_info": _info(r_option=0.0, r_strict=0.0, r_success=0.0), "actions": [], "unique_items": 1, "searches": 1},
    {"goal_index": 2, "reward": 0.25, "steps": 5, "done": True, "truncated": False,
     "reward_info": _info(r_type=0.5, r_att=0.5, r_option=None, r_price=False, r_strict=0.0, r_success=0.0),
     "actions": [], "unique_items": 2, "searches": 2},
    {"goal_index": 3, "reward": 0.0, "steps": 15, "done": False, "truncated": False, "reward_info": None,
     "actions": ["search[a]", "search[b]"], "unique_items": 3},
]


def test_metrics_on_synthetic_records():
    m = compute_metrics(SYNTHETIC)
    assert m.episodes == 4
    assert m.score == pytest.approx(100 * (1.0 + 0.5 + 0.25 + 0.0) / 4)
    assert m.success_rate == pytest.approx(0.25)
    assert m.r_success == pytest.approx(0.25) and m.r_strict == pytest.approx(0.25)
    assert m.r_type == pytest.approx((1 + 1 + 0.5 + 0) / 4)
    assert m.r_att == pytest.approx((1 + 1 + 0.5 + 0) / 4)
    assert m.r_option == pytest.approx((1 + 0 + 1 + 0) / 4)  # no options counts as met; no purchase as 0
    assert m.r_price == pytest.approx((1 + 1 + 0 + 0) / 4)
    assert m.avg_steps == pytest.approx(27 / 4)
    assert m.unique_items == pytest.approx(7 / 4)
    assert m.searches_per_episode == pytest.approx((1 + 1 + 2 + 2) / 4)  # missing count comes from actions
    assert m.failures == {"no purchase": 1, "wrong type": 1, "missed attributes": 1, "missed options": 1,
                          "over price": 1}
    assert m.primary_failures == {"success": 1, "no purchase": 1, "wrong type": 1, "missed attributes": 0,
                                  "missed options": 1, "over price": 0}
    assert [r.goal_index for r in m.per_goal] == [0, 1, 2, 3]
    assert episode_row(SYNTHETIC[2]).failures == ["wrong type", "missed attributes", "over price"]


def test_metrics_agree_with_evaluate_summarize():
    m = compute_metrics(SYNTHETIC)
    s = summarize([EpisodeResult(**{k: r[k] for k in EpisodeResult.model_fields if k in r}) for r in SYNTHETIC])
    for key, value in s.model_dump().items():
        assert getattr(m, key) == pytest.approx(value), key


def test_bootstrap_intervals_are_seeded_and_sensible():
    values = [0.0] * 30 + [1.0] * 70
    a = bootstrap_interval(values)
    assert a == bootstrap_interval(values)  # seeded
    assert (a.low, a.high) == (0.61, 0.79)  # around the mean, 0.7
    smooth = [i / 97 for i in range(97)]
    assert bootstrap_interval(smooth, seed=1) != bootstrap_interval(smooth, seed=2)
    assert bootstrap_interval([0.4] * 20).model_dump() == {"low": pytest.approx(0.4), "high": pytest.approx(0.4)}
    assert bootstrap_interval([]).model_dump() == {"low": 0.0, "high": 0.0}
    m = compute_metrics(SYNTHETIC * 5)
    for key in METRIC_KEYS:
        assert m.ci[key].low <= getattr(m, key) + 1e-9 <= m.ci[key].high + 2e-9, key
    assert m.bootstrap_resamples == 2000
    empty = compute_metrics([])
    assert empty.episodes == 0 and empty.score == 0.0


def test_report_renders_svg_and_escapes(tmp_path: Path):
    evil = dict(SYNTHETIC[1], goal_index=7)
    evil["reward_info"] = _info(purchased_asin="<script>alert(1)</script>", r_option=0.0, r_success=0.0)
    (tmp_path / "episodes.jsonl").write_text("".join(json.dumps(r) + "\n" for r in [*SYNTHETIC, evil]))
    (tmp_path / "config.json").write_text(json.dumps({"agent": "<b>bold</b>", "goals": [0, 1, 2, 3, 7]}))
    html = render_report(tmp_path)
    assert html.count("<svg") == 4  # reward histogram, sub-scores, steps, failures
    assert "<script" not in html and "&lt;script&gt;" in html and "&lt;b&gt;bold" in html
    assert "Reward histogram" in html and "Failure breakdown" in html
    assert f"/runs/{tmp_path.name}/episodes/7" in html
    assert write_report(tmp_path).read_text() == html


def test_progress_bar_is_quiet_off_a_tty():
    quiet = io.StringIO()
    bar = Progress("eval", 3, " ep", stream=quiet)
    bar.update()
    bar.close()
    assert quiet.getvalue() == ""

    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    tty = Tty()
    bar = Progress("eval", 2, " ep", stream=tty)
    bar.update()
    bar.update()
    bar.close()
    assert "2/2" in tty.getvalue() and "ep/s" in tty.getvalue()
    off = Tty()
    bar = Progress("eval", 2, " ep", stream=off, enabled=False)
    bar.update()
    assert off.getvalue() == ""


def _cfg(out: Path, goals: list[int], agent: str = "rule", workers: int = 1) -> EvalConfig:
    return EvalConfig(agent=agent, goals=goals, out=str(out), workers=workers, seed=0)


def test_eval_writes_summary_with_intervals_and_report(tmp_path: Path):
    out = tmp_path / "run"
    summary, extra = run_eval(_cfg(out, list(range(10))), progress=False)
    data = json.loads((out / "summary.json").read_text())
    for key in ("episodes", "score", "success_rate", "r_strict", "r_success", "r_att", "r_option", "r_price",
                "r_type", "avg_steps", "unique_items", "searches_per_episode", "ci", "failures"):
        assert key in data, key
    assert data["episodes"] == 10 == summary.episodes
    assert data["score"] == pytest.approx(100 * sum(r["reward"] for r in read_jsonl(out / "episodes.jsonl")) / 10)
    assert set(data["ci"]) == set(METRIC_KEYS)
    assert data["ci"]["score"]["low"] <= data["score"] <= data["ci"]["score"]["high"]
    assert sum(data["primary_failures"].values()) == 10
    report = (out / "report.html").read_text()
    assert report.count("<svg") >= 3 and "<script" not in report and "95% interval" in report
    assert extra["report"] == str(out / "report.html")


def test_eval_resumes_and_skips_finished_goals(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    out = tmp_path / "run"
    run_eval(_cfg(out, list(range(6))), progress=False)
    assert "resume" not in json.loads((out / "summary.json").read_text())  # a fresh run repairs nothing
    with open(out / "episodes.jsonl", "a") as f:
        f.write("not json\n" + (out / "episodes.jsonl").read_text().splitlines()[2] + "\n")  # garbage, duplicate
        f.write('{"goal_index": 9, "rew')  # a run killed mid-write
    with open(out / "traces.part0.jsonl", "w") as f:  # a killed worker: two steps of goal 7, then a torn line
        f.write('{"goal_index": 7, "step": 0}\n{"goal_index": 7, "step": 1}\n{"goal_index": 7, "st')
    _, extra = run_eval(_cfg(out, list(range(10))), progress=True)
    assert extra["episodes_run_now"] == 4
    resume = {"episodes_done": 6, "episodes_run_now": 4, "episodes_rerun": 1,
              "episode_lines_dropped": {"truncated": 1, "garbage": 1, "duplicate": 1},
              "trace_lines_dropped": {"truncated": 1, "garbage": 0, "unfinished": 2, "duplicate": 0}}
    assert extra["resume"] == resume == json.loads((out / "summary.json").read_text())["resume"]
    err = capsys.readouterr().err
    assert f"resuming {out}: 6 episodes already done, 4 to run now (1 interrupted, rerun from the start)" in err
    assert "dropped episodes.jsonl lines: 1 truncated, 1 garbage, 1 duplicate" in err
    assert "dropped trace lines: 1 truncated, 2 unfinished" in err
    recs = read_jsonl(out / "episodes.jsonl")
    assert [r["goal_index"] for r in recs] == list(range(10))
    traces = read_jsonl(out / "traces.jsonl")
    assert {t["goal_index"] for t in traces} == set(range(10))
    assert not list(out.glob("traces.part*"))
    whole = tmp_path / "whole"  # the repaired, resumed run equals an uninterrupted one, byte for byte
    run_eval(_cfg(whole, list(range(10))), progress=False)
    for name in ("episodes.jsonl", "traces.jsonl"):
        assert (out / name).read_bytes() == (whole / name).read_bytes(), name
    _, again = run_eval(_cfg(out, list(range(10))), progress=True)
    assert again["episodes_run_now"] == 0
    assert again["resume"] == {"episodes_done": 10, "episodes_run_now": 0, "episodes_rerun": 0,
                               "episode_lines_dropped": dict.fromkeys(("truncated", "garbage", "duplicate"), 0),
                               "trace_lines_dropped": dict.fromkeys(("truncated", "garbage", "unfinished", "duplicate"), 0)}
    assert "dropped episodes.jsonl lines: none; dropped trace lines: none" in capsys.readouterr().err
    assert json.loads((out / "summary.json").read_text())["episodes"] == 10


def test_eval_is_deterministic(tmp_path: Path):
    a, b = tmp_path / "a", tmp_path / "b"
    run_eval(_cfg(a, list(range(8)), agent="random"), progress=False)
    run_eval(_cfg(b, list(range(8)), agent="random"), progress=False)
    assert (a / "episodes.jsonl").read_bytes() == (b / "episodes.jsonl").read_bytes()
    assert (a / "traces.jsonl").read_bytes() == (b / "traces.jsonl").read_bytes()
    sa, sb = (json.loads((d / "summary.json").read_text()) for d in (a, b))
    for s in (sa, sb):  # when it ran and how long it took are all that may differ
        del s["seconds"], s["run"]["date"]
    assert sa == sb


@pytest.mark.slow
def test_eval_with_workers_matches_one_process(tmp_path: Path):
    run_eval(_cfg(tmp_path / "one", list(range(8)), agent="random"), progress=False)
    run_eval(_cfg(tmp_path / "two", list(range(8)), agent="random", workers=2), progress=False)
    assert (tmp_path / "one" / "episodes.jsonl").read_bytes() == (tmp_path / "two" / "episodes.jsonl").read_bytes()
    assert (tmp_path / "one" / "traces.jsonl").read_bytes() == (tmp_path / "two" / "traces.jsonl").read_bytes()
