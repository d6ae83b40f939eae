"""WebShop's URL scheme read back into ``ShopSession.show`` arguments, or a :class:`BadRequest` saying why not.

Path segments are read from the raw (still percent-encoded) path, so an encoded '/' inside keywords
or options survives; unencoded odd URLs (as in WebShop's recordings) are split heuristically.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import unquote

from starlette.requests import Request

from shopsim.errors import ActionError
from shopsim.simsite import urls
from shopsim.simsite.session import SUB_PAGES

__all__ = ["SID", "BadRequest", "parse_route", "raw_segments"]

SID = re.compile(r"^[A-Za-z0-9_.\-]{1,128}$")


class BadRequest(Exception):
    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


def raw_segments(request: Request, route: str) -> list[str]:
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
        raise BadRequest(f"page number must be a positive integer, got {text[:40]!r}")
    return int(text)


def _keywords(raw: str) -> list[str]:
    try:
        return urls.parse_keywords(raw)
    except ActionError as exc:
        raise BadRequest(str(exc)) from exc


def _options(raw: str) -> dict[str, str]:
    try:
        return urls.parse_options(raw)
    except ActionError as exc:
        raise BadRequest(str(exc)) from exc


def _opts_start(segs: list[str], first: int, ok: Any) -> int:
    """Index where the options part starts: the first ``j >= first`` whose rest looks like options."""
    for j in range(first, len(segs)):
        if ok(j) and unquote(segs[j]).lstrip()[:1] in ("{", "N", ""):
            return j
    raise BadRequest("could not find the options part (JSON or a dict literal) in the URL")


def _sid(seg: str) -> str:
    sid = unquote(seg)
    if not SID.match(sid):
        raise BadRequest(f"session id must be 1-128 letters, digits, '_', '-' or '.'; got {sid[:40]!r}")
    return sid


def parse_route(route: str, segs: list[str]) -> dict[str, Any]:
    """URL parts for ShopSession.show, or ``BadRequest`` saying what is wrong."""
    if route == "search_results":
        if len(segs) < 3:
            raise BadRequest("expected /search_results/{session}/{keywords}/{page}")
        return {"sid": _sid(segs[0]), "page": "search_results", "keywords": _keywords("/".join(segs[1:-1])),
                "page_num": _page(segs[-1])}
    if route == "item_page":
        if len(segs) < 5:
            raise BadRequest("expected /item_page/{session}/{asin}/{keywords}/{page}/{options}")
        j = 4 if len(segs) == 5 else _opts_start(segs, 4, lambda j: unquote(segs[j - 1]).isdigit())
        return {"sid": _sid(segs[0]), "page": "item_page", "asin": unquote(segs[1]),
                "keywords": _keywords("/".join(segs[2 : j - 1])), "page_num": _page(segs[j - 1]),
                "options": _options("/".join(segs[j:]))}
    if route == "item_sub_page":
        if len(segs) < 6:
            raise BadRequest("expected /item_sub_page/{session}/{asin}/{keywords}/{page}/{sub_page}/{options}")
        j = 5 if len(segs) == 6 else _opts_start(
            segs, 5, lambda j: unquote(segs[j - 1]) in SUB_PAGES and unquote(segs[j - 2]).isdigit())
        sub = unquote(segs[j - 1])
        if sub not in SUB_PAGES:
            raise BadRequest(f"sub-page must be one of {', '.join(SUB_PAGES)}; got {sub[:40]!r}")
        return {"sid": _sid(segs[0]), "page": "item_sub_page", "asin": unquote(segs[1]),
                "keywords": _keywords("/".join(segs[2 : j - 2])), "page_num": _page(segs[j - 2]),
                "sub_page": sub, "options": _options("/".join(segs[j:]))}
    if route == "done":
        if len(segs) < 3:
            raise BadRequest("expected /done/{session}/{asin}/{options}")
        return {"sid": _sid(segs[0]), "page": "done", "asin": unquote(segs[1]), "options": _options("/".join(segs[2:]))}
    raise BadRequest(f"unknown route {route}")

