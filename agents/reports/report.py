"""``report.html`` for a run folder: one self-contained page a person can read instead of JSON.

Tables, and plots drawn as inline SVG (``agents.reports.charts``: no CDN, no scripts, no plotting library),
so the file can be mailed, archived or opened from disk. Every string from the run is escaped
(Jinja autoescape; SVG labels through ``html.escape``). Beside the metrics it shows the run's
metadata and status, the breakdown by kind of goal, what the agent's model calls spent (and cost,
with prices) and each episode's Playwright trace. Episode links point at the trajectory viewer
(``/runs/<run>/episodes/<goal>`` under ``shopsim serve --runs``); trace links are relative to the
run folder on disk and under ``/runs/<run>/traces/`` in the viewer.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from urllib.parse import quote

from jinja2 import Environment

from shopsim.agents.reports.breakdown import AXIS_HELP, breakdown
from shopsim.agents.reports.charts import failure_chart, reward_histogram, steps_chart, subscore_chart
from shopsim.agents.reports.cost import episode_cost
from shopsim.agents.reports.metrics import FAILURES, asking_split, compute_metrics

__all__ = ["load_run", "render_report", "write_report"]

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
.warn{background:#fff3cd;border:1px solid #e0c36b;padding:8px 12px;border-radius:4px}
table.kv th{width:13em;font-weight:normal;color:#555}code{background:#f0f0f0;padding:0 3px}
.cols{display:flex;flex-wrap:wrap;gap:18px;align-items:flex-start}.cols h3{font-size:14px;margin:6px 0}
</style></head><body><main>
<h1>Evaluation report: {{ name }}</h1>
{% if status.state != 'complete' %}<p class="warn"><b>{{ status.title }}</b>: {{ status.text }}</p>{% endif %}
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

<h2>Run</h2>
<table class="kv"><tbody>{% for k, v in meta %}<tr><th>{{ k }}</th><td>{{ v }}</td></tr>{% endfor %}</tbody></table>
<p class="meta">Secret-looking settings (keys, tokens, passwords) are shown as ***; they are never written
to the run folder.</p>

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
{% if asking %}<h3>Asking the shopper (multi-turn)</h3>
<table><thead><tr><th>episodes</th><th>count</th><th>mean reward</th></tr></thead><tbody>
{% for name, a in asking.items() %}<tr><td>{{ name.replace('_', ' ') }}</td><td class="n">{{ a.episodes }}</td>
<td class="n">{{ '%.3f' % a.mean_reward }}</td></tr>{% endfor %}</tbody></table>{% endif %}

{% if groups %}<h2>By kind of goal</h2>
<div class="cols">{% for t in groups %}<div><h3>{{ t.axis }}</h3>
<table><thead><tr><th>group</th><th>episodes</th><th>score</th><th>95% interval</th><th>success</th>
<th>95% interval</th><th>steps</th></tr></thead><tbody>
{% for g in t.rows %}<tr><td>{{ g.name }}</td><td class="n">{{ g.episodes }}</td><td class="n">{{ g.score }}</td>
<td class="n">{{ g.score_ci }}</td><td class="n">{{ g.success }}</td><td class="n">{{ g.success_ci }}</td>
<td class="n">{{ g.steps }}</td></tr>{% endfor %}</tbody></table>
<p class="meta">{{ t.help }}</p></div>{% endfor %}</div>{% endif %}

{% if spend %}<h2>Model calls</h2>
<table><thead><tr><th></th>{% for k in spend.columns %}<th>{{ k.replace('_', ' ') }}</th>{% endfor %}</tr></thead><tbody>
<tr><td>total</td>{% for k in spend.columns %}<td class="n">{{ spend.total.get(k, 0) }}</td>{% endfor %}</tr>
<tr><td>per episode</td>{% for k in spend.columns %}<td class="n">{{ '%.2f' % spend.mean.get(k, 0) }}</td>{% endfor %}</tr>
</tbody></table>
{% if cost %}<p>Cost at {{ cost.prompt }} per 1k prompt tokens and {{ cost.completion }} per 1k completion tokens:
<b>{{ cost.total }}</b> in total, {{ cost.per_episode }} per episode (max {{ cost.max_episode }}).</p>
{% else %}<p class="meta">No cost: pass <code>--price-per-1k-tokens IN,OUT</code> to <code>shopsim eval</code>.</p>{% endif %}
{% endif %}

<h2>Episodes</h2>
{% if trace_example %}<p class="meta">Playwright traces ({{ trace_mode }}): open one with
<code>playwright show-trace {{ trace_example }}</code>, or drop the file on trace.playwright.dev (it stays in
your browser).</p>{% endif %}
<table><thead><tr><th>goal</th><th>reward</th><th>type</th><th>attr</th><th>option</th><th>price</th>
<th>steps</th><th>searches</th><th>items</th><th>bought</th><th>outcome</th>{% if bundles %}<th>bundle</th>{% endif %}
{% if spend %}<th>tokens</th>{% if cost %}<th>cost</th>{% endif %}{% endif %}{% if traces %}<th>trace</th>{% endif %}
<th></th></tr></thead><tbody>
{% for r in m.per_goal %}<tr class="{{ 'ok' if r.success else 'bad' }}"><td class="n">{{ r.goal_index }}</td>
<td class="n">{{ '%.3f' % r.reward }}</td><td class="n">{{ '%.2f' % r.r_type }}</td><td class="n">{{ '%.2f' % r.r_att }}</td>
<td class="n">{{ '%.2f' % r.r_option if r.has_options else '–' }}</td><td class="n">{{ '%.0f' % r.r_price if r.purchased else '–' }}</td>
<td class="n">{{ r.steps }}</td><td class="n">{{ r.searches }}</td><td class="n">{{ r.unique_items }}</td>
<td>{{ r.purchased_asin or '–' }}{% if r.target_asin_match %} <span class="pill">target</span>{% endif %}</td>
<td>{{ r.failures | join(', ') if r.failures else 'success' }}</td>
{% if bundles %}{% set b = bundles.get(r.goal_index, {}) %}<td>{{ b.get('path', '–') }}<br><span class="meta">{{ b.get('site', '') }} · {{ b.get('start_url', '') }}</span></td>{% endif %}
{% if spend %}{% set e = per_episode.get(r.goal_index, {}) %}<td class="n">{{ e.get('tokens', '–') }}</td>{% if cost %}<td class="n">{{ e.get('cost', '–') }}</td>{% endif %}{% endif %}
{% if traces %}{% set t = traces.get(r.goal_index) %}<td>{% if t %}<a href="{{ t.href }}" title="playwright show-trace {{ t.path }}">trace</a>{% else %}–{% endif %}</td>{% endif %}
<td><a href="{{ link_base }}/episodes/{{ r.goal_index }}">view</a></td></tr>
{% endfor %}</tbody></table>
<p class="meta">Links open the trajectory viewer when the runs folder is served
(<code>shopsim serve --runs DIR</code>).</p>
</main></body></html>
"""

_ENV = Environment(autoescape=True)
_PAGE = _ENV.from_string(_TEMPLATE)


def _status(summary: dict[str, Any], config: dict[str, Any], episodes: int) -> dict[str, str]:
    """Whether the run finished, was aborted (and why), or left no summary (killed, or still running)."""
    planned = len(set(config.get("goals") or [])) or None
    of = f"{episodes} of {planned} goals finished" if planned else f"{episodes} episodes finished"
    if not summary:
        return {"state": "incomplete", "title": "Incomplete run",
                "text": f"no summary.json: the run was killed or is still running; {of}. "
                        "Run the same shopsim eval command again to resume it."}
    if summary.get("status") == "aborted":
        return {"state": "aborted", "title": "Aborted run",
                "text": f"{summary.get('reason') or 'stopped'}; {of}. Run the same command again to resume it."}
    return {"state": "complete", "title": "", "text": ""}


def _meta_rows(summary: dict[str, Any], config: dict[str, Any]) -> list[tuple[str, str]]:
    """The run's metadata (``summary.json``'s ``run``, else what ``config.json`` says) as table rows."""
    run = summary.get("run")
    meta: dict[str, Any] = run if isinstance(run, dict) else {}
    rows: list[tuple[str, str]] = []

    def add(label: str, value: Any) -> None:
        if value not in (None, "", {}, []):
            rows.append((label, value if isinstance(value, str) else json.dumps(value, sort_keys=True)))

    add("status", summary.get("status") or ("no summary" if not summary else "complete"))
    add("date (UTC)", meta.get("date"))
    add("shopsim version", meta.get("shopsim_version"))
    git = meta.get("git") or {}
    if git:
        add("git commit", str(git.get("commit")) + (" (with uncommitted changes)" if git.get("dirty") else ""))
    catalog = meta.get("catalog") or {}
    if catalog.get("sha256"):
        over = ", ".join(catalog.get("files") or []) or f"{catalog.get('goals')} goals"
        add("catalog fingerprint", f"sha256 {catalog['sha256']} (over {over})")
    add("data", meta.get("data", config.get("data")) or "bundled catalog")
    add("profile", meta.get("profile", config.get("profile")))
    add("environment version", summary.get("environment_version"))
    add("seed", str(meta.get("seed", config.get("seed", ""))))
    add("engine", meta.get("engine", config.get("engine")))
    add("agent", meta.get("agent", config.get("agent")))
    add("agent options", meta.get("agent_options", config.get("agent_options")))
    adapter = meta.get("adapter", config.get("adapter"))
    if adapter == "browser":
        adapter = f"browser ({meta.get('browser_mode', config.get('browser_mode'))}), traces {meta.get('trace', 'off')}"
    add("adapter", adapter)
    add("max steps", str(meta.get("max_steps", config.get("max_steps", ""))))
    add("goals / workers", f"{meta.get('goals', len(config.get('goals') or []))} / "
                           f"{meta.get('workers', config.get('workers', 1))}")
    add("price per 1k tokens (in, out)", meta.get("price_per_1k_tokens"))
    add("environment settings", meta.get("env"))
    add("python", meta.get("python"))
    return rows


def _group_tables(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    tables = []
    for axis, groups in breakdown(records).items():
        rows = [{"name": name, "episodes": g.episodes, "score": f"{g.score:.1f}",
                 "score_ci": f"{g.score_ci.low:.1f} – {g.score_ci.high:.1f}", "success": f"{100 * g.success_rate:.1f}%",
                 "success_ci": f"{100 * g.success_ci.low:.1f} – {100 * g.success_ci.high:.1f}%",
                 "steps": f"{g.avg_steps:.2f}"} for name, g in groups.items()]
        tables.append({"axis": axis, "help": AXIS_HELP.get(axis, ""), "rows": rows})
    return tables


def _spending(records: list[dict[str, Any]], config: dict[str, Any]) -> tuple[dict[str, Any] | None,
                                                                                 dict[str, Any] | None,
                                                                                 dict[int, dict[str, str]]]:
    """Model-call totals and means, the cost (with prices in the config), and each episode's share."""
    stats = [(r["goal_index"], r["agent_stats"]) for r in records if isinstance(r.get("agent_stats"), dict)]
    if not stats:
        return None, None, {}
    keys = ["requests", "prompt_tokens", "completion_tokens", "total_tokens", "protocol_errors", "repairs",
            "fallbacks", "retries"]
    keys += sorted({k for _, s in stats for k in s} - set(keys))
    total = {k: sum(int(s.get(k, 0)) for _, s in stats) for k in keys}
    spend = {"columns": keys, "total": total, "mean": {k: v / len(stats) for k, v in total.items()}}
    prices = config.get("price_per_1k_tokens")
    per_episode = {g: {"tokens": str(s.get("total_tokens", 0))} for g, s in stats}
    if not (isinstance(prices, list | tuple) and len(prices) == 2):
        return spend, None, per_episode
    costs = {g: episode_cost(s, prices) or 0.0 for g, s in stats}
    for g, c in costs.items():
        per_episode[g]["cost"] = f"{c:.4f}"
    cost = {"prompt": f"{prices[0]:g}", "completion": f"{prices[1]:g}", "total": f"{sum(costs.values()):.4f}",
            "per_episode": f"{sum(costs.values()) / len(costs):.4f}", "max_episode": f"{max(costs.values()):.4f}"}
    return spend, cost, per_episode


def render_report(run_dir: str | Path, *, link_base: str | None = None) -> str:
    """The report page of a run folder as HTML text (``link_base``: the run's URL in the viewer)."""
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
    charts = {"reward": reward_histogram(m), "subscores": subscore_chart(m), "steps": steps_chart(m),
              "failures": failure_chart(m)}
    base = link_base if link_base is not None else f"/runs/{quote(run.resolve().name, safe='')}"
    # replay runs: the bundle each episode replayed (its path, site and start URL)
    bundles = {r["goal_index"]: r["bundle"] for r in records if isinstance(r.get("bundle"), dict)}
    traces = {r["goal_index"]: {"href": (f"{link_base}/" if link_base is not None else "") + quote(r["trace"]),
                                "path": str(run.resolve() / r["trace"])}
              for r in records if isinstance(r.get("trace"), str) and _safe_trace(r["trace"])}
    spend, cost, per_episode = _spending(records, config)
    return _PAGE.render(name=run.resolve().name, config=config, summary=summary, m=m, rows=rows,
                        failures=failures, charts=charts, link_base=base, term_help=_TERM_HELP, bundles=bundles,
                        status=_status(summary, config, len(records)), meta=_meta_rows(summary, config),
                        groups=_group_tables(records), spend=spend, cost=cost, per_episode=per_episode,
                        traces=traces, trace_mode=config.get("trace", "on"), asking=asking_split(records),
                        trace_example=next(iter(traces.values()))["path"] if traces else None)


def _safe_trace(name: str) -> bool:
    """A trace path as the runner writes it (``traces/goal-<N>.zip``), never a link elsewhere."""
    parts = name.split("/")
    return len(parts) == 2 and parts[0] == "traces" and parts[1].startswith("goal-") and parts[1].endswith(".zip") \
        and parts[1][5:-4].isdigit()


def write_report(run_dir: str | Path, *, link_base: str | None = None) -> Path:
    """Write ``report.html`` into the run folder and return its path."""
    path = Path(run_dir) / "report.html"
    tmp = path.with_name("report.html.tmp")
    tmp.write_text(render_report(run_dir, link_base=link_base), encoding="utf-8")
    tmp.replace(path)
    return path
