"""Translator for real eBay pages of every country site (any markup era 2010-2026), and back to URLs.

The marketplace (ebay.com, ebay.de, ebay.co.uk, ...) comes from the URL, the page's own link or the
domain its links point to (see ``marketplaces``); it names ``PageState.shop``, settles the
currency of ambiguous price marks and keeps ``search[...]`` (``/sch/i.html?_nkw=``) and
``click[<item id>]`` (``/itm/<id>``) on the page's own domain.
"""

from __future__ import annotations

from selectolax.lexbor import LexborHTMLParser

from shopsim.page import PageState, ProductView
from shopsim.translators.clickables import item_clickables
from shopsim.translators.documents import page_url
from shopsim.translators.ebay_item import is_item_page, read_item
from shopsim.translators.ebay_results import is_results_page, read_results
from shopsim.translators.marketplaces import Marketplace, MarketTranslator, localise
from shopsim.translators.realsite import ItemRead

__all__ = ["EbayTranslator"]


class EbayTranslator(MarketTranslator):
    """eBay search-results and listing pages -> PageState; actions -> URLs on the page's marketplace."""

    site = "ebay"
    search_path = "/sch/"
    query_params = ("_nkw",)
    page_param = "_pgn"

    def read_page(self, tree: LexborHTMLParser, html: str, url: str | None) -> PageState | None:
        own_url = page_url(tree)
        market = self.page_market(html, url, own_url)
        base = url or own_url or market.home()
        body = tree.body
        river = body.css_first("ul.srp-results, #ListViewInner") if body is not None else None
        if river is None:
            title_node = is_item_page(tree)
            if title_node is not None:
                item = read_item(tree, title_node, own_url, url, hint=market.currency)
                return self._item_state(item, url or own_url, market)
            if not (is_results_page(html) or "/sch/" in (url or "")):
                return None
        res = read_results(tree, base, url or own_url, hint=market.currency)
        if res is None:
            return None
        return self.market_results(res, url, own_url, market)

    def _item_state(self, item: ItemRead, url: str | None, market: Marketplace) -> PageState:
        product = ProductView(
            id=item.id or "unknown", title=item.title, price=item.price.value, price_text=item.price.text,
            currency=item.price.currency, rating=item.rating, rating_text=item.rating_text,
            options=item.options, selected=item.selected, category_path=item.category_path,
            attributes=item.attributes, images=item.images)
        state = PageState(page_type="item", site="ebay", url=url, product=product,
                          clickables=item_clickables(product, None), has_search_bar=True)
        return localise(state, market, item.price.currency)
