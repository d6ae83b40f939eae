"""The sim as a web app: WebShop's five HTML routes plus a JSON API with session leases.

HTML routes follow WebShop's URL scheme (keywords as a list repr, '+'-joined or plain; options as
JSON or a dict literal) so WebShop's recorded URLs and HTML clients work unchanged (they are read
back by :mod:`shopsim.simsite.web_paths`). Bad input gives a 400/404 page that says what is wrong,
never a 500. As in WebShop's app, ``/`` redirects to session ``abc``, a session keeps its goal for
the server's life (``fixed_<n>`` re-opened, or bought from again, is goal n again; each purchase is
scored anew) and ``log_dir`` records every page in WebShop's session-log format. Product and
option images are served under ``/static/img/`` (:mod:`shopsim.simsite.images`: SVG drawn on
request, ETag, one hour's cache).

The JSON API reads bodies through :mod:`shopsim.simsite.json_api` (shared with the v8 service), so
every ``/api/`` error, a 500 included, is JSON ``{"error": message, "code": code}`` (``detail`` on
422): 400 malformed JSON or an unknown goal, 404 unknown session or endpoint, 405 wrong method, 410
expired session, 413 a body over ``MAX_BODY_BYTES``, 415 a Content-Type that is not JSON, 422 a
body that is JSON but invalid (integers must be JSON integers; actions at most ``MAX_ACTION_CHARS``
characters), 429 too many open sessions. Models and the OpenAPI document live in
:mod:`shopsim.simsite.api_schema`.

Snapshots (:mod:`shopsim.simsite.snapshots`): ``POST /api/sessions/{id}/snapshot`` answers an opaque
token, ``POST /api/sessions/{id}/restore`` puts a session into a token's state and ``POST
/api/sessions`` with ``{"snapshot": token}`` opens a new one in it; a token that is malformed,
altered or from a shop with another catalog or goal set is 400 ``invalid_snapshot``; a session
whose state will not fit a token (hundreds of visited products) is 409 ``snapshot_too_large``.
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

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

from shopsim.errors import ConfigError
from shopsim.links import index_path, results_path
from shopsim.render import render_rich, render_simple
from shopsim.simsite import images
from shopsim.simsite.api_schema import (
    DOCS_HTML,
    CreateSession,
    RestoreRequest,
    SessionCreated,
    SessionObservation,
    SessionRestored,
    SnapshotCreated,
    StepRequest,
    StepResponse,
    openapi_spec,
)
from shopsim.simsite.html import render_error, render_html
from shopsim.simsite.json_api import (
    ClientError,
    Handler,
    check_content_length,
    json_error_handlers,
    read_json_body,
)
from shopsim.simsite.search import MAX_QUERY_CHARS
from shopsim.simsite.session import ShopSession
from shopsim.simsite.session_log import SessionLogWriter, keywords_text, served_url, session_line
from shopsim.simsite.shop import Shop
from shopsim.simsite.snapshots import SnapshotError
from shopsim.simsite.web_paths import SID as _SID
from shopsim.simsite.web_paths import BadRequest, parse_route, raw_segments

__all__ = ["create_app"]

STATIC = Path(__file__).resolve().parent / "static"
_FIXED = re.compile(r"^fixed_(\d+)(?:[_.\-].*)?$")
#: Images are a pure function of the catalog: browsers may reuse them for an hour, then revalidate by ETag.
IMAGE_CACHE_CONTROL = "public, max-age=3600"
#: WebShop's goal splits: test = first 500, eval = next 1000, train = the rest.
SPLITS = {"test": (0, 500), "eval": (500, 1500), "train": (1500, None)}


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


# ---- app ----------------------------------------------------------------------------------------
def create_app(
    shop: Shop,
    *,
    session_ttl_s: float = 900,
    max_sessions: int = 1000,
    seed: int = 0,
    extra_routes: Sequence[BaseRoute] = (),
    snapshot_key: str | None = None,
    log_dir: str | Path | None = None,
) -> Starlette:
    """The web app over one shop: HTML routes, ``/static/`` and the JSON API under ``/api/``.

    ``extra_routes`` are mounted before the catch-all session route (``shopsim serve`` adds the run
    viewer, ``shopsim.agents.reports.viewer.viewer_routes``, there). ``snapshot_key`` signs snapshot tokens
    (default: ``SHOPSIM_SNAPSHOT_KEY``, else a public checksum key; see :mod:`shopsim.simsite.snapshots`).
    ``log_dir`` writes every HTML session's pages there in WebShop's ``user_session_logs`` format
    (:mod:`shopsim.simsite.session_log`).
    """
    st = _AppState(shop, session_ttl_s, max_sessions, seed)
    log = SessionLogWriter(log_dir) if log_dir is not None else None

    def base_of(request: Request) -> str:
        return str(request.base_url).rstrip("/")

    async def root(request: Request) -> Response:
        """WebShop's home: a redirect to its one default session, ``abc`` (a random goal)."""
        return RedirectResponse(index_path("abc"), status_code=302)

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
        if log is not None:
            log.write(sid, session_line(session, "index", served_url(request), {}))
        return HTMLResponse(render_html(result.state, shop.products))

    def page_route(route: str):
        async def handler(request: Request) -> Response:
            segs = raw_segments(request, route)
            try:
                parts = parse_route(route, segs)
            except BadRequest as exc:
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
            if log is not None:
                log.write(sid, session_line(session, page, served_url(request), parts, keywords_text(route, segs)))
            return HTMLResponse(render_html(result.state, shop.products))

        return handler

    async def image(request: Request) -> Response:
        """A product or option image (:mod:`shopsim.simsite.images`): drawn or a local file, cached by ETag."""
        ref = images.parse_image_path(raw_segments(request, "static/img"))
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
        sid = uuid.uuid4().hex
        if body.snapshot is not None:
            try:
                session = ShopSession.from_snapshot(shop, body.snapshot, session_id=sid, base_url=base_of(request),
                                                    key=snapshot_key)
            except SnapshotError as exc:
                raise ClientError(400, "invalid_snapshot", str(exc)) from None
            assert session.goal_index is not None  # from_snapshot sets it from the token
            index = session.goal_index
        else:
            try:
                index = pick_goal(body)
            except ConfigError as exc:
                raise ClientError(400, "invalid_goal", str(exc)) from None
            session = ShopSession(shop, shop.goal(index), sid, strict=body.strict, max_steps=body.max_steps,
                                  base_url=base_of(request), goal_index=index)
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

    async def api_snapshot(request: Request) -> Response:
        lease = st.lease(request.path_params["sid"])
        try:
            token = lease.session.snapshot(key=snapshot_key)
        except SnapshotError as exc:  # a state too large for a token
            raise ClientError(409, "snapshot_too_large", str(exc)) from None
        return JSONResponse(SnapshotCreated(snapshot=token).model_dump())

    async def api_restore(request: Request) -> Response:
        sid = request.path_params["sid"]
        lease = st.lease(sid)
        body = await read_json_body(request, RestoreRequest)
        try:
            s = lease.session.restore(body.snapshot, key=snapshot_key)
        except SnapshotError as exc:
            raise ClientError(400, "invalid_snapshot", str(exc)) from None
        assert lease.session.goal_index is not None  # restore sets it from the token
        out = SessionRestored(session_id=sid, goal_index=lease.session.goal_index, observation=obs(lease),
                              valid_actions=s.valid_actions(), done=lease.session.done,
                              page_state=s.model_dump(mode="json"))
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
        return HTMLResponse(DOCS_HTML)

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
        Route("/api/sessions/{sid}/snapshot", api_snapshot, methods=["POST"]),
        Route("/api/sessions/{sid}/restore", api_restore, methods=["POST"]),
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
    app.state.session_log = log
    return app
