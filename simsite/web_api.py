"""The JSON API's endpoints (``/api/...``), module-level functions reading ``request.app.state.sessions``.

Bodies are read through :mod:`shopsim.simsite.json_api`, so every error is JSON; models and the
OpenAPI document live in :mod:`shopsim.simsite.api_schema`. ``create_app`` in
:mod:`shopsim.simsite.web` mounts :data:`API_ROUTES`.

Response bodies are built as plain dicts from the session's own (already validated) state, in the
field order of their models (``StepResponse``, ...), and encoded once: validating them again as
models and dumping those cost more than the HTTP handling of a step. tests/simsite/test_web.py
checks that every body is what its model would have written, byte for byte.
"""

from __future__ import annotations

import uuid
from functools import cache
from typing import Any

from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route

from shopsim.errors import ConfigError
from shopsim.page import PageState
from shopsim.render import render_rich, render_simple
from shopsim.simsite.api_schema import DOCS_HTML, CreateSession, RestoreRequest, StepRequest, openapi_spec
from shopsim.simsite.json_api import ClientError, FastJSONResponse, read_json_body
from shopsim.simsite.session import ShopSession, StepResult
from shopsim.simsite.snapshots import SnapshotError
from shopsim.simsite.web_state import AppState, Lease

__all__ = ["API_ROUTES", "base_of", "observation_body", "step_body"]


def _state(request: Request) -> AppState:
    return request.app.state.sessions


def base_of(request: Request) -> str:
    """The server's base URL as the client reached it (sessions write their URLs under it)."""
    return str(request.base_url).rstrip("/")


def _obs(lease: Lease) -> str:
    s = lease.session.state
    return render_rich(s) if lease.mode == "text_rich" else render_simple(s)


def _page(lease: Lease, s: PageState) -> dict[str, Any]:
    """The fields every session body shares: the observation, the valid actions and the page state."""
    return {"observation": _obs(lease), "valid_actions": s.valid_actions(), "page_state": s.model_dump(mode="json")}


def step_body(lease: Lease, r: StepResult) -> dict[str, Any]:
    """``StepResponse``'s body for one step's result."""
    s = r.state
    page = _page(lease, s)
    return {"observation": page["observation"], "reward": float(r.reward), "done": r.done, "truncated": r.truncated,
            "valid_actions": page["valid_actions"], "feedback": s.feedback.model_dump(),
            "page_state": page["page_state"], "reward_info": s.reward_info}


def observation_body(sid: str, lease: Lease) -> dict[str, Any]:
    """``SessionObservation``'s body: the current page, without stepping."""
    page = _page(lease, lease.session.state)
    return {"session_id": sid, "observation": page["observation"], "valid_actions": page["valid_actions"],
            "done": lease.session.done, "page_state": page["page_state"]}


def _open_session(st: AppState, body: CreateSession, sid: str, base: str) -> tuple[ShopSession, int]:
    """A new session from a snapshot token or a goal pick; 400 when either is refused."""
    if body.snapshot is not None:
        try:
            session = ShopSession.from_snapshot(st.shop, body.snapshot, session_id=sid, base_url=base,
                                                key=st.snapshot_key)
        except SnapshotError as exc:
            raise ClientError(400, "invalid_snapshot", str(exc)) from None
        assert session.goal_index is not None  # from_snapshot sets it from the token
        return session, session.goal_index
    try:
        index = st.pick_goal(body.split, body.goal, body.seed)
    except ConfigError as exc:
        raise ClientError(400, "invalid_goal", str(exc)) from None
    return ShopSession(st.shop, st.shop.goal(index), sid, strict=body.strict, max_steps=body.max_steps,
                       base_url=base, goal_index=index), index


async def api_create(request: Request) -> Response:
    st = _state(request)
    body = await read_json_body(request, CreateSession)
    st.sweep()
    if len(st.leases) >= st.cap:
        raise ClientError(429, "too_many_sessions",
                          f"too many open sessions ({st.cap}); close some or wait for idle ones to expire")
    sid = uuid.uuid4().hex
    session, index = _open_session(st, body, sid, base_of(request))
    lease = Lease(session, body.mode)
    st.leases[sid] = lease
    return FastJSONResponse({"session_id": sid, "goal_index": index, **_page(lease, session.state)}, status_code=201)


async def api_step(request: Request) -> Response:
    lease = _state(request).lease(request.path_params["sid"])
    body = await read_json_body(request, StepRequest)
    return FastJSONResponse(step_body(lease, lease.session.step(body.action)))


async def api_snapshot(request: Request) -> Response:
    st = _state(request)
    lease = st.lease(request.path_params["sid"])
    try:
        token = lease.session.snapshot(key=st.snapshot_key)
    except SnapshotError as exc:  # a state too large for a token
        raise ClientError(409, "snapshot_too_large", str(exc)) from None
    return FastJSONResponse({"snapshot": token})


async def api_restore(request: Request) -> Response:
    st = _state(request)
    sid = request.path_params["sid"]
    lease = st.lease(sid)
    body = await read_json_body(request, RestoreRequest)
    try:
        lease.session.restore(body.snapshot, key=st.snapshot_key)
    except SnapshotError as exc:
        raise ClientError(400, "invalid_snapshot", str(exc)) from None
    assert lease.session.goal_index is not None  # restore sets it from the token
    return FastJSONResponse({**observation_body(sid, lease), "goal_index": lease.session.goal_index})


async def api_get(request: Request) -> Response:
    """An API session's page; failing that, a browser's HTML session of that id, read-only.

    HTML sessions are shown in simple text mode; every other API route (step, snapshot, restore,
    delete) sees API leases only, so the JSON API can read a browser's episode but never change it.
    """
    st = _state(request)
    sid = request.path_params["sid"]
    if sid not in st.leases:
        session = st.html_view(sid)
        if session is not None:
            return FastJSONResponse(observation_body(sid, Lease(session, "text")))
    return FastJSONResponse(observation_body(sid, st.lease(sid)))


async def api_delete(request: Request) -> Response:
    st = _state(request)
    sid = request.path_params["sid"]
    st.lease(sid)  # 404 or 410 when there is nothing to close
    del st.leases[sid]
    return Response(status_code=204)


@cache
def _openapi_bytes() -> bytes:
    """The document never changes while the server runs: built and encoded once."""
    return bytes(FastJSONResponse(openapi_spec()).body)


async def api_openapi(request: Request) -> Response:
    return Response(_openapi_bytes(), media_type="application/json")


async def api_docs(request: Request) -> Response:
    return HTMLResponse(DOCS_HTML)


async def api_health(request: Request) -> Response:
    st = _state(request)
    return FastJSONResponse({"ok": True, "products": len(st.shop.products), "goals": len(st.shop.goals),
                         "open_sessions": len(st.leases)})


API_ROUTES = (
    Route("/api/sessions", api_create, methods=["POST"]),
    Route("/api/sessions/{sid}/step", api_step, methods=["POST"]),
    Route("/api/sessions/{sid}/snapshot", api_snapshot, methods=["POST"]),
    Route("/api/sessions/{sid}/restore", api_restore, methods=["POST"]),
    Route("/api/sessions/{sid}", api_get, methods=["GET"]),
    Route("/api/sessions/{sid}", api_delete, methods=["DELETE"]),
    Route("/api/openapi.json", api_openapi),
    Route("/api/docs", api_docs),
    Route("/api/health", api_health),
)
