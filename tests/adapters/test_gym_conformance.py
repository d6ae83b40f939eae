"""Gymnasium conformance: check_env in every mode, registered ids, vector envs, seeding, the text space."""

from __future__ import annotations

import warnings

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.spaces.utils import flatten, unflatten
from gymnasium.utils.env_checker import check_env

import shopsim.adapters  # noqa: F401  (registers the ids)
from shopsim.adapters import ShopEnv, WebAgentTextEnv
from shopsim.adapters.spaces import UnicodeText
from shopsim.simsite.shop import Shop, ShopConfig


def _checked(env: gym.Env) -> list[str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env, skip_render_check=False)
    return [str(w.message) for w in caught]


@pytest.mark.parametrize("mode", ["text", "text_rich", "url", "html"])
@pytest.mark.slow
def test_check_env_passes_without_warnings(bundled_shop: Shop, mode: str) -> None:
    assert _checked(gym.make("shopsim/ShopEnv-v0", shop=bundled_shop, observation_mode=mode,
                             render_mode="ansi").unwrapped) == []


@pytest.mark.slow
def test_check_env_passes_for_the_v8_profile() -> None:
    env = gym.make("shopsim/ShopEnv-v0", config=ShopConfig(profile="shopsim-v8"), render_mode="ansi").unwrapped
    assert _checked(env) == []
    env.reset(seed=0)
    obs, *_ = env.step("search[小吃车]")
    assert env.observation_space.contains(obs) and "小吃车" in obs  # Chinese pages are in the space


def test_webshops_own_id_with_webshops_keywords_returns_the_shim() -> None:
    env = gym.make("WebAgentTextEnv-v0", observation_mode="text", num_products=200)
    assert isinstance(env, WebAgentTextEnv)  # no wrapper: WebShop code calls its own methods
    obs, info = env.reset(session=2)
    assert info is None and obs.startswith("WebShop [SEP] Instruction:")
    assert env.get_available_actions()["has_search_bar"] and env.server.goals
    obs, reward, done, info = env.step(f"search[{env.server.goals[2]['query']}]")
    assert "Page 1 (Total results:" in obs and reward == 0.0 and not done
    again = gym.make("shopsim/WebAgentTextEnv-v0", observation_mode="text_rich", num_products=200)
    assert again.reset(session=2)[0].startswith("WebShop\nInstruction:")  # rich text


def _play(env: gym.vector.VectorEnv) -> list[tuple]:
    obs, _ = env.reset(seed=[3, 4])
    seen = [tuple(obs)]
    for actions in (["search[shoes]", "search[red dress]"], ["click[back to search]", "click[next >]"],
                    ["click[buy now]", "search[lamp]"]):
        obs, rew, term, trunc, _ = env.step(actions)
        seen.append((tuple(obs), tuple(rew), tuple(term), tuple(trunc)))
    return seen


@pytest.mark.slow
def test_sync_and_async_vector_envs_agree(bundled_shop: Shop) -> None:
    make = [lambda: ShopEnv(Shop.load()) for _ in range(2)]
    sync = gym.vector.SyncVectorEnv(make)
    asyn = gym.vector.AsyncVectorEnv(make, shared_memory=True)
    try:
        a, b = _play(sync), _play(asyn)
    finally:
        sync.close()
        asyn.close()
    assert a == b  # shared memory carries every step's pages, not the first ones
    assert all(o.startswith("WebShop [SEP]") for o in a[0]) and "Page 1 (Total results:" in a[1][0][0]


def test_seeding_follows_gymnasiums_rules(bundled_shop: Shop) -> None:
    env = ShopEnv(bundled_shop)
    first = [env.reset(seed=7)[1]["goal_index"]] + [env.reset()[1]["goal_index"] for _ in range(5)]
    again = [env.reset(seed=7)[1]["goal_index"]] + [env.reset()[1]["goal_index"] for _ in range(5)]
    assert first == again and len(set(first)) > 1
    assert env.reset(seed=8)[1]["goal_index"] != first[0] or env.reset(seed=9)[1]["goal_index"] != first[0]


def test_unicode_text_space_holds_any_page() -> None:
    space = UnicodeText(50)
    for text in ("Rating: 4.5 [SEP] $12.99", "❤️ 可移动小吃车 👨\u200d💼", "a"):
        assert space.contains(text)
        assert unflatten(space, flatten(space, text)) == text
    assert not space.contains("") and not space.contains("x" * 51) and not space.contains(5)
    space.seed(0)
    samples = [space.sample() for _ in range(20)]
    assert all(space.contains(s) for s in samples)
    space.seed(0)
    assert samples == [space.sample() for _ in range(20)]
    assert np.array_equal(flatten(space, "ab")[:3], [97, 98, 0x110000])
