"""The heuristic agent: query building, budget and validity, and a clear margin over the rule baseline."""

from __future__ import annotations

import pytest

from shopsim.adapters.env import ShopEnv
from shopsim.agents.episode import run_episode
from shopsim.agents.heuristic import HeuristicAgent, build_query, parse_instruction
from shopsim.agents.registry import make_agent
from shopsim.agents.reports.metrics import summarize
from shopsim.agents.rule import RuleAgent
from tests.conftest import needs_small

INSTR = ("show me some packable lightweight women's coats, jackets & vests with zip pockets with "
         "color: mustard yellow, and size: large, and price lower than 50.00 dollars")


def test_parse_instruction_splits_price_and_options() -> None:
    p = parse_instruction(INSTR)
    assert p.price_limit == 50.0
    assert p.options == {"color": "mustard yellow", "size": "large"}
    assert p.core == "show me some packable lightweight women's coats, jackets & vests with zip pockets"


def test_parse_instruction_keeps_commas_inside_values_and_multiword_axes() -> None:
    p = parse_instruction('Find me double sided pillows with printing technology with size: 28" x 28", '
                          "and item package quantity: 3, and price lower than 30.00 dollars")
    assert p.options == {"size": '28" x 28"', "item package quantity": "3"}
    assert p.price_limit == 30.0
    assert p.core.endswith("with printing technology")


def test_parse_instruction_without_options_or_price() -> None:
    p = parse_instruction("i want to buy a toothpaste with coconut oil")
    assert p.options == {} and p.price_limit is None
    assert p.core == "i want to buy a toothpaste with coconut oil"


def test_build_query_drops_fillers_price_and_option_labels() -> None:
    q = build_query(INSTR)
    assert "show me" not in q and "price" not in q and "dollars" not in q and "color:" not in q
    assert q.startswith("packable lightweight women's coats")
    assert q.endswith("mustard yellow large")
    assert build_query(INSTR, option_values=False) == "packable lightweight women's coats jackets & vests with zip pockets"
    for text, want in [("I need dry roasted mixed nuts, please", "dry roasted mixed nuts"),
                       ("i am looking for a pair of boots", "pair of boots"),
                       ("Find me all natural hot sauces", "all natural hot sauces"),
                       ("i'd like a canvas print", "canvas print")]:
        assert build_query(text) == want


def _score(shop, agent, goals: range) -> float:
    env = ShopEnv(shop)
    return summarize([run_episode(env, agent, g) for g in goals]).score


@pytest.mark.slow
def test_heuristic_beats_rule_on_bundled_catalog(bundled_shop) -> None:
    goals = range(200)
    rule, heuristic = _score(bundled_shop, RuleAgent(), goals), _score(bundled_shop, HeuristicAgent(), goals)
    assert heuristic >= rule + 5, (rule, heuristic)


@needs_small
@pytest.mark.slow
def test_heuristic_beats_rule_on_real_small_set(small_shop) -> None:
    goals = range(0, 500)  # WebShop's test split
    rule, heuristic = _score(small_shop, RuleAgent(), goals), _score(small_shop, HeuristicAgent(), goals)
    assert heuristic >= rule + 10, (rule, heuristic)


def test_heuristic_stays_valid_and_in_budget(bundled_shop) -> None:
    env = ShopEnv(bundled_shop)
    agent = HeuristicAgent(max_steps=15)
    for goal in range(100):
        agent.reset(seed=goal)
        obs, info = env.reset(seed=0, options={"goal": goal})
        done, steps = False, 0
        while not done:
            action = agent.act(obs, info["valid_actions"], info)
            obs, _, terminated, truncated, info = env.step(action)
            steps += 1
            assert info["feedback"].code == "ok", (goal, action, info["feedback"])
            done = terminated or truncated
            assert steps <= 15, (goal, steps)
        assert terminated and info["reward_info"] is not None, goal


@pytest.mark.parametrize("budget", [4, 6, 9])
def test_heuristic_buys_within_a_tight_budget(bundled_shop, budget: int) -> None:
    env = ShopEnv(bundled_shop)
    agent = HeuristicAgent(max_steps=budget)
    results = [run_episode(env, agent, g, max_steps=budget) for g in range(30)]
    assert all(r.done and not r.truncated and r.reward_info is not None for r in results)
    assert all(r.steps <= budget for r in results)


def test_heuristic_is_deterministic(bundled_shop) -> None:
    env = ShopEnv(bundled_shop)
    a = [run_episode(env, HeuristicAgent(), g).actions for g in range(20)]
    b = [run_episode(env, make_agent("heuristic", seed=3), g).actions for g in range(20)]
    assert a == b


def test_registry_knows_new_agents() -> None:
    assert make_agent("heuristic").name == "heuristic"
    assert make_agent("human").name == "human"
    assert make_agent("llm", options={"base_url": "http://127.0.0.1:9", "model": "m", "api_key": "k"}).name == "llm"
