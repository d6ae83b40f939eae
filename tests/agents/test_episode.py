"""The one episode loop: its step hook sees every step, in order, as the episode result reports it."""

from __future__ import annotations

from itertools import pairwise

from shopsim.adapters.env import ShopEnv
from shopsim.agents.episode import Step, run_episode
from shopsim.agents.rule import RuleAgent
from shopsim.simsite.shop import Shop


def test_step_hook_sees_every_step(bundled_shop: Shop) -> None:
    steps: list[Step] = []
    result = run_episode(ShopEnv(bundled_shop), RuleAgent(), 3, on_step=steps.append)
    assert result.done and result.steps > 2
    assert [s.action for s in steps] == result.actions
    assert [s.index for s in steps] == list(range(result.steps))
    assert {s.goal_index for s in steps} == {3}
    for before, after in pairwise(steps):
        assert after.observation == before.next_observation and after.info is before.next_info
        assert not (before.terminated or before.truncated)
    last = steps[-1]
    assert last.terminated and last.reward == result.reward
    assert last.next_info["reward_info"] == result.reward_info


def test_max_steps_stops_the_loop_and_the_hook(bundled_shop: Shop) -> None:
    steps: list[Step] = []
    result = run_episode(ShopEnv(bundled_shop), RuleAgent(), 3, max_steps=2, on_step=steps.append)
    assert (result.steps, result.done, len(steps)) == (2, False, 2)
    assert [s.action for s in steps] == result.actions
