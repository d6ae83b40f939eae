"""The sim as a web app: WebShop's five HTML routes plus a JSON API with session leases.

HTML routes follow WebShop's URL scheme (keywords as a list repr, '+'-joined or plain; options as
JSON or a dict literal) so WebShop's recorded URLs and HTML clients work unchanged (they are read
back by :mod:`shopsim.routes`, the one route table). Bad input gives a 400/404 page that says what is wrong,
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
characters) or nested past ``MAX_JSON_DEPTH`` (``json_too_deep``), 429 too many open sessions. Models and the OpenAPI document live in
:mod:`shopsim.simsite.api_schema`, the endpoints in :mod:`shopsim.simsite.web_api`.

Every endpoint is a module-level function reading the shop and sessions from ``request.app.state``
(:class:`shopsim.simsite.web_state.AppState`); ``create_app`` only builds that state and the route list.

Snapshots (:mod:`shopsim.simsite.snapshots`): ``POST /api/sessions/{id}/snapshot`` answers an opaque
token, ``POST /api/sessions/{id}/restore`` puts a session into a token's state and ``POST
/api/sessions`` with ``{"snapshot": token}`` opens a new one in it; a token that is malformed,
altered or from a shop with another catalog or goal set is 400 ``invalid_snapshot``; a session
whose state will not fit a token (hundreds of visited products) is 409 ``snapshot_too_large``.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from pathlib import Path

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

from shopsim.errors import ConfigError, DataError
from shopsim.page import PageState
from shopsim.routes import ROUTE_NAMES, BadRequest, index_path, parse_route, raw_segments, results_path
from shopsim.routes import SID as _SID
from shopsim.simsite import images
from shopsim.simsite.html import render_error
from shopsim.simsite.json_api import (
    ClientError,
    Handler,
    check_content_length,
    data_error_line,
    json_error_handlers,
)
from shopsim.simsite.perturb import PerturbSpec, perturbed_skin
from shopsim.simsite.search import MAX_QUERY_CHARS
from shopsim.simsite.server import warming_lifespan
from shopsim.simsite.session_log import SessionLogWriter, keywords_text, served_url, session_line
from shopsim.simsite.shop import Shop
from shopsim.simsite.skins import get_skin, session_skin
from shopsim.simsite.warmup import warm_webshop
from shopsim.simsite.web_api import API_ROUTES, base_of
from shopsim.simsite.web_state import AppState

__all__ = ["create_app"]

STATIC = Path(__file__).resolve().parent / "static"
#: Images are a pure function of the catalog: browsers may reuse them for an hour, then revalidate by ETag.
IMAGE_CACHE_CONTROL = "public, max-age=3600"


def _raw_path(request: Request) -> str:
    """The path as sent, still percent-encoded (so an encoded '/' stays inside its segment)."""
    raw = request.scope.get("raw_path")
    return raw.decode("latin-1") if isinstance(raw, bytes) and raw else request.url.path


def _state(request: Request) -> AppState:
    return request.app.state.sessions


def _html_error(status: int, title: str, message: str, sid: str | None = None) -> HTMLResponse:
    home = index_path(sid) if sid and _SID.match(sid) else None
    return HTMLResponse(render_error(status, title, message, home), status_code=status)


# ---- HTML endpoints -----------------------------------------------------------------------------
async def root(request: Request) -> Response:
    """WebShop's home: a redirect to its one default session, ``abc`` (a random goal)."""
    return RedirectResponse(index_path("abc"), status_code=302)


async def favicon(request: Request) -> Response:
    return Response(status_code=204)


async def _search_redirect(request: Request, sid: str) -> Response | None:
    """A POSTed search as a redirect to its results (or an error page); None when the form has no query."""
    try:
        check_content_length(request)
    except ClientError as exc:
        return _html_error(exc.status, "Request too large" if exc.status == 413 else "Bad request", exc.message, sid)
    form = await request.form()
    query = form.get("search_query")
    if not isinstance(query, str):
        return None
    query = query.lower()
    if not query.strip():
        return _html_error(400, "Empty search", "type some keywords before searching", sid)
    if len(query) > MAX_QUERY_CHARS:
        return _html_error(400, "Search too long", f"queries are limited to {MAX_QUERY_CHARS} characters", sid)
    return RedirectResponse(results_path(sid, query.split(" "), 1), status_code=303)


async def index(request: Request) -> Response:
    """A session's search page; a POSTed search redirects to its results."""
    st = _state(request)
    sid = request.path_params["session"]
    if not _SID.match(sid):
        return _html_error(400, "Bad session id", f"session id must be 1-128 letters, digits, '_', '-' or '.'; got {sid[:40]!r}")
    try:
        session = st.html_session(sid, base_of(request))
    except ConfigError as exc:
        return _html_error(404, "No such goal", str(exc))
    if request.method == "POST":
        redirect = await _search_redirect(request, sid)
        if redirect is not None:
            return redirect
    result = session.show("index")
    if st.log is not None:
        st.log.write(sid, session_line(session, "index", served_url(request), {}))
    return HTMLResponse(_page(request, sid, result.state))


def _page(request: Request, sid: str, state: PageState) -> str:
    """The page in the session's skin: the server's one, or for ``random`` one drawn from the server's seed and
    the session's goal (so an episode keeps its skin, and the same goal and seed give the same skin and bytes).
    """
    st = _state(request)
    choice = request.app.state.skin
    key = str(st.goal_for(sid)) if choice == "random" else sid
    return perturbed_skin(session_skin(choice, st.seed, key), request.app.state.perturb).render(state, st.shop.products)


async def html_page(request: Request, route: str) -> Response:
    """One of WebShop's page routes (results, item, sub-page, done), read with the route table."""
    st = _state(request)
    segs = raw_segments(_raw_path(request), route)
    try:
        parts = parse_route(route, segs)
    except BadRequest as exc:
        return _html_error(400, "Bad request", exc.message)
    sid = parts.pop("sid")
    page = parts.pop("page")
    asin = parts.get("asin")
    if asin is not None:
        product = st.shop.product(asin)
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
    if st.log is not None:
        st.log.write(sid, session_line(session, page, served_url(request), parts, keywords_text(route, segs)))
    return HTMLResponse(_page(request, sid, result.state))


async def image(request: Request) -> Response:
    """A product or option image (:mod:`shopsim.simsite.images`): drawn or a local file, cached by ETag."""
    shop = _state(request).shop
    ref = images.parse_image_path(raw_segments(_raw_path(request), "static/img"))
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


# ---- errors: JSON under /api/, HTML pages elsewhere ---------------------------------------------
async def not_found(request: Request, exc: Exception) -> Response:
    return _html_error(404, "Not found", f"no page at {request.url.path[:200]}")


async def method_not_allowed(request: Request, exc: Exception) -> Response:
    response = _html_error(405, "Method not allowed", f"{request.method} is not allowed on {request.url.path[:200]}")
    response.headers["Allow"] = (getattr(exc, "headers", None) or {}).get("Allow", "GET, POST")
    return response


async def server_error(request: Request, exc: Exception) -> Response:
    return _html_error(500, "Internal error", f"{type(exc).__name__}: {str(exc)[:300]}")


async def data_error(request: Request, exc: Exception) -> Response:
    return _html_error(503, "Data error", data_error_line(exc))


_API_ERRORS = json_error_handlers()


async def _api_or_html(request: Request, exc: Exception, key: object, html: Handler) -> Response:
    """JSON errors under ``/api/`` (what API clients parse), HTML pages everywhere else."""
    return await (_API_ERRORS[key] if request.url.path.startswith("/api/") else html)(request, exc)


EXCEPTION_HANDLERS: dict[object, Handler] = {
    ClientError: _API_ERRORS[ClientError],
    DataError: partial(_api_or_html, key=DataError, html=data_error),
    404: partial(_api_or_html, key=404, html=not_found),
    405: partial(_api_or_html, key=405, html=method_not_allowed),
    500: partial(_api_or_html, key=500, html=server_error),
}


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
    skin: str = "webshop",
    perturb: PerturbSpec | None = None,
) -> Starlette:
    """The web app over one shop: HTML routes, ``/static/`` and the JSON API under ``/api/``.

    ``extra_routes`` are mounted before the catch-all session route (``shopsim serve`` adds the run
    viewer, ``shopsim.agents.reports.viewer.viewer_routes``, there). ``snapshot_key`` signs snapshot tokens
    (default: ``SHOPSIM_SNAPSHOT_KEY``, else a public checksum key; see :mod:`shopsim.simsite.snapshots`).
    ``log_dir`` writes every HTML session's pages there in WebShop's ``user_session_logs`` format
    (:mod:`shopsim.simsite.session_log`). A server that runs the app's lifespan (``shopsim serve``)
    warms it up before accepting requests (:mod:`shopsim.simsite.warmup`). ``skin`` draws the HTML pages
    in a real site's structure (:mod:`shopsim.simsite.skins`; ``random``: one per session, from ``seed``);
    ``perturb`` varies them as real pages vary (:mod:`shopsim.simsite.perturb`).
    """
    if skin != "random":
        get_skin(skin)  # an unknown name fails here, with the likely one
    log = SessionLogWriter(log_dir) if log_dir is not None else None
    both = ["GET", "POST"]
    routes: list[BaseRoute] = [
        *API_ROUTES,  # first: Starlette tries routes in order, and API calls are the most frequent
        Route("/", root),
        Route("/favicon.ico", favicon),
        Route("/static/img/{rest:path}", image, methods=["GET"]),  # before the /static mount, which has no img/
        Mount("/static", app=StaticFiles(directory=str(STATIC)), name="static"),
        *(Route(f"/{name}/{{rest:path}}", partial(html_page, route=name), methods=both) for name in ROUTE_NAMES),
        *extra_routes,  # before the catch-all session route, which would take /runs
        Route("/{session}", index, methods=both),
    ]
    app = Starlette(routes=routes, exception_handlers=EXCEPTION_HANDLERS, lifespan=warming_lifespan(warm_webshop))
    app.state.shop = shop
    app.state.warmup = None
    app.state.sessions = AppState(shop, session_ttl_s, max_sessions, seed, snapshot_key=snapshot_key, log=log)
    app.state.session_log = log
    app.state.skin = skin
    app.state.perturb = perturb or PerturbSpec(seed=seed)
    return app
