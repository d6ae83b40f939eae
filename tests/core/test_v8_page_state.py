"""A v8 page's PageState is built without validation every step; it must be what validation gives."""

from __future__ import annotations

import pytest

from shopsim.adapters.env import ShopEnv
from shopsim.agents.registry import make_agent
from shopsim.simsite.v8.shop import V8Shop
from tests.simsite.test_trusted_pages import assert_identical, revalidated


@pytest.mark.parametrize("agent_name", ["heuristic", "random"])
def test_v8_pages_equal_what_validation_gives(agent_name: str) -> None:
    shop = V8Shop.load(None)
    env = ShopEnv(shop, max_steps=30)
    agent = make_agent(agent_name, 0)
    pages = 0
    for goal in range(12):
        agent.reset(seed=goal)
        obs, info = env.reset(seed=0, options={"goal": goal})
        done = False
        while not done:
            state = env.state
            assert state is not None
            assert_identical(state, revalidated(state), f"goal {goal} step {pages}")
            pages += 1
            obs, _, term, trunc, info = env.step(agent.act(obs, info["valid_actions"], info))
            done = term or trunc
        assert env.state is not None
        assert_identical(env.state, revalidated(env.state))
    assert pages > 30
