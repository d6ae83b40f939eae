"""One episode of an agent in an environment, and the agent's running counters around it."""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from shopsim.adapters.env import ShopEnv
from shopsim.agents.base import Agent, PolicyFailure

__all__ = [
    "AgentFailure",
    "EpisodeResult",
    "Step",
    "StepHook",
    "agent_counts",
    "agent_failure_counts",
    "counts_since",
    "describe_value",
    "run_episode",
    "sum_counts",
]


class AgentFailure(Exception):
    """The agent, not the shop, ended an episode: it raised, exited, returned something that is not an
    action string, or (``shopsim eval --agent-timeout``) ran out of time. The episode is recorded with
    reward 0 and ``agent_failure`` (``kind``, ``reason``) and the run goes on to the next goal.
    """

    def __init__(self, kind: str, reason: str):
        super().__init__(reason)
        self.kind, self.reason = kind, reason

    def record(self) -> dict[str, str]:
        """What an episode record keeps: ``{"kind": ..., "reason": ...}``."""
        return {"kind": self.kind, "reason": self.reason}


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
    #: Model turns the episode used (v8: the runner's limit counts these, not environment actions).
    turns: int | None = None
    dialogue: list[dict[str, Any]] | None = None
    """A multi-turn v8 episode's questions to the shopper and its answers (None elsewhere)."""
    agent_failure: dict[str, str] | None = None
    """How the agent failed the episode (:class:`AgentFailure`), None when it played it out."""


@dataclass(frozen=True)
class Step:
    """One step as the step hook sees it: what the agent saw, what it did, and what came back.

    ``action`` is None when the runtime ended the episode instead (v8: ``generation_length``, or
    ``action_limit`` after the last turn); ``spent`` is the agent's counters for this step (model
    turns, protocol errors, repairs), None for agents that keep none.
    """

    goal_index: int
    index: int  # 0 for the episode's first action
    observation: Any
    info: dict[str, Any]
    action: str | None
    next_observation: Any
    reward: float
    terminated: bool
    truncated: bool
    next_info: dict[str, Any]
    spent: dict[str, int] | None = None


StepHook = Callable[[Step], None]
"""Called after each step: how evaluate writes its traces and tests record their pages."""


def run_episode(env: ShopEnv, agent: Agent, goal_index: int, seed: int = 0, max_steps: int = 15,
                on_step: StepHook | None = None) -> EpisodeResult:
    """Play one goal until purchase, truncation or ``max_steps`` actions; ``on_step`` sees every step.

    The one episode loop: ``shopsim eval``'s workers and the tests run theirs through it too. Under a
    profile with its own episode rules (v8) it is the seed's runtime: the limit counts model turns
    (the agent's ``turns`` counter; one per action for agents without one), the agent sees how many
    are left as ``info["turns_left"]``, and when they run out, or the policy fails, the episode ends
    through the environment's terminate interface (``action_limit``, ``generation_length``).
    """
    failure: AgentFailure | None = None
    try:
        _guarded("reset", agent.reset, seed=seed + goal_index)
    except AgentFailure as failed:
        failure = failed
    obs, info = env.reset(seed=seed, options={"goal": goal_index})
    rules = env.profile.episode_rules
    limit = int(info.get("max_actions") or max_steps) if rules else None
    reward, done, truncated, steps, turns, actions = 0.0, False, False, 0, 0, []
    while failure is None and not done and steps < max_steps:
        seen = {**info, "turns_left": limit - turns} if limit is not None else info
        before = agent_counts(agent)
        try:
            action = _guarded("act", agent.act, obs, info["valid_actions"], seen)
        except PolicyFailure as policy:  # generation_length, or turns used up by protocol errors
            spent = counts_since(agent, before)
            turns += _turns(spent)
            obs, reward, truncated, info = _runtime_end(env, policy.code, Step(
                goal_index, steps, obs, seen, None, None, 0.0, True, False, {}, spent), on_step)
            done = True
            break
        except AgentFailure as failed:
            failure = failed
            break
        spent = counts_since(agent, before)
        turns += _turns(spent)
        actions.append(action)
        next_obs, reward, terminated, truncated, next_info = env.step(action)
        if on_step is not None:
            on_step(Step(goal_index, steps, obs, seen, action, next_obs, reward, terminated, truncated, next_info, spent))
        obs, info = next_obs, next_info
        steps += 1
        done = terminated or truncated
        if not done and limit is not None and turns >= limit:  # the last turn went by without a purchase
            obs, reward, truncated, info = _runtime_end(env, "action_limit", Step(
                goal_index, steps, obs, info, None, None, 0.0, True, False, {}, None), on_step)
            done = True
    return EpisodeResult(goal_index=goal_index, reward=reward, steps=steps, done=done, truncated=truncated,
                         reward_info=info.get("reward_info"), actions=actions, termination=info.get("termination"),
                         environment_version=info.get("environment_version"), turns=turns if rules else None,
                         dialogue=info.get("dialogue"), agent_failure=failure.record() if failure else None)


def _guarded(name: str, call: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """``agent.reset(seed=...)`` or ``agent.act(...)`` (``name`` says which: a decorated method may carry
    any ``__name__``), with whatever the agent's own code does wrong as an :class:`AgentFailure`: an
    exception, ``sys.exit``, or (``act``) a result that is not a string, which would otherwise break
    the env, the episode record or ``json.dumps`` far from its cause.
    """
    try:
        out = call(*args, **kwargs)
    except (PolicyFailure, AgentFailure):
        raise
    except SystemExit as stop:  # the agent's sys.exit() ends its episode, never the run (nor with exit 0)
        raise AgentFailure("exit", f"the agent called sys.exit({stop.code!r}) in {name}()") from None
    except Exception as exc:
        raise AgentFailure("error", f"the agent's {name}() raised {type(exc).__name__}: "
                                    f"{_one_line(str(exc))}") from None
    if name == "act" and not isinstance(out, str):
        raise AgentFailure("bad_action", f"the agent's act() returned {describe_value(out)}, not an action string")
    return out


def _one_line(text: str, limit: int = 300) -> str:
    """``text`` on one line, cut to ``limit`` characters (a reason goes into a summary and a table)."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def describe_value(value: Any) -> str:
    """A short, safe description of what an agent handed back: its type and a clipped repr."""
    try:
        shown = repr(value)
    except Exception:  # a hostile __repr__ must not fail the report of the failure
        shown = "?"
    return f"{type(value).__name__} {_one_line(shown, 60)}"


def _turns(spent: dict[str, int] | None) -> int:
    """Model turns one ``act`` used: the agent's own count, else one (an agent that keeps none)."""
    return spent["turns"] if spent is not None and "turns" in spent else 1


def _runtime_end(env: ShopEnv, reason: str, step: Step,
                 on_step: StepHook | None) -> tuple[Any, float, bool, dict[str, Any]]:
    """End the episode through the environment's terminate interface; the hook sees it as an
    action-less step (``step`` filled in with what came back). Returns ``(obs, reward, truncated, info)``.
    """
    obs, reward, _, truncated, info = env.terminate(reason)
    if on_step is not None:
        on_step(dataclasses.replace(step, next_observation=obs, reward=reward, truncated=truncated, next_info=info))
    return obs, reward, truncated, info


def agent_counts(agent: Agent) -> dict[str, int] | None:
    """An agent's running counters (the LLM agent's tokens, protocol errors, repairs, fallbacks,
    retries), from a dataclass in ``agent.stats``; None for agents that keep none.
    """
    try:
        stats = getattr(agent, "stats", None)
    except Exception:  # a user agent's broken property: no counters, not the run's end
        return None
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


def agent_failure_counts(failures: Iterable[Any]) -> dict[str, Any] | None:
    """Episodes the agent failed, in all and by kind, from the episodes' ``agent_failure`` (None when none did)."""
    kinds = Counter(str(f.get("kind")) for f in failures if isinstance(f, dict))
    if not kinds:
        return None
    return {"episodes": sum(kinds.values()), "by_kind": dict(sorted(kinds.items()))}
