"""Trajectory viewer: evaluation runs, their reports and each episode step by step, over HTTP.

Mounted by ``shopsim serve --runs DIR`` (``create_app(shop, extra_routes=viewer_routes(DIR))``, for
either profile). A run is any folder under ``runs_dir`` (up to three levels deep) that holds
``summary.json`` or ``episodes.jsonl``: finished runs, aborted ones (``"status": "aborted"``) and
ones that left no summary (killed, or still running) are all listed with their status. The list
has a compare button (pick A and B: ``/compare-runs?a=RUN&b=RUN`` shows what ``shopsim compare``
prints); episode pages link their Playwright trace (``/runs/<run>/traces/goal-<N>.zip``).

Everything read from a run is escaped (Jinja autoescape); files are served only from inside
``runs_dir``: every URL segment is checked against a strict pattern and the resolved path must stay
under the resolved root (so neither ``..`` nor symlinks lead out).
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import quote

from jinja2 import Environment
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, Response
from starlette.routing import Route

from shopsim.simsite.run_reader import RunReader

__all__ = ["STEPS_PER_PAGE", "RunsViewer", "find_runs", "read_episode", "resolve_run", "viewer_routes"]

#: Steps on one page of an episode: a run of a million steps opens as fast as one of ten.
STEPS_PER_PAGE = 100
#: What a run's files of the wrong shape raise in our readers and templates (never a 500: a panel).
DAMAGED = (ValueError, TypeError, KeyError, AttributeError, IndexError, LookupError, RecursionError,
           OverflowError)

_SHOT = re.compile(r"^\d{1,9}-\d{1,6}\.png$")
_TRACE = re.compile(r"^goal-\d{1,9}\.zip$")

_ENV = Environment(autoescape=True)
_ENV.filters["q"] = lambda s: quote(str(s), safe="/")

_STYLE = """<style>
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,sans-serif;margin:0;color:#222;background:#fafafa}
main{max-width:1100px;margin:0 auto;padding:16px 24px}h1{font-size:21px}h2{font-size:16px;margin:22px 0 6px}
table{border-collapse:collapse;background:#fff}td,th{padding:3px 9px;border:1px solid #e3e3e3;text-align:left}
th{background:#f0f0f0}td.n{text-align:right;font-variant-numeric:tabular-nums}.meta{color:#555}
.step{background:#fff;border:1px solid #ddd;border-radius:6px;margin:12px 0;padding:10px 14px}
.step h3{margin:0 0 6px;font-size:15px}pre{white-space:pre-wrap;word-break:break-word;background:#f6f6f6;
padding:8px;border-radius:4px;margin:4px 0;max-height:22em;overflow:auto}
.chip{display:inline-block;margin:2px;padding:1px 7px;border-radius:9px;background:#eee;font-size:12px}
.chip.on{background:#4c78a8;color:#fff}.act{font-family:ui-monospace,monospace;background:#fff3c4;padding:1px 4px}
.bad{color:#b00}.ok{color:#2a7a2a}img.shot{max-width:100%;border:1px solid #ccc;margin-top:6px}
nav a{margin-right:12px}.warn{background:#fff3cd;border:1px solid #e0c36b;padding:6px 10px;border-radius:4px}
tr.better td:first-child{border-left:4px solid #54a24b}tr.worse td:first-child{border-left:4px solid #e45756}
code{background:#f0f0f0;padding:0 3px}
</style>"""

_LIST = _ENV.from_string("""<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">
<title>shopsim runs</title>""" + _STYLE + """</head><body><main>
<h1>Evaluation runs</h1><p class="meta">in {{ root }}</p>
{% if runs %}<form method="get" action="/compare-runs">
<table><thead><tr><th>A</th><th>B</th><th>run</th><th>status</th><th>agent</th><th>adapter</th><th>episodes</th>
<th>score</th><th>success</th><th>r_strict</th><th>avg steps</th></tr></thead><tbody>
{% for r in runs %}<tr><td><input type="radio" name="a" value="{{ r.id }}" aria-label="A: {{ r.id }}"{{ ' checked' if loop.index == 1 else '' }}></td>
<td><input type="radio" name="b" value="{{ r.id }}" aria-label="B: {{ r.id }}"{{ ' checked' if loop.index == 2 else '' }}></td>
<td><a href="/runs/{{ r.id | q }}">{{ r.id }}</a></td>
<td>{% if r.status == 'complete' %}complete{% else %}<span class="bad" title="{{ r.reason }}">{{ r.status }}</span>{% if r.reason %} <span class="meta">({{ r.reason }})</span>{% endif %}{% endif %}</td>
<td>{{ r.agent }}</td><td>{{ r.adapter }}</td>
<td class="n">{{ r.episodes }}</td><td class="n">{{ r.score }}</td><td class="n">{{ r.success }}</td>
<td class="n">{{ r.r_strict }}</td><td class="n">{{ r.avg_steps }}</td></tr>
{% endfor %}</tbody></table>
<p><button type="submit">compare A and B</button> <span class="meta">paired per goal, as <code>shopsim compare A B</code></span></p>
</form>
{% else %}<p>No runs yet. Write one with <code>shopsim eval --out {{ root }}/NAME</code>.</p>{% endif %}
</main></body></html>""")

_EPISODE = _ENV.from_string("""<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">
<title>{{ run }} · goal {{ goal }}</title>""" + _STYLE + """</head><body><main>
<nav><a href="/runs">all runs</a><a href="/runs/{{ run | q }}">report of {{ run }}</a>
{% if prev is not none %}<a href="/runs/{{ run | q }}/episodes/{{ prev }}">&larr; goal {{ prev }}</a>{% endif %}
{% if next is not none %}<a href="/runs/{{ run | q }}/episodes/{{ next }}">goal {{ next }} &rarr;</a>{% endif %}</nav>
<h1>{{ run }} · goal {{ goal }}</h1>
{% if episode %}<p>reward <b>{{ '%.3f' % episode.reward }}</b> in {{ episode.steps }} steps ·
{% if outcome %}<span class="bad">{{ outcome | join(', ') }}</span>{% else %}<span class="ok">success</span>{% endif %}
{% if info %} · bought {{ info.get('purchased_asin') }}{% if info.get('target_asin_match') %} (the target){% endif %}{% endif %}
{% if episode.truncated %} · truncated{% endif %}</p>
{% if trace %}<p>Playwright trace: <a href="/runs/{{ run | q }}/traces/{{ trace.name }}">{{ trace.name }}</a> · open it with
<code>playwright show-trace {{ trace.path }}</code></p>{% endif %}
{% else %}<p class="meta">This goal has no finished episode in the run (only its steps, if any).</p>{% endif %}
{% if page.count %}<p class="meta pages">steps {{ page.first + 1 }}–{{ page.first + page.count }}{% if page.more or page.number %} ·
{% if page.number %}<a href="?page={{ page.number - 1 }}">&larr; earlier steps</a>{% endif %}
{% if page.more %}<a href="?page={{ page.number + 1 }}">later steps &rarr;</a>{% endif %}{% endif %}</p>{% endif %}
{% for s in steps %}<div class="step" id="step-{{ s.step }}"><h3>step {{ s.step }} · {{ s.page_type }}
&rarr; {{ s.next_page_type }}{% if s.reward %} · reward {{ '%.3f' % s.reward }}{% endif %}
{% if s.feedback and s.feedback != 'ok' %} · <span class="bad">{{ s.feedback }}</span>{% endif %}</h3>
<div class="meta">URL: {{ s.url }}</div>
<pre>{{ s.observation }}</pre>
<div>valid actions: {% if s.search_bar %}<span class="chip{{ ' on' if s.searched else '' }}">search[…]</span>{% endif %}
{% for c in s.clickables %}<span class="chip{{ ' on' if c == s.clicked else '' }}">{{ c }}</span>{% endfor %}</div>
<p>action: <span class="act">{{ s.action }}</span></p>
{% if s.shot %}<img class="shot" alt="page after step {{ s.step }}" src="/runs/{{ run | q }}/screenshots/{{ s.shot }}">{% endif %}
</div>{% endfor %}
{% if info %}<h2>Reward breakdown</h2><table><tbody>
{% for k, v in info.items() %}<tr><td>{{ k }}</td><td>{{ v }}</td></tr>{% endfor %}</tbody></table>{% endif %}
</main></body></html>""")


def _fmt(v: Any, pattern: str) -> str:
    return pattern.format(v) if isinstance(v, int | float) and not isinstance(v, bool) else "–"


def resolve_run(root: Path, run_id: str) -> Path | None:
    """The run folder ``run_id`` names under ``root``, or None when it is not a safe, real run."""
    return RunReader(root).resolve(run_id)


def _partial_numbers(run: Path) -> dict[str, Any]:
    """Episodes and score of a run without a summary (read from its ``episodes.jsonl``)."""
    from shopsim.agents.reports.report import load_run

    _, _, records = load_run(run)
    rewards = [float(r.get("reward") or 0.0) for r in records]
    n = len(rewards)
    return {"episodes": n, "score": 100 * sum(rewards) / n if n else None,
            "success_rate": sum(r >= 1 - 1e-9 for r in rewards) / n if n else None}


def find_runs(root: Path) -> list[dict[str, Any]]:
    """Runs under ``root`` (folders with ``summary.json`` or ``episodes.jsonl``), their status and
    headline numbers, by name. Status: ``complete``, ``aborted`` (with the reason) or ``incomplete``
    (no summary: the run was killed, or is still running).
    """
    runs = []
    for run_id in RunReader(root).run_ids():
        run = resolve_run(root, run_id)
        if run is None:
            continue
        try:
            runs.append(_run_row(run, run_id))
        except DAMAGED as exc:  # one damaged run is listed as such; the others are still shown
            runs.append({"id": run_id, "status": "damaged", "reason": f"{type(exc).__name__}: {str(exc)[:120]}",
                         **dict.fromkeys(("agent", "adapter", "episodes", "score", "success", "r_strict",
                                          "avg_steps"), "–")})
    return runs


def _run_row(run: Path, run_id: str) -> dict[str, Any]:
    """One run's row in the list."""
    summary_path = run / "summary.json"
    s: Any = _read_json(summary_path) if summary_path.is_file() else None
    if s is None:
        status, reason = "incomplete", "no summary.json: killed, or still running"
        config = _read_json(run / "config.json")
        s = {"agent": config.get("agent", "?"), "adapter": config.get("adapter", "?"), **_partial_numbers(run)}
    else:
        s = s if isinstance(s, dict) else {}
        status = str(s.get("status") or "complete")
        reason = str(s.get("reason") or "")
    return {"id": run_id, "status": status, "reason": reason,
            "agent": s.get("agent", "?"), "adapter": s.get("adapter", "?"),
            "episodes": s.get("episodes", "?"), "score": _fmt(s.get("score"), "{:.1f}"),
            "success": _fmt(100 * s["success_rate"] if isinstance(s.get("success_rate"), int | float)
                            else None, "{:.1f}%"),
            "r_strict": _fmt(s.get("r_strict"), "{:.3f}"), "avg_steps": _fmt(s.get("avg_steps"), "{:.2f}")}


def _read_json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
    except (OSError, ValueError, RecursionError):  # unreadable, not JSON, or nested past the stack
        data = {}
    return data if isinstance(data, dict) else {}


def _jsonl_goal(path: Path, goal: int, start: int = 0, stop: int | None = None) -> list[dict[str, Any]]:
    """Records ``start..stop`` (in file order) of one goal; reading stops once ``stop`` is reached, and
    a cheap prefix test skips other goals' lines (and this goal's before ``start``) without parsing them.
    """
    out: list[dict[str, Any]] = []
    if not path.is_file():
        return out
    prefix, generic = f'{{"goal_index": {goal},', '{"goal_index": '
    seen = 0
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            if line.startswith(generic) and not line.startswith(prefix):
                continue
            if stop is not None and seen >= stop:
                break
            try:
                rec = json.loads(line)
            except (ValueError, RecursionError):
                continue
            if isinstance(rec, dict) and rec.get("goal_index") == goal:
                if seen >= start:
                    out.append(rec)
                seen += 1
    return out


def _step_no(row: dict[str, Any]) -> int:
    step = row.get("step")
    return step if isinstance(step, int) and not isinstance(step, bool) else 0


def read_episode(run: Path, goal: int, page: int = 0) -> tuple[dict[str, Any] | None, list[dict[str, Any]], bool]:
    """``(episode record or None, page ``page`` of its steps, whether more steps follow)`` from a run folder.

    Steps are paged in the order the run wrote them (step order), :data:`STEPS_PER_PAGE` at a time:
    a page reads the trace file only as far as its last step, never the whole of a huge run.
    """
    episodes = _jsonl_goal(run / "episodes.jsonl", goal)
    first = page * STEPS_PER_PAGE
    rows = _jsonl_goal(run / "traces.jsonl", goal, first, first + STEPS_PER_PAGE + 1)
    more = len(rows) > STEPS_PER_PAGE
    steps = sorted(rows[:STEPS_PER_PAGE], key=_step_no)
    return (episodes[-1] if episodes else None), steps, more


def _goal_neighbours(run: Path, goal: int) -> tuple[int | None, int | None]:
    goals: list[int] = []
    path = run / "episodes.jsonl"
    if path.is_file():
        pattern = re.compile(r'^\{"goal_index": (\d+),')
        with open(path, encoding="utf-8") as f:
            goals = sorted({int(m.group(1)) for line in f if (m := pattern.match(line))})
    before = [g for g in goals if g < goal]
    after = [g for g in goals if g > goal]
    return (before[-1] if before else None), (after[0] if after else None)


def _step_view(row: dict[str, Any], shots: Path, goal: int) -> dict[str, Any]:
    va = row.get("valid_actions")
    va = va if isinstance(va, dict) else {}
    action = str(row.get("action") or "")  # None: the runtime ended the episode (v8)
    clicked = action[6:-1] if action.startswith("click[") and action.endswith("]") else None
    step = _step_no(row)
    clickables = va.get("clickables")
    shot = f"{goal}-{step + 1}.png"
    return {
        "step": step, "page_type": row.get("page_type"), "next_page_type": row.get("next_page_type"),
        "reward": row.get("reward") or 0.0, "feedback": row.get("feedback"), "url": row.get("url"),
        "observation": row.get("observation", ""), "action": action, "clicked": clicked,
        "searched": action.startswith("search["), "search_bar": bool(va.get("has_search_bar")),
        "clickables": [str(c) for c in (clickables if isinstance(clickables, list) else [])
                       if not (c == "search" and va.get("has_search_bar"))],
        "shot": shot if (shots / shot).is_file() else None,
    }


_ERROR = _ENV.from_string("<!DOCTYPE html><html><head><meta charset='utf-8'><title>{{ status }}</title></head>"
                          "<body><h1>{{ status }}</h1><p>{{ message }}</p><p><a href='/runs'>all runs</a></p>"
                          "</body></html>")


def _not_found(message: str, status: int = 404) -> HTMLResponse:
    return HTMLResponse(_ERROR.render(status=status, message=message), status_code=status)


def _damaged_panel(what: str, exc: BaseException) -> HTMLResponse:
    """The page for a run whose files are of the wrong shape: what could not be shown, and why (422)."""
    why = "nested too deeply" if isinstance(exc, RecursionError) else f"{type(exc).__name__}: {str(exc)[:200]}"
    return _not_found(f"{what} cannot be shown: its files are damaged or not in the shape shopsim writes ({why}).",
                      422)


Endpoint = Callable[["RunsViewer", Request], Response]


def _panel_on_damage(endpoint: Endpoint) -> Endpoint:
    """An endpoint that answers a damaged run with the error panel instead of a 500."""

    @functools.wraps(endpoint)
    def guarded(self: RunsViewer, request: Request) -> Response:
        try:
            return endpoint(self, request)
        except DAMAGED as exc:
            run, q = request.path_params.get("run"), request.query_params
            what = f"run {run[:100]!r}" if run else f"the comparison of {q.get('a', '')[:100]!r} and {q.get('b', '')[:100]!r}"
            return _damaged_panel(what, exc)

    return guarded


class RunsViewer:
    """The viewer's endpoints over one runs folder: each reads the run it names and answers one page or file.

    An object rather than closures, so each endpoint is a plain method that can be read and tested alone
    and the routes are one table (:meth:`routes`), mounted into either profile's app.
    """

    def __init__(self, runs_dir: str | Path) -> None:
        self.root = Path(runs_dir)

    def routes(self) -> list[Route]:
        """The viewer's route table (the catch-all report route last)."""
        return [
            Route("/runs", self.run_list),
            Route("/runs/", self.run_list),
            Route("/compare-runs", self.compare),
            Route("/runs/{run:path}/episodes/{goal:int}", self.episode),
            Route("/runs/{run:path}/screenshots/{name}", self.screenshot),
            Route("/runs/{run:path}/traces/{name}", self.trace),
            Route("/runs/{run:path}", self.report),
        ]

    @_panel_on_damage
    def run_list(self, request: Request) -> Response:
        """Every run under the folder, with its status and headline numbers."""
        return HTMLResponse(_LIST.render(root=str(self.root), runs=find_runs(self.root)))

    @_panel_on_damage
    def report(self, request: Request) -> Response:
        """One run's report, rendered with links into the viewer."""
        from shopsim.agents.reports.report import render_report

        run_id = request.path_params["run"].rstrip("/")
        run = resolve_run(self.root, run_id)
        if run is None:
            return _not_found(f"no run {run_id[:100]!r} under the runs folder")
        # rendered, not report.html from disk: its links must point into the viewer, and a run
        # without a summary (killed, or still running) has no report.html yet
        return HTMLResponse(render_report(run, link_base=f"/runs/{quote(run_id, safe='/')}"))

    @_panel_on_damage
    def compare(self, request: Request) -> Response:
        """Two runs side by side (``?a=RUN&b=RUN``), as ``shopsim compare`` prints them."""
        from shopsim.agents.reports.compare import compare_runs
        from shopsim.agents.reports.compare_page import render_comparison
        from shopsim.errors import ShopsimError

        a, b = request.query_params.get("a", ""), request.query_params.get("b", "")
        runs = {k: resolve_run(self.root, v) for k, v in (("a", a), ("b", b))}
        if runs["a"] is None or runs["b"] is None:
            return _not_found("pick two runs under the runs folder to compare (A and B)", 400)
        try:
            result = compare_runs(runs["a"], runs["b"])
        except ShopsimError as exc:
            return _not_found(str(exc), 400)
        return HTMLResponse(render_comparison(result, a, b, _STYLE))

    @_panel_on_damage
    def episode(self, request: Request) -> Response:
        """One episode step by step: observation, actions, screenshots, its outcome and trace."""
        from shopsim.agents.reports.metrics import failure_labels

        run_id, goal = request.path_params["run"], request.path_params["goal"]
        run = resolve_run(self.root, run_id)
        if run is None:
            return _not_found(f"no run {run_id[:100]!r} under the runs folder")
        page = request.query_params.get("page", "0")
        if not (page.isascii() and page.isdigit() and len(page) < 9):
            return _not_found(f"page must be a number of steps' page, not {page[:40]!r}", 400)
        record, steps, more = read_episode(run, goal, int(page))
        if record is None and not steps:
            return _not_found(f"run {run_id!r} has no episode for goal {goal}")
        if not steps and int(page):
            return _not_found(f"goal {goal} of run {run_id!r} has no steps on page {page}")
        info = (record or {}).get("reward_info") or None
        prev, nxt = _goal_neighbours(run, goal)
        trace = None
        name = f"goal-{goal}.zip"
        if record is not None and record.get("trace") == f"traces/{name}" and (run / "traces" / name).is_file():
            trace = {"name": name, "path": str(run / "traces" / name)}
        return HTMLResponse(_EPISODE.render(
            run=run_id, goal=goal, episode=record, info=info, prev=prev, next=nxt, trace=trace,
            page={"number": int(page), "first": int(page) * STEPS_PER_PAGE, "count": len(steps), "more": more},
            outcome=failure_labels(info) if record is not None else [],
            steps=[_step_view(s, run / "screenshots", goal) for s in steps]))

    def screenshot(self, request: Request) -> Response:
        """A step's screenshot (PNG) from the run's ``screenshots/``."""
        path = self._run_file(request, "screenshots", _SHOT)
        return FileResponse(path, media_type="image/png") if path else _not_found("no such screenshot")

    def trace(self, request: Request) -> Response:
        """An episode's Playwright trace (zip) from the run's ``traces/``, as a download."""
        path = self._run_file(request, "traces", _TRACE)
        if path is None:
            return _not_found("no such trace")
        return FileResponse(path, media_type="application/zip", filename=path.name)

    def _run_file(self, request: Request, folder: str, pattern: re.Pattern[str]) -> Path | None:
        """The file a request names inside a run's ``folder``: its name must match ``pattern`` and the
        resolved path stay under the runs folder (no ``..``, no symlink out); None otherwise.
        """
        run = resolve_run(self.root, request.path_params["run"])
        name = request.path_params["name"]
        if run is None or not pattern.match(name):
            return None
        path = (run / folder / name).resolve()
        return path if path.is_relative_to(self.root.resolve()) and path.is_file() else None


def viewer_routes(runs_dir: str | Path) -> list[Route]:
    """Routes for ``/runs``, ``/runs/<run>``, its episodes, screenshots and traces, and ``/compare-runs``."""
    return RunsViewer(runs_dir).routes()
