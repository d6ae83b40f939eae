"""A seeded random policy: a fixed query list for search pages, uniform clicks elsewhere."""

from __future__ import annotations

import random
from typing import Any

__all__ = ["RandomAgent"]


class RandomAgent:
    """Uniform over valid clicks (never the search button); searches a word of the instruction."""

    name = "random"

    def __init__(self, seed: int = 0):
        self.seed = seed
        self.rng = random.Random(seed)

    def reset(self, seed: int | None = None) -> None:
        """Reseed, so an episode's actions depend only on the seed."""
        self.rng = random.Random(self.seed if seed is None else seed)

    def act(self, observation: str, valid_actions: dict[str, Any], info: dict[str, Any]) -> str:
        """A random valid action."""
        clicks = [c for c in valid_actions.get("clickables", []) if c != "search"]
        if valid_actions.get("has_search_bar") and (not clicks or self.rng.random() < 0.5):
            words = (info.get("instruction") or "shoes").split()
            k = min(len(words), self.rng.randint(2, 6))
            start = self.rng.randint(0, len(words) - k)
            return f"search[{' '.join(words[start:start + k])}]"
        return f"click[{self.rng.choice(clicks)}]" if clicks else "click[back to search]"
