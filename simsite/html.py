"""The sim's HTML pages, rendered from a PageState alone.

The markup keeps WebShop's hooks (``#instruction-text``, ``#search_input``, ``a.product-link``,
``button.btn``, option radios, ``#reward pre``) so HTML-scraping WebShop clients work unchanged,
adds ``data-*`` hooks for the selectors in :mod:`shopsim.simsite.session`, and embeds the PageState
as JSON so :class:`shopsim.translators.simsite.SimsiteTranslator` reads pages back without loss.
URLs are built here segment by segment and percent-encoded, so odd keywords or option values
(``/``, ``#``, ``%``, quotes) survive a real browser.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from urllib.parse import quote, unquote, urlsplit

from jinja2 import Environment, FileSystemLoader, select_autoescape
from markupsafe import Markup

from shopsim.page import PageState, css_string

__all__ = [
    "ROUTE_NAMES",
    "PageUrls",
    "css_string",
    "done_path",
    "index_path",
    "item_path",
    "page_urls",
    "render_error",
    "render_html",
    "results_path",
    "split_state_url",
    "state_json",
    "sub_page_path",
]

TEMPLATES = Path(__file__).resolve().parent / "templates"
ROUTE_NAMES = ("search_results", "item_page", "item_sub_page", "done")


@lru_cache(maxsize=1)
def _env() -> Environment:
    return Environment(
        loader=FileSystemLoader(str(TEMPLATES)),
        autoescape=select_autoescape(default=True, default_for_string=True),
        trim_blocks=True,
        lstrip_blocks=True,
    )


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


# ---- rendering --------------------------------------------------------------------------------
def state_json(state: PageState) -> Markup:
    """The PageState as JSON that is safe inside ``<script>`` (no ``</``, ``<!--``, ``&``)."""
    text = state.model_dump_json()
    text = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    text = text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
    return Markup(text)


_TEMPLATE = {
    "search": "search.html",
    "results": "results.html",
    "item": "item.html",
    "item_detail": "sub_page.html",
    "done": "done.html",
}


def render_html(state: PageState) -> str:
    """The page for ``state``: WebShop's markup hooks plus the embedded PageState."""
    urls = PageUrls(state)
    order = {c.arg: i for i, c in enumerate(state.clickables)}
    options: list[dict] = []
    if state.product is not None and state.page_type == "item":
        opt_click = {(c.axis, c.text): c for c in state.clickables if c.kind == "option"}
        for axis, values in state.product.options.items():
            rows = []
            for v in values:
                c = opt_click.get((axis, v))
                rows.append({
                    "value": v,
                    "url": urls.with_option(axis, v),
                    "checked": state.product.selected.get(axis) == v,
                    "arg": c.arg if c else None,
                    "index": order.get(c.arg) if c else None,
                    "clicked": bool(c and c.clicked),
                })
            options.append({"axis": axis, "values": rows})
    tpl = _env().get_template(_TEMPLATE.get(state.page_type, "unknown.html"))
    return tpl.render(
        s=state,
        urls=urls,
        order=order,
        options=options,
        state_json=state_json(state),
        keywords_json=json.dumps(state.keywords) if state.keywords is not None else "",
        reward_rows=_reward_rows(state),
        purchase_options=json.dumps(state.purchase.options) if state.purchase else "{}",
    )


def _reward_rows(state: PageState) -> list[tuple[str, str]]:
    info = state.reward_info or {}
    return [(k, "n/a" if v is None else str(v)) for k, v in info.items()]


def render_error(status: int, title: str, message: str, home: str | None = None) -> str:
    """A small error page (400/404/410): what is wrong, in words."""
    return _env().get_template("error.html").render(status=status, title=title, message=message, home=home)
