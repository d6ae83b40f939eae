"""shopsim as an OpenEnv environment, driven by openenv-core's own client (``EnvClient`` over its
WebSocket) against a real uvicorn on 127.0.0.1: every step equal to the in-process ``ShopEnv``'s for
the same actions, both profiles, bad input, independent sessions, and ``shopsim openenv`` itself.

openenv-core imports gradio and fastmcp (about 5 s of CPU), so the module is slow and imports it in
fixtures, never at collection.
"""

from __future__ import annotations

import importlib.util
import json
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest

from shopsim.adapters.env import ShopEnv
from shopsim.agents.episode import run_episode
from shopsim.agents.registry import make_agent
from shopsim.simsite.server import ServerThread

pytestmark = [
    pytest.mark.slow,
    pytest.mark.usefixtures("no_sync_playwright"),  # openenv-core's sync client runs an event loop in this thread
    pytest.mark.skipif(importlib.util.find_spec("openenv") is None,
                       reason="openenv-core is not installed (pip install -e '.[openenv]')"),
]


def _serve(shop: Any, **kw: Any) -> ServerThread:
    from shopsim.adapters.openenv_env import create_openenv_app

    return ServerThread(create_openenv_app(shop, **kw), lifespan="on")


@pytest.fixture(scope="module")
def webshop_url(bundled_shop: Any) -> Iterator[str]:
    with _serve(bundled_shop, max_sessions=4) as srv:
        yield srv.base_url


@pytest.fixture(scope="module")
def v8_url(bundled_v8_shop: Any) -> Iterator[str]:
    with _serve(bundled_v8_shop) as srv:
        yield srv.base_url


def _client(url: str) -> Any:
    from shopsim.adapters.openenv_client import ShopsimEnv

    return ShopsimEnv(base_url=url).sync()


def _in_process(shop: Any, goal: int) -> tuple[list[tuple[str, float, bool, Any]], Any]:
    """The heuristic agent's episode in process: ``[(observation, reward, done, reward_info)]`` per page, and the result."""
    env = ShopEnv(shop)
    first, _ = env.reset(seed=0, options={"goal": goal})
    pages = [(first, 0.0, False, None)]

    def hook(step: Any) -> None:
        pages.append((step.next_observation, step.reward, step.terminated or step.truncated,
                      step.next_info["reward_info"]))

    result = run_episode(env, make_agent("heuristic", 0, {}), goal, max_steps=30, on_step=hook)
    env.close()
    return pages, result


def _over_openenv(env: Any, goal: int, actions: list[str], **reset: Any) -> list[tuple[str, float, bool, Any]]:
    from pydantic_core import to_jsonable_python

    first = env.reset(goal=goal, seed=0, **reset)
    pages = [(first.observation.text, first.reward, first.done, None)]
    for action in actions:
        out = env.step(action)
        assert out.observation.error is None, out.observation.error
        pages.append((out.observation.text, out.reward, out.done, out.observation.reward_info))
    return [(t, r, d, to_jsonable_python(i)) for t, r, d, i in pages]


def _jsonable(pages: list[tuple[str, float, bool, Any]]) -> list[tuple[str, float, bool, Any]]:
    from pydantic_core import to_jsonable_python

    return [(t, r, d, to_jsonable_python(i)) for t, r, d, i in pages]


def test_webshop_episode_through_openenv_equals_the_in_process_one(webshop_url: str, bundled_shop: Any) -> None:
    rewarded = 0
    with _client(webshop_url) as env:
        for goal in (0, 3, 7):
            pages, result = _in_process(bundled_shop, goal)
            assert _over_openenv(env, goal, result.actions) == _jsonable(pages), f"goal {goal}"
            state = env.state()
            assert (state.goal_index, state.step_count, state.done, state.profile) == \
                (goal, len(result.actions), result.done, "webshop")
            assert state.reward == pytest.approx(result.reward) and state.page_type == "done"
            rewarded += result.reward > 0
    assert rewarded, "the heuristic agent bought nothing worth a reward: the comparison proves little"


def test_the_docs_three_lines_play_against_a_server(webshop_url: str) -> None:
    """docs/harnesses.md's client example, as written but for the port (the docs test skips it: no server)."""
    doc = (Path(__file__).resolve().parents[2] / "docs" / "harnesses.md").read_text(encoding="utf-8")
    block = re.search(r"```python\n(from shopsim.adapters.openenv_client import ShopsimEnv\n.*?)```", doc, re.DOTALL)
    assert block is not None, "docs/harnesses.md lost its OpenEnv client example"
    scope: dict[str, Any] = {}
    exec(block.group(1).replace("http://127.0.0.1:8000", webshop_url), scope)
    result = scope["result"]
    assert result.observation.page_type == "results" and result.observation.valid_actions["clickables"]


def test_reset_draws_a_seeded_goal_and_episode_ids(webshop_url: str, bundled_shop: Any) -> None:
    with _client(webshop_url) as a, _client(webshop_url) as b:
        drawn = [a.reset().observation.goal_index for _ in range(3)]
        assert [b.reset().observation.goal_index for _ in range(3)] == drawn  # each session: seed 0's stream
        local = ShopEnv(bundled_shop)
        assert [local.reset(seed=0 if i == 0 else None)[1]["goal_index"] for i in range(3)] == drawn
        a.reset(goal=5, episode_id="mine")
        assert a.state().episode_id == "mine"


def test_bad_input_answers_an_error_never_a_crash(webshop_url: str) -> None:
    with _client(webshop_url) as env:
        before = env.step("search[shoes]").observation  # before any reset: an observation saying why
        assert before.error == "Cannot call step() before reset()" and not before.done
        first = env.reset(goal=3).observation
        refused = env.step("click[no such thing]")
        assert refused.observation.feedback["code"] == "not_available" and refused.reward == 0.0
        assert refused.observation.text == first.text and not refused.done and env.state().step_count == 1
        with pytest.raises(RuntimeError, match="goal 99999 does not exist"):
            env.reset(goal=99_999)
        with pytest.raises(RuntimeError, match="unknown to profile webshop"):
            env.reset(goal=1, task_mode="persona")
        with pytest.raises(RuntimeError, match="VALIDATION_ERROR"):
            env.step("search[" + "x" * 5000 + "]")  # past the action's limit: the library's validation error
        assert env.step("search[nuts]").observation.page_type == "results"  # the session lives on
        from shopsim.adapters.openenv_models import ShopAction

        ended = env.step(ShopAction(terminate="action_limit")).observation
        assert ended.error is not None and "shopsim-v8" in ended.error and ended.page_type == "results"
    r = httpx.post(f"{webshop_url}/reset", json={"goal": 99_999})
    assert r.status_code == 400 and "does not exist" in r.json()["detail"]
    for goal in ("x", 3.5, True, [3]):  # not a goal index: a 400 saying so (a string was a 500, 3.5 played goal 3)
        r = httpx.post(f"{webshop_url}/reset", json={"goal": goal})
        assert r.status_code == 400 and "goal must be an integer" in r.json()["detail"], (goal, r.text)
    for bad in ({"actoin": "search[x]"}, {"action": 5}, {"terminate": "purchase"}):  # unknown field, wrong type, value
        assert httpx.post(f"{webshop_url}/step", json={"action": bad}).status_code == 422, bad
    meta = httpx.get(f"{webshop_url}/metadata").json()
    assert meta["name"] == "shopsim" and "profile webshop" in meta["description"]
    r = httpx.post(f"{webshop_url}/step", json={"action": {"action": "search[x]"}})  # stateless HTTP: a fresh env
    assert r.status_code == 200 and r.json()["observation"]["error"] == "Cannot call step() before reset()"


def test_two_clients_play_independent_episodes(webshop_url: str, bundled_shop: Any) -> None:
    goals = (3, 7)
    expected = {g: _in_process(bundled_shop, g) for g in goals}

    def play(goal: int) -> list[tuple[str, float, bool, Any]]:
        with _client(webshop_url) as env:
            return _over_openenv(env, goal, expected[goal][1].actions)

    with ThreadPoolExecutor(2) as pool:  # both sessions open at once, steps interleaved by the threads
        got = dict(zip(goals, pool.map(play, goals), strict=True))
    for g in goals:
        assert got[g] == _jsonable(expected[g][0]), f"goal {g}"


def test_a_session_past_max_sessions_is_refused_and_a_closed_one_frees_its_place(bundled_shop: Any) -> None:
    with _serve(bundled_shop, max_sessions=1) as srv, _client(srv.base_url) as first:
        first.reset(goal=1)
        from websockets.sync.client import connect  # openenv-core's dependency

        with connect(srv.base_url.replace("http", "ws") + "/ws") as raw:  # what the server says, then it closes
            refused = json.loads(raw.recv(timeout=30))
        assert (refused["type"], refused["data"]["code"]) == ("error", "CAPACITY_REACHED"), refused
        first.close()
        deadline = time.monotonic() + 30  # the server frees the place once it sees the close
        while True:
            try:
                with _client(srv.base_url) as third:
                    assert third.reset(goal=2).observation.goal_index == 2
                break
            except RuntimeError:
                assert time.monotonic() < deadline, "the closed session's place was never freed"
                time.sleep(0.1)


def test_v8_episode_through_openenv_equals_the_in_process_one(v8_url: str, bundled_v8_shop: Any) -> None:
    from pydantic_core import to_jsonable_python

    from shopsim.adapters.openenv_models import ShopAction

    task = bundled_v8_shop.goals[2]
    local: list[tuple[str, float, bool, Any]] = []

    def hook(step: Any) -> None:
        local.append((step.next_observation, step.reward, step.terminated or step.truncated,
                      to_jsonable_python(step.next_info["reward_detail"])))

    result = run_episode(ShopEnv(bundled_v8_shop), make_agent("heuristic", 0, {}), 2, max_steps=30, on_step=hook)
    with _client(v8_url) as env:
        first = env.reset(task_id=task.task_id, seed=0).observation
        assert (first.goal_index, first.info["task_id"], first.page_type) == (2, task.task_id, "search")
        assert first.instruction == task.instruction_for(task.task_mode)
        remote, out = [], None
        for action in result.actions:
            out = env.step(action)
            remote.append((out.observation.text, out.reward, out.done, out.observation.info["reward_detail"]))
        assert remote == local and out is not None
        assert out.observation.info["termination"] == result.termination and out.reward == pytest.approx(result.reward)
        after = env.step("click[buy now]").observation  # past the end: the session's error, not a crash
        assert after.error and after.done
        with pytest.raises(RuntimeError, match="unknown to profile shopsim-v8"):
            env.reset(task_id=task.task_id, colour="red")
        with pytest.raises(RuntimeError, match="pass goal or task_id, not both"):  # task_id silently won
            env.reset(task_id=task.task_id, goal=0)
        env.reset(task_id=task.task_id)
        env.step(result.actions[0])
        ended = env.step(ShopAction(terminate="generation_length"))  # the runtime's end, as ShopEnv.terminate
    local_env = ShopEnv(bundled_v8_shop)
    local_env.reset(options={"task_id": task.task_id})
    local_env.step(result.actions[0])
    text, reward, terminated, truncated, info = local_env.terminate("generation_length")
    assert (ended.observation.text, ended.reward, ended.done, ended.observation.truncated) == \
        (text, reward, terminated or truncated, truncated)
    assert ended.observation.info["termination"] == info["termination"] == "generation_length"
    assert ended.observation.info["reward_detail"] == to_jsonable_python(info["reward_detail"])


def test_shopsim_tools_plays_an_episode_as_trl_would(webshop_url: str, bundled_shop: Any) -> None:
    from shopsim.adapters.openenv_client import ShopsimTools, shopsim_reward

    pages, result = _in_process(bundled_shop, 3)
    tools = ShopsimTools(base_url=webshop_url)
    prompt = tools.reset(goal=3, seed=0, prompt="ignored: a dataset column the env does not read")
    assert prompt.startswith("Instruction: ") and pages[0][0] in prompt
    public = sorted(n for n in dir(tools) if not n.startswith("_") and callable(getattr(tools, n)))
    assert public == ["click", "reset", "search"]  # TRL exposes every public method but reset as a tool
    for action in result.actions:
        tool, _, arg = action.partition("[")
        getattr(tools, tool)(arg[:-1])
    assert shopsim_reward([tools]) == [pytest.approx(result.reward)] and tools.done
    with pytest.raises(ValueError, match="episode is over"):
        tools.click("buy now")


def test_cli_serves_the_env_and_its_web_interface() -> None:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([sys.executable, "-m", "shopsim.cli", "openenv", "--port", str(port), "--web"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    url = f"http://127.0.0.1:{port}"
    try:
        assert proc.stdout is not None
        banner = proc.stdout.readline()
        assert f"on {url}/" in banner and "/web/" in banner, banner
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(f"{url}/health").status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert time.monotonic() < deadline and proc.poll() is None, "shopsim openenv did not start"
            time.sleep(0.2)
        with _client(url) as env:
            assert env.reset(goal=3).observation.page_type == "search"
            assert env.step("search[nuts]").observation.page_type == "results"
        assert httpx.get(f"{url}/web/").status_code == 200
        web = httpx.post(f"{url}/web/reset", json={"goal": 3}).json()
        assert web["observation"]["goal_index"] == 3 and web["done"] is False
    finally:
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    assert "Traceback" not in err, err
