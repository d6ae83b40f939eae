"""``report.html`` for a run folder: one self-contained page a person can read instead of JSON.

Tables, and plots drawn here as inline SVG (no CDN, no scripts, no plotting library), so the
file can be mailed, archived or opened from disk. Every string from the run is escaped (Jinja
autoescape; SVG labels through ``html.escape``). Episode links point at the trajectory viewer
(``/runs/<run>/episodes/<goal>`` under ``shopsim serve --runs``).
"""

from __future__ import annotations

import html
import json
import math
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from urllib.parse import quote

from jinja2 import Environment
from markupsafe import Markup

from shopsim.agents.metrics import FAILURES, RunMetrics, compute_metrics

__all__ = ["bar_chart", "load_run", "render_report", "write_report"]

_ROWS: tuple[tuple[str, str, str], ...] = (
    ("score", "score (100 × mean reward)", "num1"),
    ("success_rate", "success rate (reward = 1)", "pct"),
    ("r_strict", "r_strict (ShopSimulator)", "num3"),
    ("r_success", "r_success (ShopSimulator)", "pct"),
    ("r_type", "type sub-score", "num3"),
    ("r_att", "attribute sub-score", "num3"),
    ("r_option", "option sub-score", "num3"),
    ("r_price", "price sub-score", "num3"),
    ("avg_steps", "average steps", "num2"),
    ("unique_items", "unique items visited", "num2"),
    ("searches_per_episode", "searches per episode", "num2"),
)
_FAIL_HELP = {
    "success": "reward 1: right type, every attribute and option, within the price",
    "no purchase": "the episode ended (step limit) without buying",
    "wrong type": "bought something of another type (r_type < 1)",
    "missed attributes": "the product lacks a wanted attribute (r_att < 1)",
    "missed options": "a wanted option value was not chosen (r_option < 1)",
    "over price": "the price was above the goal's limit",
}

_TERM_HELP = {
    "purchase": "clicked buy now; scored with the profile's reward",
    "action_limit": "used every allowed action without buying (zero vector)",
    "generation_length": "a model turn hit its token cap without one valid tool call (zero vector)",
}


def _fmt(value: float | None, kind: str) -> str:
    if value is None:
        return "–"
    if kind == "pct":
        return f"{100 * value:.1f}%"
    digits = {"num1": 1, "num2": 2, "num3": 3}.get(kind, 3)
    return f"{value:.{digits}f}"


# ---- SVG ---------------------------------------------------------------------------------------
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


def _reward_histogram(m: RunMetrics) -> Markup:
    """Ten bins over [0, 1), plus reward exactly 1 on its own (success)."""
    counts = [0] * 11
    for r in m.per_goal:
        counts[10 if r.success else min(9, max(0, int(r.reward * 10)))] += 1
    labels = [f".{i}" if i else "0" for i in range(10)] + ["=1"]
    colors = ["#4c78a8"] * 10 + ["#54a24b"]
    return bar_chart(labels, counts, title="Reward histogram (episodes; bins start at the label)", colors=colors)


def _subscore_chart(m: RunMetrics) -> Markup:
    keys = ["success_rate", "r_success", "r_strict", "r_type", "r_att", "r_option", "r_price"]
    labels = ["success", "r_success", "r_strict", "type", "attribute", "option", "price"]
    vals = [getattr(m, k) for k in keys]
    ivs = [(m.ci[k].low, m.ci[k].high) for k in keys]
    return bar_chart(labels, vals, intervals=ivs, ymax=1.0, value_fmt="{:.2f}",
                     title="Sub-scores (mean, 95% bootstrap interval)")


def _steps_chart(m: RunMetrics) -> Markup:
    counts = Counter(r.steps for r in m.per_goal)
    hi = max(counts, default=0)
    labels = [str(s) for s in range(hi + 1)]
    return bar_chart(labels, [counts.get(s, 0) for s in range(hi + 1)], title="Steps per episode (episodes)")


def _failure_chart(m: RunMetrics) -> Markup:
    keys = ["success", *FAILURES]
    colors = ["#54a24b", "#9d9d9d", "#e45756", "#f58518", "#eeca3b", "#b279a2"]
    return bar_chart(keys, [m.primary_failures.get(k, 0) for k in keys], colors=colors, width=620,
                     title="Episodes by first failed component")


# ---- page --------------------------------------------------------------------------------------
def load_run(run_dir: str | Path) -> tuple[dict[str, Any], dict[str, Any], list[dict[str, Any]]]:
    """``(config, summary, episode records)`` of a run folder; missing files read as empty."""
    run = Path(run_dir)

    def read_json(name: str) -> dict[str, Any]:
        path = run / name
        try:
            data = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
        except json.JSONDecodeError:
            data = {}
        return data if isinstance(data, dict) else {}

    records: list[dict[str, Any]] = []
    path = run / "episodes.jsonl"
    if path.exists():
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                rec = json.loads(line) if line.strip() else None
            except json.JSONDecodeError:
                rec = None
            if isinstance(rec, dict) and "goal_index" in rec:
                records.append(rec)
    config = read_json("config.json")
    goals = config.get("goals")
    if isinstance(goals, list) and goals:
        wanted = set(goals)
        records = [r for r in records if r["goal_index"] in wanted]
    return config, read_json("summary.json"), records


_TEMPLATE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>shopsim report: {{ name }}</title>
<style>
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,sans-serif;margin:0;color:#222;background:#fafafa}
main{max-width:1100px;margin:0 auto;padding:16px 24px}
h1{font-size:22px;margin:8px 0}h2{font-size:17px;margin:28px 0 8px;border-bottom:1px solid #ddd}
table{border-collapse:collapse;background:#fff}td,th{padding:3px 9px;border:1px solid #e3e3e3;text-align:left}
th{background:#f0f0f0}td.n{text-align:right;font-variant-numeric:tabular-nums}
.meta{color:#555}.charts{display:flex;flex-wrap:wrap;gap:12px}.charts svg{background:#fff;border:1px solid #e3e3e3}
svg .t{font-size:13px;font-weight:600}svg .a{font-size:10px;fill:#555}svg .v{font-size:10px;fill:#222}
svg .g{stroke:#eee}svg .x{stroke:#888}svg .w{stroke:#222;stroke-width:1.5;fill:none}
tr.ok td:first-child{border-left:4px solid #54a24b}tr.bad td:first-child{border-left:4px solid #e45756}
.pill{display:inline-block;padding:0 6px;border-radius:8px;background:#eee;font-size:12px}
</style></head><body><main>
<h1>Evaluation report: {{ name }}</h1>
<p class="meta">agent <b>{{ config.get('agent', summary.get('agent', '?')) }}</b>
· adapter {{ config.get('adapter', summary.get('adapter', '?')) }}
· {{ m.episodes }} episodes{% if config.get('data') %} · data {{ config.get('data') }}{% endif %}
· seed {{ config.get('seed', '?') }} · max steps {{ config.get('max_steps', '?') }}
{% if summary.get('seconds') is not none %} · last run {{ '%.1f' % summary.get('seconds') }} s{% endif %}</p>

<h2>Summary</h2>
<table><thead><tr><th>metric</th><th>value</th><th>95% interval</th></tr></thead><tbody>
{% for row in rows %}<tr><td>{{ row.label }}</td><td class="n">{{ row.value }}</td>
<td class="n">{{ row.low }} – {{ row.high }}</td></tr>
{% endfor %}</tbody></table>
<p class="meta">Means over all episodes (no purchase counts 0). Intervals: percentile bootstrap,
{{ m.bootstrap_resamples }} resamples of episodes, seed {{ m.bootstrap_seed }}.</p>

<h2>Plots</h2>
<div class="charts">{{ charts.reward }}{{ charts.subscores }}{{ charts.steps }}</div>

<h2>Failure breakdown</h2>
<div class="charts">{{ charts.failures }}
<table><thead><tr><th>component</th><th>first failure</th><th>failed at all</th><th>meaning</th></tr></thead><tbody>
{% for f in failures %}<tr><td>{{ f.name }}</td><td class="n">{{ f.primary }}</td><td class="n">{{ f.any }}</td>
<td>{{ f.help }}</td></tr>{% endfor %}</tbody></table></div>
{% if m.terminations %}<h3>How episodes ended</h3>
<table><thead><tr><th>termination</th><th>episodes</th><th>meaning</th></tr></thead><tbody>
{% for name, n in m.terminations.items() %}<tr><td>{{ name }}</td><td class="n">{{ n }}</td>
<td>{{ term_help.get(name, '') }}</td></tr>{% endfor %}</tbody></table>{% endif %}

<h2>Episodes</h2>
<table><thead><tr><th>goal</th><th>reward</th><th>type</th><th>attr</th><th>option</th><th>price</th>
<th>steps</th><th>searches</th><th>items</th><th>bought</th><th>outcome</th>{% if bundles %}<th>bundle</th>{% endif %}
<th></th></tr></thead><tbody>
{% for r in m.per_goal %}<tr class="{{ 'ok' if r.success else 'bad' }}"><td class="n">{{ r.goal_index }}</td>
<td class="n">{{ '%.3f' % r.reward }}</td><td class="n">{{ '%.2f' % r.r_type }}</td><td class="n">{{ '%.2f' % r.r_att }}</td>
<td class="n">{{ '%.2f' % r.r_option if r.has_options else '–' }}</td><td class="n">{{ '%.0f' % r.r_price if r.purchased else '–' }}</td>
<td class="n">{{ r.steps }}</td><td class="n">{{ r.searches }}</td><td class="n">{{ r.unique_items }}</td>
<td>{{ r.purchased_asin or '–' }}{% if r.target_asin_match %} <span class="pill">target</span>{% endif %}</td>
<td>{{ r.failures | join(', ') if r.failures else 'success' }}</td>
{% if bundles %}{% set b = bundles.get(r.goal_index, {}) %}<td>{{ b.get('path', '–') }}<br><span class="meta">{{ b.get('site', '') }} · {{ b.get('start_url', '') }}</span></td>{% endif %}
<td><a href="{{ link_base }}/episodes/{{ r.goal_index }}">view</a></td></tr>
{% endfor %}</tbody></table>
<p class="meta">Links open the trajectory viewer when the runs folder is served
(<code>shopsim serve --runs DIR</code>).</p>
</main></body></html>
"""

_ENV = Environment(autoescape=True)
_PAGE = _ENV.from_string(_TEMPLATE)


def render_report(run_dir: str | Path, *, link_base: str | None = None) -> str:
    """The report page of a run folder as HTML text."""
    run = Path(run_dir)
    config, summary, records = load_run(run)
    m = compute_metrics(records)
    rows = []
    for key, label, kind in _ROWS:
        iv = m.ci[key]
        rows.append({"label": label, "value": _fmt(getattr(m, key), kind), "low": _fmt(iv.low, kind),
                     "high": _fmt(iv.high, kind)})
    failures = [{"name": k, "primary": m.primary_failures.get(k, 0),
                 "any": m.failures.get(k, m.primary_failures.get(k, 0)), "help": _FAIL_HELP[k]}
                for k in ("success", *FAILURES)]
    charts = {"reward": _reward_histogram(m), "subscores": _subscore_chart(m), "steps": _steps_chart(m),
              "failures": _failure_chart(m)}
    base = link_base if link_base is not None else f"/runs/{quote(run.resolve().name, safe='')}"
    # replay runs: the bundle each episode replayed (its path, site and start URL)
    bundles = {r["goal_index"]: r["bundle"] for r in records if isinstance(r.get("bundle"), dict)}
    return _PAGE.render(name=run.resolve().name, config=config, summary=summary, m=m, rows=rows,
                        failures=failures, charts=charts, link_base=base, term_help=_TERM_HELP, bundles=bundles)


def write_report(run_dir: str | Path, *, link_base: str | None = None) -> Path:
    """Write ``report.html`` into the run folder and return its path."""
    path = Path(run_dir) / "report.html"
    tmp = path.with_name("report.html.tmp")
    tmp.write_text(render_report(run_dir, link_base=link_base), encoding="utf-8")
    tmp.replace(path)
    return path
