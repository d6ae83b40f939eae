"""The LLM agent under the shopsim-v8 runtime rules, against the scripted server of test_llm_agent."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from conftest import SHARED
from test_llm_agent import FakeLLM, agent_for, call, reply, tools_of

from shopsim.adapters.env import ShopEnv
from shopsim.agents.episode import run_episode
from shopsim.simsite.shop import ShopConfig

SAMPLE = SHARED / "data" / "shopsim-sample" / "products.json"


@pytest.fixture()
def fake() -> Iterator[FakeLLM]:
    server = FakeLLM()
    yield server
    server.close()


@pytest.fixture(scope="module")
def env() -> ShopEnv:
    if not SAMPLE.exists():
        pytest.skip(f"the v8 dev kit is not at {SAMPLE}")
    return ShopEnv(config=ShopConfig(profile="shopsim-v8", data_dir=SAMPLE))


def test_persona_mode_puts_the_persona_in_the_system_context(fake, env):
    fake.script = [reply(call("search", {"query": "可移动小吃车"})), reply(call("click", {"value": "824100258497"})),
                   reply(call("click", {"value": "颜色分类=三锅小吃车煮面炉＋关东煮＋油炸"})),
                   reply(call("click", {"value": "buy now"}))]
    agent = agent_for(fake)
    result = run_episode(env, agent, env.shop.index_of(3538), max_steps=10)
    assert (result.termination, result.reward) == ("purchase", 1.0)
    system = fake.requests[0]["messages"][0]["content"]
    user = fake.requests[0]["messages"][1]["content"]
    assert "夜市经营者" in system and "__reasoning__" not in system  # the public persona, reasoning removed
    assert "查一款可移动的小吃车" in user and "规格选三锅" not in user  # the simple request, not the full goal
    assert set(tools_of(fake.requests[0])) == {"search"}  # search only on the search page
    assert "buy now" not in tools_of(fake.requests[2])["click"]["parameters"]["properties"]["value"]["enum"]


def test_length_cut_without_a_tool_call_ends_as_generation_length(fake, env):
    fake.script = [reply(call("search", {"query": "收纳盒"})),
                   {"role": "assistant", "content": "让我想想" * 50, "tool_calls": None, "finish_reason": "length"}]
    agent = agent_for(fake)
    result = run_episode(env, agent, env.shop.index_of(9031), max_steps=10)
    assert result.termination == "generation_length" and result.reward == 0.0 and result.steps == 1
    assert result.reward_info is None and agent.stats.generation_length == 1
    assert len(fake.requests) == 2  # no repair turn after a length cut


def test_out_of_enum_click_goes_to_the_environment(fake, env):
    fake.script = [reply(call("search", {"query": "收纳盒"})), reply(call("click", {"value": "大号"}))]
    agent = agent_for(fake)
    obs, info = env.reset(options={"task_id": 9031})
    obs, _, _, _, info = env.step(agent.act(obs, info["valid_actions"], info))
    action = agent.act(obs, info["valid_actions"], info)
    assert action == "click[大号]" and agent.stats.protocol_errors == 0
    _, _, _, _, info = env.step(action)
    assert info["observation_state"].action_feedback == "unavailable_action"


def test_protocol_errors_are_still_repaired_under_v8(fake, env):
    fake.script = [reply(content="I will search"), reply(call("search", {"query": "收纳盒"}))]
    agent = agent_for(fake)
    obs, info = env.reset(options={"task_id": 9031})
    assert agent.act(obs, info["valid_actions"], info) == "search[收纳盒]"
    assert (agent.stats.protocol_errors, agent.stats.repairs) == (1, 1)
