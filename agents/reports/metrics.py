"""Run metrics from episode records: WebShop's Table 2 columns with bootstrap intervals.

Input is what ``shopsim eval`` writes to ``episodes.jsonl`` (one dict per episode). Means are over
all episodes, unpurchased ones counting 0 (as in :func:`summarize`); a goal without
options or without a price limit counts its option / price term as met. Intervals are percentile
bootstrap intervals from a seeded generator, so the same records always give the same numbers.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
from pydantic import BaseModel, Field

from shopsim.agents.episode import EpisodeResult

__all__ = [
    "BOOTSTRAP_SEED",
    "FAILURES",
    "METRIC_KEYS",
    "RESAMPLES",
    "EpisodeRow",
    "Interval",
    "RunMetrics",
    "Summary",
    "asking_split",
    "bootstrap_interval",
    "compute_metrics",
    "episode_row",
    "failure_labels",
    "summarize",
]

RESAMPLES = 2000
BOOTSTRAP_SEED = 0
_SUCCESS_EPS = 1e-9

#: Summary keys with an interval, and the per-episode value each averages (score is x 100).
METRIC_KEYS: tuple[str, ...] = (
    "score", "success_rate", "r_strict", "r_success", "r_type", "r_att", "r_option", "r_price",
    "avg_steps", "unique_items", "searches_per_episode",
)
#: Failure components, in the order an episode's primary failure is chosen.
FAILURES: tuple[str, ...] = ("no purchase", "wrong type", "missed attributes", "missed options", "over price")


class Interval(BaseModel):
    """A 95% bootstrap interval (``low`` <= mean <= ``high`` for non-degenerate data)."""

    low: float
    high: float


class EpisodeRow(BaseModel):
    """One episode, flattened for tables: its reward, sub-scores and what went wrong."""

    goal_index: int
    reward: float
    success: bool
    purchased: bool
    r_strict: float
    r_success: float
    r_type: float
    r_att: float
    r_option: float
    r_price: float
    has_options: bool
    price_limited: bool
    steps: int
    truncated: bool
    unique_items: int
    searches: int
    purchased_asin: str | None = None
    target_asin_match: bool = False
    failures: list[str] = Field(default_factory=list)
    termination: str | None = None

    @property
    def primary_failure(self) -> str:
        """The first failed component in ``FAILURES`` order, or ``'success'``."""
        return self.failures[0] if self.failures else "success"


class Summary(BaseModel):
    """Aggregate metrics over episodes (means over all episodes; unpurchased count as 0).

    The head of :class:`RunMetrics`, which declares these fields by inheriting them: a summary is
    always a view of the run's metrics (:meth:`RunMetrics.summary`), never computed on its own.
    """

    episodes: int
    score: float
    success_rate: float
    r_success: float
    r_strict: float
    r_att: float
    r_option: float
    r_price: float
    r_type: float
    avg_steps: float


class RunMetrics(Summary):
    """WebShop's Table 2 columns, ShopSimulator's strict scores, intervals and failures."""

    unique_items: float
    searches_per_episode: float
    ci: dict[str, Interval]
    ci_level: float = 0.95
    bootstrap_resamples: int = RESAMPLES
    bootstrap_seed: int = BOOTSTRAP_SEED
    #: Episodes in which each component failed (an episode may count under several).
    failures: dict[str, int]
    #: Episodes by their first failed component (sums to ``episodes``; includes ``success``).
    primary_failures: dict[str, int]
    #: Episodes by how they ended (profiles that record it, e.g. shopsim-v8: purchase, action_limit, ...).
    terminations: dict[str, int] = Field(default_factory=dict)
    per_goal: list[EpisodeRow] = Field(default_factory=list, exclude=True)

    def headline(self) -> dict[str, Any]:
        """The JSON-able summary (``per_goal`` left out: it lives in ``episodes.jsonl``)."""
        return self.model_dump(exclude=None if self.terminations else {"terminations"})

    def summary(self) -> Summary:
        """The summary columns of these metrics."""
        return Summary(**{k: getattr(self, k) for k in Summary.model_fields})


def _num(value: Any, default: float) -> float:
    if value is None:
        return default
    return float(value)


def failure_labels(info: Mapping[str, Any] | None) -> list[str]:
    """Which components failed, in ``FAILURES`` order; empty for a perfect purchase."""
    if not info:
        return ["no purchase"]
    out = []
    if _num(info.get("r_type"), 0.0) < 1.0:
        out.append("wrong type")
    if _num(info.get("r_att"), 1.0) < 1.0:
        out.append("missed attributes")
    if info.get("r_option") is not None and float(info["r_option"]) < 1.0:
        out.append("missed options")
    r_price = info.get("r_price")
    if r_price is False or (isinstance(r_price, int | float) and not isinstance(r_price, bool) and r_price < 1):
        out.append("over price")
    return out


def episode_row(rec: Mapping[str, Any]) -> EpisodeRow:
    """Flatten one ``episodes.jsonl`` record (missing sub-scores: 0 when nothing was bought)."""
    info = rec.get("reward_info") or None
    reward = float(rec.get("reward") or 0.0)
    actions = rec.get("actions") or []
    searches = rec.get("searches")
    if searches is None:
        searches = sum(str(a).lower().startswith("search[") for a in actions)
    bought = info is not None
    return EpisodeRow(
        goal_index=int(rec["goal_index"]),
        reward=reward,
        success=reward >= 1.0 - _SUCCESS_EPS,
        purchased=bought,
        r_strict=_num(info.get("r_strict"), 0.0) if info is not None else 0.0,
        r_success=_num(info.get("r_success"), 0.0) if info is not None else 0.0,
        r_type=_num(info.get("r_type"), 0.0) if info is not None else 0.0,
        r_att=_num(info.get("r_att"), 0.0) if info is not None else 0.0,
        r_option=_num(info.get("r_option"), 1.0) if info is not None else 0.0,
        r_price=_num(info.get("r_price"), 1.0) if info is not None else 0.0,
        has_options=bool(info is not None and info.get("r_option") is not None),
        price_limited=bool(info is not None and info.get("price_limited", info.get("r_price") is not None)),
        steps=int(rec.get("steps") or 0),
        truncated=bool(rec.get("truncated")),
        unique_items=int(rec.get("unique_items") or 0),
        searches=int(searches),
        purchased_asin=info.get("purchased_asin") if info is not None else None,
        target_asin_match=bool(info is not None and info.get("target_asin_match")),
        failures=failure_labels(info),
        termination=rec.get("termination"),
    )


def bootstrap_interval(
    values: Sequence[float] | np.ndarray,
    *,
    resamples: int = RESAMPLES,
    seed: int = BOOTSTRAP_SEED,
    level: float = 0.95,
) -> Interval:
    """Percentile bootstrap interval of the mean (seeded; resampled in chunks to bound memory)."""
    return _intervals(np.asarray([values], dtype=float), resamples=resamples, seed=seed, level=level)[0]


def _intervals(matrix: np.ndarray, *, resamples: int, seed: int, level: float) -> list[Interval]:
    """One interval per row of ``matrix``; every row uses the same resampled episode indices."""
    k, n = matrix.shape
    if n == 0:
        return [Interval(low=0.0, high=0.0) for _ in range(k)]
    if n == 1:
        return [Interval(low=float(v), high=float(v)) for v in matrix[:, 0]]
    rng = np.random.default_rng(seed)
    means = np.empty((k, resamples))
    chunk = max(1, min(resamples, 4_000_000 // n))
    for start in range(0, resamples, chunk):
        stop = min(resamples, start + chunk)
        idx = rng.integers(0, n, size=(stop - start, n))
        for row in range(k):
            means[row, start:stop] = matrix[row][idx].mean(axis=1)
    alpha = (1.0 - level) / 2
    lows = np.quantile(means, alpha, axis=1)
    highs = np.quantile(means, 1 - alpha, axis=1)
    return [Interval(low=float(lo), high=float(hi)) for lo, hi in zip(lows, highs, strict=True)]


def _columns(rows: Sequence[EpisodeRow]) -> dict[str, np.ndarray]:
    def col(f: Any) -> np.ndarray:
        return np.asarray([f(r) for r in rows], dtype=float)

    return {
        "score": 100.0 * col(lambda r: r.reward),
        "success_rate": col(lambda r: r.success),
        "r_strict": col(lambda r: r.r_strict),
        "r_success": col(lambda r: r.r_success),
        "r_type": col(lambda r: r.r_type),
        "r_att": col(lambda r: r.r_att),
        "r_option": col(lambda r: r.r_option),
        "r_price": col(lambda r: r.r_price),
        "avg_steps": col(lambda r: r.steps),
        "unique_items": col(lambda r: r.unique_items),
        "searches_per_episode": col(lambda r: r.searches),
    }


def compute_metrics(
    records: Iterable[Mapping[str, Any]],
    *,
    resamples: int = RESAMPLES,
    seed: int = BOOTSTRAP_SEED,
    level: float = 0.95,
) -> RunMetrics:
    """All run metrics from episode records (ordered by goal index in ``per_goal``)."""
    rows = sorted((episode_row(r) for r in records), key=lambda r: r.goal_index)
    cols = _columns(rows)
    matrix = np.vstack([cols[k] for k in METRIC_KEYS]) if rows else np.zeros((len(METRIC_KEYS), 0))
    intervals = _intervals(matrix, resamples=resamples, seed=seed, level=level)
    means = {k: float(cols[k].mean()) if rows else 0.0 for k in METRIC_KEYS}
    failures = Counter(f for r in rows for f in r.failures)
    primary = Counter(r.primary_failure for r in rows)
    return RunMetrics(
        episodes=len(rows),
        **means,
        ci=dict(zip(METRIC_KEYS, intervals, strict=True)),
        ci_level=level,
        bootstrap_resamples=resamples,
        bootstrap_seed=seed,
        failures={f: failures.get(f, 0) for f in FAILURES},
        primary_failures={f: primary.get(f, 0) for f in ("success", *FAILURES)},
        terminations=dict(sorted(Counter(r.termination for r in rows if r.termination).items())),
        per_goal=rows,
    )


def summarize(results: list[EpisodeResult]) -> Summary:
    """WebShop's Table 2 columns plus ShopSimulator's scores (see :func:`compute_metrics` for intervals)."""
    return compute_metrics([r.model_dump() for r in results]).summary()


def asking_split(records: list[dict[str, Any]]) -> dict[str, dict[str, float]] | None:
    """Episodes with at least one ``ask`` against those with none: count and mean reward each.

    None when no record counts asks (a run with no multi-turn episodes).
    """
    rows = [r for r in records if isinstance(r.get("asks"), int)]
    if not rows:
        return None
    out: dict[str, dict[str, float]] = {}
    for name, part in (("with_asking", [r for r in rows if r["asks"] > 0]),
                       ("without_asking", [r for r in rows if r["asks"] == 0])):
        n = len(part)
        out[name] = {"episodes": n, "mean_reward": sum(float(r["reward"]) for r in part) / n if n else 0.0}
    return out
