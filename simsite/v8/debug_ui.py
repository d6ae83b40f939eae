"""``/debug-ui``: the agent's view of a v8 session, driven through the same JSON API agents use.

One self-contained page (inline CSS and vanilla JS, no external assets), so what a person sees is
exactly what ``/api/sessions`` returns and nothing the HTML site might add. Every piece of data is
inserted with ``textContent`` (never ``innerHTML``), so catalog or persona text cannot inject markup;
the only server-side data in the page is a JSON boot block with ``<`` escaped.
"""

from __future__ import annotations

import json
from typing import Any

from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route

__all__ = ["DEBUG_ROUTES", "debug_page", "debug_ui"]

MAX_LISTED_TASKS = 200


def _boot(shop: Any) -> str:
    """Task ids (with their default mode) and versions for the start form, safe inside <script>."""
    from shopsim.simsite.v8.environment import ENVIRONMENT

    tasks = [{"id": t.task_id, "mode": t.task_mode} for t in shop.goals[:MAX_LISTED_TASKS]]
    data = {"tasks": tasks, "total_tasks": len(shop.goals), "environment": ENVIRONMENT.get("environment_version", "")}
    return json.dumps(data, ensure_ascii=False).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def debug_page(shop: Any) -> str:
    """The whole page for ``shop``."""
    return _PAGE.replace("__BOOT__", _boot(shop))


async def debug_ui(request: Request) -> Response:
    """GET ``/debug-ui``: the page built once by ``create_v8_app`` (``app.state.debug_page``); it calls
    ``/api/sessions/...`` from the browser.
    """
    return HTMLResponse(request.app.state.debug_page, headers={
        "Cache-Control": "no-store", "X-Content-Type-Options": "nosniff", "Content-Security-Policy": _CSP})


DEBUG_ROUTES = (Route("/debug-ui", debug_ui, methods=["GET"]),)


# Inline script and style only; fetches to this origin only.
_CSP = ("default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; "
        "img-src 'none'; base-uri 'none'; form-action 'none'")

_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>ShopSimulator v8 · debug UI</title>
<style>
:root{--bd:#d9dde3;--mut:#5b6470;--acc:#2f6fb3;--bad:#b3261e;--badbg:#fdecea;--okc:#1e7b34;--panel:#fff}
*{box-sizing:border-box}
body{margin:0;background:#f4f5f7;color:#1f2328;font:14px/1.5 system-ui,-apple-system,"Segoe UI","PingFang SC",
"Hiragino Sans GB","Microsoft YaHei","Noto Sans CJK SC","Source Han Sans SC",sans-serif}
header{display:flex;align-items:center;gap:12px;padding:10px 20px;background:#1f2d3d;color:#fff}
header h1{font-size:17px;margin:0;font-weight:600}header .ver{opacity:.7;font-size:12px}
.sp{flex:1}header button{background:transparent;color:#fff;border:1px solid #8aa0b8}
main{max-width:1280px;margin:0 auto;padding:14px 20px 40px}
section,.panel{background:var(--panel);border:1px solid var(--bd);border-radius:8px;padding:10px 14px;margin:10px 0}
h2{font-size:13px;text-transform:uppercase;letter-spacing:.04em;color:var(--mut);margin:0 0 6px}
form.start{display:flex;flex-wrap:wrap;gap:10px 16px;align-items:end}
label{display:flex;flex-direction:column;font-size:12px;color:var(--mut);gap:2px}
input,select,button{font:inherit}input,select{padding:4px 6px;border:1px solid #b8c0ca;border-radius:5px;background:#fff}
button{padding:4px 11px;border:1px solid #9fb0c4;border-radius:5px;background:#eef3f9;color:#1f2328;cursor:pointer}
button:hover:not(:disabled){background:#dfe9f5}button:disabled{opacity:.45;cursor:not-allowed}
button.primary{background:var(--acc);border-color:var(--acc);color:#fff}
button.danger{border-color:#d49b97;background:#fbeeed}
#error{display:none;margin:10px 0;padding:8px 12px;border-radius:6px;background:var(--badbg);color:var(--bad);
border:1px solid #f1b9b4;white-space:pre-wrap;word-break:break-word}
#error.on{display:block}
.meta{display:flex;flex-wrap:wrap;gap:6px 18px;color:var(--mut);font-size:13px}.meta b{color:#1f2328;font-weight:600}
.meta{align-items:center}.meta .btns{margin-left:auto;display:flex;gap:6px}
.grid{display:grid;grid-template-columns:minmax(0,1.25fr) minmax(0,1fr);gap:0 14px}
@media (max-width:900px){.grid{grid-template-columns:1fr}}
pre{margin:0;white-space:pre-wrap;word-break:break-word;background:#f6f8fa;border:1px solid #eaeef2;border-radius:6px;
padding:8px 10px;font:12.5px/1.5 ui-monospace,"SFMono-Regular",Menlo,Consolas,"Noto Sans Mono CJK SC",monospace;
max-height:34em;overflow:auto}
#instruction{font-size:15px;white-space:pre-wrap}
#feedback{padding:6px 10px;border-radius:6px;background:#eef7f0;color:var(--okc);border:1px solid #cfe8d5}
#feedback.bad{background:var(--badbg);color:var(--bad);border-color:#f1b9b4;font-weight:600}
#clickables .grp{margin:6px 0}#clickables .axis{font-size:12px;color:var(--mut);margin-bottom:2px}
#clickables button{margin:2px 4px 2px 0;text-align:left;max-width:100%}
#clickables button.sel{background:var(--acc);color:#fff;border-color:var(--acc)}
#clickables button .sub{display:block;font-size:11.5px;color:var(--mut);white-space:nowrap;overflow:hidden;
text-overflow:ellipsis;max-width:420px}
.row{display:flex;gap:6px;margin:6px 0}.row input{flex:1;min-width:0}
details summary{cursor:pointer;color:var(--mut);font-size:13px;margin:2px 0}
#outcome{display:none;border-color:#9fc5a8}#outcome.on{display:block}#outcome.miss{border-color:#f1b9b4}
#outcome .big{font-size:16px;margin-bottom:6px}
table{border-collapse:collapse;font-size:13px}td,th{border:1px solid #e3e6ea;padding:2px 10px;text-align:left}
th{background:#f3f5f7;font-weight:600}td.n{text-align:right;font-variant-numeric:tabular-nums}
#history{margin:0;padding-left:22px;font-size:12.5px;max-height:14em;overflow:auto}
#history li.bad{color:var(--bad)}#history code{background:#f6f8fa;padding:0 3px;border-radius:3px}
.hidden{display:none!important}.muted{color:var(--mut)}
</style></head><body>
<header><h1 data-i18n="title">ShopSimulator v8 · debug UI</h1><span class="ver" id="env-version"></span>
<span class="sp"></span><button type="button" id="lang-toggle">中文</button></header>
<main>
<section><h2 data-i18n="start">Start a session</h2>
<form class="start" id="start-form" autocomplete="off">
<label><span data-i18n="task_id">task id</span><input id="task-id" name="task_id" list="task-ids" inputmode="numeric" required size="10"></label>
<datalist id="task-ids"></datalist>
<label><span data-i18n="task_mode">task mode</span><select id="task-mode">
<option value="" data-i18n="task_default">task default</option><option value="standard">standard</option>
<option value="persona">persona</option></select></label>
<label><span data-i18n="interaction_mode">interaction mode</span><select id="interaction-mode">
<option value="single_turn">single_turn</option><option value="multi_turn">multi_turn</option></select></label>
<label><span data-i18n="max_actions">max actions</span><input id="max-actions" type="number" min="1" max="10000" size="6"
data-i18n-ph="default_ph" placeholder="default"></label>
<button class="primary" type="submit" id="start" data-i18n="start_btn">Start</button>
<span class="muted" id="task-count"></span>
</form></section>
<div id="error" role="alert"></div>
<div id="notice" class="muted"></div>
<div id="session" class="hidden">
<section><div class="meta">
<span><span data-i18n="lease">lease</span> <b id="lease-id"></b></span>
<span>env_idx <b id="env-idx"></b></span><span><span data-i18n="task">task</span> <b id="s-task"></b></span>
<span><b id="s-mode"></b> · <b id="s-imode"></b></span>
<span><span data-i18n="steps">steps</span> <b id="steps"></b></span>
<span><span data-i18n="page">page</span> <b id="page-type"></b></span>
<span class="btns"><button type="button" id="terminate" class="danger" data-i18n="terminate">terminate (generation_length)</button>
<button type="button" id="release" data-i18n="release">release</button></span>
</div></section>
<section><h2 data-i18n="instruction">Task instruction</h2><div id="instruction"></div>
<details id="persona-box"><summary data-i18n="persona">user_persona</summary><pre id="persona"></pre></details>
<div id="no-persona" class="muted" data-i18n="no_persona">no user_persona (standard mode)</div></section>
<section id="outcome"><h2 data-i18n="outcome">Episode over</h2>
<div class="big"><span data-i18n="termination">termination</span>: <b id="termination"></b> ·
<span data-i18n="reward">reward</span> <b id="reward"></b></div>
<table id="reward-table"><thead><tr><th data-i18n="component">component</th><th data-i18n="value">value</th></tr></thead>
<tbody></tbody></table></section>
<div class="grid"><div>
<section><h2 data-i18n="last_feedback">Last action</h2><div id="feedback"></div></section>
<section><h2 data-i18n="observation">Observation</h2><pre id="observation"></pre></section>
</div><div>
<section><h2 data-i18n="search">Search</h2><form class="row" id="search-form" autocomplete="off">
<input id="search-input" maxlength="500" data-i18n-ph="search_ph" placeholder="query">
<button type="submit" id="search-btn" data-i18n="search_btn">search</button></form>
<div class="muted" id="search-note" data-i18n="search_off">search is available only on the search page</div></section>
<section><h2 data-i18n="clickables">Clickables</h2><div id="clickables"></div></section>
<section><h2 data-i18n="raw">Free-form action</h2><form class="row" id="raw-form" autocomplete="off">
<input id="raw-action" maxlength="2000" placeholder="click[...] / search[...]">
<button type="submit" id="raw-send" data-i18n="send">send</button></form></section>
<section><h2 data-i18n="history">History</h2><ol id="history"></ol></section>
</div></div>
<section><details id="state-box"><summary>observation_state</summary><pre id="state"></pre></details></section>
</div>
</main>
<script type="application/json" id="boot">__BOOT__</script>
<script>
"use strict";
(function () {
  const BOOT = JSON.parse(document.getElementById("boot").textContent);
  const I18N = {
    en: {},
    zh: {
      title: "ShopSimulator v8 · 调试界面", start: "开始会话", task_id: "任务 ID", task_mode: "任务模式",
      task_default: "任务默认", interaction_mode: "交互模式", max_actions: "最大步数", default_ph: "默认",
      start_btn: "开始", lease: "租约", task: "任务", steps: "步数", page: "页面",
      terminate: "终止 (generation_length)", release: "释放", instruction: "任务指令", persona: "用户画像 user_persona",
      no_persona: "无用户画像（标准模式）", outcome: "回合结束", termination: "终止原因", reward: "奖励",
      component: "分量", value: "值", last_feedback: "上一步", observation: "观察", search: "搜索",
      search_ph: "搜索词", search_btn: "搜索", search_off: "只有在搜索页才能搜索", clickables: "可点击项",
      raw: "自由输入动作", send: "发送", history: "历史", released: "会话已释放", tasks_of: "共 {n} 个任务",
      net: "网络错误", none: "（无）", start_first: "尚未开始会话"
    }
  };
  const EN = {released: "session released", tasks_of: "{n} tasks", net: "network error", none: "(none)",
    start_first: "no session yet"};
  let lang = (localStorage.getItem("v8-debug-lang") || navigator.language || "en").toLowerCase().startsWith("zh") ? "zh" : "en";
  const $ = (id) => document.getElementById(id);
  const t = (key) => (lang === "zh" && I18N.zh[key]) || EN[key] || key;
  const defaults = new Map();
  document.querySelectorAll("[data-i18n]").forEach((el) => defaults.set(el, el.textContent));
  document.querySelectorAll("[data-i18n-ph]").forEach((el) => defaults.set(el, el.getAttribute("placeholder")));

  function applyLang() {
    document.documentElement.lang = lang === "zh" ? "zh-CN" : "en";
    $("lang-toggle").textContent = lang === "zh" ? "English" : "中文";
    document.querySelectorAll("[data-i18n]").forEach((el) => {
      el.textContent = (lang === "zh" && I18N.zh[el.dataset.i18n]) || defaults.get(el);
    });
    document.querySelectorAll("[data-i18n-ph]").forEach((el) => {
      el.setAttribute("placeholder", (lang === "zh" && I18N.zh[el.dataset.i18nPh]) || defaults.get(el));
    });
    $("task-count").textContent = t("tasks_of").replace("{n}", String(BOOT.total_tasks));
  }

  let lease = null;
  let last = null;

  function showError(text) { const e = $("error"); e.textContent = text; e.classList.toggle("on", !!text); }

  async function api(method, path, body) {
    const init = {method: method, headers: {}};
    if (body !== undefined) { init.headers["Content-Type"] = "application/json"; init.body = JSON.stringify(body); }
    let resp;
    try { resp = await fetch(path, init); } catch (err) { showError(t("net") + ": " + err); return null; }
    const text = await resp.text();
    let data = null;
    try { data = text ? JSON.parse(text) : null; } catch (err) { data = null; }
    if (!resp.ok) {
      let msg = "HTTP " + resp.status;
      if (data && typeof data === "object" && "code" in data) {
        msg += " " + data.code + ": " + data.error;
        if (data.detail !== undefined && data.detail !== null) msg += "\\n" + JSON.stringify(data.detail, null, 2);
      } else if (text) { msg += ": " + text.slice(0, 500); }
      showError(msg);
      return null;
    }
    showError("");
    return data === null ? {} : data;
  }

  function el(tag, text, cls) {
    const e = document.createElement(tag);
    if (text !== undefined && text !== null) e.textContent = String(text);
    if (cls) e.className = cls;
    return e;
  }

  function fmt(v) {
    if (v === null || v === undefined) return "null";
    if (typeof v === "number") return Number.isInteger(v) ? String(v) : String(Math.round(v * 10000) / 10000);
    return typeof v === "object" ? JSON.stringify(v) : String(v);
  }

  function addHistory(action, data) {
    const li = el("li");
    li.appendChild(el("code", action));
    const fb = data ? data.action_feedback : "error";
    li.appendChild(document.createTextNode(" → " + fb));
    if (fb !== "ok") li.className = "bad";
    const h = $("history");
    h.appendChild(li);
    h.scrollTop = h.scrollHeight;
  }

  function renderClickables(st, done) {
    const box = $("clickables");
    box.replaceChildren();
    const titles = new Map((st.results || []).map((r) => [r.asin, r]));
    const groups = new Map();
    const plain = [];
    for (const value of st.clickables || []) {
      const eq = value.indexOf("=");
      if (st.page_type === "product" && eq > 0) {
        const axis = value.slice(0, eq);
        if (!groups.has(axis)) groups.set(axis, []);
        groups.get(axis).push(value);
      } else { plain.push(value); }
    }
    const button = (value, label) => {
      const b = el("button", label);
      b.type = "button";
      b.dataset.value = value;
      b.title = value;
      b.disabled = done;
      const r = titles.get(value);
      if (r) {
        const price = Array.isArray(r.price) ? r.price.join("–") : (r.price === null ? "" : r.price);
        b.appendChild(el("span", "#" + r.rank + " " + r.title + (price !== "" ? " · " + price : ""), "sub"));
      }
      b.addEventListener("click", () => act("click[" + value + "]"));
      return b;
    };
    for (const [axis, values] of groups) {
      const g = el("div", null, "grp");
      g.appendChild(el("div", axis, "axis"));
      for (const v of values) {
        const b = button(v, v.slice(axis.length + 1));
        if ((st.selected_options || {})[axis] === v.slice(axis.length + 1)) b.classList.add("sel");
        g.appendChild(b);
      }
      box.appendChild(g);
    }
    const rest = el("div", null, "grp");
    for (const v of plain) rest.appendChild(button(v, v));
    box.appendChild(rest);
    if (!(st.clickables || []).length) box.appendChild(el("span", t("none"), "muted"));
  }

  function renderOutcome(data) {
    const box = $("outcome");
    box.classList.toggle("on", !!data.done);
    if (!data.done) return;
    box.classList.toggle("miss", data.termination !== "purchase" || !(data.reward >= 1));
    $("termination").textContent = data.termination;
    $("reward").textContent = fmt(data.reward);
    const body = $("reward-table").tBodies[0];
    body.replaceChildren();
    for (const [key, value] of Object.entries(data.reward_detail || {})) {
      const tr = el("tr");
      tr.dataset.key = key;
      tr.appendChild(el("th", key));
      tr.appendChild(el("td", fmt(value), typeof value === "number" ? "n" : ""));
      body.appendChild(tr);
    }
  }

  function render(data) {
    last = data;
    const st = data.observation_state;
    const done = !!data.done;
    $("steps").textContent = data.actions_used + " / " + data.max_actions;
    $("page-type").textContent = st.page_type;
    $("observation").textContent = data.observation;
    $("state").textContent = JSON.stringify(st, null, 2);
    const fb = $("feedback");
    const code = data.action_feedback || "ok";
    fb.textContent = code + (st.feedback_message ? " — " + st.feedback_message : "");
    fb.classList.toggle("bad", code !== "ok");
    fb.dataset.code = code;
    const canSearch = !done && !!st.search_available;
    $("search-input").disabled = !canSearch;
    $("search-btn").disabled = !canSearch;
    $("search-note").classList.toggle("hidden", canSearch);
    $("raw-action").disabled = done;
    $("raw-send").disabled = done;
    $("terminate").disabled = done;
    renderClickables(st, done);
    renderOutcome(data);
  }

  async function start(ev) {
    ev.preventDefault();
    if (lease) await release(true);
    const body = {task_id: Number($("task-id").value.trim()), interaction_mode: $("interaction-mode").value};
    if ($("task-mode").value) body.task_mode = $("task-mode").value;
    if ($("max-actions").value.trim()) body.max_actions = Number($("max-actions").value);
    $("start").disabled = true;
    const data = await api("POST", "/api/sessions", body);
    $("start").disabled = false;
    if (!data) return;
    lease = data.lease_id;
    $("notice").textContent = "";
    $("lease-id").textContent = data.lease_id;
    $("env-idx").textContent = data.env_idx;
    $("s-task").textContent = data.task_id;
    $("s-mode").textContent = data.task_mode;
    $("s-imode").textContent = data.interaction_mode;
    $("instruction").textContent = data.task_instruction;
    const hasPersona = data.user_persona !== null && data.user_persona !== undefined;
    $("persona").textContent = hasPersona ? JSON.stringify(data.user_persona, null, 2) : "";
    $("persona-box").classList.toggle("hidden", !hasPersona);
    $("no-persona").classList.toggle("hidden", hasPersona);
    $("history").replaceChildren();
    $("session").classList.remove("hidden");
    render(data);
  }

  async function act(action) {
    if (!lease) { showError(t("start_first")); return; }
    const data = await api("POST", "/api/sessions/" + encodeURIComponent(lease) + "/step", {action: action});
    addHistory(action, data);
    if (data) render(data);
  }

  async function terminate() {
    if (!lease) return;
    const data = await api("POST", "/api/sessions/" + encodeURIComponent(lease) + "/terminate",
      {reason: "generation_length"});
    addHistory("terminate(generation_length)", data);
    if (data) render(data);
  }

  async function release(quiet) {
    if (!lease) return;
    const id = lease;
    const data = await api("DELETE", "/api/sessions/" + encodeURIComponent(id));
    if (data === null && !quiet) return;
    lease = null;
    last = null;
    $("session").classList.add("hidden");
    $("notice").textContent = t("released") + " (" + id + ")";
  }

  const list = $("task-ids");
  for (const task of BOOT.tasks) {
    const o = document.createElement("option");
    o.value = String(task.id);
    o.label = task.mode;
    list.appendChild(o);
  }
  if (BOOT.tasks.length) $("task-id").value = String(BOOT.tasks[0].id);
  $("env-version").textContent = BOOT.environment;
  $("start-form").addEventListener("submit", start);
  $("search-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const q = $("search-input").value;
    if (q.trim()) act("search[" + q + "]");
  });
  $("raw-form").addEventListener("submit", (ev) => { ev.preventDefault(); act($("raw-action").value); });
  $("terminate").addEventListener("click", terminate);
  $("release").addEventListener("click", () => release(false));
  $("lang-toggle").addEventListener("click", () => {
    lang = lang === "zh" ? "en" : "zh";
    localStorage.setItem("v8-debug-lang", lang);
    applyLang();
    if (last) render(last);
  });
  window.addEventListener("pagehide", () => {
    if (lease) fetch("/api/sessions/" + encodeURIComponent(lease), {method: "DELETE", keepalive: true});
  });
  applyLang();
})();
</script>
</body></html>
"""
