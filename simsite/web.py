"""The sim as a web app: WebShop's five HTML routes plus a JSON API with session leases.

HTML routes follow WebShop's URL scheme (keywords as a list repr, '+'-joined or plain; options as
JSON or a dict literal) so WebShop's recorded URLs and HTML clients work unchanged. Path segments
are read from the raw (still percent-encoded) path, so encoded '/' inside keywords or options
survives; unencoded odd URLs (as in WebShop's recordings) are split heuristically. Bad input gives
a 400/404 page that says what is wrong, never a 500. Product and option images are served under
``/static/img/`` (:mod:`shopsim.simsite.images`: SVG drawn on request, ETag, one hour's cache).

The JSON API reads bodies through :mod:`shopsim.simsite.json_api` (shared with the v8 service), so
every ``/api/`` error, a 500 included, is JSON ``{"error": message, "code": code}`` (``detail`` on
422): 400 malformed JSON or an unknown goal, 404 unknown session or endpoint, 405 wrong method, 410
expired session, 413 a body over ``MAX_BODY_BYTES``, 415 a Content-Type that is not JSON, 422 a
body that is JSON but invalid (integers must be JSON integers; actions at most ``MAX_ACTION_CHARS``
characters), 429 too many open sessions.
"""

from __future__ import annotations

import random
import re
import time
import uuid
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal
from urllib.parse import unquote

from pydantic import BaseModel, ConfigDict, Field
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

from shopsim.errors import ActionError, ConfigError
from shopsim.links import index_path, results_path
from shopsim.render import render_rich, render_simple
from shopsim.simsite import images, urls
from shopsim.simsite.html import render_error, render_html
from shopsim.simsite.json_api import (
    BODY_ERROR_DOCS,
    MAX_ACTION_CHARS,
    BodyErrorCode,
    ClientError,
    Handler,
    check_content_length,
    json_error_handlers,
    read_json_body,
)
from shopsim.simsite.search import MAX_QUERY_CHARS
from shopsim.simsite.session import SUB_PAGES, ShopSession
from shopsim.simsite.shop import Shop

__all__ = [
    "CreateSession",
    "SessionCreated",
    "SessionObservation",
    "StepRequest",
    "StepResponse",
    "create_app",
    "openapi_spec",
]

STATIC = Path(__file__).resolve().parent / "static"
_SID = re.compile(r"^[A-Za-z0-9_.\-]{1,128}$")
_FIXED = re.compile(r"^fixed_(\d+)(?:[_.\-].*)?$")
#: Images are a pure function of the catalog: browsers may reuse them for an hour, then revalidate by ETag.
IMAGE_CACHE_CONTROL = "public, max-age=3600"
#: WebShop's goal splits: test = first 500, eval = next 1000, train = the rest.
SPLITS = {"test": (0, 500), "eval": (500, 1500), "train": (1500, None)}


# ---- JSON API models ------------------------------------------------------------------------
class CreateSession(BaseModel):
    """Open a session: ``goal`` (absolute, or within ``split``) or a seeded draw when null.

    Strict, so ``1.0``, ``true`` or ``"3"`` is not a goal, seed or step limit (422, not a guess).
    """

    model_config = ConfigDict(strict=True)

    goal: int | None = None
    split: Literal["test", "eval", "train"] | None = None
    seed: int = 0
    mode: Literal["text", "text_rich"] = "text"
    strict: bool = False
    max_steps: int | None = Field(default=None, ge=1)


class StepRequest(BaseModel):
    """One action string, e.g. ``search[red shoes]`` or ``click[buy now]``."""

    action: str = Field(max_length=MAX_ACTION_CHARS)


class SessionCreated(BaseModel):
    session_id: str
    goal_index: int
    observation: str
    valid_actions: dict[str, Any]
    page_state: dict[str, Any]


class StepResponse(BaseModel):
    observation: str
    reward: float
    done: bool
    truncated: bool
    valid_actions: dict[str, Any]
    feedback: dict[str, Any]
    page_state: dict[str, Any]
    reward_info: dict[str, Any] | None = None


class SessionObservation(BaseModel):
    session_id: str
    observation: str
    valid_actions: dict[str, Any]
    done: bool
    page_state: dict[str, Any]


#: The shared body and handler codes (json_api) plus this API's own.
ErrorCode = Literal[BodyErrorCode, "invalid_goal", "unknown_session", "session_expired", "too_many_sessions"]


class ErrorBody(BaseModel):
    """Every ``/api/`` error: a message for people (``error``, kept from before codes) and a stable ``code``."""

    error: str
    code: ErrorCode
    detail: Any = Field(default=None, description="For invalid_body: pydantic's list of validation errors.")


# ---- state ------------------------------------------------------------------------------------
@dataclass
class _Lease:
    session: ShopSession
    mode: str
    last_used: float = field(default_factory=time.monotonic)


class _AppState:
    """Sessions of both kinds; the app is async-only, so no locks are needed."""

    def __init__(self, shop: Shop, ttl: float, cap: int, seed: int):
        self.shop, self.ttl, self.cap, self.seed = shop, ttl, cap, seed
        self.leases: dict[str, _Lease] = {}
        self.expired: OrderedDict[str, None] = OrderedDict()
        self.html: OrderedDict[str, tuple[ShopSession, float]] = OrderedDict()

    # API leases
    def sweep(self) -> None:
        now = time.monotonic()
        for sid in [s for s, lease in self.leases.items() if now - lease.last_used > self.ttl]:
            del self.leases[sid]
            self._mark_expired(sid)

    def _mark_expired(self, sid: str) -> None:
        self.expired[sid] = None
        while len(self.expired) > 100_000:
            self.expired.popitem(last=False)

    def lease(self, sid: str) -> _Lease:
        lease = self.leases.get(sid)
        now = time.monotonic()
        if lease is not None and now - lease.last_used > self.ttl:
            del self.leases[sid]
            self._mark_expired(sid)
            lease = None
        if lease is None:
            if sid in self.expired:
                raise ClientError(410, "session_expired",
                                  f"session {sid[:80]} expired after {self.ttl:g}s idle; open a new one")
            raise ClientError(404, "unknown_session", f"unknown session {sid[:80]}")
        lease.last_used = now
        return lease

    # HTML sessions: one ShopSession per id, least recently used dropped beyond the cap
    def html_session(self, sid: str, base: str) -> ShopSession:
        now = time.monotonic()
        entry = self.html.pop(sid, None)
        if entry is not None and (now - entry[1] > self.ttl or entry[0].done):
            entry = None
        session = entry[0] if entry else ShopSession(self.shop, self.shop.goal(self.goal_for(sid)), sid, base_url=base)
        self.html[sid] = (session, now)
        while len(self.html) > self.cap:
            self.html.popitem(last=False)
        return session

    def goal_for(self, sid: str) -> int:
        m = _FIXED.match(sid)
        if m:
            return int(m.group(1))
        if sid.isdigit():
            return int(sid)
        return self.shop.draw_goal_index(random.Random(f"{self.seed}:{sid}"))


def _html_error(status: int, title: str, message: str, sid: str | None = None) -> HTMLResponse:
    home = index_path(sid) if sid and _SID.match(sid) else None
    return HTMLResponse(render_error(status, title, message, home), status_code=status)


class _BadRequest(Exception):
    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


# ---- path parsing ---------------------------------------------------------------------------
def _raw_segments(request: Request, route: str) -> list[str]:
    """The still-encoded segments after ``/{route}/`` (raw path keeps encoded '/')."""
    raw = request.scope.get("raw_path")
    path = raw.decode("latin-1") if isinstance(raw, bytes) and raw else request.url.path
    path = path.split("?", 1)[0]
    marker = f"/{route}/"
    at = path.find(marker)
    return path[at + len(marker):].split("/") if at >= 0 else []


def _page(seg: str) -> int:
    text = unquote(seg)
    if not (text.isascii() and text.isdigit()) or len(text) > 6 or int(text) < 1:  # '²' is a digit to isdigit()
        raise _BadRequest(f"page number must be a positive integer, got {text[:40]!r}")
    return int(text)


def _keywords(raw: str) -> list[str]:
    try:
        return urls.parse_keywords(raw)
    except ActionError as exc:
        raise _BadRequest(str(exc)) from exc


def _options(raw: str) -> dict[str, str]:
    try:
        return urls.parse_options(raw)
    except ActionError as exc:
        raise _BadRequest(str(exc)) from exc


def _opts_start(segs: list[str], first: int, ok: Any) -> int:
    """Index where the options part starts: the first ``j >= first`` whose rest looks like options."""
    for j in range(first, len(segs)):
        if ok(j) and unquote(segs[j]).lstrip()[:1] in ("{", "N", ""):
            return j
    raise _BadRequest("could not find the options part (JSON or a dict literal) in the URL")


def _sid(seg: str) -> str:
    sid = unquote(seg)
    if not _SID.match(sid):
        raise _BadRequest(f"session id must be 1-128 letters, digits, '_', '-' or '.'; got {sid[:40]!r}")
    return sid


def _parse(route: str, segs: list[str]) -> dict[str, Any]:
    """URL parts for ShopSession.show, or ``_BadRequest`` saying what is wrong."""
    if route == "search_results":
        if len(segs) < 3:
            raise _BadRequest("expected /search_results/{session}/{keywords}/{page}")
        return {"sid": _sid(segs[0]), "page": "search_results", "keywords": _keywords("/".join(segs[1:-1])),
                "page_num": _page(segs[-1])}
    if route == "item_page":
        if len(segs) < 5:
            raise _BadRequest("expected /item_page/{session}/{asin}/{keywords}/{page}/{options}")
        j = 4 if len(segs) == 5 else _opts_start(segs, 4, lambda j: unquote(segs[j - 1]).isdigit())
        return {"sid": _sid(segs[0]), "page": "item_page", "asin": unquote(segs[1]),
                "keywords": _keywords("/".join(segs[2 : j - 1])), "page_num": _page(segs[j - 1]),
                "options": _options("/".join(segs[j:]))}
    if route == "item_sub_page":
        if len(segs) < 6:
            raise _BadRequest("expected /item_sub_page/{session}/{asin}/{keywords}/{page}/{sub_page}/{options}")
        j = 5 if len(segs) == 6 else _opts_start(
            segs, 5, lambda j: unquote(segs[j - 1]) in SUB_PAGES and unquote(segs[j - 2]).isdigit())
        sub = unquote(segs[j - 1])
        if sub not in SUB_PAGES:
            raise _BadRequest(f"sub-page must be one of {', '.join(SUB_PAGES)}; got {sub[:40]!r}")
        return {"sid": _sid(segs[0]), "page": "item_sub_page", "asin": unquote(segs[1]),
                "keywords": _keywords("/".join(segs[2 : j - 2])), "page_num": _page(segs[j - 2]),
                "sub_page": sub, "options": _options("/".join(segs[j:]))}
    if route == "done":
        if len(segs) < 3:
            raise _BadRequest("expected /done/{session}/{asin}/{options}")
        return {"sid": _sid(segs[0]), "page": "done", "asin": unquote(segs[1]), "options": _options("/".join(segs[2:]))}
    raise _BadRequest(f"unknown route {route}")


# ---- app ----------------------------------------------------------------------------------------
def create_app(
    shop: Shop,
    *,
    session_ttl_s: float = 900,
    max_sessions: int = 1000,
    seed: int = 0,
    extra_routes: Sequence[BaseRoute] = (),
) -> Starlette:
    """The web app over one shop: HTML routes, ``/static/`` and the JSON API under ``/api/``.

    ``extra_routes`` are mounted before the catch-all session route (``shopsim serve`` adds the run
    viewer, ``shopsim.agents.viewer.viewer_routes``, there).
    """
    st = _AppState(shop, session_ttl_s, max_sessions, seed)

    def base_of(request: Request) -> str:
        return str(request.base_url).rstrip("/")

    async def root(request: Request) -> Response:
        return RedirectResponse("/fixed_0", status_code=307)

    async def favicon(request: Request) -> Response:
        return Response(status_code=204)

    async def index(request: Request) -> Response:
        sid = request.path_params["session"]
        if not _SID.match(sid):
            return _html_error(400, "Bad session id", f"session id must be 1-128 letters, digits, '_', '-' or '.'; got {sid[:40]!r}")
        try:
            session = st.html_session(sid, base_of(request))
        except ConfigError as exc:
            return _html_error(404, "No such goal", str(exc))
        if request.method == "POST":
            try:
                check_content_length(request)
            except ClientError as exc:
                return _html_error(exc.status, "Request too large" if exc.status == 413 else "Bad request",
                                   exc.message, sid)
            form = await request.form()
            query = form.get("search_query")
            if isinstance(query, str):
                query = query.lower()
                if not query.strip():
                    return _html_error(400, "Empty search", "type some keywords before searching", sid)
                if len(query) > MAX_QUERY_CHARS:
                    return _html_error(400, "Search too long", f"queries are limited to {MAX_QUERY_CHARS} characters", sid)
                return RedirectResponse(results_path(sid, query.split(" "), 1), status_code=303)
        result = session.show("index")
        return HTMLResponse(render_html(result.state, shop.products))

    def page_route(route: str):
        async def handler(request: Request) -> Response:
            try:
                parts = _parse(route, _raw_segments(request, route))
            except _BadRequest as exc:
                return _html_error(400, "Bad request", exc.message)
            sid = parts.pop("sid")
            page = parts.pop("page")
            asin = parts.get("asin")
            if asin is not None:
                product = shop.product(asin)
                if product is None:
                    return _html_error(404, "Product not found", f"no product with ASIN {asin[:40]!r} in this shop's catalog", sid)
                parts["asin"] = product.asin
            try:
                session = st.html_session(sid, base_of(request))
                result = session.show(page, **parts)
            except ConfigError as exc:
                return _html_error(404, "No such goal", str(exc))
            except KeyError:
                return _html_error(404, "Product not found", f"no product with ASIN {asin!r}", sid)
            return HTMLResponse(render_html(result.state, shop.products))

        return handler

    async def image(request: Request) -> Response:
        """A product or option image (:mod:`shopsim.simsite.images`): drawn or a local file, cached by ETag."""
        ref = images.parse_image_path(_raw_segments(request, "static/img"))
        product = shop.product(ref.asin) if ref is not None else None
        # in a worker thread: a catalog may name local files, and reading them must not stall the loop
        found = await run_in_threadpool(images.image_for, product, ref) if product and ref else None
        if found is None:
            what = ref.asin[:40] if ref is not None else request.url.path[len("/static/img/"):][:40]
            return _html_error(404, "Image not found", f"no image {what!r} in this shop's catalog")
        headers = {"ETag": found.etag, "Cache-Control": IMAGE_CACHE_CONTROL, "X-Content-Type-Options": "nosniff",
                   "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'"}
        tags = {t.strip().removeprefix("W/") for t in request.headers.get("if-none-match", "").split(",")}
        if found.etag in tags or "*" in tags:
            return Response(status_code=304, headers=headers)
        return Response(found.body, media_type=found.media_type, headers=headers)

    # JSON API
    def pick_goal(body: CreateSession) -> int:
        n = len(shop.goals)
        lo, hi = SPLITS[body.split] if body.split else (0, n)
        hi = min(n, hi if hi is not None else n)
        if lo >= hi:
            raise ConfigError(f"split {body.split!r} is empty: this shop has {n} goals")
        if body.goal is not None:
            index = lo + body.goal
            if not lo <= index < hi:
                raise ConfigError(f"goal {body.goal} is outside split {body.split or 'all'} ({hi - lo} goals)")
            return index
        rng = random.Random(body.seed)
        return shop.draw_goal_index(rng) if body.split is None else rng.randrange(lo, hi)

    def obs(lease: _Lease) -> str:
        s = lease.session.state
        return render_rich(s) if lease.mode == "text_rich" else render_simple(s)

    async def api_create(request: Request) -> Response:
        body = await read_json_body(request, CreateSession)
        st.sweep()
        if len(st.leases) >= st.cap:
            raise ClientError(429, "too_many_sessions",
                              f"too many open sessions ({st.cap}); close some or wait for idle ones to expire")
        try:
            index = pick_goal(body)
        except ConfigError as exc:
            raise ClientError(400, "invalid_goal", str(exc)) from None
        sid = uuid.uuid4().hex
        session = ShopSession(shop, shop.goal(index), sid, strict=body.strict, max_steps=body.max_steps,
                              base_url=base_of(request))
        lease = _Lease(session, body.mode)
        st.leases[sid] = lease
        out = SessionCreated(session_id=sid, goal_index=index, observation=obs(lease),
                             valid_actions=session.state.valid_actions(), page_state=session.state.model_dump(mode="json"))
        return JSONResponse(out.model_dump(), status_code=201)

    async def api_step(request: Request) -> Response:
        lease = st.lease(request.path_params["sid"])
        body = await read_json_body(request, StepRequest)
        r = lease.session.step(body.action)
        s = r.state
        out = StepResponse(observation=obs(lease), reward=r.reward, done=r.done, truncated=r.truncated,
                           valid_actions=s.valid_actions(), feedback=s.feedback.model_dump(),
                           page_state=s.model_dump(mode="json"), reward_info=s.reward_info)
        return JSONResponse(out.model_dump())

    async def api_get(request: Request) -> Response:
        sid = request.path_params["sid"]
        lease = st.lease(sid)
        s = lease.session.state
        out = SessionObservation(session_id=sid, observation=obs(lease), valid_actions=s.valid_actions(),
                                 done=lease.session.done, page_state=s.model_dump(mode="json"))
        return JSONResponse(out.model_dump())

    async def api_delete(request: Request) -> Response:
        sid = request.path_params["sid"]
        st.lease(sid)  # 404 or 410 when there is nothing to close
        del st.leases[sid]
        return Response(status_code=204)

    async def api_openapi(request: Request) -> Response:
        return JSONResponse(openapi_spec())

    async def api_docs(request: Request) -> Response:
        return HTMLResponse(_DOCS_HTML)

    async def api_health(request: Request) -> Response:
        return JSONResponse({"ok": True, "products": len(shop.products), "goals": len(shop.goals),
                             "open_sessions": len(st.leases)})

    both = ["GET", "POST"]
    routes = [
        Route("/", root),
        Route("/favicon.ico", favicon),
        Route("/static/img/{rest:path}", image, methods=["GET"]),  # before the /static mount, which has no img/
        Mount("/static", app=StaticFiles(directory=str(STATIC)), name="static"),
        Route("/api/sessions", api_create, methods=["POST"]),
        Route("/api/sessions/{sid}/step", api_step, methods=["POST"]),
        Route("/api/sessions/{sid}", api_get, methods=["GET"]),
        Route("/api/sessions/{sid}", api_delete, methods=["DELETE"]),
        Route("/api/openapi.json", api_openapi),
        Route("/api/docs", api_docs),
        Route("/api/health", api_health),
        Route("/search_results/{rest:path}", page_route("search_results"), methods=both),
        Route("/item_page/{rest:path}", page_route("item_page"), methods=both),
        Route("/item_sub_page/{rest:path}", page_route("item_sub_page"), methods=both),
        Route("/done/{rest:path}", page_route("done"), methods=both),
    ]
    routes += list(extra_routes)  # before the catch-all session route, which would take /runs
    routes.append(Route("/{session}", index, methods=both))

    async def not_found(request: Request, exc: Exception) -> Response:
        return _html_error(404, "Not found", f"no page at {request.url.path[:200]}")

    async def method_not_allowed(request: Request, exc: Exception) -> Response:
        response = _html_error(405, "Method not allowed", f"{request.method} is not allowed on {request.url.path[:200]}")
        response.headers["Allow"] = (getattr(exc, "headers", None) or {}).get("Allow", "GET, POST")
        return response

    async def server_error(request: Request, exc: Exception) -> Response:
        return _html_error(500, "Internal error", f"{type(exc).__name__}: {str(exc)[:300]}")

    api = json_error_handlers()

    def api_or_html(key: int, html: Handler) -> Handler:
        """JSON errors under ``/api/`` (what API clients parse), HTML pages everywhere else."""
        async def handler(request: Request, exc: Exception) -> Response:
            return await (api[key] if request.url.path.startswith("/api/") else html)(request, exc)

        return handler

    handlers = {ClientError: api[ClientError], 404: api_or_html(404, not_found),
                405: api_or_html(405, method_not_allowed), 500: api_or_html(500, server_error)}
    app = Starlette(routes=routes, exception_handlers=handlers)
    app.state.shop = shop
    app.state.sessions = st
    return app


# ---- OpenAPI -------------------------------------------------------------------------------------
def openapi_spec() -> dict[str, Any]:
    """A static OpenAPI 3.1 document built from the pydantic models' JSON schemas.

    Every error status an operation can answer is listed with its codes, so a client (or a fuzzer
    reading this document) can tell a documented refusal from a bug.
    """
    models = [CreateSession, StepRequest, SessionCreated, StepResponse, SessionObservation, ErrorBody]
    schemas: dict[str, Any] = {}
    for m in models:
        schema = m.model_json_schema(ref_template="#/components/schemas/{model}")
        schemas.update(schema.pop("$defs", {}))
        schemas[m.__name__] = schema

    def ref(name: str) -> dict[str, Any]:
        return {"content": {"application/json": {"schema": {"$ref": f"#/components/schemas/{name}"}}}}

    def err(description: str) -> dict[str, Any]:
        return {"description": description, **ref("ErrorBody")}

    body = {status: err(text) for status, text in BODY_ERROR_DOCS.items()}  # 400, 413, 415, 422
    wrong_method = err("this method is not allowed on this path (method_not_allowed)")
    unknown = err("no open session with this id (unknown_session)")
    expired = err("the session was idle past its TTL (session_expired); open a new one")
    sid = [{"name": "sid", "in": "path", "required": True, "schema": {"type": "string"}}]
    json_object = {"content": {"application/json": {"schema": {"type": "object"}}}}
    return {
        "openapi": "3.1.0",
        "info": {"title": "shopsim API", "version": "0.1.0",
                 "description": "Sessions are leases: idle ones expire (410); open sessions are capped (429). "
                                "Errors are JSON {error, code, detail?}; no client input gets a 500."},
        "paths": {
            "/api/sessions": {"post": {
                "summary": "Open a session", "requestBody": {"required": False, **ref("CreateSession")},
                "responses": {"201": {"description": "created", **ref("SessionCreated")}, **body,
                              "400": err(BODY_ERROR_DOCS["400"] + "; or a goal outside the split (invalid_goal)"),
                              "405": wrong_method, "429": err("too many open sessions (too_many_sessions)")}}},
            "/api/sessions/{sid}/step": {"post": {
                "summary": "Apply one action", "parameters": sid, "requestBody": {"required": True, **ref("StepRequest")},
                "responses": {"200": {"description": "stepped", **ref("StepResponse")}, **body,
                              "404": unknown, "405": wrong_method, "410": expired}}},
            "/api/sessions/{sid}": {
                "get": {"summary": "Current observation", "parameters": sid,
                        "responses": {"200": {"description": "ok", **ref("SessionObservation")}, "404": unknown,
                                      "405": wrong_method, "410": expired}},
                "delete": {"summary": "Close a session", "parameters": sid,
                           "responses": {"204": {"description": "closed"}, "404": unknown, "405": wrong_method,
                                         "410": expired}},
            },
            "/api/health": {"get": {"summary": "Liveness and open sessions",
                                    "responses": {"200": {"description": "ok", **json_object}}}},
            "/api/openapi.json": {"get": {"summary": "This document",
                                          "responses": {"200": {"description": "the OpenAPI 3.1 document",
                                                                **json_object}}}},
        },
        "components": {"schemas": schemas},
    }


_DOCS_HTML = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>shopsim API</title>
<link rel="stylesheet" href="/static/style.css"></head><body><div class="container">
<h1>shopsim JSON API</h1>
<p>Machine-readable spec: <a href="/api/openapi.json">/api/openapi.json</a>.
Sessions are leases: idle sessions expire (HTTP 410), open sessions are capped (HTTP 429).
Errors are JSON <code>{"error": message, "code": code}</code> (plus <code>detail</code> on 422); bodies must be
JSON objects sent as <code>application/json</code> (or without a Content-Type); larger than the limit is HTTP 413.</p>
<table><thead><tr><th>method</th><th>path</th><th>body</th><th>returns</th></tr></thead><tbody>
<tr><td>POST</td><td>/api/sessions</td><td>{goal, split, seed, mode, strict, max_steps}</td>
<td>{session_id, goal_index, observation, valid_actions, page_state}</td></tr>
<tr><td>POST</td><td>/api/sessions/{id}/step</td><td>{action}</td>
<td>{observation, reward, done, truncated, valid_actions, feedback, page_state, reward_info}</td></tr>
<tr><td>GET</td><td>/api/sessions/{id}</td><td></td><td>{session_id, observation, valid_actions, done, page_state}</td></tr>
<tr><td>DELETE</td><td>/api/sessions/{id}</td><td></td><td>204</td></tr>
<tr><td>GET</td><td>/api/health</td><td></td><td>{ok, products, goals, open_sessions}</td></tr>
</tbody></table>
<p>HTML pages follow WebShop's URL scheme: <code>/{session}</code>, <code>/search_results/...</code>,
<code>/item_page/...</code>, <code>/item_sub_page/...</code>, <code>/done/...</code>.</p>
</div></body></html>
"""
