"""``/shop/{lease}``: a plain server-rendered HTML view of a v8 session, for browser harnesses (BrowserGym).

The v8 service speaks JSON; this view renders the session's current ``observation_state`` as HTML
(our own jinja2 template, autoescaped) whose buttons and search form POST the canonical v8 action
to ``/shop/{lease}/act``. That route steps the session exactly as ``POST /api/sessions/{lease}/step``
does (same lease lookup, TTL and per-lease lock, same refusals) and redirects back (POST-redirect-GET),
so a browser episode and an API episode of the same actions are the same episode. The page embeds
``#shopsim-state`` (task id, instruction, page type, done, reward) for a harness; the reward's
breakdown stays on ``GET /api/sessions/{lease}``.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast
from urllib.parse import parse_qs

from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Route

from shopsim.simsite.json_api import MAX_ACTION_CHARS, json_error
from shopsim.simsite.v8.records import TaskMode
from shopsim.simsite.v8.session import BACK, BUY, NEXT, PREV

if TYPE_CHECKING:
    from jinja2 import Environment

__all__ = ["HTML_ROUTES", "act", "shop_page"]

TEMPLATES = Path(__file__).resolve().parent / "templates"
_NAV = (PREV, NEXT, BACK, BUY)
#: A form body holds one action or one query; anything much longer is not a form this page sent.
MAX_FORM_BYTES = 4 * MAX_ACTION_CHARS


@lru_cache(maxsize=1)
def _env() -> Environment:
    from jinja2 import Environment, FileSystemLoader, select_autoescape

    return Environment(loader=FileSystemLoader(str(TEMPLATES)), autoescape=select_autoescape(default=True),
                       auto_reload=False)


def _script_json(data: dict[str, Any]) -> str:
    """JSON safe inside ``<script>`` (no ``</``, ``<!--`` or ``&``); jinja2 must not escape it again."""
    from markupsafe import Markup

    text = json.dumps(data, ensure_ascii=False)
    return Markup(text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026"))


async def shop_page(request: Request) -> Response:
    """GET ``/shop/{lease}``: the session's current page (404/410 as the JSON API for unknown/expired leases)."""
    from shopsim.simsite.v8.service import V8State

    st: V8State = request.app.state.v8
    lease = st.lease_of(request)
    s, lid = lease.session, request.path_params["lease"]
    instruction = s.task.instruction_for(cast(TaskMode, lease.task_mode))
    boot = {"lease_id": lid, "task_id": s.task.task_id, "instruction": instruction, "page_type": s.state.page_type,
            "done": s.done, "reward": s.reward, "termination": s.termination}
    html = _env().get_template("shop.html").render(
        state=s.state, task_id=s.task.task_id, instruction=instruction, reward=s.reward, actions=s.actions,
        max_actions=s.max_actions, act_url=f"/shop/{lid}/act", boot=_script_json(boot),
        nav=[c for c in s.state.clickables if c in _NAV])
    return HTMLResponse(html, headers={"Cache-Control": "no-store", "X-Content-Type-Options": "nosniff"})


def _form_action(body: bytes) -> str | None:
    """The canonical action a form sent: ``action`` as is, or ``query`` as ``search[query]``; None when neither."""
    if len(body) > MAX_FORM_BYTES:
        return None
    try:
        form = parse_qs(body.decode("utf-8"), keep_blank_values=True, max_num_fields=4)
    except (UnicodeDecodeError, ValueError):
        return None
    if "action" in form:
        return form["action"][0]
    if "query" in form:
        return f"search[{form['query'][0]}]"
    return None


async def act(request: Request) -> Response:
    """POST ``/shop/{lease}/act``: step the session as the JSON API would, then 303 back to its page."""
    from shopsim.simsite.v8.service import V8State, play

    st: V8State = request.app.state.v8
    lease = st.lease_of(request)
    action = _form_action(await request.body())
    if action is None or len(action) > MAX_ACTION_CHARS:
        return json_error(422, "invalid_body", f"send a form with 'action' or 'query' (at most {MAX_ACTION_CHARS} "
                          "characters)")
    stepped = await play(lease, lease.session.step, action, threaded=action.startswith("ask["))
    if stepped.status_code != 200:  # 409 episode_over, as the JSON API answers
        return stepped
    return RedirectResponse(f"/shop/{request.path_params['lease']}", status_code=303)


HTML_ROUTES = (Route("/shop/{lease}", shop_page, methods=["GET"]),
               Route("/shop/{lease}/act", act, methods=["POST"]))
