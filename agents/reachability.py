"""Which goals can be solved at all from a search of their instruction (WebShop issue #43).

An oracle that sees the hidden goal searches the instruction text, looks through the results
(50 = 5 pages of 10), picks for every product the option values that best match the goal's
options, and scores each purchase with the shop's own reward. Its best reward is the goal's
ceiling: no agent that starts by searching the instruction can do better, so a low ceiling means
the goal (or the search engine) is at fault, not the agent.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from functools import lru_cache

from pydantic import BaseModel, Field

from shopsim.simsite.fuzzy import option_ratio
from shopsim.simsite.models import Goal, Product
from shopsim.simsite.reward import normalize_color, score_purchase
from shopsim.simsite.search import SEARCH_RETURN_N
from shopsim.simsite.shop import Shop

__all__ = ["GoalReach", "ReachReport", "best_options", "check_goal", "check_goals"]

_EPS = 1e-9
_MATCH = 85  # WebShop's fuzzy threshold for an option hit


class GoalReach(BaseModel):
    """One goal's ceiling: the best purchase reachable from the instruction's search results."""

    goal_index: int
    instruction: str
    target_asin: str
    results: int
    target_in_results: bool
    target_rank: int | None = None
    best_reward: float
    best_r_success: float
    best_asin: str | None = None
    best_rank: int | None = None
    best_options: dict[str, str] = Field(default_factory=dict)
    target_reward: float | None = None

    @property
    def reachable(self) -> bool:
        """Whether a reward-1 purchase is reachable."""
        return self.best_reward >= 1.0 - _EPS


class ReachReport(BaseModel):
    """Ceiling over a set of goals (``shopsim check-goals``)."""

    goals: int
    ceiling_score: float
    reachable_rate: float
    strict_reachable_rate: float
    target_in_results_rate: float
    target_reachable_rate: float
    results_per_goal: float
    pages: int
    noun_source: str
    seconds: float
    per_goal: list[GoalReach]


@lru_cache(maxsize=200_000)
def _value_score(value: str, wanted: tuple[str, ...]) -> tuple[int, int, int]:
    """How well one option value serves the goal: (is a hit, is exactly wanted, best ratio)."""
    norm = normalize_color(value)
    best = max((option_ratio(norm, g) for g in wanted), default=0)
    return int(best > _MATCH), int(value in wanted), best


def best_options(product: Product, goal: Goal) -> dict[str, str]:
    """Per option axis, the value that best matches the goal's option values.

    Option hits are counted per chosen value, independently per axis, so choosing the best value
    on every axis maximises the reward; ties keep the value listed first (deterministic).
    """
    wanted = tuple(goal.option_values)
    chosen: dict[str, str] = {}
    for axis, values in product.options.items():
        if not values:
            continue
        best = max(range(len(values)), key=lambda i: (*_value_score(values[i], wanted), -i))
        chosen[axis] = values[best]
    return chosen


def check_goal(shop: Shop, index: int, *, pages: int = 5, page_size: int = 10) -> GoalReach:
    """The ceiling of goal ``index``: search its instruction, try every result with the best options."""
    goal = shop.goal(index)
    query = goal.instruction_text.lower()
    k = min(SEARCH_RETURN_N, pages * page_size)
    asins = [a for a in shop.search_engine.search(query, SEARCH_RETURN_N) if a in shop.products][:k]
    best_reward, best_success, best_asin, best_rank, best_opts = 0.0, 0.0, None, None, {}
    target_reward = None
    for rank, asin in enumerate(asins, 1):
        product = shop.products[asin]
        opts = best_options(product, goal)
        b = score_purchase(product, goal, shop.prices[asin], opts, shop.nouns)
        if asin == goal.asin:
            target_reward = b.reward
        better = b.reward > best_reward + _EPS or (b.reward >= best_reward - _EPS and b.r_success > best_success)
        if better or best_asin is None:
            best_reward, best_success, best_asin, best_rank, best_opts = b.reward, b.r_success, asin, rank, opts
    target_rank = asins.index(goal.asin) + 1 if goal.asin in asins else None
    return GoalReach(
        goal_index=index, instruction=goal.instruction_text, target_asin=goal.asin, results=len(asins),
        target_in_results=target_rank is not None, target_rank=target_rank, best_reward=best_reward,
        best_r_success=best_success, best_asin=best_asin, best_rank=best_rank, best_options=best_opts,
        target_reward=target_reward,
    )


def check_goals(shop: Shop, goals: Sequence[int], *, pages: int = 5) -> ReachReport:
    """Ceilings for ``goals`` and their means (nouns are tagged once, in one batch)."""
    t0 = time.perf_counter()
    shop.prime_nouns()
    rows = [check_goal(shop, g, pages=pages) for g in goals]
    n = len(rows)

    def rate(flags: Sequence[bool]) -> float:
        return sum(flags) / n if n else 0.0

    return ReachReport(
        goals=n,
        ceiling_score=100 * sum(r.best_reward for r in rows) / n if n else 0.0,
        reachable_rate=rate([r.reachable for r in rows]),
        strict_reachable_rate=rate([r.best_r_success >= 1.0 for r in rows]),
        target_in_results_rate=rate([r.target_in_results for r in rows]),
        target_reachable_rate=rate([r.target_reward is not None and r.target_reward >= 1 - _EPS for r in rows]),
        results_per_goal=sum(r.results for r in rows) / n if n else 0.0,
        pages=pages,
        noun_source=shop.nouns.source,
        seconds=time.perf_counter() - t0,
        per_goal=rows,
    )
