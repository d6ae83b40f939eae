"""Translator for real eBay pages of every country site (any markup era 2010-2026), and back to URLs.

The marketplace (ebay.com, ebay.de, ebay.co.uk, ...) comes from the URL, the page's own link or the
domain its links point to (see ``marketplaces``); it names ``PageState.shop``, settles the
currency of ambiguous price marks and keeps ``search[...]`` (``/sch/i.html?_nkw=``) and
``click[<item id>]`` (``/itm/<id>``) on the page's own domain.
"""

from __future__ import annotations

from selectolax.lexbor import LexborHTMLParser

from shopsim.page import PageState
from shopsim.translators.documents import page_url
from shopsim.translators.ebay_item import is_item_page, read_item
from shopsim.translators.ebay_results import is_results_page, read_results
from shopsim.translators.realsite import MarketTranslator

__all__ = ["EbayTranslator"]


class EbayTranslator(MarketTranslator):
    """eBay search-results and listing pages -> PageState; actions -> URLs on the page's marketplace."""

    site = "ebay"
    search_path = "/sch/"
    query_params = ("_nkw",)
    page_param = "_pgn"

    def read_page(self, tree: LexborHTMLParser, html: str, url: str | None) -> PageState | None:
        """A results page when it has a result list, else a listing page; None when neither."""
        own_url = page_url(tree)
        market = self.page_market(html, url, own_url)
        base = url or own_url or market.home()
        body = tree.body
        river = body.css_first("ul.srp-results, #ListViewInner") if body is not None else None
        if river is None:
            title_node = is_item_page(tree)
            if title_node is not None:
                item = read_item(tree, title_node, own_url, url, hint=market.currency)
                return self.market_item(item, url or own_url, market)
            if not (is_results_page(html) or "/sch/" in (url or "")):
                return None
        res = read_results(tree, base, url or own_url, hint=market.currency)
        if res is None:
            return None
        return self.market_results(res, url, own_url, market)
