"""WebShop's URL scheme in one table: each route's segments, how they are built and how they are read back.

The shop writes its own URLs raw, as WebShop does (``ShopSession`` states, session logs: clients
match on them), while the pages it serves link with the same URLs percent-encoded per segment, so
odd keywords or option values (``/``, ``#``, ``%``, quotes) survive a real browser. Both spellings
come from one :class:`Route` per page, and so does the parser the web app (and the demo reader)
use; it lives in the core so the shop, the translators and the page sources share it. Options are
JSON in item-page URLs and a Python dict repr in sub-page and done URLs (as WebShop does); they are
read safely (JSON or ``ast.literal_eval`` of a size-limited literal, never ``eval``).
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Literal
from urllib.parse import quote, unquote, unquote_plus, urlsplit

from shopsim.errors import ActionError

__all__ = [
    "DEFAULT_BASE_URL",
    "MAX_SEGMENT_CHARS",
    "ROUTES",
    "ROUTE_NAMES",
    "SID",
    "SUB_PAGES",
    "BadRequest",
    "Route",
    "done_path",
    "done_url",
    "index_path",
    "index_url",
    "item_path",
    "item_paths",
    "item_url",
    "item_url_parts",
    "parse_keywords",
    "parse_options",
    "parse_route",
    "raw_segments",
    "results_path",
    "results_url",
    "results_url_parts",
    "split_state_url",
    "sub_page_path",
    "sub_page_url",
]

DEFAULT_BASE_URL = "http://127.0.0.1:3000"
MAX_SEGMENT_CHARS = 2000
SID = re.compile(r"^[A-Za-z0-9_.\-]{1,128}$")
#: The item's sub pages, in the order its buttons show them.
SUB_PAGES = ("Description", "Features", "Reviews", "Attributes")

Kind = Literal["text", "keywords", "page", "json", "repr"]


class BadRequest(Exception):
    """A URL the scheme cannot read; ``message`` says what is wrong (the web app answers it as a 400)."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


# ---- building -------------------------------------------------------------------------------------
def _raw(kind: Kind, value: Any) -> str:
    """A segment as WebShop writes it: unencoded, keywords '+'-joined."""
    if kind == "keywords":
        return "+".join(value)
    if kind == "json":
        return json.dumps(value) if value else "{}"  # no options is the common case; same text
    return f"{value}"


@lru_cache(maxsize=1 << 14)
def _quote(text: str, safe: str = "") -> str:
    """``quote(text, safe=safe)``, remembered: a page's links encode the same session, keywords and
    options again and again (an item page some 60 segments), and the next page the same ones.
    """
    return quote(text, safe=safe)


def _encoded(kind: Kind, value: Any) -> str:
    """A segment percent-encoded for a link (':' and ',' kept in options, as the pages always had)."""
    if kind == "keywords":
        return "+".join([_quote(k) for k in value])
    if kind == "json":
        return _quote(json.dumps(value), ":,")
    if kind == "repr":
        return _quote(repr(value), ":,")
    if kind == "page":
        return f"{value}"
    return _quote(value)


@dataclass(frozen=True)
class Route:
    """One page's URL: ``/{name}/{segment}/...`` (the index has no name), its builder and its parser."""

    name: str
    segments: tuple[tuple[str, Kind], ...]
    parse: Callable[[list[str]], dict[str, Any]]

    def build(self, fields: dict[str, Any], *, encoded: bool) -> str:
        """The path (no base URL) of this route for ``fields``, raw or percent-encoded per segment."""
        spell = _encoded if encoded else _raw
        segs = [spell(kind, fields[field]) for field, kind in self.segments]
        return "/" + "/".join([self.name, *segs] if self.name else segs)

    def build_each(self, fields: dict[str, Any], vary: str, values: Iterable[Any]) -> list[str]:
        """``build({**fields, vary: v}, encoded=True)`` for each of ``values``, the other segments encoded once
        (an item page links each option value: the same path but for its options).
        """
        names = [f for f, _ in self.segments]
        at = names.index(vary)
        kind = self.segments[at][1]
        parts = ([self.name] if self.name else []) + [_encoded(k, fields[f]) for f, k in self.segments if f != vary]
        at += 1 if self.name else 0
        head = "/" + "".join(p + "/" for p in parts[:at])
        tail = "".join("/" + p for p in parts[at:])
        return [head + _encoded(kind, v) + tail for v in values]

    def build_around(self, hole: str, fields: dict[str, Any]) -> tuple[str, str]:
        """``(head, tail)`` of the raw path around the field ``hole`` (a text or page segment, spelled
        ``f"{value}"``): ``head + f"{value}" + tail`` is ``build({**fields, hole: value}, encoded=False)``.
        """
        kinds = dict(self.segments)
        if kinds.get(hole) not in ("text", "page"):
            raise ValueError(f"{hole!r} is not a text or page segment of the {self.name or 'index'} route")
        parts = [self.name] if self.name else []
        at = len(parts) + [f for f, _ in self.segments].index(hole)
        parts += ["" if f == hole else _raw(kind, fields[f]) for f, kind in self.segments]
        return "/" + "/".join([*parts[:at], ""]), "".join("/" + p for p in parts[at + 1:])


# ---- reading --------------------------------------------------------------------------------------
def parse_keywords(segment: str) -> list[str]:
    """Keywords from a URL segment: a Python list repr, '+'-joined words, or plain text."""
    text = unquote(segment)
    if len(text) > MAX_SEGMENT_CHARS:
        raise ActionError(f"keywords segment is {len(text)} characters; the limit is {MAX_SEGMENT_CHARS}")
    if text.startswith("["):
        try:
            value = ast.literal_eval(text)
        except (ValueError, SyntaxError, MemoryError, RecursionError) as exc:
            raise ActionError(f"keywords segment {text[:80]!r} is not a valid list literal") from exc
        if not isinstance(value, list) or not all(isinstance(x, str) for x in value):
            raise ActionError("keywords list must hold only strings")
        return value
    return unquote_plus(segment).split(" ") if "+" in segment else text.split(" ")


def parse_options(segment: str) -> dict[str, str]:
    """Options from a URL segment: JSON or a Python dict literal of strings."""
    text = unquote(segment)
    if len(text) > MAX_SEGMENT_CHARS:
        raise ActionError(f"options segment is {len(text)} characters; the limit is {MAX_SEGMENT_CHARS}")
    if text.strip() in ("", "{}", "None"):
        return {}
    value: object
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        try:
            value = ast.literal_eval(text)
        except (ValueError, SyntaxError, MemoryError, RecursionError) as exc:
            raise ActionError(f"options segment {text[:80]!r} is neither JSON nor a dict literal") from exc
    if not isinstance(value, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
        raise ActionError("options must map option names to option values (strings)")
    return value


def _page(seg: str) -> int:
    text = unquote(seg)
    if not (text.isascii() and text.isdigit()) or len(text) > 6 or int(text) < 1:  # '²' is a digit to isdigit()
        raise BadRequest(f"page number must be a positive integer, got {text[:40]!r}")
    return int(text)


def _keywords(raw: str) -> list[str]:
    try:
        return parse_keywords(raw)
    except ActionError as exc:
        raise BadRequest(str(exc)) from exc


def _options(raw: str) -> dict[str, str]:
    try:
        return parse_options(raw)
    except ActionError as exc:
        raise BadRequest(str(exc)) from exc


def _opts_start(segs: list[str], first: int, ok: Callable[[int], bool]) -> int:
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


def _read_index(segs: list[str]) -> dict[str, Any]:
    if len(segs) != 1:
        raise BadRequest("expected /{session}")
    return {"sid": _sid(segs[0]), "page": "index"}


def _read_results(segs: list[str]) -> dict[str, Any]:
    if len(segs) < 3:
        raise BadRequest("expected /search_results/{session}/{keywords}/{page}")
    return {"sid": _sid(segs[0]), "page": "search_results", "keywords": _keywords("/".join(segs[1:-1])),
            "page_num": _page(segs[-1])}


def _read_item(segs: list[str]) -> dict[str, Any]:
    if len(segs) < 5:
        raise BadRequest("expected /item_page/{session}/{asin}/{keywords}/{page}/{options}")
    j = 4 if len(segs) == 5 else _opts_start(segs, 4, lambda j: unquote(segs[j - 1]).isdigit())
    return {"sid": _sid(segs[0]), "page": "item_page", "asin": unquote(segs[1]),
            "keywords": _keywords("/".join(segs[2 : j - 1])), "page_num": _page(segs[j - 1]),
            "options": _options("/".join(segs[j:]))}


def _read_sub_page(segs: list[str]) -> dict[str, Any]:
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


def _read_done(segs: list[str]) -> dict[str, Any]:
    if len(segs) < 3:
        raise BadRequest("expected /done/{session}/{asin}/{options}")
    return {"sid": _sid(segs[0]), "page": "done", "asin": unquote(segs[1]), "options": _options("/".join(segs[2:]))}


# ---- the table ------------------------------------------------------------------------------------
ROUTES: dict[str, Route] = {
    "index": Route("", (("session", "text"),), _read_index),
    "search_results": Route(
        "search_results", (("session", "text"), ("keywords", "keywords"), ("page", "page")), _read_results),
    "item_page": Route(
        "item_page",
        (("session", "text"), ("asin", "text"), ("keywords", "keywords"), ("page", "page"), ("options", "json")),
        _read_item),
    "item_sub_page": Route(
        "item_sub_page",
        (("session", "text"), ("asin", "text"), ("keywords", "keywords"), ("page", "page"),
         ("sub_page", "text"), ("options", "repr")),
        _read_sub_page),
    "done": Route("done", (("session", "text"), ("asin", "text"), ("options", "repr")), _read_done),
}
#: The named routes (all but the index), as the first path segment of their URLs.
ROUTE_NAMES = tuple(name for name, route in ROUTES.items() if route.name)


def parse_route(route: str, segs: list[str]) -> dict[str, Any]:
    """URL parts for ``ShopSession.show`` from the still-encoded segments after ``/{route}/``, or BadRequest."""
    if route not in ROUTE_NAMES:
        raise BadRequest(f"unknown route {route}")
    return ROUTES[route].parse(segs)


def raw_segments(path: str, route: str) -> list[str]:
    """The still-encoded segments after ``/{route}/`` of a raw path (so an encoded '/' stays inside its segment)."""
    path = path.split("?", 1)[0]
    marker = f"/{route}/"
    at = path.find(marker)
    return path[at + len(marker):].split("/") if at >= 0 else []


def split_state_url(url: str | None) -> tuple[str, str | None, str | None, list[str]]:
    """``(base, route, session, rest)`` of a sim URL; ``route`` is None for the index page.

    The session's own URLs are raw (unencoded) strings, so ``rest`` is split naively on '/'; callers
    that need exact parts use the PageState fields instead.
    """
    if not url:
        return "", None, None, []
    parts = urlsplit(url)
    base = f"{parts.scheme}://{parts.netloc}" if parts.scheme and parts.netloc else ""
    segs = [unquote(s) for s in parts.path.split("/")[1:]]
    for i, s in enumerate(segs):
        if s in ROUTE_NAMES and i + 1 < len(segs):
            return base, s, segs[i + 1], segs[i + 2 :]
    return base, None, (segs[-1] if segs and segs[-1] else None), []


# ---- builders by page: encoded paths for links, raw URLs for the session's own states ----------------
def index_path(session: str) -> str:
    """``/{session}``, encoded."""
    return ROUTES["index"].build({"session": session}, encoded=True)


def results_path(session: str, keywords: list[str], page: int) -> str:
    """``/search_results/{session}/{keywords}/{page}`` with '+'-joined, encoded keywords."""
    return ROUTES["search_results"].build({"session": session, "keywords": keywords, "page": page}, encoded=True)


def item_path(session: str, asin: str, keywords: list[str], page: int, options: dict[str, str]) -> str:
    """``/item_page/...``, encoded, with options as JSON (as WebShop does)."""
    fields = {"session": session, "asin": asin, "keywords": keywords, "page": page, "options": options}
    return ROUTES["item_page"].build(fields, encoded=True)


def item_paths(session: str, asin: str, keywords: list[str], page: int, options: Iterable[dict[str, str]]) -> list[str]:
    """:func:`item_path` for each of ``options`` (an item page's option links), the rest encoded once."""
    fields = {"session": session, "asin": asin, "keywords": keywords, "page": page}
    return ROUTES["item_page"].build_each(fields, "options", options)


def sub_page_path(
    session: str, asin: str, keywords: list[str], page: int, sub_page: str, options: dict[str, str]
) -> str:
    """``/item_sub_page/...``, encoded, with options as a Python dict repr (as WebShop does)."""
    fields = {"session": session, "asin": asin, "keywords": keywords, "page": page, "sub_page": sub_page,
              "options": options}
    return ROUTES["item_sub_page"].build(fields, encoded=True)


def done_path(session: str, asin: str, options: dict[str, str]) -> str:
    """``/done/{session}/{asin}/{options}``, encoded, with options as a Python dict repr."""
    return ROUTES["done"].build({"session": session, "asin": asin, "options": options}, encoded=True)


def index_url(base: str, session: str) -> str:
    """The search page of a session, raw."""
    return base + ROUTES["index"].build({"session": session}, encoded=False)


def results_url(base: str, session: str, keywords: list[str], page: int) -> str:
    """A results page, raw: keywords joined with '+' and not percent-encoded, as WebShop does."""
    return base + ROUTES["search_results"].build(
        {"session": session, "keywords": keywords, "page": page}, encoded=False)


def item_url(base: str, session: str, asin: str, keywords: list[str], page: int, options: dict[str, str]) -> str:
    """An item page, raw; options as JSON (``json.dumps``)."""
    fields = {"session": session, "asin": asin, "keywords": keywords, "page": page, "options": options}
    return base + ROUTES["item_page"].build(fields, encoded=False)


def results_url_parts(base: str, session: str, keywords: list[str]) -> tuple[str, str]:
    """``(head, tail)`` such that ``head + str(page) + tail == results_url(base, session, keywords, page)``.

    A results page links itself and its neighbours, which differ only in the page number.
    """
    head, tail = ROUTES["search_results"].build_around("page", {"session": session, "keywords": keywords})
    return base + head, tail


def item_url_parts(
    base: str, session: str, keywords: list[str], page: int, options: dict[str, str]
) -> tuple[str, str]:
    """``(head, tail)`` such that ``head + asin + tail == item_url(base, session, asin, keywords, page, options)``.

    A results page links ten items whose URLs differ only in the ASIN: the rest is spelled once.
    """
    fields = {"session": session, "keywords": keywords, "page": page, "options": options}
    head, tail = ROUTES["item_page"].build_around("asin", fields)
    return base + head, tail


def sub_page_url(
    base: str, session: str, asin: str, keywords: list[str], page: int, sub_page: str, options: dict[str, str]
) -> str:
    """An item sub-page, raw; options as a Python dict repr, as WebShop does."""
    fields = {"session": session, "asin": asin, "keywords": keywords, "page": page, "sub_page": sub_page,
              "options": options}
    return base + ROUTES["item_sub_page"].build(fields, encoded=False)


def done_url(base: str, session: str, asin: str, options: dict[str, str]) -> str:
    """The done page, raw; options as a Python dict repr."""
    return base + ROUTES["done"].build({"session": session, "asin": asin, "options": options}, encoded=False)
