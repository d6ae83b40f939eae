"""``shopsim compare``: side-by-side summaries and the paired per-goal difference."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from shopsim.agents.evaluation.config import EvalConfig
from shopsim.agents.evaluation.runner import run_eval
from shopsim.agents.reports.compare import compare_runs, format_comparison
from shopsim.cli import main
from shopsim.errors import ConfigError


def _write_run(folder: Path, rewards: dict[int, float]) -> Path:
    folder.mkdir(parents=True)
    lines = []
    for g, r in rewards.items():
        info = {"r_type": 1.0, "r_att": 1.0, "r_option": None, "r_price": True, "r_strict": float(r == 1.0),
                "r_success": float(r == 1.0)}
        lines.append(json.dumps({"goal_index": g, "reward": r, "steps": 3, "done": True, "truncated": False,
                                 "reward_info": info, "actions": [], "unique_items": 1, "searches": 1}))
    (folder / "episodes.jsonl").write_text("\n".join(lines) + "\n")
    (folder / "config.json").write_text(json.dumps({"agent": folder.name, "adapter": "inprocess"}))
    return folder


def test_paired_difference_on_known_runs(tmp_path: Path):
    a = _write_run(tmp_path / "a", {0: 0.5, 1: 1.0, 2: 0.0, 3: 0.25, 9: 1.0})
    b = _write_run(tmp_path / "b", {0: 1.0, 1: 1.0, 2: 0.5, 3: 0.0, 7: 0.0})
    c = compare_runs(a, b)
    assert c.paired.goals == 4
    assert c.paired.mean_diff == pytest.approx(100 * (0.5 + 0.0 + 0.5 - 0.25) / 4)
    assert (c.paired.wins, c.paired.losses, c.paired.ties) == (2, 1, 1)
    assert c.paired.ci.low <= c.paired.mean_diff <= c.paired.ci.high
    assert c.paired.success_diff == pytest.approx(0.25)
    assert c.only_in_a == [9] and c.only_in_b == [7]
    assert [d.goal_index for d in c.per_goal] == [0, 1, 2, 3]
    assert c.a.metrics.episodes == 5 and c.b.metrics.episodes == 5
    assert compare_runs(a, b) == c  # seeded bootstrap
    text = format_comparison(c)
    assert "paired over 4 common goals" in text and "+18.75" in text and "only in A: 1 (9)" in text


def test_compare_real_runs_and_cli(tmp_path: Path, capsys):
    goals = list(range(8))
    run_eval(EvalConfig(agent="rule", goals=goals, out=str(tmp_path / "rule")), progress=False)
    run_eval(EvalConfig(agent="random", goals=goals, out=str(tmp_path / "random")), progress=False)
    c = compare_runs(tmp_path / "rule", tmp_path / "random")
    rule = json.loads((tmp_path / "rule" / "summary.json").read_text())
    rand = json.loads((tmp_path / "random" / "summary.json").read_text())
    assert c.a.metrics.score == pytest.approx(rule["score"]) and c.b.metrics.score == pytest.approx(rand["score"])
    assert c.paired.mean_diff == pytest.approx(rand["score"] - rule["score"])  # same goals: paired = unpaired
    assert c.paired.wins + c.paired.losses + c.paired.ties == 8

    assert main(["compare", str(tmp_path / "rule"), str(tmp_path / "random"), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["paired"]["goals"] == 8 and "per_goal" not in data
    assert data["a"]["agent"] == "rule" and "ci" in data["a"]["metrics"]
    assert main(["compare", str(tmp_path / "rule"), str(tmp_path / "random")]) == 0
    out = capsys.readouterr().out
    assert "B - A" in out and "score" in out


def test_compare_refuses_a_folder_that_is_not_a_run(tmp_path: Path, capsys):
    a = _write_run(tmp_path / "a", {0: 1.0})
    with pytest.raises(ConfigError):
        compare_runs(a, tmp_path / "missing")
    assert main(["compare", str(a), str(tmp_path / "missing")]) == 2
    assert "not a run folder" in capsys.readouterr().err
