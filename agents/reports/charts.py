"""Bar charts as inline SVG for ``report.html`` (no CDN, no scripts, no plotting library).

Every label is escaped through ``html.escape``, so text from a run cannot become markup.
"""

from __future__ import annotations

import html
import math
from collections import Counter
from collections.abc import Sequence

from markupsafe import Markup

from shopsim.agents.reports.metrics import FAILURES, RunMetrics

__all__ = ["bar_chart", "failure_chart", "reward_histogram", "steps_chart", "subscore_chart"]


def _nice_top(peak: float) -> float:
    """An axis top for counts: 4 round, whole-number gridline steps at or above ``peak``."""
    if peak <= 4:
        return 4.0
    scale = 10.0 ** max(0, math.floor(math.log10(peak / 4)))
    return 4 * scale * next(m for m in (1, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10) if 4 * scale * m >= peak
                            and float(scale * m).is_integer())


def bar_chart(
    labels: Sequence[str],
    values: Sequence[float],
    *,
    title: str,
    ymax: float | None = None,
    intervals: Sequence[tuple[float, float] | None] | None = None,
    colors: Sequence[str] | None = None,
    value_fmt: str = "{:.0f}",
    width: int = 520,
    height: int = 240,
) -> Markup:
    """A vertical bar chart as inline SVG, with optional interval whiskers; labels are escaped."""
    esc = html.escape
    left, right, top, bottom = 44, 10, 26, 46
    plot_w, plot_h = width - left - right, height - top - bottom
    highs = [iv[1] for iv in intervals or [] if iv is not None]
    peak = max([*values, *highs], default=0.0)
    top_value = ymax if ymax is not None else _nice_top(peak * 1.05)
    n = max(1, len(values))
    slot = plot_w / n
    bar_w = max(2.0, slot * 0.7)

    def y(v: float) -> float:
        return top + plot_h - plot_h * max(0.0, min(v, top_value)) / top_value

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
             f'viewBox="0 0 {width} {height}" role="img" aria-label="{esc(title)}">',
             f'<title>{esc(title)}</title>',
             f'<text x="{width / 2:.1f}" y="16" text-anchor="middle" class="t">{esc(title)}</text>']
    for i in range(5):
        v = top_value * i / 4
        parts.append(f'<line x1="{left}" x2="{width - right}" y1="{y(v):.1f}" y2="{y(v):.1f}" class="g"/>')
        tick = f"{v:.2f}" if top_value <= 2 else f"{v:g}"
        parts.append(f'<text x="{left - 4}" y="{y(v) + 4:.1f}" text-anchor="end" class="a">{tick}</text>')
    for i, (label, v) in enumerate(zip(labels, values, strict=True)):
        x = left + slot * i + (slot - bar_w) / 2
        color = colors[i] if colors else "#4c78a8"
        parts.append(f'<rect x="{x:.1f}" y="{y(v):.1f}" width="{bar_w:.1f}" height="{y(0) - y(v):.1f}" '
                     f'fill="{esc(color)}"><title>{esc(label)}: {esc(value_fmt.format(v))}</title></rect>')
        cx = x + bar_w / 2
        iv = intervals[i] if intervals else None
        if iv is not None:
            lo, hi = iv
            parts.append(f'<path d="M{cx:.1f},{y(lo):.1f}V{y(hi):.1f}M{cx - 5:.1f},{y(lo):.1f}h10'
                         f'M{cx - 5:.1f},{y(hi):.1f}h10" class="w"/>')
        label_y = (y(iv[1]) if iv is not None else y(v)) - 3
        if n <= 16:
            parts.append(f'<text x="{cx:.1f}" y="{max(top - 2, label_y):.1f}" text-anchor="middle" class="v">'
                         f'{esc(value_fmt.format(v))}</text>')
        if n <= 16 or i % max(1, n // 12) == 0:
            parts.append(f'<text x="{cx:.1f}" y="{height - bottom + 14}" text-anchor="middle" class="a">'
                         f'{esc(label)}</text>')
    parts.append(f'<line x1="{left}" x2="{width - right}" y1="{y(0):.1f}" y2="{y(0):.1f}" class="x"/>')
    parts.append("</svg>")
    return Markup("".join(parts))


def reward_histogram(m: RunMetrics) -> Markup:
    """Ten bins over [0, 1), plus reward exactly 1 on its own (success)."""
    counts = [0] * 11
    for r in m.per_goal:
        counts[10 if r.success else min(9, max(0, int(r.reward * 10)))] += 1
    labels = [f".{i}" if i else "0" for i in range(10)] + ["=1"]
    colors = ["#4c78a8"] * 10 + ["#54a24b"]
    return bar_chart(labels, counts, title="Reward histogram (episodes; bins start at the label)", colors=colors)


def subscore_chart(m: RunMetrics) -> Markup:
    """Success rates, r_strict and the four sub-scores with their 95% intervals, as an SVG bar chart."""
    keys = ["success_rate", "r_success", "r_strict", "r_type", "r_att", "r_option", "r_price"]
    labels = ["success", "r_success", "r_strict", "type", "attribute", "option", "price"]
    vals = [getattr(m, k) for k in keys]
    ivs = [(m.ci[k].low, m.ci[k].high) for k in keys]
    return bar_chart(labels, vals, intervals=ivs, ymax=1.0, value_fmt="{:.2f}",
                     title="Sub-scores (mean, 95% bootstrap interval)")


#: The most bars the steps chart draws (an episode of a million steps would otherwise draw a million).
MAX_BARS = 40


def steps_chart(m: RunMetrics) -> Markup:
    """The distribution of episode lengths as an SVG chart."""
    counts = Counter(r.steps for r in m.per_goal)
    hi = max(counts, default=0)
    if hi < MAX_BARS:  # one bar per length
        labels = [str(s) for s in range(hi + 1)]
        return bar_chart(labels, [counts.get(s, 0) for s in range(hi + 1)], title="Steps per episode (episodes)")
    width = -(-(hi + 1) // MAX_BARS)  # long episodes: lengths in MAX_BARS bins, not a bar per length
    binned = Counter(s // width for s in counts.elements())
    labels = [f"{b * width}–{b * width + width - 1}" for b in range(MAX_BARS)]
    return bar_chart(labels, [binned.get(b, 0) for b in range(MAX_BARS)], title="Steps per episode (episodes)")


def failure_chart(m: RunMetrics) -> Markup:
    """The failure breakdown as an SVG bar chart."""
    keys = ["success", *FAILURES]
    colors = ["#54a24b", "#9d9d9d", "#e45756", "#f58518", "#eeca3b", "#b279a2"]
    return bar_chart(keys, [m.primary_failures.get(k, 0) for k in keys], colors=colors, width=620,
                     title="Episodes by first failed component")
