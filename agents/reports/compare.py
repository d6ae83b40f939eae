"""Compare two evaluation runs: headline numbers side by side and a paired per-goal difference.

Pairing by goal removes the goal-difficulty variance that dominates unpaired comparisons, so a
small mean difference can still be told from noise; the interval resamples goals (seeded).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from pydantic import BaseModel

from shopsim.agents.reports.metrics import (
    METRIC_KEYS,
    RESAMPLES,
    Interval,
    RunMetrics,
    bootstrap_interval,
    compute_metrics,
)
from shopsim.agents.reports.report import load_run
from shopsim.errors import ConfigError

__all__ = ["GoalDiff", "PairedDiff", "RunComparison", "RunSide", "compare_runs", "format_comparison"]

_TIE_EPS = 1e-9


class RunSide(BaseModel):
    """One run's identity and headline metrics (``RunMetrics`` without the per-goal rows)."""

    path: str
    agent: str | None = None
    adapter: str | None = None
    metrics: RunMetrics


class GoalDiff(BaseModel):
    """Reward of B minus reward of A on one goal."""

    goal_index: int
    reward_a: float
    reward_b: float
    diff: float


class PairedDiff(BaseModel):
    """B - A over the goals both runs finished, in score units (100 x reward)."""

    goals: int
    mean_diff: float
    ci: Interval
    wins: int
    losses: int
    ties: int
    success_diff: float
    success_ci: Interval


class RunComparison(BaseModel):
    """``shopsim compare``'s result (``--json`` prints it)."""

    a: RunSide
    b: RunSide
    paired: PairedDiff
    only_in_a: list[int]
    only_in_b: list[int]
    per_goal: list[GoalDiff]


def _side(path: Path) -> tuple[RunSide, dict[int, float]]:
    if not (path / "episodes.jsonl").exists():
        raise ConfigError(f"{path}: not a run folder (no episodes.jsonl); run `shopsim eval --out {path}` first")
    config, summary, records = load_run(path)
    rewards = {int(r["goal_index"]): float(r.get("reward") or 0.0) for r in records}
    side = RunSide(path=str(path), agent=config.get("agent") or summary.get("agent"),
                   adapter=config.get("adapter") or summary.get("adapter"), metrics=compute_metrics(records))
    return side, rewards


def compare_runs(run_a: str | Path, run_b: str | Path, *, resamples: int = RESAMPLES, seed: int = 0) -> RunComparison:
    """Both runs' metrics and the paired difference B - A on their common goals."""
    a, ra = _side(Path(run_a))
    b, rb = _side(Path(run_b))
    common = sorted(set(ra) & set(rb))
    diffs = np.asarray([rb[g] - ra[g] for g in common], dtype=float)
    succ = np.asarray([float(rb[g] >= 1 - _TIE_EPS) - float(ra[g] >= 1 - _TIE_EPS) for g in common], dtype=float)
    ci = bootstrap_interval(100 * diffs, resamples=resamples, seed=seed)
    paired = PairedDiff(
        goals=len(common),
        mean_diff=float(100 * diffs.mean()) if len(common) else 0.0,
        ci=ci,
        wins=int((diffs > _TIE_EPS).sum()),
        losses=int((diffs < -_TIE_EPS).sum()),
        ties=int((np.abs(diffs) <= _TIE_EPS).sum()),
        success_diff=float(succ.mean()) if len(common) else 0.0,
        success_ci=bootstrap_interval(succ, resamples=resamples, seed=seed),
    )
    return RunComparison(
        a=a, b=b, paired=paired,
        only_in_a=sorted(set(ra) - set(rb)), only_in_b=sorted(set(rb) - set(ra)),
        per_goal=[GoalDiff(goal_index=g, reward_a=ra[g], reward_b=rb[g], diff=rb[g] - ra[g]) for g in common],
    )


def format_comparison(c: RunComparison) -> str:
    """The comparison as an aligned text table for the terminal."""
    rows = [("", "A", "B", "B - A")]
    rows.append(("run", c.a.path, c.b.path, ""))
    rows.append(("agent / adapter", f"{c.a.agent} / {c.a.adapter}", f"{c.b.agent} / {c.b.adapter}", ""))
    for key in ("episodes", *METRIC_KEYS):
        va, vb = getattr(c.a.metrics, key), getattr(c.b.metrics, key)
        if key == "episodes":
            rows.append((key, str(va), str(vb), ""))
            continue
        ia, ib = c.a.metrics.ci[key], c.b.metrics.ci[key]
        digits = 1 if key == "score" else 3
        rows.append((key, f"{va:.{digits}f} [{ia.low:.{digits}f}, {ia.high:.{digits}f}]",
                     f"{vb:.{digits}f} [{ib.low:.{digits}f}, {ib.high:.{digits}f}]", f"{vb - va:+.{digits}f}"))
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    lines = ["  " + "  ".join(cell.ljust(w) for cell, w in zip(r, widths, strict=True)).rstrip() for r in rows]
    p = c.paired
    lines.append("")
    lines.append(f"paired over {p.goals} common goals (B - A, score units): {p.mean_diff:+.2f} "
                 f"[95% CI {p.ci.low:+.2f}, {p.ci.high:+.2f}]")
    lines.append(f"success rate difference: {100 * p.success_diff:+.1f} pts "
                 f"[{100 * p.success_ci.low:+.1f}, {100 * p.success_ci.high:+.1f}]")
    lines.append(f"B better on {p.wins} goals, worse on {p.losses}, tied on {p.ties}")
    if c.only_in_a or c.only_in_b:
        lines.append(f"goals only in A: {len(c.only_in_a)}{_preview(c.only_in_a)}; "
                     f"only in B: {len(c.only_in_b)}{_preview(c.only_in_b)} (left out of the paired numbers)")
    return "\n".join(lines)


def _preview(goals: list[int], n: int = 8) -> str:
    if not goals:
        return ""
    more = ", ..." if len(goals) > n else ""
    return " (" + ", ".join(map(str, goals[:n])) + more + ")"
