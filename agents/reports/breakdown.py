"""Scores broken down by kind of goal: which goals does an agent fail on?

Every episode record carries ``goal_groups``, the goal's group on each axis, read from the goal
itself (``simsite.models.Goal``, or a shopsim-v8 task) before the run, so the breakdown needs
no shop afterwards and a researcher can regroup ``episodes.jsonl`` alone. The axes:

- ``category``: the target product's category (WebShop's five: beauty, electronics, fashion,
  garden, grocery; else the top of the product's category path; ``unknown`` when it has none);
- ``options``: how many option values (color, size, ...) the goal asks for: ``no options``,
  ``1 option``, ``2+ options``;
- ``price``: ``price limit`` when the instruction sets one, else ``no price limit``;
- ``source`` (WebShop): ``human`` for WebShop's human-written instructions (their goal options are
  the annotators' list of phrases), ``synthetic`` for goals generated from a product (a mapping of
  option axis to value);
- ``task mode`` (shopsim-v8, instead of source): ``standard`` or ``persona``.

Each group gets its episode count, score and success rate with seeded bootstrap intervals.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel

from shopsim.agents.reports.metrics import Interval, bootstrap_interval, episode_row

__all__ = ["AXES", "AXIS_HELP", "GroupStats", "breakdown", "goal_groups"]

#: Axes in display order (a run has ``source`` or ``task mode``, by profile).
AXES: tuple[str, ...] = ("category", "options", "price", "source", "task mode")
AXIS_HELP = {
    "category": "the target product's category",
    "options": "how many option values (color, size, ...) the goal asks for",
    "price": "whether the instruction sets a price limit",
    "source": "human-written instruction (WebShop's human goals) or generated from a product (synthetic)",
    "task mode": "shopsim-v8: the full goal (standard) or a short request plus a customer profile (persona)",
}
_NO_LIMIT = 1_000_000.0


class GroupStats(BaseModel):
    """One group's episodes, mean score (100 x reward) and success rate, with 95% intervals."""

    episodes: int
    score: float
    score_ci: Interval
    success_rate: float
    success_ci: Interval
    avg_steps: float


def _options_group(n: int) -> str:
    return "no options" if n == 0 else "1 option" if n == 1 else "2+ options"


def goal_groups(goal: Any, product: Any = None, task_mode: str | None = None) -> dict[str, str]:
    """The groups of one goal: a WebShop ``Goal``, or a shopsim-v8 task (with its product)."""
    if hasattr(goal, "task_id"):  # a shopsim-v8 task
        path = list(getattr(product, "category", None) or [])
        price = goal.price_upper
        return {"category": str(path[0]).strip().lower() if path else "unknown",
                "options": _options_group(len(goal.option_values)),
                "price": "price limit" if price is not None and price < _NO_LIMIT else "no price limit",
                "task mode": task_mode or goal.task_mode}
    crumbs = [c.strip() for c in str(goal.product_category or "").split("›") if c.strip()]
    category = str(goal.category or "").strip().lower() or (crumbs[0].lower() if crumbs else "unknown")
    return {"category": category,
            "options": _options_group(len(goal.option_values)),
            "price": "price limit" if goal.price_upper < _NO_LIMIT else "no price limit",
            "source": "human" if isinstance(goal.goal_options, list) else "synthetic"}


def breakdown(records: Sequence[Mapping[str, Any]], *, seed: int = 0) -> dict[str, dict[str, GroupStats]]:
    """``{axis: {group: stats}}`` over the records that carry ``goal_groups`` (groups by name)."""
    by_axis: dict[str, dict[str, list[Any]]] = {}
    for rec in records:
        groups = rec.get("goal_groups")
        if not isinstance(groups, Mapping):
            continue
        row = episode_row(rec)
        for axis, group in groups.items():
            by_axis.setdefault(str(axis), {}).setdefault(str(group), []).append(row)
    out: dict[str, dict[str, GroupStats]] = {}
    for axis in sorted(by_axis, key=lambda a: (AXES.index(a) if a in AXES else len(AXES), a)):
        out[axis] = {}
        for group in sorted(by_axis[axis]):
            rows = by_axis[axis][group]
            scores = [100.0 * r.reward for r in rows]
            wins = [float(r.success) for r in rows]
            out[axis][group] = GroupStats(
                episodes=len(rows), score=sum(scores) / len(rows),
                score_ci=bootstrap_interval(scores, seed=seed), success_rate=sum(wins) / len(rows),
                success_ci=bootstrap_interval(wins, seed=seed), avg_steps=sum(r.steps for r in rows) / len(rows))
    return out
