"""An agent in the four ShopSimulator scenarios, on the same tasks: what asking the shopper is worth.

Each scenario plays every task once through :func:`~shopsim.agents.episode.run_episode` in this
process, at the modes' action limits (a run's split of reward with and without asking is
:func:`~shopsim.agents.reports.metrics.asking_split`).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from shopsim.adapters.env import ShopEnv
from shopsim.agents.episode import run_episode
from shopsim.simsite.v8.shop import V8Shop
from shopsim.simsite.v8.shopper_tasks import SCENARIOS
from shopsim.v8.runtime import MAX_ACTIONS

__all__ = ["ScenarioScore", "run_scenarios"]


class ScenarioScore(BaseModel):
    """One scenario's numbers over the tasks (rewards are r_strict)."""

    scenario: str
    episodes: int
    mean_reward: float
    success_rate: float
    asks_per_episode: float
    mean_steps: float
    rewards: list[float]


def run_scenarios(shop: V8Shop, agent_name: str, task_ids: list[int], scenarios: list[str] | None = None, *,
                  seed: int = 0, agent_options: dict[str, Any] | None = None) -> list[ScenarioScore]:
    """Play ``agent_name`` on ``task_ids`` in each scenario (default: all four), at the modes' action limits."""
    from shopsim.agents.registry import make_agent

    out = []
    for name in scenarios or list(SCENARIOS):
        scenario = SCENARIOS[name]
        limit = MAX_ACTIONS[scenario.interaction_mode]
        env = ShopEnv(shop, max_steps=limit, task_mode=scenario.task_mode, interaction_mode=scenario.interaction_mode)
        agent = make_agent(agent_name, seed, {"max_steps": limit, **(agent_options or {})})
        results = [run_episode(env, agent, shop.index_of(t), seed=seed, max_steps=limit) for t in task_ids]
        n = max(1, len(results))
        rewards = [round(r.reward, 4) for r in results]
        out.append(ScenarioScore(
            scenario=name, episodes=len(results), mean_reward=sum(rewards) / n,
            success_rate=sum(bool(r.reward_info and r.reward_info.get("r_success") == 1.0) for r in results) / n,
            asks_per_episode=sum(sum(a.startswith("ask[") for a in r.actions) for r in results) / n,
            mean_steps=sum(r.steps for r in results) / n, rewards=rewards))
    return out
