"""Links on the sim's pages: percent-encoded paths per route, and the URL contract readers rely on.

The sim's pages (:mod:`shopsim.simsite.html`) build every link with :class:`PageUrls`, and the sim's
translator and page sources split and rebuild the same URLs, so the scheme lives here, beside
:class:`PageState`, where both sides can import it. URLs are built segment by segment and
percent-encoded, so odd keywords or option values (``/``, ``#``, ``%``, quotes) survive a real browser.
"""

from __future__ import annotations

import json
from urllib.parse import quote, unquote, urlsplit

from shopsim.page import PageState

__all__ = [
    "ROUTE_NAMES",
    "PageUrls",
    "done_path",
    "index_path",
    "item_path",
    "page_urls",
    "results_path",
    "split_state_url",
    "sub_page_path",
]

ROUTE_NAMES = ("search_results", "item_page", "item_sub_page", "done")


# ---- URL paths (percent-encoded per segment) --------------------------------------------------
def _seg(text: str) -> str:
    return quote(text, safe="")


def _kw(keywords: list[str]) -> str:
    return "+".join(quote(k, safe="") for k in keywords)


def index_path(session: str) -> str:
    """``/{session}``."""
    return f"/{_seg(session)}"


def results_path(session: str, keywords: list[str], page: int) -> str:
    """``/search_results/{session}/{keywords}/{page}`` with '+'-joined, encoded keywords."""
    return f"/search_results/{_seg(session)}/{_kw(keywords)}/{page}"


def item_path(session: str, asin: str, keywords: list[str], page: int, options: dict[str, str]) -> str:
    """``/item_page/...`` with options as JSON (as WebShop does)."""
    return f"/item_page/{_seg(session)}/{_seg(asin)}/{_kw(keywords)}/{page}/{quote(json.dumps(options), safe=':,')}"


def sub_page_path(
    session: str, asin: str, keywords: list[str], page: int, sub_page: str, options: dict[str, str]
) -> str:
    """``/item_sub_page/...`` with options as a Python dict repr (as WebShop does)."""
    return (
        f"/item_sub_page/{_seg(session)}/{_seg(asin)}/{_kw(keywords)}/{page}/{_seg(sub_page)}/"
        f"{quote(repr(options), safe=':,')}"
    )


def done_path(session: str, asin: str, options: dict[str, str]) -> str:
    """``/done/{session}/{asin}/{options}`` with options as a Python dict repr."""
    return f"/done/{_seg(session)}/{_seg(asin)}/{quote(repr(options), safe=':,')}"


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


class PageUrls:
    """Every link a page shows, as encoded paths built from the PageState's fields."""

    def __init__(self, state: PageState):
        _, _, sid, _ = split_state_url(state.url)
        self.session = sid or "unknown"
        self.keywords = list(state.keywords or [])
        self.page = state.page_num or 1
        p = state.product
        self.asin = p.id if p else (state.purchase.id if state.purchase else None)
        self.options = _current_options(state)
        self.index = index_path(self.session)

    def results(self, page: int) -> str:
        return results_path(self.session, self.keywords, page)

    def product(self, asin: str) -> str:
        return item_path(self.session, asin, self.keywords, self.page, {})

    def item(self, options: dict[str, str] | None = None) -> str:
        return item_path(self.session, self.asin or "", self.keywords, self.page,
                         self.options if options is None else options)

    def sub_page(self, name: str) -> str:
        return sub_page_path(self.session, self.asin or "", self.keywords, self.page, name, self.options)

    def done(self) -> str:
        return done_path(self.session, self.asin or "", self.options)

    def with_option(self, axis: str, value: str) -> str:
        opts = dict(self.options)
        opts[axis] = value
        return self.item(opts)


def _current_options(state: PageState) -> dict[str, str]:
    """Chosen options in click order (the URL keeps it; ``selected`` is in axis order)."""
    if state.purchase is not None:
        return dict(state.purchase.options)
    p = state.product
    if p is None:
        return {}
    selected = {a: v for a, v in p.selected.items() if v is not None}
    url = state.url or ""
    order = sorted(selected, key=lambda a: url.find(json.dumps(a)) if json.dumps(a) in url else len(url))
    return {a: selected[a] for a in order}


def page_urls(state: PageState) -> PageUrls:
    """The link builder for ``state``."""
    return PageUrls(state)
