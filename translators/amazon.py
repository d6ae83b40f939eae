"""Translator for real Amazon pages of every country site (any markup era 2010-2026), and back to URLs.

The marketplace (amazon.com, amazon.co.uk, amazon.co.jp, ...) comes from the URL, the page's own
link or its marketplace id (see ``marketplaces``); it names ``PageState.shop``, settles the
currency of ambiguous price marks and keeps ``search[...]``, ``click[<ASIN>]`` and paging on the
page's own domain (and its ``/-/en/`` UI prefix when the page uses one).
"""

from __future__ import annotations

from selectolax.lexbor import LexborHTMLParser

from shopsim.page import PageState
from shopsim.translators.amazon_item import item_title, read_item
from shopsim.translators.amazon_results import first_card, is_results_page, read_results
from shopsim.translators.documents import page_url
from shopsim.translators.dom import id_index
from shopsim.translators.realsite import MarketTranslator

__all__ = ["AmazonTranslator"]


class AmazonTranslator(MarketTranslator):
    """Amazon search-results and product pages -> PageState; actions -> URLs on the page's marketplace."""

    site = "amazon"
    search_path = "/s"
    query_params = ("k", "field-keywords")
    page_param = "page"

    def read_page(self, tree: LexborHTMLParser, html: str, url: str | None) -> PageState | None:
        """A product page when it shows an item title, else a results page; None when neither."""
        own_url = page_url(tree)
        market = self.page_market(html, url, own_url)
        base = url or own_url or market.home()
        card = first_card(tree)
        if card is None and tree.body is not None:
            ids = id_index(tree.body)
            title_node = item_title(ids)
            if title_node is not None:
                item = read_item(tree, html, ids, title_node, base, own_url, url, hint=market.currency)
                return self.market_item(item, url or own_url, market)
            if not (is_results_page(html) or "/s?" in (url or "")):
                return None
        res = read_results(tree, base, card, hint=market.currency)
        if res is None:
            return None
        return self.market_results(res, url, own_url, market)
