"""The agent protocol: ``reset()`` per episode, then ``act(observation, valid_actions, info)``."""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

__all__ = ["Agent", "PolicyFailure"]


@runtime_checkable
class Agent(Protocol):
    """Anything that turns an observation into ``search[...]`` or ``click[...]``."""

    name: str

    def reset(self, seed: int | None = None) -> None:
        """Forget the last episode (and reseed, for stochastic agents)."""
        ...

    def act(self, observation: str, valid_actions: dict[str, Any], info: dict[str, Any]) -> str:
        """Return the next action string."""
        ...


class PolicyFailure(Exception):
    """Raised by ``act`` when the policy cannot produce an action and the episode must end.

    ``code`` is the termination the runtime reports to the environment: ``generation_length`` (a
    model turn hit its token cap without one valid tool call) or ``action_limit`` (the episode's
    model turns ran out on protocol errors), which the shopsim-v8 profile scores as the zero vector.
    """

    def __init__(self, code: str, message: str = ""):
        super().__init__(message or code)
        self.code = code
