"""Clients of ``shopsim openenv``: :class:`ShopsimEnv`, OpenEnv's typed client, and :class:`ShopsimTools`
for TRL's ``GRPOTrainer(environment_factory=...)``.

``ShopsimEnv`` is an ``EnvClient`` (async; ``.sync()`` for plain calls) whose ``step`` takes a
:class:`ShopAction` or the action string itself::

    with ShopsimEnv(base_url="http://127.0.0.1:8000").sync() as env:
        result = env.reset(goal=3, seed=0)
        result = env.step("search[red shoes]")   # result.observation.text, .reward, .done

``ShopsimTools`` is what TRL's ``environment_factory`` takes: built with no arguments (the server is
``$SHOPSIM_OPENENV_URL``, else http://127.0.0.1:8000), ``reset(**row)`` starts the episode a dataset
row names (its ``goal``, ``task_id`` and ``seed`` columns) and returns the page as the prompt's
start, and its public methods, ``search`` and ``click``, are the model's tools; :func:`shopsim_reward`
is the matching reward function.
"""

from __future__ import annotations

import os
from typing import Any

from openenv.core.client_types import StepResult
from openenv.core.env_client import EnvClient

from shopsim.adapters.openenv_models import ShopAction, ShopObservation, ShopState

__all__ = ["DEFAULT_URL", "ShopsimEnv", "ShopsimTools", "shopsim_reward"]

#: Where ``shopsim openenv`` listens by default.
DEFAULT_URL = "http://127.0.0.1:8000"
#: Dataset columns ``ShopsimTools.reset`` passes on to the server's reset.
_RESET_COLUMNS = ("goal", "task_id", "seed", "task_mode")


class ShopsimEnv(EnvClient[ShopAction | str, ShopObservation, ShopState]):
    """OpenEnv's client of a shopsim server: one WebSocket, one server-side environment."""

    def _step_payload(self, action: ShopAction | str) -> dict[str, Any]:
        if isinstance(action, str):
            return {"action": action}
        return action.model_dump(exclude={"metadata"}, exclude_defaults=True)

    def _parse_result(self, payload: dict[str, Any]) -> StepResult[ShopObservation]:
        observation = ShopObservation(**payload.get("observation", {}), reward=payload.get("reward"),
                                      done=bool(payload.get("done", False)))
        return StepResult(observation=observation, reward=payload.get("reward"), done=observation.done)

    def _parse_state(self, payload: dict[str, Any]) -> ShopState:
        return ShopState(**payload)


class ShopsimTools:
    """One rollout's shop episode, as TRL's ``environment_factory`` wants it; ``reward`` and ``done`` after each tool."""

    def __init__(self, base_url: str | None = None):
        self._env = ShopsimEnv(base_url=base_url or os.environ.get("SHOPSIM_OPENENV_URL") or DEFAULT_URL).sync()
        self.reward = 0.0
        self.done = False

    def reset(self, **kwargs: Any) -> str:
        """Start the episode a dataset row names (``goal``/``task_id``/``seed``); returns the instruction and page."""
        result = self._env.reset(**{k: kwargs[k] for k in _RESET_COLUMNS if kwargs.get(k) is not None})
        self.reward, self.done = 0.0, False
        return f"Instruction: {result.observation.instruction}\n{result.observation.text}"

    def search(self, query: str) -> str:
        """Search the shop's catalog (only on the search page).

        Args:
            query: The words to search for.

        Returns:
            The results page, or why the search was refused.
        """
        return self._act(f"search[{query}]")

    def click(self, value: str) -> str:
        """Click one of the values the page lists: a product id, an option, a button such as "buy now".

        Args:
            value: The clickable's text, exactly as the page lists it.

        Returns:
            The next page, or why the click was refused.
        """
        return self._act(f"click[{value}]")

    def _act(self, action: str) -> str:
        if self.done:
            raise ValueError("the episode is over: no more tools")  # TRL shows a tool's error to the model
        result = self._env.step(action)
        obs = result.observation
        if obs.error:
            raise ValueError(obs.error)
        self.reward, self.done = float(result.reward or 0.0), result.done
        feedback = obs.feedback.get("message") if obs.feedback.get("code", "ok") != "ok" else None
        return f"{feedback}\n{obs.text}" if feedback else obs.text


def shopsim_reward(environments: list[ShopsimTools], **kwargs: Any) -> list[float]:
    """TRL's reward function for :class:`ShopsimTools`: each rollout's reward (0 until a purchase)."""
    return [env.reward for env in environments]
