"""Translator for real Amazon pages of every country site (any markup era 2010-2026), and back to URLs.

The marketplace (amazon.com, amazon.co.uk, amazon.co.jp, ...) comes from the URL, the page's own
link or its marketplace id (see ``marketplaces``); it names ``PageState.shop``, settles the
currency of ambiguous price marks and keeps ``search[...]``, ``click[<ASIN>]`` and paging on the
page's own domain (and its ``/-/en/`` UI prefix when the page uses one).
"""

from __future__ import annotations

from selectolax.lexbor import LexborHTMLParser

from shopsim.page import PageState, ProductView
from shopsim.translators.amazon_item import item_title, read_item
from shopsim.translators.amazon_results import first_card, is_results_page, read_results
from shopsim.translators.clickables import item_clickables
from shopsim.translators.documents import page_url
from shopsim.translators.dom import id_index
from shopsim.translators.marketplaces import Marketplace, MarketTranslator, localise
from shopsim.translators.realsite import ItemRead

__all__ = ["AmazonTranslator"]


class AmazonTranslator(MarketTranslator):
    """Amazon search-results and product pages -> PageState; actions -> URLs on the page's marketplace."""

    site = "amazon"
    search_path = "/s"
    query_params = ("k", "field-keywords")
    page_param = "page"

    def read_page(self, tree: LexborHTMLParser, html: str, url: str | None) -> PageState | None:
        own_url = page_url(tree)
        market = self.page_market(html, url, own_url)
        base = url or own_url or market.home()
        card = first_card(tree)
        if card is None and tree.body is not None:
            ids = id_index(tree.body)
            title_node = item_title(ids)
            if title_node is not None:
                item = read_item(tree, html, ids, title_node, base, own_url, url, hint=market.currency)
                return self._item_state(item, url or own_url, market)
            if not (is_results_page(html) or "/s?" in (url or "")):
                return None
        res = read_results(tree, base, card, hint=market.currency)
        if res is None:
            return None
        return self.market_results(res, url, own_url, market)

    def _item_state(self, item: ItemRead, url: str | None, market: Marketplace) -> PageState:
        product = ProductView(
            id=item.id or "unknown", title=item.title, price=item.price.value, price_text=item.price.text,
            currency=item.price.currency, rating=item.rating, rating_text=item.rating_text,
            options=item.options, selected=item.selected, option_urls=item.option_urls,
            bullet_points=item.bullets, description=item.description, category_path=item.category_path,
            images=item.images)
        state = PageState(page_type="item", site="amazon", url=url, product=product,
                          clickables=item_clickables(product, None), has_search_bar=True)
        return localise(state, market, item.price.currency)
