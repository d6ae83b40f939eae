"""``check-goals`` for the shopsim-v8 profile: the best ``r_strict`` reachable from a task's own query.

The oracle sees the private target: it searches the request the agent is shown (the simple one in
persona mode), looks through the first result pages, and for each product tries every value of its
price-changing axis with, on every other axis, a wanted value when there is one. Option hits are
counted per chosen value and only the price axis moves the price, so this covers every choice
that could score better.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from shopsim.agents.reachability import GoalReach, ReachReport
from shopsim.simsite.v8.records import V8Product, V8Task
from shopsim.simsite.v8.reward import norm, score_v8_purchase
from shopsim.simsite.v8.search import PAGE_SIZE, RESULTS_N
from shopsim.simsite.v8.shop import V8Shop

__all__ = ["candidate_choices", "check_v8_goal", "check_v8_goals"]

_EPS = 1e-9


def candidate_choices(product: V8Product, task: V8Task) -> list[dict[str, str]]:
    """Option selections worth scoring: wanted values where offered, each price-axis value in turn."""
    wanted = {norm(v) for v in task.option_values}
    base: dict[str, str] = {}
    for axis, opts in product.options.items():
        hit = next((o.value for o in opts if norm(o.value) in wanted), None)
        base[axis] = hit if hit is not None else opts[0].value
    axes = product.price_axes
    if len(axes) != 1:
        return [base]
    return [{**base, axes[0]: o.value} for o in product.options[axes[0]]]


def check_v8_goal(shop: V8Shop, index: int, *, pages: int = 5) -> GoalReach:
    """The ceiling of task number ``index`` over ``pages`` result pages of its shown request."""
    task = shop.goal(index)
    query = task.instruction_for(task.task_mode)
    hits = [a for a, _ in shop.search_engine.search(query, RESULTS_N) if a in shop.products][: pages * PAGE_SIZE]
    gold = shop.product(task.asin)
    best: tuple[float, float, str | None, int | None, dict[str, str]] = (0.0, 0.0, None, None, {})
    target_reward = None
    for rank, asin in enumerate(hits, 1):
        product = shop.products[asin]
        for choice in candidate_choices(product, task):
            d = score_v8_purchase(product, choice, task, gold, shop.terms)
            if asin == task.asin:
                target_reward = max(target_reward or 0.0, d.r_strict)
            if best[2] is None or d.r_strict > best[0] + _EPS:
                best = (d.r_strict, d.r_success, asin, rank, choice)
    target_rank = hits.index(task.asin) + 1 if task.asin in hits else None
    return GoalReach(goal_index=index, instruction=query, target_asin=task.asin, results=len(hits),
                     target_in_results=target_rank is not None, target_rank=target_rank, best_reward=best[0],
                     best_r_success=best[1], best_asin=best[2], best_rank=best[3], best_options=best[4],
                     target_reward=target_reward)


def check_v8_goals(shop: V8Shop, goals: Sequence[int], *, pages: int = 5) -> ReachReport:
    """Ceilings of ``goals`` and their means, in the same report shape as WebShop's."""
    t0 = time.perf_counter()
    rows = [check_v8_goal(shop, g, pages=pages) for g in goals]
    n = len(rows) or 1
    return ReachReport(
        goals=len(rows), ceiling_score=100 * sum(r.best_reward for r in rows) / n,
        reachable_rate=sum(r.reachable for r in rows) / n,
        strict_reachable_rate=sum(r.best_r_success >= 1.0 for r in rows) / n,
        target_in_results_rate=sum(r.target_in_results for r in rows) / n,
        target_reachable_rate=sum(r.target_reward is not None and r.target_reward >= 1 - _EPS for r in rows) / n,
        results_per_goal=sum(r.results for r in rows) / n, pages=pages, noun_source=shop.terms.source,
        seconds=time.perf_counter() - t0, per_goal=rows,
    )
