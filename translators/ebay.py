"""Translator for real ebay.com pages (any markup era 2010-2026) into PageState, and back to URLs."""

from __future__ import annotations

from urllib.parse import quote_plus

from selectolax.lexbor import LexborHTMLParser

from shopsim.page import PageState, ProductView
from shopsim.translators.ebay_item import is_item_page, read_item
from shopsim.translators.ebay_results import is_results_page, read_results
from shopsim.translators.realsite import (
    ItemRead,
    RealSiteTranslator,
    item_clickables,
    page_url,
)

__all__ = ["EbayTranslator"]


class EbayTranslator(RealSiteTranslator):
    """eBay search-results and listing pages -> PageState; actions -> ebay.com URLs."""

    site = "ebay"
    home_url = "https://www.ebay.com/"
    search_path = "/sch/"
    query_params = ("_nkw",)
    page_param = "_pgn"

    def search_url(self, query: str, page: int = 1) -> str:
        return f"https://www.ebay.com/sch/i.html?_nkw={quote_plus(query)}&_pgn={page}"

    def product_url(self, item_id: str) -> str:
        return f"https://www.ebay.com/itm/{item_id}"

    def read_page(self, tree: LexborHTMLParser, html: str, url: str | None) -> PageState | None:
        own_url = page_url(tree)
        base = url or own_url or self.home_url
        body = tree.body
        river = body.css_first("ul.srp-results, #ListViewInner") if body is not None else None
        if river is None:
            title_node = is_item_page(tree)
            if title_node is not None:
                return self._item_state(read_item(tree, title_node, own_url, url), url or own_url)
            if not (is_results_page(html) or "/sch/" in (url or "")):
                return None
        res = read_results(tree, base, url or own_url)
        if res is None:
            return None
        return self.results_state(res, url or own_url)

    def _item_state(self, item: ItemRead, url: str | None) -> PageState:
        product = ProductView(
            id=item.id or "unknown", title=item.title, price=item.price.value, price_text=item.price.text,
            currency=item.price.currency, rating=item.rating, rating_text=item.rating_text,
            options=item.options, selected=item.selected, category_path=item.category_path,
            attributes=item.attributes, images=item.images)
        return PageState(page_type="item", site="ebay", url=url, product=product,
                         clickables=item_clickables(product, None), has_search_bar=True)
