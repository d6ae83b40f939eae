"""The comparison of two runs as an HTML page (the run viewer's compare button).

The same numbers ``shopsim compare`` prints: both runs' metrics with intervals, the paired
difference B - A over common goals with its interval, and every common goal's rewards, linked to
both runs' episode pages. Everything from the runs is escaped (Jinja autoescape).
"""

from __future__ import annotations

from urllib.parse import quote

from jinja2 import Environment
from markupsafe import Markup

from shopsim.agents.reports.compare import RunComparison
from shopsim.agents.reports.metrics import METRIC_KEYS

__all__ = ["render_comparison"]

_ENV = Environment(autoescape=True)
_ENV.filters["q"] = lambda s: quote(str(s), safe="/")

_PAGE = _ENV.from_string("""<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">
<title>compare {{ a }} and {{ b }}</title>{{ style }}</head><body><main>
<nav><a href="/runs">all runs</a><a href="/runs/{{ a | q }}">report of A</a><a href="/runs/{{ b | q }}">report of B</a></nav>
<h1>A = {{ a }} · B = {{ b }}</h1>
<table><thead><tr><th></th><th>A</th><th>B</th><th>B − A</th></tr></thead><tbody>
<tr><td>agent / adapter</td><td>{{ c.a.agent }} / {{ c.a.adapter }}</td><td>{{ c.b.agent }} / {{ c.b.adapter }}</td><td></td></tr>
<tr><td>episodes</td><td class="n">{{ c.a.metrics.episodes }}</td><td class="n">{{ c.b.metrics.episodes }}</td><td></td></tr>
{% for r in rows %}<tr><td>{{ r.key }}</td><td class="n">{{ r.a }}</td><td class="n">{{ r.b }}</td><td class="n">{{ r.diff }}</td></tr>
{% endfor %}</tbody></table>
<p class="meta">Brackets: 95% percentile bootstrap intervals over episodes.</p>
<h2>Paired over {{ p.goals }} common goals</h2>
<p>score difference B − A: <b>{{ '%+.2f' % p.mean_diff }}</b> (95% CI {{ '%+.2f' % p.ci.low }} to {{ '%+.2f' % p.ci.high }})
· success rate difference {{ '%+.1f' % (100 * p.success_diff) }} points
({{ '%+.1f' % (100 * p.success_ci.low) }} to {{ '%+.1f' % (100 * p.success_ci.high) }})
· B better on {{ p.wins }} goals, worse on {{ p.losses }}, tied on {{ p.ties }}</p>
{% if c.only_in_a or c.only_in_b %}<p class="meta">Left out of the paired numbers: {{ c.only_in_a | length }} goals only in A,
{{ c.only_in_b | length }} only in B.</p>{% endif %}
<p class="meta">Pairing by goal removes the goal-difficulty variance, so a small difference can be told from noise;
the interval resamples goals. The same as <code>shopsim compare {{ a }} {{ b }}</code> under the runs folder.</p>
<h2>Goals</h2>
<table><thead><tr><th>goal</th><th>reward A</th><th>reward B</th><th>B − A</th><th></th></tr></thead><tbody>
{% for d in diffs %}<tr class="{{ 'better' if d.diff > 1e-9 else 'worse' if d.diff < -1e-9 else '' }}">
<td class="n">{{ d.goal_index }}</td><td class="n">{{ '%.3f' % d.reward_a }}</td><td class="n">{{ '%.3f' % d.reward_b }}</td>
<td class="n">{{ '%+.3f' % d.diff }}</td><td><a href="/runs/{{ a | q }}/episodes/{{ d.goal_index }}">A</a>
<a href="/runs/{{ b | q }}/episodes/{{ d.goal_index }}">B</a></td></tr>{% endfor %}</tbody></table>
</main></body></html>""")


def render_comparison(c: RunComparison, a: str, b: str, style: str) -> str:
    """The page for ``c`` (runs ``a`` and ``b`` by their viewer ids; ``style``: trusted CSS markup);
    goals whose reward changed come first.
    """
    rows = []
    for key in METRIC_KEYS:
        va, vb = getattr(c.a.metrics, key), getattr(c.b.metrics, key)
        ia, ib = c.a.metrics.ci[key], c.b.metrics.ci[key]
        d = 1 if key == "score" else 3
        rows.append({"key": key, "a": f"{va:.{d}f} [{ia.low:.{d}f}, {ia.high:.{d}f}]",
                     "b": f"{vb:.{d}f} [{ib.low:.{d}f}, {ib.high:.{d}f}]", "diff": f"{vb - va:+.{d}f}"})
    diffs = sorted(c.per_goal, key=lambda d: (abs(d.diff) <= 1e-9, d.goal_index))
    return _PAGE.render(c=c, a=a, b=b, p=c.paired, rows=rows, diffs=diffs, style=Markup(style))
