"""WebShop's example policies: ``forward(observation, available_actions) -> action``.

``RandomPolicy`` draws from its own ``Random(4)`` (WebShop seeds the global ``random`` with 4 at
import, which would reseed the caller's draws too).
"""

from __future__ import annotations

import random
from typing import Any

__all__ = ["BasePolicy", "HumanPolicy", "RandomPolicy"]


class BasePolicy:
    """A policy maps a page and its available actions to ``search[...]`` or ``click[...]``."""

    def forward(self, observation: Any, available_actions: dict[str, Any]) -> str:
        """The next action."""
        raise NotImplementedError


class HumanPolicy(BasePolicy):
    """Reads each action from standard input (``> ``)."""

    def forward(self, observation: Any, available_actions: dict[str, Any]) -> str:
        """The line typed at the prompt."""
        return input("> ")


class RandomPolicy(BasePolicy):
    """``search[shoes]`` where there is a search bar, else a click on a random clickable."""

    def __init__(self, seed: int = 4):
        self.rng = random.Random(seed)

    def forward(self, observation: Any, available_actions: dict[str, Any]) -> str:
        """The random action."""
        if available_actions["has_search_bar"]:
            return "search[shoes]"
        return f"click[{self.rng.choice(available_actions['clickables'])}]"
