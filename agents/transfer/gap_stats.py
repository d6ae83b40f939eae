"""The gap suite's statistics, in numpy: seeded bootstrap intervals of a score drop, and Spearman's rank correlation."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["drop_interval", "ranks", "spearman"]


def drop_interval(base: Sequence[float], other: Sequence[float], *, paired: bool, seed: int = 0,
                  resamples: int = 1000, level: float = 0.95) -> tuple[float, float, float]:
    """``mean(base) - mean(other)`` in points, and its percentile bootstrap interval.

    ``paired``: the same goals under two conditions (resampled together); else two samples (each
    resampled on its own: the sim's goals against the real-page tasks).
    """
    a, b = 100 * np.asarray(base, dtype=float), 100 * np.asarray(other, dtype=float)
    if a.size == 0 or b.size == 0:
        raise ValueError("a drop needs episodes on both sides")
    rng = np.random.default_rng(seed)
    if paired:
        if a.size != b.size:
            raise ValueError("a paired drop needs as many episodes on both sides")
        picks = rng.integers(0, a.size, size=(resamples, a.size))
        draws = a[picks].mean(axis=1) - b[picks].mean(axis=1)
    else:
        draws = (a[rng.integers(0, a.size, size=(resamples, a.size))].mean(axis=1)
                 - b[rng.integers(0, b.size, size=(resamples, b.size))].mean(axis=1))
    tail = 100 * (1 - level) / 2
    low, high = np.percentile(draws, [tail, 100 - tail])
    return float(a.mean() - b.mean()), float(low), float(high)


def ranks(values: Sequence[float]) -> np.ndarray:
    """1-based ranks, ties sharing their mean rank (as Spearman's coefficient needs)."""
    x = np.asarray(values, dtype=float)
    order = np.argsort(x, kind="stable")
    out = np.empty(x.size)
    out[order] = np.arange(1, x.size + 1)
    for value in np.unique(x):
        tied = x == value
        out[tied] = out[tied].mean()
    return out


def spearman(x: Sequence[float], y: Sequence[float]) -> float | None:
    """Spearman's rank correlation of ``x`` and ``y``; None with fewer than 3 pairs or a constant side."""
    if len(x) != len(y):
        raise ValueError("spearman needs two sequences of one length")
    if len(x) < 3:
        return None
    rx, ry = ranks(x), ranks(y)
    dx, dy = rx - rx.mean(), ry - ry.mean()
    denominator = float(np.sqrt((dx * dx).sum() * (dy * dy).sum()))
    return None if denominator == 0 else float((dx * dy).sum() / denominator)
