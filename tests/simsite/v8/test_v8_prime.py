"""``V8Shop.prime_nouns`` fills at open what sessions fill on first use (card parts, product facts, task
budgets, page texts' tokens); a primed shop must show and score every episode exactly as a fresh one.
"""

from __future__ import annotations

from typing import Any

import pytest

from shopsim.adapters.env import ShopEnv
from shopsim.agents.registry import make_agent
from shopsim.simsite.v8.shop import V8Shop


def _episodes(shop: V8Shop, goals: range) -> list[tuple[Any, ...]]:
    """Every observation, reward and ``observation_state`` of the heuristic agent on ``goals``."""
    env, agent, out = ShopEnv(shop, max_steps=15), make_agent("heuristic", 0), []
    for g in goals:
        agent.reset(seed=g)
        obs, info = env.reset(seed=0, options={"goal": g})
        done = False
        while not done:
            obs, reward, term, trunc, info = env.step(agent.act(obs, info["valid_actions"], info))
            out.append((obs, reward, info["observation_state"].model_dump(), info.get("reward_info")))
            done = term or trunc
    return out


@pytest.mark.slow
def test_a_primed_shop_plays_every_episode_as_a_fresh_one() -> None:
    fresh, primed = V8Shop.load(), V8Shop.load()
    primed.prime_nouns()
    assert len(primed.entry_cache) == len(primed.facts_cache) == len(primed.products)
    assert not fresh.entry_cache
    goals = range(0, len(fresh.goals), max(1, len(fresh.goals) // 40))
    want, got = _episodes(fresh, goals), _episodes(primed, goals)
    assert len(got) > len(goals)
    assert got == want
    assert any(r > 0 for _, r, _, _ in got), "some episode ends in a scored purchase"
