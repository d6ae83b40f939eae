"""The v8 session builds its ``observation_state`` (and the PageState beside it) without validation
(``shopsim.page.trusted``) from per-shop product parts; every model of every page must be exactly what
validation gives: types, values, fields set, field order, defaults (the WebShop pages' own test,
``tests/simsite/test_trusted_pages.py``, says what "exactly" means).

Episodes mix the heuristic agent's actions with random clicks, paging, garbage and asks, in both
task modes and both interaction modes, with snapshots restored midway, so results, product, search
and terminal pages (purchases and action limits) all appear.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from shopsim.adapters.env import ShopEnv
from shopsim.agents.registry import make_agent
from shopsim.v8.observation_text import render_observation_text
from tests.simsite.test_trusted_pages import assert_identical, revalidated

_GARBAGE = ["click[nothing here]", "search[again]", "click[next >]", "click[< prev]", "ask[which colour?]", "jump[x]"]


def _action(agent: Any, obs: str, info: dict[str, Any], rng: random.Random) -> str:
    roll = rng.random()
    if roll < 0.7:
        return str(agent.act(obs, info["valid_actions"], info))
    clicks = info["observation_state"].clickables
    return f"click[{rng.choice(clicks)}]" if clicks and roll < 0.9 else rng.choice(_GARBAGE)


def _check(obs: str, info: dict[str, Any], where: str) -> None:
    state = info["observation_state"]
    assert_identical(state, revalidated(state), where)
    assert_identical(info["page_state"], revalidated(info["page_state"]), f"{where} page_state")
    assert obs.endswith(render_observation_text(revalidated(state)))  # an ask's answer goes before the page


@pytest.mark.slow
@pytest.mark.parametrize("interaction_mode", ["single_turn", "multi_turn"])
@pytest.mark.parametrize("task_mode", ["standard", "persona"])
def test_every_v8_page_is_what_validation_gives(bundled_v8_shop: Any, task_mode: str, interaction_mode: str) -> None:
    shop = bundled_v8_shop
    goals = [i for i, g in enumerate(shop.goals) if task_mode == "standard" or g.user_persona is not None]
    assert goals, "the bundled catalog has persona tasks"
    env = ShopEnv(shop, max_steps=12)
    agent = make_agent("heuristic", 0)
    kinds: set[str] = set()
    for n, goal in enumerate(goals[:24]):
        rng = random.Random(n)
        agent.reset(seed=n)
        obs, info = env.reset(seed=0, options={"goal": goal, "task_mode": task_mode, "interaction_mode": interaction_mode})
        _check(obs, info, f"goal {goal} reset")
        done, step = False, 0
        while not done:
            obs, _, term, trunc, info = env.step(_action(agent, obs, info, rng))
            step += 1
            _check(obs, info, f"goal {goal} step {step}")
            kinds.add(info["observation_state"].page_type)
            done = term or trunc
            if not done and step == 3 and n % 3 == 0:  # a restored session renders its page afresh
                obs, info = env.restore(env.snapshot())
                _check(obs, info, f"goal {goal} restored at step {step}")
    assert kinds == {"search", "results", "product", "terminal"}


def test_a_changed_page_leaves_the_next_one_alone(bundled_v8_shop: Any) -> None:
    """Result entries come from per-shop parts: each page gets its own lists (a caller may change them)."""
    from shopsim.simsite.v8.session import V8Session

    shop = bundled_v8_shop
    task = shop.goals[0]

    def results_page() -> Any:
        session = V8Session(shop, task)
        session.step(f"search[{task.simple_text}]")
        return session.state

    first = results_page()
    assert first.results and first.results[0].category and first.results[0].key_attributes
    before = first.model_dump()
    first.results[0].category.append("changed")
    first.results[0].key_attributes.append("changed")
    first.clickables.append("changed")
    assert results_page().model_dump() == before
