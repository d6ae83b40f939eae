"""Translator for real amazon.com pages (any markup era 2010-2026) into PageState, and back to URLs."""

from __future__ import annotations

from urllib.parse import quote_plus

from selectolax.lexbor import LexborHTMLParser

from shopsim.page import PageState, ProductView
from shopsim.translators.amazon_item import item_title, read_item
from shopsim.translators.amazon_results import first_card, is_results_page, read_results
from shopsim.translators.realsite import (
    ItemRead,
    RealSiteTranslator,
    id_index,
    item_clickables,
    page_url,
)

__all__ = ["AmazonTranslator"]


class AmazonTranslator(RealSiteTranslator):
    """Amazon search-results and product pages -> PageState; actions -> amazon.com URLs."""

    site = "amazon"
    home_url = "https://www.amazon.com/"
    search_path = "/s"
    query_params = ("k", "field-keywords")
    page_param = "page"

    def search_url(self, query: str, page: int = 1) -> str:
        return f"https://www.amazon.com/s?k={quote_plus(query)}&page={page}"

    def product_url(self, item_id: str) -> str:
        return f"https://www.amazon.com/dp/{item_id.upper()}"

    def read_page(self, tree: LexborHTMLParser, html: str, url: str | None) -> PageState | None:
        own_url = page_url(tree)
        base = url or own_url or self.home_url
        card = first_card(tree)
        if card is None and tree.body is not None:
            ids = id_index(tree.body)
            title_node = item_title(ids)
            if title_node is not None:
                return self._item_state(read_item(tree, html, ids, title_node, base, own_url, url), url or own_url)
            if not (is_results_page(html) or "/s?" in (url or "")):
                return None
        res = read_results(tree, base, card)
        if res is None:
            return None
        return self.results_state(res, url or own_url)

    def _item_state(self, item: ItemRead, url: str | None) -> PageState:
        product = ProductView(
            id=item.id or "unknown", title=item.title, price=item.price.value, price_text=item.price.text,
            currency=item.price.currency, rating=item.rating, rating_text=item.rating_text,
            options=item.options, selected=item.selected, option_urls=item.option_urls,
            bullet_points=item.bullets, description=item.description, category_path=item.category_path,
            images=item.images)
        return PageState(page_type="item", site="amazon", url=url, product=product,
                         clickables=item_clickables(product, None), has_search_bar=True)
