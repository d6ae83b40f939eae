"""The WebShop shim's lazy pages give what reading every page through its full PageState gives.

``lazy_pages=True`` (the default) takes text observations and clickables from the session's pages
(``simsite/sim_page.py``) without building each PageState; ``lazy_pages=False`` builds and reads
every PageState, as the shim always did. Two envs over one shop play the same seeded episodes of
the rule agent and of a random agent (searches of their own, pagination, sub pages, options,
invalid actions), and every reset and step must give the same observation, available actions,
elements, reward, done, info, ``state`` and ``user_sessions``.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from shopsim.adapters.webshop_env import WebAgentTextEnv
from shopsim.simsite.shop import Shop, ShopConfig
from tests.conftest import SMALL

_QUERIES = ["red shirt", '"blue" mug', "x/y %", "shoes", "tea"]


@pytest.fixture(scope="module")
def shop() -> Shop:
    """WebShop's 1,000 products when ``../shared`` has them, else the bundled catalog."""
    if (SMALL / "items_shuffle_1000.json").exists():
        return Shop.from_config(ShopConfig(data_dir=SMALL, items_file=SMALL / "items_shuffle_1000.json"))
    return Shop.from_config(ShopConfig())


def _elements(env: WebAgentTextEnv) -> list[tuple[Any, ...]]:
    assert env.text_to_clickable is not None
    return [(k, e.name, dict(e.attrs), e.get_text(), e.clickable) for k, e in env.text_to_clickable.items()]


def _seen(env: WebAgentTextEnv, out: Any) -> tuple[Any, ...]:
    """Everything a client can read after a reset or step."""
    actions = env.get_available_actions()
    return (out, actions, _elements(env), env.observation, env.state, env.instruction_text,
            env.server.user_sessions.get(env.session or ""))


def _rule_actions(env: WebAgentTextEnv, actions: dict[str, Any]) -> str:
    """The paper's rule agent: search the instruction, open the first result, its options, buy."""
    page = env._page_memo().page.page_type
    goal = env.instruction_text.split("Instruction: ", 1)[-1]
    if page == "search":
        return f"search[{goal}]"
    assert env.text_to_clickable is not None
    elements = [(t, env.text_to_clickable[t]) for t in actions["clickables"]]
    if page == "results":
        links = [t for t, e in elements if e.get("class") == ["product-link"]]
        return f"click[{links[0]}]" if links else "click[back to search]"
    for t, e in elements:
        if e.name == "input" and f"{e.get('name')}: {e['value']}" in goal and not e.clickable.clicked:
            return f"click[{t}]"
    return "click[buy now]"


def _random_action(actions: dict[str, Any], goal: str, rng: random.Random) -> str:
    r = rng.random()
    if actions["has_search_bar"] or r < 0.08:
        return f"search[{goal if rng.random() < 0.6 else rng.choice(_QUERIES)}]"
    if r < 0.12:
        return rng.choice(["click[nothing here]", "jump[x]", "search[ ]", "click[search]"])
    args = [a for a in actions["clickables"] if a != "buy now" or rng.random() < 0.3]
    return f"click[{rng.choice(args)}]" if args else "click[x]"


def _play(env: WebAgentTextEnv, session: int, agent: str, seed: int) -> list[tuple[Any, ...]]:
    rng = random.Random(seed)
    trace = [_seen(env, env.reset(session=session))]
    for _ in range(12 if agent == "random" else 10):
        actions = env.get_available_actions()
        goal = env.instruction_text.split("Instruction: ", 1)[-1]
        action = _rule_actions(env, actions) if agent == "rule" else _random_action(actions, goal, rng)
        out = env.step(action)
        trace.append((action, *_seen(env, out)))
        if out[2]:
            break
    return trace


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["text", "text_rich"])
def test_lazy_pages_match_full_pages(shop: Shop, mode: str) -> None:
    """300 rule-agent and 300 random-agent episodes (60 of each in text_rich) read identically both ways."""
    lazy = WebAgentTextEnv(observation_mode=mode, server=shop, num_prev_obs=1, num_prev_actions=1)
    full = WebAgentTextEnv(observation_mode=mode, server=shop, num_prev_obs=1, num_prev_actions=1, lazy_pages=False)
    assert lazy.lazy_pages and not full.lazy_pages
    n = 300 if mode == "text" else 60
    steps = 0
    for agent in ("rule", "random"):
        for i in range(n):
            session = i % len(lazy.server.goals)
            a, b = _play(lazy, session, agent, seed=i), _play(full, session, agent, seed=i)
            assert a == b, f"{agent} agent, session {session}"
            steps += len(a)
    assert steps > 2 * n * 4  # the episodes went past the search page
