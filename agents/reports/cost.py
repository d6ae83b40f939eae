"""What a run's model calls cost, from the tokens each episode's ``agent_stats`` records.

Prices are per 1,000 tokens, prompt (input) and completion (output) apart, in whatever currency
the caller uses (``--price-per-1k-tokens 0.15,0.6``); nothing here assumes dollars. Costs are
computed when a summary is written, so a resumed run is priced as a whole.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel

from shopsim.errors import ConfigError

__all__ = ["CostSummary", "TokenPrices", "cost_summary", "episode_cost", "parse_prices"]


class TokenPrices(BaseModel):
    """Prices per 1,000 prompt and completion tokens."""

    prompt: float
    completion: float


class CostSummary(BaseModel):
    """A run's cost: the total, the mean and the largest per episode (episodes with ``agent_stats``)."""

    price_per_1k_tokens: TokenPrices
    episodes: int
    total: float
    per_episode: float
    max_episode: float


def parse_prices(text: str) -> tuple[float, float]:
    """``"IN,OUT"`` (two non-negative numbers) -> ``(IN, OUT)``; anything else is one clear error."""
    parts = [p.strip() for p in str(text).split(",")]
    try:
        values = tuple(float(p) for p in parts)
    except ValueError:
        values = ()
    if len(values) != 2 or not all(math.isfinite(v) and v >= 0 for v in values):
        raise ConfigError(f"--price-per-1k-tokens {text!r}: expected IN,OUT (two non-negative numbers, the prices "
                          "of 1,000 prompt and 1,000 completion tokens), e.g. 0.15,0.6")
    return values[0], values[1]


def episode_cost(stats: Mapping[str, Any] | None, prices: TokenPrices | Sequence[float]) -> float | None:
    """One episode's cost from its ``agent_stats`` (None when it has none)."""
    if not isinstance(stats, Mapping):
        return None
    p = prices if isinstance(prices, TokenPrices) else TokenPrices(prompt=prices[0], completion=prices[1])
    return (int(stats.get("prompt_tokens") or 0) * p.prompt
            + int(stats.get("completion_tokens") or 0) * p.completion) / 1000.0


def cost_summary(records: Sequence[Mapping[str, Any]], prices: Sequence[float] | None) -> CostSummary | None:
    """The run's cost (None without prices or without any episode that spent tokens)."""
    if prices is None:
        return None
    p = TokenPrices(prompt=prices[0], completion=prices[1])
    costs = [c for r in records if (c := episode_cost(r.get("agent_stats"), p)) is not None]
    if not costs:
        return None
    return CostSummary(price_per_1k_tokens=p, episodes=len(costs), total=sum(costs),
                       per_episode=sum(costs) / len(costs), max_episode=max(costs))
