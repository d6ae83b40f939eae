"""The links a sim page shows, built from its :class:`PageState` with the route table's encoded builders.

The sim's pages (:mod:`shopsim.simsite.html`) link with :class:`PageUrls`, and the sim's translator
and page sources rebuild the same links from a state, so it lives in the core beside
:class:`PageState`; the URL scheme itself is :mod:`shopsim.routes`.
"""

from __future__ import annotations

import json

from shopsim.page import PageState
from shopsim.routes import (
    done_path,
    index_path,
    item_path,
    item_paths,
    results_path,
    split_state_url,
    sub_page_path,
)

__all__ = ["PageUrls"]


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
        """Path of results page ``page`` for the current keywords."""
        return results_path(self.session, self.keywords, page)

    def product(self, asin: str) -> str:
        """Path of product ``asin`` as a results page links it (no options chosen)."""
        return item_path(self.session, asin, self.keywords, self.page, {})

    def item(self, options: dict[str, str] | None = None) -> str:
        """Path of the current product with ``options`` (by default the options chosen so far)."""
        return item_path(self.session, self.asin or "", self.keywords, self.page,
                         self.options if options is None else options)

    def sub_page(self, name: str) -> str:
        """Path of the current product's sub-page ``name``, keeping the options chosen."""
        return sub_page_path(self.session, self.asin or "", self.keywords, self.page, name, self.options)

    def done(self) -> str:
        """Path of the done page: buying the current product with the options chosen."""
        return done_path(self.session, self.asin or "", self.options)

    def with_option(self, axis: str, value: str) -> str:
        """Path of the current product with ``axis`` set to ``value`` on top of the options chosen."""
        opts = dict(self.options)
        opts[axis] = value
        return self.item(opts)

    def with_each_option(self, axis: str, values: list[str]) -> list[str]:
        """:meth:`with_option` for each of ``values`` on one axis (the item page's radios), built together."""
        return item_paths(self.session, self.asin or "", self.keywords, self.page,
                          [{**self.options, axis: v} for v in values])


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
