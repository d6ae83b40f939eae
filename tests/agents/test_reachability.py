"""``shopsim check-goals``: per-goal ceilings of an oracle that searches the instruction."""

from __future__ import annotations

import json

import pytest

from shopsim.adapters.env import ShopEnv
from shopsim.agents.episode import run_episode
from shopsim.agents.reachability import best_options, check_goal, check_goals
from shopsim.agents.rule import RuleAgent
from shopsim.cli import main
from shopsim.simsite.reward import score_purchase

GOALS = list(range(60))


@pytest.fixture(scope="module")
def report(bundled_shop):
    return check_goals(bundled_shop, GOALS)


def test_ceiling_is_at_least_what_the_rule_agent_gets(bundled_shop, report):
    env = ShopEnv(bundled_shop)
    agent = RuleAgent()
    rule = [run_episode(env, agent, g).reward for g in GOALS]
    for g, got in zip(GOALS, rule, strict=True):
        assert report.per_goal[g].best_reward >= got - 1e-9, g
    assert report.ceiling_score >= 100 * sum(rule) / len(rule)
    assert report.goals == 60 and report.pages == 5
    assert report.ceiling_score == 100.0 and report.reachable_rate == 1.0 and report.results_per_goal == 49.65


@pytest.mark.slow
def test_targets_in_results_reach_one_with_their_own_options(bundled_shop, report):
    checked = 0
    for row in report.per_goal:
        goal = bundled_shop.goals[row.goal_index]
        if not row.target_in_results:
            continue
        target = bundled_shop.products[goal.asin]
        own = score_purchase(target, goal, bundled_shop.prices[goal.asin], dict(goal.goal_options), bundled_shop.nouns)
        assert row.target_reward is not None and row.target_reward >= own.reward - 1e-9
        if own.reward >= 1.0:
            checked += 1
            assert row.reachable and row.best_reward >= 1.0
        assert row.target_rank is not None and 1 <= row.target_rank <= row.results
    assert checked == 60
    assert report.target_in_results_rate == 1.0


def test_best_options_pick_the_goals_values(bundled_shop):
    goal = next(g for g in bundled_shop.goals if isinstance(g.goal_options, dict) and len(g.goal_options) >= 2)
    target = bundled_shop.products[goal.asin]
    chosen = best_options(target, goal)
    assert set(chosen) == set(target.options)
    for axis, value in goal.goal_options.items():
        assert chosen[axis] == value
    row = check_goal(bundled_shop, bundled_shop.goals.index(goal))
    assert row.best_reward >= score_purchase(target, goal, bundled_shop.prices[goal.asin], chosen).reward - 1e-9 \
        or not row.target_in_results


def test_check_goals_cli_json(capsys):
    assert main(["check-goals", "--goals", "0:20", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["goals"] == 20 and 0 <= data["ceiling_score"] <= 100 + 1e-6
    assert "per_goal" not in data
    assert main(["check-goals", "--goals", "0:5"]) == 0
    out = capsys.readouterr().out
    assert "ceiling score" in out and "target ASIN in results" in out
