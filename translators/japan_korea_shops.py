"""Japanese and Korean shops: Yahoo!オークション, Yahoo!ショッピング, Yahoo!フリマ, Rakuten, Mercari,
Coupang, Gmarket (and their siblings): shop names, currencies, ids, results layouts and auction prices.

The generic translator reads these pages' structured data and markup; this one adds what it cannot
know: the shop's name as the answer keys give it (``rakuten.co.jp``, ``jp.mercari.com``,
``paypayfleamarket.yahoo.co.jp``), the currency a bare ``¥`` or ``원`` means there (JPY, KRW), the
listing id as the shop writes it (Rakuten ``<shop>:<item>``, an auction id, Coupang's product id,
Gmarket's goodscode), the result cards of each shop's results layout (``japan_korea_results``) and
which price an auction page offers (the buy-now price when shown, else the current bid).
A page is this module's when its URL, its own canonical URL or (with neither) its markup names one
of these shops.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import quote

from selectolax.lexbor import LexborHTMLParser, LexborNode

from shopsim.page import Navigation, PageState
from shopsim.translators.clickables import item_clickables, results_clickables
from shopsim.translators.dom import MarkScan, attr, text_of
from shopsim.translators.generic import GenericTranslator
from shopsim.translators.japan_korea_items import ItemReading, auction_pairs, item_price, shop_item
from shopsim.translators.japan_korea_results import LAYOUTS, read_layout
from shopsim.translators.realsite import MAX_QUERY_CHARS
from shopsim.translators.schema_org import own_url
from shopsim.translators.shops import host_of, search_form

if TYPE_CHECKING:
    from shopsim.translators.registry import PageSeen

__all__ = ["SHOPS", "JapanKoreaTranslator", "Shop", "is_japan_korea_shop", "shop_for"]


@dataclass(frozen=True)
class Shop:
    """One shop: its name as the answer keys write it, its currency, hosts, item-URL id and page marks."""

    name: str
    currency: str
    hosts: tuple[str, ...]
    item_id: re.Pattern[str] | None = None  # the listing id in an item page's URL (groups joined)
    joiner: str = ":"
    names: tuple[str, ...] = ()  # the site's name in page titles (for pages without a URL)
    title_sel: str = ""  # the item page's title element, where it is no plain h1
    price_sel: str = ""  # the item page's price element
    search: str = ""  # the shop's search URL ('{}' = the quoted query), for pages without a search form
    marks: tuple[str, ...] = ()  # strings only this shop's pages carry (its item and search links)


SHOPS: tuple[Shop, ...] = (
    Shop("auctions.yahoo.co.jp", "JPY", ("auctions.yahoo.co.jp",), re.compile(r"/auction/([A-Za-z]?\d{6,})"),
         names=("Yahoo!オークション", "ヤフオク"), search="https://auctions.yahoo.co.jp/search/search?p={}",
         marks=("Product__titleLink", "data-auction-id", "auctions.yahoo.co.jp/jp/auction/")),
    Shop("paypayfleamarket.yahoo.co.jp", "JPY", ("paypayfleamarket.yahoo.co.jp",), re.compile(r"/item/(z\d+)"),
         names=("Yahoo!フリマ", "PayPayフリマ"), marks=("paypayfleamarket.yahoo.co.jp/item/",),
         search="https://paypayfleamarket.yahoo.co.jp/search/{}"),
    Shop("shopping.yahoo.co.jp", "JPY", ("shopping.yahoo.co.jp",),
         re.compile(r"store\.shopping\.yahoo\.co\.jp/([^/?#]+)/([^/?#.]+)"), "_",
         names=("Yahoo!ショッピング",), marks=("store.shopping.yahoo.co.jp/",),
         search="https://shopping.yahoo.co.jp/search?p={}",
         title_sel=".mdItemName .elName, h1[class*='ItemName'], [class*='styles_itemName']",
         price_sel="[itemprop='price'], .elPriceNumber, [class*='ItemPrice'] [class*='price'], [class*='styles_price']"),
    Shop("rakuten.co.jp", "JPY", ("rakuten.co.jp",), re.compile(r"item\.rakuten\.co\.jp/([^/?#]+)/([^/?#]+)"),
         names=("楽天市場", "Rakuten Ichiba"), marks=("item.rakuten.co.jp/", "search.rakuten.co.jp/"),
         search="https://search.rakuten.co.jp/search/mall/{}/",
         price_sel=".price2, [class*='normal_reserve_item_price'], [class*='price--']"),
    Shop("jp.mercari.com", "JPY", ("jp.mercari.com",), re.compile(r"/(?:item|shops/product)/(m?\w{8,})"),
         names=("メルカリ",), marks=("jp.mercari.com/item/", "static.mercdn.net"),
         search="https://jp.mercari.com/search?keyword={}",
         price_sel="[data-testid='price']"),
    Shop("fril.jp", "JPY", ("fril.jp",), re.compile(r"item\.fril\.jp/(\w+)"), names=("ラクマ",),
         marks=("item.fril.jp/",)),
    Shop("tw.coupang.com", "TWD", ("tw.coupang.com",), re.compile(r"/products/(\d+)"), marks=("tw.coupang.com/",)),
    Shop("coupang.com", "KRW", ("coupang.com",), re.compile(r"/vp/products/(\d+)"), names=("쿠팡", "Coupang"),
         marks=("coupangcdn.com", "search-product-link", "/vp/products/"), search="https://www.coupang.com/np/search?q={}",
         title_sel="h1.prod-buy-header__title, h2.prod-buy-header__title, h1.product-title, [class*='product-title']",
         price_sel=".prod-sale-price .total-price strong, .total-price strong, [class*='final-price-amount'], "
                   "[class*='final-price'] [class*='price-amount'], [class*='sales-price-amount']"),
    Shop("gmarket.co.kr", "KRW", ("gmarket.co.kr",), re.compile(r"goodscode=(\d+)", re.IGNORECASE),
         names=("G마켓", "지마켓", "Gmarket"), marks=("item.gmarket.co.kr/", "browse.gmarket.co.kr/"),
         search="https://browse.gmarket.co.kr/search?keyword={}",
         title_sel="h1.itemtit, .itemtit, [class*='item-topinfo'] h1",
         price_sel=".price_real, strong.price_real, .box__price .text__price, [class*='price_real']"),
    Shop("auction.co.kr", "KRW", ("auction.co.kr",), re.compile(r"itemno=(\w+)", re.IGNORECASE), names=("옥션",),
         marks=("itempage3.auction.co.kr/", "browse.auction.co.kr/")),
    Shop("11st.co.kr", "KRW", ("11st.co.kr",), re.compile(r"/products/(\d+)"), names=("11번가",),
         marks=("www.11st.co.kr/products/",)),
)
#: Pieces the marks share: a page without one is not scanned for the marks holding it (``dom.MarkScan``).
_ANCHORS = ("yahoo.co.jp", "auction", "rakuten", "merc", "coupang", "gmarket")
#: Marks must show this often before a page without any URL or site name counts as the shop's.
_MIN_MARKS = 3
#: Marks are counted in the page's first characters (header, first cards): bounded work on big pages.
_MARK_SPAN = 150_000


def _by_host(url: str | None) -> Shop | None:
    host = host_of(url)
    if not host:
        return None
    return next((s for s in SHOPS if any(host == h or host.endswith("." + h) for h in s.hosts)), None)


def _by_name(tree: LexborHTMLParser) -> Shop | None:
    """The shop its <title> or og:site_name names (the site name ends a title: the last one wins)."""
    head = tree.head or tree.root
    if head is None:
        return None
    site = attr(head.css_first('meta[property="og:site_name"]'), "content")
    said = f"{text_of(head.css_first('title'))} | {site}"
    best, at = None, -1
    for shop in SHOPS:
        for name in shop.names:
            pos = said.rfind(name)
            if pos > at:
                best, at = shop, pos
    return best


def _by_marks(html: str) -> Shop | None:
    """The shop whose item/search links fill the page's head (CDN hosts are shared: not counted)."""
    scan = MarkScan(html[:_MARK_SPAN], _ANCHORS)
    counts = [(scan.count(s.marks), i) for i, s in enumerate(SHOPS)]
    best, index = max(counts)
    return SHOPS[index] if best >= _MIN_MARKS else None


def shop_for(url: str | None, tree: LexborHTMLParser | None, html: str) -> Shop | None:
    """The shop a page belongs to: its URL's host, else its own canonical URL's, else its marks."""
    if url and host_of(url):
        return _by_host(url)
    own = own_url(tree) if tree is not None else None  # canonical / og:url, also where a script moved it
    if own and host_of(own):
        return _by_host(own)
    return (_by_name(tree) if tree is not None else None) or _by_marks(html)


def is_japan_korea_shop(page: PageSeen) -> bool:
    """The registry predicate: a page of one of :data:`SHOPS` (Amazon and eBay are asked first)."""
    if page.market_site not in ("other", "unknown") or page.tree is None:
        return False
    return shop_for(page.url, page.tree, page.html) is not None


# ------------------------------------------------------------------------- the translator --
class JapanKoreaTranslator(GenericTranslator):
    """The generic reader, with each shop's results layout, name, currency, ids and auction price."""

    def read_page(self, tree: LexborHTMLParser, html: str, url: str | None) -> PageState | None:
        """The shop's own results layout first (not on item pages), else the generic reading, else the
        shop's own item elements (an item page without cart words or structured data); then localised.
        """
        own = url or own_url(tree)
        shop = shop_for(url, tree, html)
        body = tree.body
        if shop is None or body is None:
            return super().read_page(tree, html, url)
        listing = _item_url(shop, own)
        reading = _reading(shop)
        item_page = bool(listing) or (reading.auction and bool(auction_pairs(body)))  # bid rows: an auction
        state = None if item_page else _layout_results(tree, body, shop, own)
        state = state or super().read_page(tree, html, url)
        if state is None or (item_page and state.page_type != "item"):
            state = shop_item(body, own, listing, reading) or state
        if state is None:
            return None
        form, _ = search_form(body, own or "", MAX_QUERY_CHARS)  # search[...] and paging use the page's form
        self._remember(shop.name, form, own)
        return localise(state, shop, body, own)

    # -- actions on the shop's own addresses when the page did not show them ---------------
    def _origin(self, state: PageState) -> str | None:
        return super()._origin(state) or (f"https://{state.shop}" if _by_name_exact(state.shop) else None)

    def _search(self, state: PageState, query: str) -> Navigation:
        shop = _by_name_exact(state.shop)
        if shop is not None and shop.search and shop.name not in self._forms:
            return Navigation(kind="goto", url=shop.search.format(quote(query)))
        return super()._search(state, query)


def _layout_results(tree: LexborHTMLParser, body: LexborNode, shop: Shop, url: str | None) -> PageState | None:
    """The results state of the shop's own results layout (``japan_korea_results``), if the page has one."""
    layout = LAYOUTS.get(shop.name)
    res = read_layout(body, layout, url or "", shop.currency, text_of(tree.css_first("title"))) if layout else None
    if res is None or not (len(res.cards) >= 3 or res.query):
        return None
    cards, nxt = res.cards, res.next_url
    urls = {c.id: c.url or "" for c, _ in cards}
    return PageState(
        page_type="results", site="other", url=url, query=res.query, keywords=res.query.split() if res.query else None,
        page_num=res.page_num, results=[c for c, _ in cards], next_page_url=nxt, has_search_bar=True,
        clickables=results_clickables(cards, nxt, None, lambda i: urls.get(i, "")))


def _by_name_exact(name: str | None) -> Shop | None:
    return next((s for s in SHOPS if s.name == name), None)


def _reading(shop: Shop) -> ItemReading:
    return ItemReading(shop.currency, shop.title_sel, shop.price_sel, shop.name == "auctions.yahoo.co.jp")


def _item_url(shop: Shop, url: str | None) -> str:
    """The listing id an item page's URL carries ('' when the URL is no item page of the shop)."""
    if not url or shop.item_id is None:
        return ""
    m = shop.item_id.search(url)
    return shop.joiner.join(g for g in m.groups() if g) if m else ""


def _currency(shown: str | None, shop: Shop) -> str:
    """The shop's currency unless the page shows another one unambiguously (a bare ¥ is JPY in Japan)."""
    if shown is None or (shop.currency == "JPY" and shown == "CNY"):
        return shop.currency
    return shown


def localise(state: PageState, shop: Shop, body: LexborNode | None, url: str | None) -> PageState:
    """``state`` named for ``shop``, in its currency; an item with the shop's id and auction price."""
    if state.page_type not in ("results", "item"):
        return state.model_copy(update={"shop": shop.name})
    currency = _currency(state.currency, shop)
    update: dict[str, object] = {"shop": shop.name, "currency": currency}
    product = state.product
    if product is not None:
        changes: dict[str, object] = {"currency": currency}
        listing = _item_url(shop, url)
        if listing:
            changes["id"] = listing
        reading = _reading(shop)
        if body is not None and (reading.auction or product.price is None):
            price = item_price(body, reading)
            if price.value is not None:
                changes.update(price=price.value, price_text=price.text)
        product = product.model_copy(update=changes)
        update["product"] = product
        update["clickables"] = item_clickables(product, None)
    return state.model_copy(update=update)
