"""The terminal player, driven by a scripted person."""

from __future__ import annotations

import io

import pytest

from shopsim.adapters.env import ShopEnv
from shopsim.agents.episode import run_episode
from shopsim.agents.human import HumanAgent


def scripted(lines: list[str]):
    answers = iter(lines)
    prompts: list[str] = []

    def input_fn(prompt: str) -> str:
        prompts.append(prompt)
        return next(answers)

    return input_fn, prompts


def test_free_text_searches_numbers_click_and_a_purchase_ends_the_episode(bundled_shop) -> None:
    env = ShopEnv(bundled_shop)
    out = io.StringIO()
    # search by free text; '99' and 'nonsense' are invalid on a results page and asked again;
    # then the first product (clickable 3: back to search, next >, product...), then 'buy now' by name.
    input_fn, prompts = scripted(["shoes", "99", "nonsense", "3", "buy now"])
    result = run_episode(env, HumanAgent(input_fn=input_fn, output=out), goal_index=0)
    assert result.actions[0] == "search[shoes]"
    assert result.actions[1].startswith("click[") and result.actions[1] not in ("click[next >]", "click[back to search]")
    assert result.actions[2] == "click[buy now]" and result.done and result.reward_info is not None
    text = out.getvalue()
    assert "Instruction:" in text and "[button] Search [button_]" in text
    assert "   1. back to search" in text and "   2. next >" in text
    assert text.count("Not a valid choice") == 2
    assert len(prompts) == 5


def test_s_prefix_searches_and_q_quits(bundled_shop) -> None:
    env = ShopEnv(bundled_shop)
    obs, info = env.reset(seed=0, options={"goal": 1})
    input_fn, _ = scripted(["s red running shoes"])
    agent = HumanAgent(input_fn=input_fn, output=io.StringIO())
    assert agent.act(obs, info["valid_actions"], info) == "search[red running shoes]"
    obs, _, _, _, info = env.step("search[red running shoes]")
    input_fn, _ = scripted(["q"])
    with pytest.raises(KeyboardInterrupt):
        HumanAgent(input_fn=input_fn, output=io.StringIO()).act(obs, info["valid_actions"], info)


def test_free_text_on_a_results_page_is_not_a_search(bundled_shop) -> None:
    env = ShopEnv(bundled_shop)
    env.reset(seed=0, options={"goal": 2})
    obs, _, _, _, info = env.step("search[shoes]")
    out = io.StringIO()
    input_fn, _ = scripted(["red shoes", "next >"])
    assert HumanAgent(input_fn=input_fn, output=out).act(obs, info["valid_actions"], info) == "click[next >]"
    assert "Not a valid choice: 'red shoes'" in out.getvalue()
