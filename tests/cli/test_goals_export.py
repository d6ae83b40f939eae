"""``shopsim goals export`` writes the goal files ``transfer``, ``record`` and replay read, and they load back identically."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import SMALL, needs_small

from shopsim.adapters.bundle import Bundle
from shopsim.cli import main
from shopsim.simsite.goals import load_goal_file
from shopsim.simsite.shop import Shop, ShopConfig

ROOT = Path(__file__).resolve().parents[2]
BUNDLE = ROOT / "fixtures" / "bundles" / "sim-rule-goal3"


def _export(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    assert main(["goals", "export", *args]) == 0, capsys.readouterr().err
    return capsys.readouterr().out


def _error(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    """Exit 2 with exactly one line on stderr, no traceback."""
    assert main(["goals", "export", *args]) == 2
    err = capsys.readouterr().err
    assert err.startswith("shopsim: error: ") and err.count("\n") == 1 and "Traceback" not in err
    return err


def test_jsonl_round_trip(tmp_path: Path, bundled_shop: Shop, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "goals.jsonl"
    assert "5 goals (JSONL)" in _export(capsys, "--goals", "0:3,7,11", "--out", str(out))
    expected = [bundled_shop.goal(i) for i in (0, 1, 2, 7, 11)]
    assert load_goal_file(out) == expected
    lines = out.read_text(encoding="utf-8").splitlines()
    assert [json.loads(line) for line in lines] == [g.model_dump() for g in expected]  # every field, in order


def test_single_goal_as_a_json_object(tmp_path: Path, bundled_shop: Shop, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "nested" / "goal.json"  # missing folders are made
    assert "1 goal object" in _export(capsys, "--goals", "3", "--out", str(out))
    doc = json.loads(out.read_text(encoding="utf-8"))  # the whole file is one JSON object
    assert isinstance(doc, dict) and doc["asin"] == bundled_shop.goal(3).asin
    assert load_goal_file(out) == [bundled_shop.goal(3)]
    # one goal to a .jsonl file is still one line of JSONL
    _export(capsys, "--goals", "3", "--out", str(tmp_path / "one.jsonl"))
    assert (tmp_path / "one.jsonl").read_text(encoding="utf-8") == out.read_text(encoding="utf-8")


def test_seed_changes_price_limits(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _export(capsys, "--goals", "0:40", "--seed", "7", "--out", str(tmp_path / "s7.jsonl"))
    seeded = Shop.from_config(ShopConfig(seed=7))
    assert load_goal_file(tmp_path / "s7.jsonl") == seeded.goals[:40]


@needs_small
@pytest.mark.slow
def test_human_goals_from_real_data(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "human.jsonl"
    _export(capsys, "--goals", "0:25", "--data", str(SMALL), "--human-goals", "--profile", "webshop", "--out", str(out))
    shop = Shop.from_config(ShopConfig(data_dir=SMALL, human_goals=True))
    goals = load_goal_file(out)
    assert goals == shop.goals[:25]
    assert all(isinstance(g.goal_options, list) for g in goals)  # human goals keep WebShop's option lists


def test_exported_goal_drives_transfer_and_replay(tmp_path: Path, bundled_shop: Shop,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """The exported file is what `transfer --goal` and `eval --goal-file` read, unchanged."""
    goal_file = tmp_path / "goal.json"
    _export(capsys, "--goals", "3", "--out", str(goal_file))
    assert main(["transfer", "--agent", "rule", "--bundle", str(BUNDLE), "--goal", str(goal_file), "--json"]) == 0
    transfer = json.loads(capsys.readouterr().out)
    assert transfer["goal_asin"] == bundled_shop.goal(3).asin and transfer["purchased"]
    run = tmp_path / "run"
    assert main(["eval", "--adapter", "replay", "--bundle", str(BUNDLE), "--goal-file", str(goal_file),
                 "--goals", "0", "--out", str(run), "--json"]) == 0
    episode = json.loads((run / "episodes.jsonl").read_text().splitlines()[0])
    assert episode["reward"] == transfer["reward"] > 0
    assert Bundle.load(BUNDLE).manifest.instruction == bundled_shop.goal(3).instruction_text


@pytest.mark.slow
def test_bad_requests_exit_2_with_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert "selects 3" in _error(capsys, "--goals", "0:3", "--out", str(tmp_path / "three.json"))
    assert not (tmp_path / "three.json").exists()
    assert "out of range" in _error(capsys, "--goals", "99999", "--out", str(tmp_path / "g.jsonl"))
    assert "bad goal spec" in _error(capsys, "--goals", "one", "--out", str(tmp_path / "g.jsonl"))
    assert "is a folder" in _error(capsys, "--goals", "1", "--out", str(tmp_path))
    assert "webshop" in _error(capsys, "--goals", "1", "--profile", "shopsim-v8", "--out", str(tmp_path / "v8.jsonl"))
    assert "selects no goals" in _error(capsys, "--goals", "5:5", "--out", str(tmp_path / "none.jsonl"))
    assert not list(tmp_path.glob("*.tmp"))


@pytest.mark.browser
@pytest.mark.slow
def test_record_saves_the_goal_and_replay_pairs_by_it(tmp_path: Path, web_server, chromium_path: str | None,
                                                      browser_shutdown: None, bundled_shop: Shop,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    """export → record --goal → eval --adapter replay with no goal file and no mapping → the live sim's rewards."""
    from shopsim.adapters import ShopEnv
    from shopsim.agents.episode import run_episode
    from shopsim.agents.rule import RuleAgent

    for goal in (3, 5):
        goal_file = tmp_path / f"goal{goal}.json"
        _export(capsys, "--goals", str(goal), "--out", str(goal_file))
        args = ["record", "--start-url", f"{web_server.base_url}/fixed_{goal}", "--site", "simsite", "--agent", "rule",
                "--goal", str(goal_file), "--out", str(tmp_path / "bundles" / f"goal{goal}")]
        assert main(args + (["--browser", chromium_path] if chromium_path else [])) == 0
        assert Bundle.load(tmp_path / "bundles" / f"goal{goal}").manifest.goal == bundled_shop.goal(goal)
    capsys.readouterr()
    live = [run_episode(ShopEnv(bundled_shop), RuleAgent(), g) for g in (3, 5)]
    assert main(["transfer", "--agent", "rule", "--bundle", str(tmp_path / "bundles" / "goal5"), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["reward"] == live[1].reward  # the bundle's own goal
    run = tmp_path / "run"
    assert main(["eval", "--adapter", "replay", "--bundle", str(tmp_path / "bundles"), "--goals", "0:2",
                 "--out", str(run), "--json"]) == 0
    episodes = [json.loads(line) for line in (run / "episodes.jsonl").read_text().splitlines()]
    assert [e["bundle"]["path"] for e in episodes] == [str(tmp_path / "bundles" / f"goal{g}") for g in (3, 5)]
    assert [e["reward"] for e in episodes] == [r.reward for r in live]
    assert [e["actions"] for e in episodes] == [r.actions for r in live]
