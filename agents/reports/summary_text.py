"""The terminal text of an evaluation summary: headline rows with intervals, breakdown, run line.

Intervals print as ``57.9 ± 3.1 (95% CI 54.8–61.0)``: the ± is half the interval's width (a
percentile bootstrap interval need not be symmetric, so the bounds follow).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["agent_failure_line", "breakdown_lines", "run_line", "summary_rows", "with_ci"]

_MAX_GROUPS = 12


def with_ci(value: float, ci: Mapping[str, float] | None, *, scale: float = 1.0, digits: int = 1,
            unit: str = "", bounds: bool = True) -> str:
    """``value ± half-width (95% CI low–high)`` (without ``bounds``: ``value ± half-width``)."""
    v = f"{scale * value:.{digits}f}{unit}"
    if not ci:
        return v
    lo, hi = scale * float(ci["low"]), scale * float(ci["high"])
    return f"{v} ± {(hi - lo) / 2:.{digits}f}" + (f" (95% CI {lo:.{digits}f}–{hi:.{digits}f}{unit})" if bounds else "")


def summary_rows(summary: Any, extra: Mapping[str, Any]) -> list[tuple[str, str]]:
    """The two-column table ``shopsim eval`` prints."""
    s, ci = summary, extra.get("ci") or {}
    rows = [("score (100 x mean reward)", with_ci(s.score, ci.get("score"))),
            ("success rate", with_ci(s.success_rate, ci.get("success_rate"), scale=100, unit="%")),
            ("r_strict / r_success", f"{with_ci(s.r_strict, ci.get('r_strict'), digits=3)} / "
                                     f"{s.r_success:.3f}"),
            ("attribute / option / price / type", f"{s.r_att:.3f} / {s.r_option:.3f} / {s.r_price:.3f} / {s.r_type:.3f}"),
            ("average steps", with_ci(s.avg_steps, ci.get("avg_steps"), digits=2)),
            ("unique items / searches per episode", f"{extra['unique_items']:.2f} / {extra['searches_per_episode']:.2f}"),
            ("wall time", f"{extra['seconds']:.1f} s")]
    if extra.get("turns"):  # v8: the runner's limit counts model turns, not actions
        rows.append(("model turns per episode / ended by", f"{extra['turns']['per_episode']:.2f} / " + ", ".join(
            f"{k} {v}" for k, v in (extra.get("terminations") or {}).items())))
    if extra.get("asking"):
        w, wo = extra["asking"]["with_asking"], extra["asking"]["without_asking"]
        rows.append(("mean reward with / without asking (episodes)",
                     f"{w['mean_reward']:.3f} ({w['episodes']}) / {wo['mean_reward']:.3f} ({wo['episodes']})"))
    if extra.get("bundles"):
        used = [f"{b['path']} ({len(b['goals'])})" for b in extra["bundles"]]
        rows.append(("bundles (episodes)", ", ".join(used[:3]) + (f", ... {len(used)} in all" if len(used) > 3 else "")))
    if extra.get("agent_stats"):
        t = extra["agent_stats"]["total"]
        rows.append(("model requests / tokens (prompt + completion)",
                     f"{t.get('requests', 0)} / {t.get('total_tokens', 0)} ({t.get('prompt_tokens', 0)} + "
                     f"{t.get('completion_tokens', 0)})"))
        rows.append(("protocol errors / repairs / fallbacks / retries",
                     f"{t.get('protocol_errors', 0)} / {t.get('repairs', 0)} / {t.get('fallbacks', 0)} / {t.get('retries', 0)}"))
    if extra.get("cost"):
        c, p = extra["cost"], extra["cost"]["price_per_1k_tokens"]
        rows.append((f"cost (at {p['prompt']:g} / {p['completion']:g} per 1k tokens in / out)",
                     f"{c['total']:.4f} in total, {c['per_episode']:.4f} per episode (max {c['max_episode']:.4f})"))
    if "resume" in extra:
        r = extra["resume"]
        dropped = sum(r["episode_lines_dropped"].values()), sum(r["trace_lines_dropped"].values())
        rows.append(("resumed: done before / rerun", f"{r['episodes_done']} / {r['episodes_rerun']} "
                     f"(dropped {dropped[0]} episode + {dropped[1]} trace lines; details in summary.json)"))
    return rows


def breakdown_lines(breakdown: Mapping[str, Mapping[str, Mapping[str, Any]]]) -> list[str]:
    """The breakdown by kind of goal as aligned lines (at most 12 groups an axis; the rest in summary.json)."""
    table: list[tuple[str, str, str, str, str]] = []
    for axis, groups in breakdown.items():
        if len(groups) < 2 and axis != "category":
            continue  # one group only: the headline already says it
        ranked = sorted(groups.items(), key=lambda kv: (-kv[1]["episodes"], kv[0]))
        for i, (name, g) in enumerate(ranked[:_MAX_GROUPS]):
            table.append((axis if i == 0 else "", name, with_ci(g["score"], g.get("score_ci"), bounds=False),
                          f"{100 * g['success_rate']:.1f}%", str(g["episodes"])))
        if len(ranked) > _MAX_GROUPS:
            table.append(("", f"... {len(ranked) - _MAX_GROUPS} more groups in summary.json", "", "", ""))
    if not table:
        return []
    head = ("", "group", "score", "success", "episodes")
    widths = [max(len(r[i]) for r in [head, *table]) for i in range(5)]
    lines = ["  by kind of goal (score ± half the 95% CI):"]
    for r in [head, *table]:
        lines.append("    " + "  ".join(c.rjust(w) if i >= 2 else c.ljust(w)
                                       for i, (c, w) in enumerate(zip(r, widths, strict=True))).rstrip())
    return lines


def run_line(meta: Mapping[str, Any]) -> str:
    """One line of run metadata: date, version, commit, catalog fingerprint, seed, engine."""
    parts = [f"run {meta.get('date', '?')}", f"shopsim {meta.get('shopsim_version', '?')}"]
    git = meta.get("git")
    if git:
        parts.append(f"commit {str(git['commit'])[:12]}" + (" (uncommitted changes)" if git.get("dirty") else ""))
    catalog = meta.get("catalog") or {}
    if catalog.get("sha256"):
        parts.append(f"catalog sha256 {catalog['sha256'][:16]}")
    parts.append(f"seed {meta.get('seed', '?')}")
    parts.append(f"engine {meta.get('engine', '?')}")
    return "  " + " · ".join(parts)


def agent_failure_line(failed: Mapping[str, Any], where: str) -> str:
    """One line for the episodes the agent failed (``agent_failure_counts``); ``where`` holds the reasons."""
    kinds = ", ".join(f"{k} {v}" for k, v in failed["by_kind"].items())
    return f"agent failures: {failed['episodes']} episodes ({kinds}); each one's reason: {where}"
