"""The agent protocol: ``reset()`` per episode, then ``act(observation, valid_actions, info)``."""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

__all__ = ["Agent"]


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
