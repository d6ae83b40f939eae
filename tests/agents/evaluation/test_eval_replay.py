"""``shopsim eval --adapter replay``: a recorded sim bundle replays to the same reward as the live sim."""

from __future__ import annotations

import json
from pathlib import Path

from shopsim.adapters import ShopEnv
from shopsim.agents.episode import run_episode
from shopsim.agents.evaluation.config import EvalConfig
from shopsim.agents.evaluation.runner import run_eval
from shopsim.agents.rule import RuleAgent
from shopsim.simsite.shop import Shop

BUNDLE = Path(__file__).resolve().parents[3] / "fixtures" / "bundles" / "sim-rule-goal3"


def test_replayed_bundle_scores_like_the_live_sim(tmp_path: Path, bundled_shop: Shop) -> None:
    goal = bundled_shop.goal(3)
    goal_file = tmp_path / "goals.jsonl"
    goal_file.write_text(json.dumps(goal.model_dump()) + "\n")
    live = run_episode(ShopEnv(bundled_shop), RuleAgent(), 3)
    cfg = EvalConfig(agent="rule", adapter="replay", bundle=str(BUNDLE), goal_file=str(goal_file), goals=[0],
                     out=str(tmp_path / "run"))
    summary, _ = run_eval(cfg, progress=False)
    episode = json.loads((tmp_path / "run" / "episodes.jsonl").read_text().splitlines()[0])
    assert summary.episodes == 1 and episode["done"] and episode["actions"] == live.actions
    assert episode["reward"] == live.reward > 0
    steps = [json.loads(x) for x in (tmp_path / "run" / "traces.jsonl").read_text().splitlines()]
    assert [s["feedback"] for s in steps] == ["ok"] * len(steps)
