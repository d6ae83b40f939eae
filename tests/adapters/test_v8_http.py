"""The v8 service from the client side, over a real uvicorn on 127.0.0.1: runtime terminations, the
HTTP page source (``eval --adapter http``) and the RL client, each equal to the in-process episode.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest

from shopsim.adapters.env import ShopEnv
from shopsim.adapters.v8_client import LeaseLost, V8Client
from shopsim.adapters.v8_http_source import V8HttpSource
from shopsim.agents.episode import run_episode
from shopsim.agents.registry import make_agent
from shopsim.errors import ConfigError, SessionError
from shopsim.simsite.server import ServerThread
from shopsim.simsite.v8.environment import RUNTIME_TERMINATIONS
from shopsim.simsite.v8.openapi import V8Tasks, v8_openapi_spec
from shopsim.simsite.v8.service import create_v8_app
from shopsim.simsite.v8.session import V8Session
from shopsim.v8.observation_state import ObservationState


@pytest.fixture(scope="module")
def v8_shop(bundled_v8_shop: Any) -> Any:
    return bundled_v8_shop


@pytest.fixture(scope="module")
def base(v8_shop: Any) -> Iterator[str]:
    # 4 slots for up to 12 clients: resets queue, and a short wait makes some answer 503 (the client retries)
    with ServerThread(create_v8_app(v8_shop, slots=4, queue_timeout_s=0.3)) as srv:
        yield srv.base_url


def _policy(state: ObservationState, instruction: str) -> str:
    """A deterministic rollout policy: search the request, open the first result, take each axis's first value, buy."""
    if state.page_type == "search":
        return f"search[{instruction[:200]}]"
    if state.page_type == "results":
        return f"click[{state.results[0].asin}]" if state.results else "click[back to search]"
    assert state.product is not None
    for axis in state.missing_option_axes:
        return f"click[{axis}={state.product.option_axes[axis][0]}]"
    return "click[buy now]"


def _inprocess_rollout(shop: Any, task_id: int) -> list[tuple[str, float, Any]]:
    s = V8Session(shop, shop.task_by_id(task_id))
    instruction = shop.task_by_id(task_id).instruction_for(shop.task_by_id(task_id).task_mode)
    seen = [(s.observation(), s.reward, None)]
    while not s.done:
        s.step(_policy(s.state, instruction))
        seen.append((s.observation(), s.reward, s.detail.model_dump(mode="json") if s.detail else None))
    return seen


def _client_rollout(client: V8Client, task_id: int) -> list[tuple[str, float, Any]]:
    first = client.reset(task_id)
    seen: list[tuple[str, float, Any]] = [(first.observation, first.reward, None)]
    out: Any = first
    while not out.done:
        out = client.step(_policy(out.observation_state, first.task_instruction))
        seen.append((out.observation, out.reward, out.reward_detail.model_dump(mode="json") if out.reward_detail
                     else None))
    return seen


def test_terminate_takes_every_runtime_reason_in_process_and_over_http(base: str, v8_shop: Any) -> None:
    schema = v8_openapi_spec()["components"]["schemas"]["V8Terminate"]["properties"]["reason"]
    assert tuple(schema["enum"]) == RUNTIME_TERMINATIONS == ("action_limit", "generation_length")
    task = v8_shop.goals[0]
    for reason in RUNTIME_TERMINATIONS:
        local = V8Session(v8_shop, task)
        local.terminate(reason)
        with V8Client(base) as client:
            client.reset(task.task_id)
            ended = client.terminate(reason)  # type: ignore[arg-type]
        assert (ended.termination, ended.done, ended.reward) == (local.termination, True, 0.0) == (reason, True, 0.0)
        assert ended.reward_detail is not None and ended.reward_detail.model_dump(mode="json") == \
            local.detail.model_dump(mode="json")  # type: ignore[union-attr]
    with pytest.raises(SessionError, match="cannot terminate for 'purchase'"):
        V8Session(v8_shop, task).terminate("purchase")
    lease = httpx.post(f"{base}/api/sessions", json={"task_id": task.task_id}).json()["lease_id"]
    r = httpx.post(f"{base}/api/sessions/{lease}/terminate", json={"reason": "purchase"})
    assert r.status_code == 422 and r.json()["code"] == "invalid_body"
    httpx.delete(f"{base}/api/sessions/{lease}")


def test_tasks_endpoint_lists_the_shop_in_task_order(base: str, v8_shop: Any) -> None:
    tasks = V8Tasks.model_validate(httpx.get(f"{base}/api/tasks").json())
    assert tasks.task_ids == [t.task_id for t in v8_shop.goals]
    assert set(tasks.persona_task_ids) == {t.task_id for t in v8_shop.goals if t.user_persona is not None}


def test_http_source_plays_the_same_episodes_as_in_process(base: str, v8_shop: Any) -> None:
    """ShopEnv over V8HttpSource: every observation, reward and info equal to the in-process env's."""
    persona = next(i for i, t in enumerate(v8_shop.goals) if t.user_persona is not None)
    goals = [0, 1, 2, persona]
    local, remote = ShopEnv(v8_shop, max_steps=30), ShopEnv(None, source=V8HttpSource(base, max_actions=30))
    with local, remote:
        for g in goals:
            steps: dict[str, list[Any]] = {"local": [], "remote": []}
            for name, env in (("local", local), ("remote", remote)):
                def hook(step: Any, into: list[Any] = steps[name]) -> None:
                    into.append((step.observation, step.action, step.reward, step.next_observation, step.next_info))
                result = run_episode(env, make_agent("heuristic", 0, {}), g, max_steps=30, on_step=hook)
                steps[name].append(result.model_dump())
            assert steps["local"] == steps["remote"], f"goal {g}"
        obs_local, info_local = local.reset(options={"goal": persona, "task_mode": "standard"})
        obs_remote, info_remote = remote.reset(options={"goal": persona, "task_mode": "standard"})
        assert (obs_local, info_local) == (obs_remote, info_remote) and info_remote["user_persona"] is None
        assert local.terminate("action_limit")[1:] == remote.terminate("action_limit")[1:]
        multi = {"goal": persona, "interaction_mode": "multi_turn", "include_private": True}
        assert local.reset(options=multi) == remote.reset(options=multi)
        for action in ("ask[what colour do you want?]", "ask[预算多少?]", "search[shoes]"):
            here, there = local.step(action), remote.step(action)
            assert here == there and there[4]["dialogue"] and there[4]["private_goal"]
        token = remote.snapshot()
        assert remote.restore(token) == local.restore(local.snapshot())
    with pytest.raises(ConfigError, match="goal 99999 does not exist"), V8HttpSource(base) as source:
        source.reset(99_999)


@pytest.mark.slow
def test_eval_cli_over_http_writes_the_in_process_run(base: str, tmp_path: Path) -> None:
    exe = str(Path(sys.executable).with_name("shopsim"))
    runs = {}
    for adapter in ("inprocess", "http"):
        out = tmp_path / adapter
        cmd = [exe, "eval", "--profile", "shopsim-v8", "--agent", "heuristic", "--goals", "0:8", "--out", str(out),
               "--adapter", adapter] + (["--url", base, "--workers", "2"] if adapter == "http" else [])
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stdout + done.stderr
        runs[adapter] = {name: sorted((json.loads(line) for line in (out / name).read_text().splitlines()),
                                      key=lambda r: (r["goal_index"], r.get("step", 0)))
                         for name in ("episodes.jsonl", "traces.jsonl")}
    assert runs["http"] == runs["inprocess"]
    assert len(runs["http"]["episodes.jsonl"]) == 8


@pytest.mark.slow
def test_concurrent_clients_roll_out_what_in_process_rolls_out(base: str, v8_shop: Any) -> None:
    """12 clients on 4 slots (resets queue or get 503 and retry): every rollout equals the in-process one."""
    task_ids = [t.task_id for t in v8_shop.goals[:36]]
    expected = {t: _inprocess_rollout(v8_shop, t) for t in task_ids}

    def worker(i: int) -> dict[int, list[tuple[str, float, Any]]]:
        with V8Client(base, jitter_seed=i, backoff_s=0.05) as client:
            return {t: _client_rollout(client, t) for t in task_ids[i::12]}

    with ThreadPoolExecutor(12) as pool:
        got = {t: seen for part in pool.map(worker, range(12)) for t, seen in part.items()}
    assert got == expected
    assert any(seen[-1][1] == 1.0 for seen in got.values())  # some rollouts buy the target outright
    health = httpx.get(f"{base}/api/health").json()
    assert health["slots_in_use"] == 0 and health["waiting"] == 0  # every client gave its lease back


def test_client_snapshot_restore_and_seeded_reset(base: str, v8_shop: Any) -> None:
    with V8Client(base) as client:
        a = client.reset(seed=7)
        assert a.task_id == client.task_for_seed(7) and a.task_id in client.tasks().task_ids
        searched = client.step(f"search[{a.task_instruction[:100]}]")
        token = client.snapshot()
        first = client.step(f"click[{searched.observation_state.results[0].asin}]")
        assert client.restore(token) == searched  # same lease, back to the searched page
        assert client.step(f"click[{searched.observation_state.results[0].asin}]") == first
        persona = client.reset(seed=7, task_mode="persona")
        assert persona.task_id in client.tasks().persona_task_ids and persona.user_persona is not None
        with pytest.raises(ConfigError, match="exactly one of task_id or seed"):
            client.reset()
    with V8Client(base) as other:  # a token restores on any client: it opens a session in that state
        assert other.restore(token).observation == searched.observation


@pytest.mark.slow
def test_keepalive_renews_a_lease_that_would_expire(v8_shop: Any) -> None:
    task = v8_shop.goals[0].task_id
    with ServerThread(create_v8_app(v8_shop, slots=2, session_ttl_s=0.6)) as srv, \
            V8Client(srv.base_url, keepalive_s=0.15) as kept, V8Client(srv.base_url) as idle:
        kept.reset(task)
        idle.reset(task)
        token = idle.snapshot()
        time.sleep(1.5)  # past the TTL for the idle client; the keepalive thread renews the other
        assert kept.step("search[耳机]").action_feedback == "ok"
        with pytest.raises(LeaseLost) as lost:
            idle.step("search[耳机]")
        assert lost.value.status == 410 and lost.value.code == "lease_expired"
        assert idle.restore(token).actions_used == 0  # the lost lease is replaced by a new one in the state


def test_client_retries_until_the_server_is_up(v8_shop: Any) -> None:
    """A reset sent before the server listens is retried (the connection never opened) until it answers."""
    server = ServerThread(create_v8_app(v8_shop, slots=1))
    starter = threading.Timer(0.4, server.__enter__)
    starter.start()
    try:
        with V8Client(server.base_url, retries=12, backoff_s=0.05, max_backoff_s=0.5) as client:
            assert client.reset(v8_shop.goals[0].task_id).actions_used == 0
    finally:
        starter.join()
        server.__exit__(None, None, None)
    with pytest.raises(Exception, match="ConnectError"), V8Client(server.base_url, retries=1, backoff_s=0.01) as c:
        c.health()


def test_client_waits_out_503_no_free_slot_with_backoff(v8_shop: Any) -> None:
    """One slot, held past the queue wait: the second client's reset gets 503s, backs off, and is served once
    the first client releases its lease.
    """
    task = v8_shop.goals[0].task_id
    statuses: list[int] = []
    with ServerThread(create_v8_app(v8_shop, slots=1, queue_timeout_s=0.1)) as srv, V8Client(srv.base_url) as holder:
        holder.reset(task)
        http = httpx.Client(base_url=srv.base_url, event_hooks={"response": [lambda r: statuses.append(r.status_code)]})
        release = threading.Timer(0.8, holder.release)
        release.start()
        with V8Client(srv.base_url, client=http, retries=20, backoff_s=0.05, max_backoff_s=0.2) as waiter:
            assert waiter.reset(task).env_idx == 0
        release.join()
        http.close()
    assert 503 in statuses and statuses[-2:] == [201, 204]  # refused while held, then served and released


def test_eval_over_http_plays_the_interaction_mode_asked_for(base: str, tmp_path: Path) -> None:
    """``--interaction-mode multi_turn`` reaches the service's sessions (it ran them single-turn, silently)."""
    from shopsim.cli import main

    runs = {}
    for adapter in ("inprocess", "http"):
        out = tmp_path / adapter
        args = ["eval", "--profile", "shopsim-v8", "--agent", "heuristic", "--goals", "hidden-options:3",
                "--task-mode", "persona", "--interaction-mode", "multi_turn", "--out", str(out), "--adapter", adapter]
        assert main(args + (["--url", base] if adapter == "http" else [])) == 0
        runs[adapter] = [json.loads(line) for line in (out / "episodes.jsonl").read_text().splitlines()]
    assert runs["http"] == runs["inprocess"]
    asked = [r for r in runs["http"] if r.get("dialogue")]
    assert asked and all(any(a.startswith("ask[") for a in r["actions"]) for r in asked)


@pytest.mark.parametrize("bad", [{"max_backoff_s": -1.0}, {"backoff_s": float("nan")}, {"keepalive_s": float("nan")},
                                 {"retries": -1}])
def test_client_refuses_waits_no_sleep_can_take(bad: dict[str, float]) -> None:
    """A negative or NaN wait would surface later as a ValueError from time.sleep mid-rollout."""
    with pytest.raises(ConfigError, match="must be >= 0"):
        V8Client("http://127.0.0.1:9", **bad)  # type: ignore[arg-type]
