"""``/replay-ui``: evaluation runs under ``runs/`` replayed step by step, on the v8 service.

An experiment overview (every run: agent, profile, status, episodes, score, success), one run's
episodes (paginated), and one episode's replay: per step the observation, the ``observation_state``
the agent saw, its action, the feedback and the reward detail. Like ``/debug-ui`` it is one
self-contained page (inline CSS and JS, no external assets) that reads JSON from
``/replay-ui/data/...`` and inserts every value with ``textContent``, so a run's text (catalog titles,
model output) cannot inject markup. Files are read through :class:`RunReader`'s bounds, so a damaged
or huge run answers a page with a note, never a 500 or a hang.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route

from shopsim.simsite.json_api import ClientError, FastJSONResponse
from shopsim.simsite.run_reader import RunReader

__all__ = ["replay_routes"]

MAX_PAGE = 200


def _window(request: Request, default: int) -> tuple[int, int]:
    """``offset`` and ``limit`` from the query (limit at most MAX_PAGE); anything else is a 400."""
    try:
        offset = int(request.query_params.get("offset", "0"))
        limit = int(request.query_params.get("limit", str(default)))
    except ValueError:
        raise ClientError(400, "invalid_query", "offset and limit must be integers") from None
    if offset < 0 or not 1 <= limit <= MAX_PAGE:
        raise ClientError(400, "invalid_query", f"offset must be >= 0 and limit 1..{MAX_PAGE}")
    return offset, limit


class ReplayUI:
    """The page and its three JSON endpoints over one runs folder (a fresh :class:`RunReader` per request)."""

    def __init__(self, runs_dir: str | Path, *, max_scan_bytes: int | None = None, max_line_bytes: int | None = None):
        self.root = Path(runs_dir)
        self.max_scan_bytes, self.max_line_bytes = max_scan_bytes, max_line_bytes

    def _reader(self) -> RunReader:
        reader = RunReader(self.root)
        reader.max_scan_bytes = self.max_scan_bytes or reader.max_scan_bytes
        reader.max_line_bytes = self.max_line_bytes or reader.max_line_bytes
        return reader

    def _run(self, reader: RunReader, request: Request) -> Path:
        run_id = request.path_params["run"]
        run = reader.resolve(run_id)
        if run is None:
            raise ClientError(404, "unknown_run", f"no run {run_id[:100]!r} under the runs folder")
        return run

    async def page(self, request: Request) -> Response:
        return HTMLResponse(_PAGE, headers={"Cache-Control": "no-store", "X-Content-Type-Options": "nosniff",
                                            "Content-Security-Policy": _CSP})

    # The data endpoints are plain functions: Starlette runs them in its thread pool, so reading a big
    # run folder (up to the reader's 64 MB scan) never holds the event loop the v8 API shares.
    def runs(self, request: Request) -> Response:
        """Every run's headline; the folder's absence is said, not an error."""
        reader = self._reader()
        if not self.root.is_dir():
            reader.notes.append(f"no runs folder at {self.root}: write runs with shopsim eval --out "
                                f"{self.root}/NAME, or serve with --runs DIR")
        runs = [o for i in reader.run_ids() if (o := reader.overview(i)) is not None]
        return FastJSONResponse({"root": str(self.root), "runs": runs, "notes": reader.notes})

    def episodes(self, request: Request) -> Response:
        """One run's headline and a page of its episodes."""
        reader = self._reader()
        run = self._run(reader, request)
        offset, limit = _window(request, 50)
        rows = reader.episode_rows(run)
        return FastJSONResponse({"run": reader.overview(request.path_params["run"]), "total": len(rows),
                                 "offset": offset, "episodes": rows[offset:offset + limit], "notes": reader.notes})

    def episode(self, request: Request) -> Response:
        """One episode's record and a page of its steps."""
        reader = self._reader()
        run = self._run(reader, request)
        offset, limit = _window(request, 30)
        goal = request.path_params["goal"]
        record, steps = reader.episode(run, goal)
        if record is None and not steps:
            raise ClientError(404, "unknown_episode", f"run {request.path_params['run'][:100]!r} has no episode "
                              f"for goal {goal}")
        if steps and "observation_state" not in steps[0]:
            reader.notes.append("these traces carry no observation_state (a webshop run, or one written before "
                                "shopsim recorded it): observations and actions only")
        return FastJSONResponse({"goal_index": goal, "episode": record, "total_steps": len(steps),
                                 "offset": offset, "steps": [_step(s) for s in steps[offset:offset + limit]],
                                 "notes": reader.notes})

    def routes(self) -> list[Route]:
        return [
            Route("/replay-ui", self.page, methods=["GET"]),
            Route("/replay-ui/data/runs", self.runs, methods=["GET"]),
            Route("/replay-ui/data/runs/{run:path}/episodes/{goal:int}", self.episode, methods=["GET"]),
            Route("/replay-ui/data/runs/{run:path}/episodes", self.episodes, methods=["GET"]),
        ]


def _step(row: dict[str, Any]) -> dict[str, Any]:
    """What the replay shows of a trace row (only these keys leave the server)."""
    keys = ("step", "observation", "observation_state", "action", "feedback", "reward", "reward_detail",
            "termination", "page_type", "next_page_type")
    return {k: row.get(k) for k in keys}


def replay_routes(runs_dir: str | Path, *, max_scan_bytes: int | None = None,
                  max_line_bytes: int | None = None) -> list[Route]:
    """``/replay-ui`` and ``/replay-ui/data/...`` over ``runs_dir`` (the byte bounds default to RunReader's)."""
    return ReplayUI(runs_dir, max_scan_bytes=max_scan_bytes, max_line_bytes=max_line_bytes).routes()


_CSP = ("default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; "
        "img-src 'none'; base-uri 'none'; form-action 'none'")

_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>ShopSimulator v8 · replay</title>
<style>
*{box-sizing:border-box}body{margin:0;background:#f4f5f7;color:#1f2328;font:14px/1.5 system-ui,-apple-system,
"Segoe UI","PingFang SC","Noto Sans CJK SC",sans-serif}
header{display:flex;gap:14px;align-items:center;padding:10px 20px;background:#1f2d3d;color:#fff}
header h1{font-size:17px;margin:0}header a{color:#cfe0f5}main{max-width:1280px;margin:0 auto;padding:14px 20px 40px}
section{background:#fff;border:1px solid #d9dde3;border-radius:8px;padding:10px 14px;margin:10px 0}
h2{font-size:15px;margin:0 0 6px}table{border-collapse:collapse;font-size:13px;background:#fff}
td,th{border:1px solid #e3e6ea;padding:3px 10px;text-align:left}th{background:#f3f5f7}
td.n{text-align:right;font-variant-numeric:tabular-nums}a{color:#2f6fb3}
pre{margin:4px 0;white-space:pre-wrap;word-break:break-word;background:#f6f8fa;border:1px solid #eaeef2;
border-radius:6px;padding:8px 10px;font:12.5px/1.5 ui-monospace,Menlo,Consolas,monospace;max-height:30em;overflow:auto}
.notes{background:#fff3cd;border:1px solid #e0c36b;border-radius:6px;padding:6px 10px;margin:10px 0}
.notes:empty{display:none}#error{color:#b3261e;font-weight:600}.act{font-family:ui-monospace,monospace;
background:#fff3c4;padding:1px 4px}.bad{color:#b3261e}.ok{color:#1e7b34}.muted{color:#5b6470}
.pager{margin:8px 0;display:flex;gap:8px;align-items:center}
</style></head><body>
<header><h1>ShopSimulator v8 · replay</h1><a href="#/">all runs</a><a href="/debug-ui">debug UI</a></header>
<main><div id="error" role="alert"></div><div id="notes" class="notes"></div><div id="view"></div></main>
<script>
"use strict";
(() => {
  const view = document.getElementById("view");
  function el(tag, text, cls) {
    const e = document.createElement(tag);
    if (text !== undefined && text !== null) e.textContent = String(text);
    if (cls) e.className = cls;
    return e;
  }
  function link(text, hash) { const a = el("a", text); a.href = hash; return a; }
  function fmt(v, digits) { return typeof v === "number" ? v.toFixed(digits) : "–"; }
  function table(head, rows) {
    const t = el("table"), h = el("tr");
    head.forEach((x) => h.appendChild(el("th", x)));
    t.appendChild(h);
    rows.forEach((cells) => {
      const tr = el("tr");
      cells.forEach((c) => { const td = el("td"); if (c instanceof Node) td.appendChild(c); else td.textContent = c; tr.appendChild(td); });
      t.appendChild(tr);
    });
    return t;
  }
  function notes(list) {
    const box = document.getElementById("notes");
    box.replaceChildren(...(list || []).map((n) => el("div", n)));
  }
  async function get(url) {
    const r = await fetch(url);
    const body = await r.json().catch(() => ({error: "the server answered " + r.status}));
    if (!r.ok) throw new Error(body.error || ("HTTP " + r.status));
    return body;
  }
  function pager(offset, size, total, hashFor) {
    const p = el("div", null, "pager");
    if (offset > 0) p.appendChild(link("← previous", hashFor(Math.max(0, offset - size))));
    p.appendChild(el("span", `${total ? offset + 1 : 0}–${Math.min(offset + size, total)} of ${total}`, "muted"));
    if (offset + size < total) p.appendChild(link("next →", hashFor(offset + size)));
    return p;
  }
  const runPath = (id) => id.split("/").map(encodeURIComponent).join("/");

  async function showRuns() {
    const data = await get("/replay-ui/data/runs");
    notes(data.notes);
    const s = el("section");
    s.appendChild(el("h2", "Experiments in " + data.root));
    s.appendChild(table(["run", "status", "agent", "profile", "adapter", "episodes", "score", "success", "r_strict", "avg steps"],
      data.runs.map((r) => [link(r.id, "#/run/" + encodeURIComponent(r.id) + "/0"), r.status, r.agent ?? "–",
        r.profile ?? "–", r.adapter ?? "–", r.episodes ?? "–", fmt(r.score, 1),
        typeof r.success_rate === "number" ? (100 * r.success_rate).toFixed(1) + "%" : "–", fmt(r.r_strict, 3), fmt(r.avg_steps, 2)])));
    if (!data.runs.length) s.appendChild(el("p", "No runs in this folder yet.", "muted"));
    view.replaceChildren(s);
  }

  async function showRun(id, offset) {
    const data = await get(`/replay-ui/data/runs/${runPath(id)}/episodes?offset=${offset}&limit=50`);
    notes(data.notes);
    const s = el("section"), r = data.run;
    s.appendChild(el("h2", `${id} · ${r.agent ?? "?"} · ${r.status} · score ${fmt(r.score, 1)}`));
    const hashFor = (o) => `#/run/${encodeURIComponent(id)}/${o}`;
    s.appendChild(pager(data.offset, 50, data.total, hashFor));
    s.appendChild(table(["goal", "task mode", "reward", "success", "steps", "termination", "bought"],
      data.episodes.map((e) => [link(String(e.goal_index), `#/run/${encodeURIComponent(id)}/goal/${e.goal_index}/0`),
        e.task_mode ?? "–", fmt(e.reward, 3), e.r_success === 1 ? "yes" : "no", e.steps ?? "–", e.termination ?? "–", e.purchased_asin ?? "–"])));
    view.replaceChildren(s);
  }

  function stepCard(s) {
    const c = el("section", null, "step");
    c.id = "step-" + s.step;
    const head = el("h2", `step ${s.step} · ${s.page_type ?? "?"} → ${s.next_page_type ?? "?"}`);
    c.appendChild(head);
    const act = el("p"); act.appendChild(el("span", "action ")); act.appendChild(el("span", s.action, "act"));
    const fb = el("span", " · feedback " + (s.feedback ?? "–"), s.feedback && s.feedback !== "ok" ? "bad" : "ok");
    act.appendChild(fb);
    if (s.termination) act.appendChild(el("span", " · ended: " + s.termination));
    act.appendChild(el("span", " · reward " + fmt(s.reward, 3)));
    c.appendChild(act);
    c.appendChild(el("pre", s.observation, "observation"));
    if (s.observation_state) {
      const d = el("details"); d.appendChild(el("summary", "observation_state"));
      d.appendChild(el("pre", JSON.stringify(s.observation_state, null, 2), "observation-state"));
      c.appendChild(d);
    }
    if (s.reward_detail) {
      c.appendChild(el("h2", "reward detail"));
      c.appendChild(table(["component", "value"], Object.entries(s.reward_detail).map(([k, v]) => [k, JSON.stringify(v)])));
    }
    return c;
  }

  async function showEpisode(id, goal, offset) {
    const data = await get(`/replay-ui/data/runs/${runPath(id)}/episodes/${goal}?offset=${offset}&limit=30`);
    notes(data.notes);
    const top = el("section"), e = data.episode;
    top.appendChild(link("← episodes of " + id, `#/run/${encodeURIComponent(id)}/0`));
    top.appendChild(el("h2", `goal ${goal}` + (e ? ` · reward ${fmt(e.reward, 3)} · ${e.termination ?? "?"} · ${e.steps} steps` : " · no finished episode record")));
    const hashFor = (o) => `#/run/${encodeURIComponent(id)}/goal/${goal}/${o}`;
    top.appendChild(pager(data.offset, 30, data.total_steps, hashFor));
    view.replaceChildren(top, ...data.steps.map(stepCard));
  }

  async function route() {
    document.getElementById("error").textContent = "";
    const parts = location.hash.replace(/^#\\/?/, "").split("/").map(decodeURIComponent);
    try {
      if (parts[0] === "run" && parts[2] === "goal") await showEpisode(parts[1], Number(parts[3]), Number(parts[4] || 0));
      else if (parts[0] === "run") await showRun(parts[1], Number(parts[2] || 0));
      else await showRuns();
    } catch (err) {
      document.getElementById("error").textContent = String(err.message || err);
      view.replaceChildren();
    }
  }
  window.addEventListener("hashchange", route);
  route();
})();
</script></body></html>
"""
