"""shopsim as an OpenEnv environment: :class:`ShopsimEnvironment` over a :class:`ShopEnv`, and its app.

OpenEnv (``openenv-core``) serves an ``Environment`` over HTTP and a WebSocket; its typed client
(:class:`shopsim.adapters.openenv_client.ShopsimEnv`) keeps one WebSocket per episode stream. Each
WebSocket session gets its own ``ShopsimEnvironment`` (its own ``ShopEnv``) over one shop loaded
once, so sessions are independent and cost no catalog load; OpenEnv runs each session's calls on
that session's own thread. The stateless HTTP ``/reset`` and ``/step`` make a fresh environment per
request (OpenEnv's design): an HTTP ``/step`` therefore answers an observation whose ``error`` says
to reset first; episodes run over the WebSocket.

Errors: a refused action is the env's ``feedback`` (page unchanged, step counted); a step that cannot
be played (before a reset, after a v8 episode ended) is an observation with ``error``; a bad reset
(unknown goal or option) raises, which OpenEnv's WebSocket answers as an error message (the client
raises it) and which the HTTP routes answer as a 400 with the reason.
"""

from __future__ import annotations

import itertools
from importlib.metadata import version
from typing import Any

from fastapi import FastAPI, Request, WebSocket, WebSocketDisconnect
from fastapi.responses import JSONResponse
from openenv.core.env_server.http_server import create_fastapi_app
from openenv.core.env_server.interfaces import Environment
from openenv.core.env_server.types import ConcurrencyConfig, EnvironmentMetadata
from pydantic_core import to_jsonable_python

from shopsim.adapters.env import ShopEnv
from shopsim.adapters.openenv_models import ShopAction, ShopObservation, ShopState
from shopsim.errors import ConfigError, ShopsimError
from shopsim.render import ObservationMode
from shopsim.simsite.profiles import ShopLike

__all__ = ["ShopsimEnvironment", "create_openenv_app"]

#: ``info`` keys that have fields of their own in :class:`ShopObservation` (``page_state`` is the page
#: itself: its text, type, valid actions and feedback are the fields).
_OWN_FIELDS = frozenset({"valid_actions", "page_state", "feedback", "goal_index", "instruction", "reward_info"})


class ShopsimEnvironment(Environment[ShopAction, ShopObservation, ShopState]):
    """One OpenEnv session: a :class:`ShopEnv` over a shared shop, reset by goal or v8 task.

    ``reset(seed=, episode_id=, goal=, task_id=, task_mode=, interaction_mode=)``: ``goal`` is a goal
    index (as ``shopsim run --goals`` numbers them), ``task_id`` a v8 task; neither draws a goal from
    the session's seeded stream (seed 0 unless given), so every session replays the same way.
    """

    SUPPORTS_CONCURRENT_SESSIONS = True

    def __init__(self, shop: ShopLike, *, observation_mode: ObservationMode = "text"):
        super().__init__()
        self._env = ShopEnv(shop, observation_mode=observation_mode)
        self._state = ShopState(profile=shop.profile.name)
        self._text = ""
        self._episodes = itertools.count(1)
        self._seeded = False
        # the per-episode options this profile's episodes read (v8: task_mode, interaction_mode); not the
        # shopper's private goal (never for the agent), nor session_id (OpenEnv 0.3 takes that keyword itself)
        self._options = {"goal", *getattr(self._env.source, "episode_options", ())} - {"include_private", "session_id"}
        if hasattr(shop, "index_of"):
            self._options.add("task_id")

    def reset(self, seed: int | None = None, episode_id: str | None = None, **options: Any) -> ShopObservation:
        """Start an episode; raises ConfigError for an unknown goal, task or option."""
        self._check_options(options)
        if seed is None and not self._seeded:
            seed = 0  # a session's goal draws are a seeded stream, like every random choice in shopsim
        self._seeded = True
        text, info = self._env.reset(seed=seed, options=options)
        n = next(self._episodes)
        self._state = ShopState(episode_id=episode_id or f"{self._state.profile}-goal{info['goal_index']}-{n}",
                                profile=self._state.profile, goal_index=info["goal_index"],
                                instruction=info["instruction"], page_type=info["page_state"].page_type)
        return self._observation(text, 0.0, False, False, info)

    def _check_options(self, options: dict[str, Any]) -> None:
        """Reset options as any JSON client may send them: known names, integer ids, not both ids."""
        unknown = sorted(set(options) - self._options)
        if unknown:
            raise ConfigError(f"reset option(s) {', '.join(unknown)} unknown to profile {self._state.profile}: "
                              f"use {', '.join(sorted(self._options))}, seed or episode_id")
        for key in ("goal", "task_id"):  # JSON from any client: "x" was a 500, 3.5 and true played goals 3 and 1
            value = options.get(key)
            if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
                raise ConfigError(f"{key} must be an integer (got {value!r:.40})")
        if options.get("goal") is not None and options.get("task_id") is not None:  # else task_id silently wins
            raise ConfigError("pass goal or task_id, not both")

    def step(self, action: ShopAction, timeout_s: float | None = None, **kwargs: Any) -> ShopObservation:
        """Play one action; an action that cannot be played answers the unchanged page with ``error``."""
        try:
            played = self._env.terminate(action.terminate) if action.terminate else self._env.step(action.action)
        except ShopsimError as exc:
            return ShopObservation(text=self._text, instruction=self._state.instruction,
                                   page_type=self._state.page_type or "", goal_index=self._state.goal_index,
                                   done=self._state.done, reward=0.0, error=str(exc))
        text, reward, terminated, truncated, info = played
        done = terminated or truncated
        self._state.step_count += 1
        self._state.reward += reward
        self._state.done = done
        self._state.page_type = info["page_state"].page_type
        return self._observation(text, reward, done, truncated, info)

    @property
    def state(self) -> ShopState:
        """The episode so far (a fresh session: no goal yet)."""
        return self._state

    def get_metadata(self) -> EnvironmentMetadata:
        """What OpenEnv's ``/metadata`` and web interface show."""
        return EnvironmentMetadata(name="shopsim", version=version("shopsim"),
                                   description=f"a WebShop-style simulated shop, profile {self._state.profile}: "
                                               "reset(goal=N | task_id=T, seed=S), step(search[...] | click[...])")

    def close(self) -> None:
        """Close the env's page source."""
        self._env.close()

    def _observation(self, text: Any, reward: float, done: bool, truncated: bool,
                     info: dict[str, Any]) -> ShopObservation:
        self._text = text if isinstance(text, str) else ""
        page = info["page_state"]
        return ShopObservation(
            text=self._text, instruction=info["instruction"] or "", page_type=page.page_type,
            valid_actions=info["valid_actions"], feedback=info["feedback"].model_dump(),
            goal_index=info["goal_index"], truncated=truncated, reward_info=to_jsonable_python(info["reward_info"]),
            info=to_jsonable_python({k: v for k, v in info.items() if k not in _OWN_FIELDS}),
            reward=float(reward), done=done)


async def _shopsim_error(request: Request, exc: Exception) -> JSONResponse:
    """A shopsim error on an HTTP route (a bad reset) as a 400 with its reason, never a 500."""
    return JSONResponse(status_code=400, content={"detail": str(exc)})


async def _closed_by_client(websocket: WebSocket, exc: Exception) -> None:
    """OpenEnv 0.3 closes a session's socket after its client closed it; that close is moot, not an error to log."""
    return None


def create_openenv_app(shop: ShopLike, *, observation_mode: ObservationMode = "text", max_sessions: int = 64,
                       session_ttl_s: float | None = 900.0, web: bool = False) -> FastAPI:
    """OpenEnv's FastAPI app over ``shop``: ``/ws`` sessions (at most ``max_sessions``, each closed after
    ``session_ttl_s`` idle), ``/reset``, ``/step``, ``/state``, ``/schema``, ``/health``; ``web`` adds
    OpenEnv's Gradio playground at ``/web`` (one environment shared by its users, beside the sessions).
    """
    if max_sessions < 1 or (session_ttl_s is not None and not session_ttl_s > 0):
        raise ConfigError("max_sessions and session_ttl_s must be positive")
    ShopsimEnvironment(shop, observation_mode=observation_mode).close()  # a bad mode fails here, not per session

    def shopsim_environment() -> ShopsimEnvironment:
        # a function, not a partial: OpenEnv's web interface calls classes and functions, and uses anything else as is
        return ShopsimEnvironment(shop, observation_mode=observation_mode)

    config = ConcurrencyConfig(max_concurrent_envs=max_sessions, session_timeout=session_ttl_s)
    if web:
        from openenv.core.env_server.web_interface import create_web_interface_app

        app = create_web_interface_app(shopsim_environment, ShopAction, ShopObservation,  # type: ignore[arg-type]
                                       env_name="shopsim", concurrency_config=config)
    else:
        app = create_fastapi_app(shopsim_environment, ShopAction, ShopObservation, concurrency_config=config)
    app.add_exception_handler(ShopsimError, _shopsim_error)
    app.add_exception_handler(WebSocketDisconnect, _closed_by_client)
    return app
