"""One episode of an agent in an environment, and the agent's running counters around it."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from shopsim.adapters.env import ShopEnv
from shopsim.agents.base import Agent, PolicyFailure

__all__ = ["EpisodeResult", "Step", "StepHook", "agent_counts", "counts_since", "run_episode", "sum_counts"]


class EpisodeResult(BaseModel):
    """One finished episode."""

    goal_index: int
    reward: float
    steps: int
    done: bool
    truncated: bool
    reward_info: dict[str, Any] | None = None
    actions: list[str] = []
    termination: str | None = None
    environment_version: str | None = None
    dialogue: list[dict[str, Any]] | None = None
    """A multi-turn v8 episode's questions to the shopper and its answers (None elsewhere)."""


@dataclass(frozen=True)
class Step:
    """One step as the step hook sees it: what the agent saw, what it did, and what came back."""

    goal_index: int
    index: int  # 0 for the episode's first action
    observation: Any
    info: dict[str, Any]
    action: str
    next_observation: Any
    reward: float
    terminated: bool
    truncated: bool
    next_info: dict[str, Any]


StepHook = Callable[[Step], None]
"""Called after each step: how evaluate writes its traces and tests record their pages."""


def run_episode(env: ShopEnv, agent: Agent, goal_index: int, seed: int = 0, max_steps: int = 15,
                on_step: StepHook | None = None) -> EpisodeResult:
    """Play one goal until purchase, truncation or ``max_steps`` actions; ``on_step`` sees every step.

    The one episode loop: ``shopsim eval``'s workers and the tests run theirs through it too.
    """
    agent.reset(seed=seed + goal_index)
    obs, info = env.reset(seed=seed, options={"goal": goal_index})
    reward, done, truncated, steps, actions = 0.0, False, False, 0, []
    while not done and steps < max_steps:
        try:
            action = agent.act(obs, info["valid_actions"], info)
        except PolicyFailure as failure:  # e.g. generation_length: the runtime ends the episode
            obs, reward, terminated, truncated, info = env.terminate(failure.code)
            done = True
            break
        actions.append(action)
        next_obs, reward, terminated, truncated, next_info = env.step(action)
        if on_step is not None:
            on_step(Step(goal_index, steps, obs, info, action, next_obs, reward, terminated, truncated, next_info))
        obs, info = next_obs, next_info
        steps += 1
        done = terminated or truncated
    return EpisodeResult(goal_index=goal_index, reward=reward, steps=steps, done=done, truncated=truncated,
                         reward_info=info.get("reward_info"), actions=actions, termination=info.get("termination"),
                         environment_version=info.get("environment_version"), dialogue=info.get("dialogue"))


def agent_counts(agent: Agent) -> dict[str, int] | None:
    """An agent's running counters (the LLM agent's tokens, protocol errors, repairs, fallbacks,
    retries), from a dataclass in ``agent.stats``; None for agents that keep none.
    """
    stats = getattr(agent, "stats", None)
    if stats is None or not dataclasses.is_dataclass(stats):
        return None
    return {f.name: int(getattr(stats, f.name)) for f in dataclasses.fields(stats)
            if isinstance(getattr(stats, f.name), int) and not isinstance(getattr(stats, f.name), bool)}


def counts_since(agent: Agent, before: dict[str, int] | None) -> dict[str, int] | None:
    """What the agent spent since ``before`` (one episode's share of its counters)."""
    now = agent_counts(agent)
    if now is None or before is None:
        return now
    return {k: v - before.get(k, 0) for k, v in now.items()}


def sum_counts(records: list[dict[str, Any]]) -> dict[str, Any] | None:
    """Totals and per-episode means of the episodes' ``agent_stats`` (None when no episode has any)."""
    rows = [r["agent_stats"] for r in records if isinstance(r.get("agent_stats"), dict)]
    if not rows:
        return None
    totals: dict[str, int] = {}
    for row in rows:
        for k, v in row.items():
            totals[k] = totals.get(k, 0) + int(v)
    return {"episodes": len(rows), "total": totals,
            "per_episode": {k: v / len(rows) for k, v in totals.items()}}
