"""The LLM agent under the shopsim-v8 runtime rules, against the scripted server of test_llm_agent.

The seed's runner turn contract (003 §terminations, 004 §终止): a turn is one model response; a
protocol error (no tool call, several, malformed arguments, an unknown tool) uses a turn and is
repaired on the same page; the agent never invents an action; 30 turns (40 multi-turn) end the
episode as ``action_limit`` through the environment's terminate interface; a length cut-off
without one legal call ends it as ``generation_length``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import SHARED
from test_llm_agent import FakeLLM, agent_for, call, reply, tools_of

from shopsim.adapters.env import ShopEnv
from shopsim.agents.episode import Step, run_episode
from shopsim.agents.llm import LLMAgent
from shopsim.simsite.shop import ShopConfig

SAMPLE = SHARED / "data" / "shopsim-sample" / "products.json"
CART = "颜色分类=三锅小吃车煮面炉＋关东煮＋油炸"
#: One bad reply of each protocol-error kind, with the code the agent records for it.
BAD = {
    "no_tool_call": reply(content="我先想一想要搜什么"),
    "multiple_tool_calls": reply(call("search", {"query": "小吃车"}, "a"), call("search", {"query": "餐车"}, "b")),
    "malformed_arguments": reply(call("search", '{"query": "小吃车"')),
    "unknown_tool": reply(call("buy", {"asin": "824100258497"})),
}


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


def play(env: ShopEnv, agent: LLMAgent, task_id: int, **kw: Any) -> tuple[Any, list[Step]]:
    steps: list[Step] = []
    return run_episode(env, agent, env.shop.index_of(task_id), on_step=steps.append, **kw), steps


@pytest.mark.parametrize("kind", sorted(BAD))
def test_each_protocol_error_uses_a_turn_and_is_repaired_on_the_same_page(fake, env, kind):
    fake.script = [BAD[kind], reply(call("search", {"query": "可移动小吃车"})),
                   reply(call("click", {"value": "824100258497"})), reply(call("click", {"value": CART})),
                   reply(call("click", {"value": "buy now"}))]
    agent = agent_for(fake)
    result, steps = play(env, agent, 3538, max_steps=30)
    assert (result.termination, result.reward, result.steps, result.turns) == ("purchase", 1.0, 4, 5)
    assert result.actions[0] == "search[可移动小吃车]"  # the bad reply became no action
    assert (agent.stats.protocol_errors, agent.stats.repairs, agent.stats.turns) == (1, 1, 5)
    assert agent.stats.errors[0].startswith(kind + ":")
    repair = fake.requests[1]["messages"]
    assert repair[-1]["content"].startswith("Protocol error: ") and repair[-1]["role"] in ("user", "tool")
    assert repair[1]["content"] == fake.requests[0]["messages"][1]["content"]  # the same page, repaired
    assert steps[0].spent is not None and (steps[0].spent["turns"], steps[0].spent["protocol_errors"]) == (2, 1)
    if kind == "multiple_tool_calls":  # every call of the reply is answered, as the API requires
        assert [m["tool_call_id"] for m in repair if m["role"] == "tool"] == ["a", "b"]


def test_a_model_that_never_calls_a_tool_ends_at_action_limit_after_30_turns(fake, env):
    fake.default = lambda body: BAD["no_tool_call"]
    agent = agent_for(fake)
    result, steps = play(env, agent, 9031, max_steps=30)
    assert (result.termination, result.reward, result.steps, result.actions, result.turns) == (
        "action_limit", 0.0, 0, [], 30)
    assert len(fake.requests) == 30 and (agent.stats.protocol_errors, agent.stats.repairs) == (30, 29)
    assert agent.stats.fallbacks == 0  # nothing invented: no search[<instruction>], no click[back to search]
    assert [s.action for s in steps] == [None] and steps[0].next_info["termination"] == "action_limit"
    assert steps[0].next_info["reward_detail"]["r_strict"] == 0.0


def test_turns_not_actions_reach_the_limit(fake, env):
    """Three actions and two protocol errors use five turns: a limit of five ends the episode there."""
    fake.script = [reply(call("search", {"query": "收纳盒"})), BAD["unknown_tool"], BAD["malformed_arguments"],
                   reply(call("click", {"value": "back to search"}))]
    fake.default = lambda body: reply(call("search", {"query": "收纳盒 大号"}))
    agent = agent_for(fake)
    env5 = ShopEnv(config=ShopConfig(profile="shopsim-v8", data_dir=SAMPLE), max_steps=5)
    result, steps = play(env5, agent, 9031, max_steps=5)
    assert (result.termination, result.steps, result.turns, len(fake.requests)) == ("action_limit", 3, 5, 5)
    assert steps[-1].action is None and steps[-2].action == "search[收纳盒 大号]"
    assert [s.info["turns_left"] for s in steps[:3]] == [5, 4, 1]


def test_multi_turn_mode_allows_40_turns(fake):
    if not SAMPLE.exists():
        pytest.skip(f"the v8 dev kit is not at {SAMPLE}")
    fake.default = lambda body: BAD["multiple_tool_calls"]
    multi = ShopEnv(config=ShopConfig(profile="shopsim-v8", data_dir=SAMPLE), interaction_mode="multi_turn")
    result, _ = play(multi, agent_for(fake), 9031)
    assert (result.termination, result.turns, len(fake.requests)) == ("action_limit", 40, 40)


def test_multi_turn_offers_ask_and_the_shopper_answers_on_the_same_page(fake):
    if not SAMPLE.exists():
        pytest.skip(f"the v8 dev kit is not at {SAMPLE}")
    fake.script = [reply(call("ask", {"question": "你想要什么颜色？"})), reply(call("search", {"query": "收纳盒"}))]
    multi = ShopEnv(config=ShopConfig(profile="shopsim-v8", data_dir=SAMPLE), interaction_mode="multi_turn")
    result, _ = play(multi, agent_for(fake), 9031, max_steps=2)
    assert set(tools_of(fake.requests[0])) == {"search", "ask"}  # ask only where the shopper listens
    assert result.actions[0] == "ask[你想要什么颜色？]" and result.dialogue and len(result.dialogue) == 1
    assert "The shopper answered" in fake.requests[1]["messages"][-1]["content"]  # the answer reaches the model
    single_tools = tools_of(fake.requests[0])
    fake.requests.clear()
    fake.script = [reply(call("ask", {"question": "颜色？"})), reply(call("search", {"query": "收纳盒"}))]
    agent = agent_for(fake)
    one, _ = play(ShopEnv(config=ShopConfig(profile="shopsim-v8", data_dir=SAMPLE)), agent, 9031, max_steps=1)
    assert "ask" not in tools_of(fake.requests[0]) and "ask" in single_tools
    assert one.actions == ["search[收纳盒]"] and agent.stats.errors[0].startswith("unknown_tool")


def test_length_cut_off_ends_as_generation_length_without_repair(fake, env):
    fake.script = [BAD["no_tool_call"], reply(call("search", {"query": "收纳盒"})),
                   {**reply(content="让我想想" * 40), "finish_reason": "length"}]
    agent = agent_for(fake)
    result, steps = play(env, agent, 9031, max_steps=30)
    assert (result.termination, result.reward, result.steps, result.turns) == ("generation_length", 0.0, 1, 3)
    assert len(fake.requests) == 3 and agent.stats.generation_length == 1
    assert steps[-1].action is None and steps[-1].next_info["termination"] == "generation_length"


def test_a_length_cut_off_with_one_legal_call_is_played(fake, env):
    fake.script = [{**reply(call("search", {"query": "收纳盒"})), "finish_reason": "length"}]
    one = ShopEnv(config=ShopConfig(profile="shopsim-v8", data_dir=SAMPLE), max_steps=1)
    result, _ = play(one, agent_for(fake), 9031, max_steps=1)
    assert result.actions == ["search[收纳盒]"] and (result.termination, result.turns) == ("action_limit", 1)


def test_max_tokens_default_is_the_profiles(fake, env, bundled_shop):
    fake.default = lambda body: reply(call("search", {"query": "收纳盒"}))
    obs, info = env.reset(options={"task_id": 9031})
    agent = agent_for(fake)
    agent.act(obs, info["valid_actions"], info)
    assert fake.requests[-1]["max_tokens"] == 4096  # the seed's cap per turn
    web = ShopEnv(bundled_shop)
    obs, info = web.reset(seed=0, options={"goal": 0})
    agent.act(obs, info["valid_actions"], info)
    assert fake.requests[-1]["max_tokens"] == 256  # WebShop keeps its default
    agent_for(fake, max_tokens=99).act(obs, info["valid_actions"], info)
    assert fake.requests[-1]["max_tokens"] == 99


def test_eval_records_turns_in_traces_episodes_and_summary(fake, env, tmp_path: Path):
    from shopsim.agents.evaluation.config import EvalConfig
    from shopsim.agents.evaluation.runner import run_eval

    g = env.shop.index_of(9031)
    fake.script = [BAD["malformed_arguments"], reply(call("search", {"query": "收纳盒"}))]
    fake.default = lambda body: {**reply(content="..."), "finish_reason": "length"}
    out = tmp_path / "run"
    cfg = EvalConfig(agent="llm", goals=[g], out=str(out), profile="shopsim-v8", data=str(SAMPLE), max_steps=30,
                     agent_options={"base_url": fake.url, "model": "scripted", "api_key": "sk-test"})
    _, extra = run_eval(cfg, progress=False)
    (rec,) = [json.loads(line) for line in (out / "episodes.jsonl").read_text().splitlines()]
    assert (rec["termination"], rec["turns"], rec["steps"]) == ("generation_length", 3, 1)
    assert (rec["agent_stats"]["protocol_errors"], rec["agent_stats"]["repairs"]) == (1, 1)
    rows = [json.loads(line) for line in (out / "traces.jsonl").read_text().splitlines()]
    assert [(r["action"], r["turns"], r["protocol_errors"], r["repairs"]) for r in rows] == [
        ("search[收纳盒]", 2, 1, 1), (None, 1, 0, 0)]
    assert rows[-1]["termination"] == "generation_length"
    summary = json.loads((out / "summary.json").read_text())
    assert summary["turns"] == {"total": 3, "per_episode": 3.0} == extra["turns"]
    assert summary["terminations"]["generation_length"] == 1
    assert summary["agent_stats"]["total"]["protocol_errors"] == 1
