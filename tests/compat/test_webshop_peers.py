"""Public WebShop clients' own shapes of use, over real servers on 127.0.0.1 and a real browser.

AgentGym serves ``gym.make('WebAgentTextEnv-v0')`` environments behind a FastAPI app (``/create``,
``/step`` answering ``{state, reward, done, info: None}``, ``/reset`` answering ``(obs, None)``, ...), and its
client drives them over HTTP; WebShop's ``run_envs/run_web_agent_site_env.py`` drives ``WebAgentSiteEnv``
with a policy from ``web_agent_site.models``.
"""

from __future__ import annotations

import threading

import httpx
import pytest

gym = pytest.importorskip("gym", reason="legacy gym is installed by the test extra (gym==0.24.1)")
fastapi = pytest.importorskip("fastapi", reason="FastAPI is installed by the test extra")

from pydantic import BaseModel  # noqa: E402

import web_agent_site.envs  # noqa: E402,F401
from shopsim.simsite.server import ServerThread  # noqa: E402


class StepQuery(BaseModel):
    env_idx: int
    action: str


class StepResponse(BaseModel):
    state: str
    reward: float
    done: bool
    info: None


class ResetQuery(BaseModel):
    env_idx: int
    session_id: int | None = None


def agentgym_style_app() -> fastapi.FastAPI:
    """A FastAPI wrapper shaped like AgentGym's agentenv-webshop server."""
    app = fastapi.FastAPI()
    envs: dict[int, object] = {}
    lock = threading.Lock()

    @app.post("/create")
    def create() -> int:
        with lock:
            idx = len(envs)
            envs[idx] = gym.make("WebAgentTextEnv-v0", observation_mode="text", num_products=1000,
                                 file_path=None, disable_env_checker=True)
            envs[idx].reset()
        return idx

    @app.post("/step", response_model=StepResponse)
    def step(q: StepQuery) -> StepResponse:
        state, reward, done, info = envs[q.env_idx].step(q.action)
        return StepResponse(state=state, reward=reward, done=done, info=info)

    @app.get("/available_actions")
    def available_actions(env_idx: int) -> dict:
        return envs[env_idx].get_available_actions()

    @app.get("/observation")
    def observation(env_idx: int) -> str:
        return envs[env_idx].observation

    @app.get("/instruction_text")
    def instruction_text(env_idx: int) -> str:
        return envs[env_idx].get_instruction_text()

    @app.post("/reset", response_model=tuple[str, None])
    def reset(q: ResetQuery) -> tuple[str, None]:
        return envs[q.env_idx].reset(session=q.session_id)

    return app


def test_agentgym_style_fastapi_server_and_client() -> None:
    with ServerThread(agentgym_style_app()) as srv, httpx.Client(base_url=srv.base_url, timeout=30) as client:
        idx = client.post("/create").json()
        obs, none = client.post("/reset", json={"env_idx": idx, "session_id": 2}).json()
        assert none is None and obs.startswith("WebShop [SEP] Instruction: [SEP] ")
        assert client.get("/observation", params={"env_idx": idx}).json() == obs
        assert client.get("/instruction_text", params={"env_idx": idx}).json().startswith("Instruction: ")
        assert client.get("/available_actions", params={"env_idx": idx}).json() == {
            "has_search_bar": True, "clickables": ["search"]}
        goal_words = obs.split(" [SEP] ")[2].split(" ")[:4]
        step = client.post("/step", json={"env_idx": idx, "action": f"search[{' '.join(goal_words)}]"}).json()
        assert step["info"] is None and step["done"] is False and "Page 1 (Total results:" in step["state"]
        clickables = client.get("/available_actions", params={"env_idx": idx}).json()["clickables"]
        product = next(c for c in clickables if c not in ("back to search", "next >", "< prev"))
        client.post("/step", json={"env_idx": idx, "action": f"click[{product}]"})
        bought = client.post("/step", json={"env_idx": idx, "action": "click[buy now]"}).json()
        assert bought["done"] is True and 0.0 <= bought["reward"] <= 1.0
        again = client.post("/step", json={"env_idx": idx, "action": "click[buy now]"}).json()
        assert again["done"] is False and again["reward"] == 0.0  # nothing to click after a purchase


@pytest.mark.browser
@pytest.mark.slow
def test_run_web_agent_site_env_style_episode(chromium_path: str | None, browser_shutdown: None) -> None:
    from web_agent_site.envs import WebAgentSiteEnv
    from web_agent_site.models import RandomPolicy

    env = WebAgentSiteEnv(observation_mode="text", render=False, file_path=None, session="fixed_3",
                          executable_path=chromium_path)
    try:
        observation = env.observation
        assert observation.startswith("WebShop [SEP] Instruction: [SEP] ")
        policy = RandomPolicy()
        available = env.get_available_actions()
        action = policy.forward(observation, available)
        assert action == "search[shoes]"
        observation, reward, done, info = env.step(action)
        assert "Page 1 (Total results:" in observation and reward == 0.0 and done is False and info is None
        product = next(c for c in env.get_available_actions()["clickables"] if c not in ("back to search", "next >"))
        env.step(f"click[{product}]")
        observation, reward, done, info = env.step("click[buy now]")
        assert done is True and 0.0 <= reward <= 1.0
        assert env.state["url"].startswith(env.base_url + "/done/")
    finally:
        env.close()
