"""The LLM agent against a scripted OpenAI-compatible server on 127.0.0.1 (no network, no model).

The fake server stands in for a paid outside service: it records each request body and answers
with scripted replies, including every protocol error the agent must repair.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from _fake_llm import FakeLLM, call, reply, scripted_shopper, tools_of

from shopsim.adapters.env import ShopEnv
from shopsim.agents.episode import run_episode
from shopsim.agents.llm import LLMAgent
from shopsim.errors import ConfigError, SourceError


@pytest.fixture()
def fake() -> Iterator[FakeLLM]:
    server = FakeLLM()
    yield server
    server.close()


def agent_for(fake: FakeLLM, **kw: Any) -> LLMAgent:
    kw.setdefault("sleep", lambda seconds: None)  # backoff waits are asserted, not slept
    return LLMAgent(base_url=fake.url, model="scripted", api_key="sk-test", **kw)


def first_pages(shop) -> tuple[ShopEnv, tuple[str, dict[str, Any]]]:
    env = ShopEnv(shop)
    return env, env.reset(seed=0, options={"goal": 0})


def test_search_offered_only_with_search_bar_and_enum_is_clickables(fake: FakeLLM, bundled_shop) -> None:
    env, (obs, info) = first_pages(bundled_shop)
    agent = agent_for(fake)
    agent.reset(seed=7)
    fake.script = [reply(call("search", {"query": "red shoes"}))]
    action = agent.act(obs, info["valid_actions"], info)
    assert action == "search[red shoes]"
    body = fake.requests[-1]
    assert set(tools_of(body)) == {"search"}  # the search page has nothing else to click
    assert body["temperature"] == 0.0 and body["seed"] == 7 and body["model"] == "scripted"
    assert body["messages"][0]["role"] == "system"
    assert info["instruction"] in body["messages"][1]["content"] and obs in body["messages"][1]["content"]
    assert fake.headers[-1]["Authorization"] == "Bearer sk-test"

    obs, _, _, _, info = env.step(action)
    clicks = [c for c in info["valid_actions"]["clickables"] if c != "search"]
    fake.script = [reply(call("click", {"value": clicks[-1]}, "c2"))]
    assert agent.act(obs, info["valid_actions"], info) == f"click[{clicks[-1]}]"
    tools = tools_of(fake.requests[-1])
    assert set(tools) == {"click"}  # results pages have no search bar
    assert tools["click"]["parameters"]["properties"]["value"]["enum"] == clicks
    assert agent.stats.requests == 2 and agent.stats.prompt_tokens == 20 and agent.stats.completion_tokens == 4


@pytest.mark.parametrize(
    ("bad", "expect_role", "expect_text"),
    [
        (reply(content="I think I should search."), "user", "without a tool call"),
        (reply(call("click", {"value": "next >"}, "a"), call("click", {"value": "back to search"}, "b")),
         "tool", "2 tool calls"),
        (reply(call("click", {"value": "buy everything"})), "tool", "not one of the allowed values"),
        (reply(call("click", "{value: next")), "tool", "not valid JSON"),
        (reply(call("search", {"query": "shoes"})), "tool", "not available on this page"),
    ],
    ids=["no-call", "two-calls", "out-of-enum", "bad-json", "unavailable-tool"],
)
def test_protocol_errors_get_one_repair_turn(fake: FakeLLM, bundled_shop, bad, expect_role, expect_text) -> None:
    env, (obs, info) = first_pages(bundled_shop)
    obs, _, _, _, info = env.step("search[shoes]")  # a results page: click only
    agent = agent_for(fake)
    agent.reset(seed=0)
    fake.script = [bad, reply(call("click", {"value": "next >"}, "ok"))]
    assert agent.act(obs, info["valid_actions"], info) == "click[next >]"
    assert len(fake.requests) == 2 and agent.stats.protocol_errors == 1 and agent.stats.fallbacks == 0
    retry = fake.requests[1]["messages"]
    repair = [m for m in retry if m["role"] == expect_role and "Protocol error" in str(m.get("content"))]
    assert len(repair) >= 1 and expect_text in repair[0]["content"]
    assert retry[-1]["content"].startswith("Protocol error") and "exactly one tool call" in retry[-1]["content"]
    if expect_role == "tool":  # every call made gets its own tool reply, as the API requires
        made = [c["id"] for c in bad["tool_calls"]]
        assert [m["tool_call_id"] for m in repair] == made
    assert retry[-len(repair) - 1]["role"] == "assistant"


def test_repair_budget_exhausted_falls_back_to_safe_action(fake: FakeLLM, bundled_shop) -> None:
    env, _ = first_pages(bundled_shop)
    obs, _, _, _, info = env.step("search[shoes]")
    agent = agent_for(fake, repair_budget=2)
    agent.reset()
    fake.default = lambda body: reply(content="no")
    assert agent.act(obs, info["valid_actions"], info) == "click[back to search]"
    assert len(fake.requests) == 3 and agent.stats.fallbacks == 1 and agent.stats.protocol_errors == 3
    assert agent.stats.repairs == 2


def test_history_is_bounded(fake: FakeLLM, bundled_shop) -> None:
    _, (obs, info) = first_pages(bundled_shop)
    agent = agent_for(fake, history_turns=2)
    agent.reset()
    fake.default = lambda body: reply(call("search", {"query": "shoes"}))
    for _ in range(5):
        agent.act(obs, info["valid_actions"], info)
    messages = fake.requests[-1]["messages"]
    assert sum(m["role"] == "user" for m in messages) == 2
    assert messages[1]["role"] == "user"  # whole turns only: no orphaned tool replies


def test_http_errors_and_timeouts_become_source_errors(fake: FakeLLM, bundled_shop) -> None:
    _, (obs, info) = first_pages(bundled_shop)
    fake.status = 500
    with pytest.raises(SourceError, match=r"HTTP 500 \(gave up after 2 retries\)"):
        agent_for(fake, retries=2).act(obs, info["valid_actions"], info)
    assert len(fake.requests) == 3
    fake.status, fake.delay = 200, 1.0
    fake.default = lambda body: reply(call("search", {"query": "x"}))
    with pytest.raises(SourceError, match="did not answer"):
        agent_for(fake, timeout=0.2, retries=1).act(obs, info["valid_actions"], info)
    with pytest.raises(SourceError, match="cannot reach"):
        LLMAgent(base_url="http://127.0.0.1:9/v1", model="m", retries=0).act(obs, info["valid_actions"], info)


def test_transient_errors_are_retried_with_backoff_and_auth_errors_abort(fake: FakeLLM, bundled_shop) -> None:
    _, (obs, info) = first_pages(bundled_shop)
    fake.default = lambda body: reply(call("search", {"query": "red shoes"}))
    waits: list[float] = []
    fake.statuses = [503, 429, 502]
    agent = agent_for(fake, sleep=waits.append, backoff=0.5)
    assert agent.act(obs, info["valid_actions"], info) == "search[red shoes]"
    assert agent.stats.retries == 3 and len(fake.requests) == 4
    assert [round(w / b, 1) for w, b in zip(waits, (0.5, 1.0, 2.0), strict=True)] == [
        pytest.approx(x, abs=0.26) for x in (1.1, 1.1, 1.1)]  # exponential, with up to 25% jitter
    fake.statuses, fake.retry_after, waits[:] = [429], "7", []
    agent.act(obs, info["valid_actions"], info)
    assert waits == [7.0]  # the server's Retry-After wins
    for odd in ("-5", "nan", "inf"):  # a Retry-After no sleep can take: our own backoff instead
        fake.statuses, fake.retry_after, waits[:] = [429], odd, []
        agent.act(obs, info["valid_actions"], info)
        assert len(waits) == 1 and 0 <= waits[0] <= 60, (odd, waits)
    fake.retry_after = None
    for status in (401, 403):
        fake.requests.clear()
        fake.statuses = [status]
        with pytest.raises(SourceError, match=f"HTTP {status}\\): check the API key"):
            agent_for(fake).act(obs, info["valid_actions"], info)
        assert len(fake.requests) == 1  # no retry can fix a key
    fake.statuses = [400]
    with pytest.raises(SourceError, match="HTTP 400: "):
        agent_for(fake).act(obs, info["valid_actions"], info)


class _Completions:
    """An ``openai`` client's ``chat.completions`` (the paid service, faked): fails once, then answers."""

    def __init__(self) -> None:
        self.bodies: list[dict[str, Any]] = []

    def create(self, **body: Any) -> Any:
        self.bodies.append(body)
        if len(self.bodies) == 1:
            error = RuntimeError("rate limited")
            error.status_code = 429  # type: ignore[attr-defined]
            raise error
        message = reply(call("search", {"query": "lamp"}))

        class Response:
            def model_dump(self) -> dict[str, Any]:
                return {"choices": [{"message": message, "finish_reason": "tool_calls"}],
                        "usage": {"prompt_tokens": 5, "completion_tokens": 1, "total_tokens": 6}}

        return Response()


def test_an_openai_client_object_is_accepted(bundled_shop) -> None:
    _, (obs, info) = first_pages(bundled_shop)
    completions = _Completions()
    client = type("Client", (), {"base_url": "https://llm.example/v1/",
                                 "chat": type("Chat", (), {"completions": completions})()})()
    agent = LLMAgent(client=client, model="gpt-x", sleep=lambda s: None)
    assert agent.act(obs, info["valid_actions"], info) == "search[lamp]"
    assert agent.base_url == "https://llm.example/v1" and agent.stats.retries == 1 and agent.stats.total_tokens == 6
    assert completions.bodies[-1]["model"] == "gpt-x" and completions.bodies[-1]["tools"]


def test_settings_from_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("SHOPSIM_LLM_BASE_URL", "SHOPSIM_LLM_MODEL", "SHOPSIM_LLM_API_KEY", "OPENAI_BASE_URL", "OPENAI_API_KEY",
                 "OPENAI_MODEL"):
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(ConfigError, match="SHOPSIM_LLM_MODEL"):
        LLMAgent()
    monkeypatch.setenv("SHOPSIM_LLM_MODEL", "m1")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://openai.example/v1/")
    monkeypatch.setenv("OPENAI_API_KEY", "k1")
    agent = LLMAgent()
    assert (agent.model, agent.base_url, agent.api_key) == ("m1", "http://openai.example/v1", "k1")
    monkeypatch.setenv("SHOPSIM_LLM_BASE_URL", "http://local/v1")
    monkeypatch.setenv("SHOPSIM_LLM_API_KEY", "k2")
    agent = LLMAgent()
    assert (agent.base_url, agent.api_key) == ("http://local/v1", "k2")
    assert LLMAgent(base_url="http://opt/v1", model="m2").model == "m2"
    monkeypatch.delenv("SHOPSIM_LLM_MODEL")
    monkeypatch.setenv("OPENAI_MODEL", "gpt-from-env")
    assert LLMAgent().model == "gpt-from-env"


def test_full_episode_on_bundled_shop_ends_with_a_purchase(fake: FakeLLM, bundled_shop) -> None:
    env = ShopEnv(bundled_shop)
    fake.default = scripted_shopper
    agent = agent_for(fake)
    result = run_episode(env, agent, goal_index=3)
    assert result.done and not result.truncated and result.reward_info is not None
    assert result.actions[0] == "search[shoes]" and result.actions[-1] == "click[buy now]"
    assert agent.stats.protocol_errors == 0 and agent.stats.requests == len(result.actions)
    first_run = list(fake.requests)
    agent.close()

    fake.requests.clear()  # same episode, fresh agent: byte-identical request bodies
    again = agent_for(fake)
    assert run_episode(env, again, goal_index=3).actions == result.actions
    assert [json.dumps(b) for b in fake.requests] == [json.dumps(b) for b in first_run]
    assert all(b["temperature"] == 0.0 and b["seed"] == 3 for b in first_run)
    again.close()


def test_eval_reports_what_the_model_spent(fake: FakeLLM, tmp_path) -> None:
    """Per-episode tokens, protocol errors and repairs in episodes.jsonl, their totals in summary.json."""
    from shopsim.agents.evaluation.config import EvalConfig
    from shopsim.agents.evaluation.runner import run_eval

    fake.script = [reply(content="I think I will search")]  # one protocol error in episode 0, repaired
    fake.default = scripted_shopper
    out = tmp_path / "run"
    cfg = EvalConfig(agent="llm", goals=[0, 1], out=str(out), seed=0,
                     agent_options={"base_url": fake.url, "model": "scripted", "api_key": "sk-test"})
    _, extra = run_eval(cfg, progress=False)
    records = [json.loads(line) for line in (out / "episodes.jsonl").read_text().splitlines()]
    spent = [r["agent_stats"] for r in records]
    assert spent[0]["protocol_errors"] == 1 and spent[0]["repairs"] == 1 and spent[1]["protocol_errors"] == 0
    assert all(s["total_tokens"] == 12 * s["requests"] > 0 for s in spent)  # the fake bills 12 a request
    summary = json.loads((out / "summary.json").read_text())
    assert summary["agent_stats"]["total"]["requests"] == sum(s["requests"] for s in spent) == len(fake.requests)
    assert extra["agent_stats"] == summary["agent_stats"] and "sk-test" not in (out / "summary.json").read_text()
