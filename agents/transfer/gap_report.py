"""The gap suite's report: a terminal table and ``report.html`` with a plot (an inline SVG of our own)."""

from __future__ import annotations

from html import escape

from shopsim.agents.transfer.gap_suite import Drop, GapReport

__all__ = ["html_report", "text_report"]


def _interval(drop: Drop | None) -> str:
    return "-" if drop is None else f"{drop.points:+.1f} [{drop.low:+.1f}, {drop.high:+.1f}]"


def text_report(report: GapReport) -> str:
    """One table per agent (condition, score, success, drop and its interval), then the correlation."""
    lines = [f"shopsim gap-suite: goals={report.goals} seed={report.seed} perturbations over {report.perturb_skin}"]
    for a in report.agents:
        lines.append(f"agent {a.agent}:")
        rows = [("condition", "score", "success", "drop from sim [95% CI]")]
        rows += [(r.condition, f"{r.score:.1f}", f"{r.success:.1f}%", _interval(r.drop))
                 for r in a.rows]
        widths = [max(len(r[i]) for r in rows) for i in range(4)]
        lines += ["  " + "  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows]
        real = ("real pages: not run" if a.real is None else
                f"real pages: score {a.real_score:.1f}, drop {_interval(a.real)}")
        lines.append(f"  predicted drop (mean over skins and perturbations) {a.predicted_drop:+.1f}; {real}")
    rho = "n/a (needs 3 agents with real-page numbers)" if report.spearman is None else f"{report.spearman:+.3f}"
    lines.append(f"Spearman rank correlation, predicted vs real drop: {rho}")
    return "\n".join(lines)


def _svg(report: GapReport) -> str:
    """Predicted drop (x) against real drop (y), one labelled point per agent."""
    points = [(a.agent, a.predicted_drop, a.real.points) for a in report.agents if a.real is not None]
    if not points:
        return "<p>No agent has real-page numbers to plot.</p>"
    xs, ys = [p[1] for p in points], [p[2] for p in points]
    lo, hi = min(xs + ys + [0.0]) - 5, max(xs + ys + [0.0]) + 5
    size, pad, right = 360, 40, 200  # room on the right for the agents' names

    def at(v: float) -> float:
        return pad + (v - lo) / (hi - lo) * (size - 2 * pad)

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{size + right}" height="{size}" role="img" '
             'aria-label="predicted against real drop">',
             f'<line x1="{pad}" y1="{size - pad}" x2="{size - pad}" y2="{size - pad}" stroke="#333"/>',
             f'<line x1="{pad}" y1="{pad}" x2="{pad}" y2="{size - pad}" stroke="#333"/>',
             f'<line x1="{at(lo):.1f}" y1="{size - at(lo):.1f}" x2="{at(hi):.1f}" y2="{size - at(hi):.1f}" '
             'stroke="#bbb" stroke-dasharray="4"/>',
             f'<text x="{size / 2}" y="{size - 8}" text-anchor="middle">predicted drop (points)</text>',
             f'<text x="12" y="{size / 2}" transform="rotate(-90 12 {size / 2})" text-anchor="middle">'
             'real-page drop (points)</text>']
    for v in (lo, 0.0, hi):  # ticks: both ends and zero, on each axis
        parts.append(f'<text x="{at(v):.1f}" y="{size - pad + 14}" font-size="10" text-anchor="middle">{v:+.0f}</text>')
        parts.append(f'<text x="{pad - 4}" y="{size - at(v) + 3:.1f}" font-size="10" text-anchor="end">{v:+.0f}</text>')
    for name, x, y in points:
        cx, cy = at(x), size - at(y)
        parts.append(f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="4" fill="#1f6feb"><title>{escape(name)}</title></circle>')
        parts.append(f'<text x="{cx + 6:.1f}" y="{cy - 6:.1f}" font-size="11">{escape(name)}</text>')
    return "\n".join(parts + ["</svg>"])


def html_report(report: GapReport) -> str:
    """``report.html``: every agent's conditions as a table, the plot and the correlation."""
    body = [f"<h1>shopsim gap suite</h1><p>{report.goals} goals, seed {report.seed}; perturbations over the "
            f"{escape(report.perturb_skin)} skin. Drop: sim score minus the condition's (points, 95% bootstrap "
            "interval).</p>"]
    for a in report.agents:
        body.append(f"<h2>{escape(a.agent)}</h2><table><tr><th>condition</th><th>score</th><th>success</th>"
                    "<th>drop [95% CI]</th></tr>")
        body += [f"<tr><td>{escape(r.condition)}</td><td>{r.score:.1f}</td><td>{r.success:.1f}%</td>"
                 f"<td>{_interval(r.drop)}</td></tr>" for r in a.rows]
        body.append(f"<tr><td>real pages</td><td>{'-' if a.real_score is None else f'{a.real_score:.1f}'}</td><td></td>"
                    f"<td>{_interval(a.real)}</td></tr></table>"
                    f"<p>predicted drop {a.predicted_drop:+.1f}</p>")
    rho = "n/a" if report.spearman is None else f"{report.spearman:+.3f}"
    body.insert(1, f"<h2>Predicted against real drop</h2><p>Spearman rank correlation: {rho} (the dashed line: "
                   f"prediction equals measurement)</p>{_svg(report)}")
    return ("<!doctype html><html><head><meta charset=\"utf-8\"><title>shopsim gap suite</title><style>"
            "body{font-family:sans-serif;margin:2em}td,th{padding:2px 8px;text-align:left}</style></head><body>"
            + "\n".join(body) + "</body></html>\n")
