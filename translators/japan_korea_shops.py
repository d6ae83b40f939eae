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

from selectolax.lexbor import LexborHTMLParser, LexborNode

from shopsim.page import PageState, ProductView
from shopsim.translators.clickables import item_clickables, results_clickables
from shopsim.translators.documents import page_url
from shopsim.translators.dom import collapse, text_of
from shopsim.translators.generic import GenericTranslator
from shopsim.translators.japan_korea_results import LAYOUTS, auction_price, read_layout
from shopsim.translators.schema_org import own_url
from shopsim.translators.shops import host_of
from shopsim.translators.widgets import breadcrumb_trail, without_title_crumb

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
    marks: tuple[str, ...] = ()  # strings only this shop's pages carry (for pages without a URL)


SHOPS: tuple[Shop, ...] = (
    Shop("auctions.yahoo.co.jp", "JPY", ("auctions.yahoo.co.jp",), re.compile(r"/auction/([A-Za-z]?\d{6,})"),
         marks=("Product__titleLink", "auctions.yahoo.co.jp", "auctions.c.yimg.jp", "data-auction-id")),
    Shop("paypayfleamarket.yahoo.co.jp", "JPY", ("paypayfleamarket.yahoo.co.jp",), re.compile(r"/item/(z\d+)"),
         marks=("paypayfleamarket.yahoo.co.jp", "paypayfleamarket.c.yimg.jp")),
    Shop("shopping.yahoo.co.jp", "JPY", ("shopping.yahoo.co.jp",),
         re.compile(r"store\.shopping\.yahoo\.co\.jp/([^/?#]+)/([^/?#.]+)"), "_",
         marks=("store.shopping.yahoo.co.jp", "shopping.c.yimg.jp", "item-shopping.c.yimg.jp")),
    Shop("rakuten.co.jp", "JPY", ("rakuten.co.jp",), re.compile(r"item\.rakuten\.co\.jp/([^/?#]+)/([^/?#]+)"),
         marks=("item.rakuten.co.jp", "search.rakuten.co.jp", "r10s.jp", "thumbnail.image.rakuten.co.jp")),
    Shop("jp.mercari.com", "JPY", ("jp.mercari.com",), re.compile(r"/(?:item|shops/product)/(m?\w{8,})"),
         marks=("jp.mercari.com", "static.mercdn.net")),
    Shop("fril.jp", "JPY", ("fril.jp",), re.compile(r"item\.fril\.jp/(\w+)"), marks=("item.fril.jp",)),
    Shop("coupang.com", "KRW", ("coupang.com",), re.compile(r"/vp/products/(\d+)"),
         marks=("coupangcdn.com", "search-product-link", "/vp/products/")),
    Shop("gmarket.co.kr", "KRW", ("gmarket.co.kr",), re.compile(r"goodscode=(\d+)", re.IGNORECASE),
         marks=("item.gmarket.co.kr", "browse.gmarket.co.kr", "gmarket.co.kr")),
    Shop("auction.co.kr", "KRW", ("auction.co.kr",), re.compile(r"itemno=(\w+)", re.IGNORECASE),
         marks=("itempage3.auction.co.kr", "browse.auction.co.kr")),
    Shop("11st.co.kr", "KRW", ("11st.co.kr",), re.compile(r"/products/(\d+)"), marks=("www.11st.co.kr",)),
)
#: Marks must show this often before a page without any URL counts as the shop's.
_MIN_MARKS = 3
_MARK_SPAN = 400_000


def _by_host(url: str | None) -> Shop | None:
    host = host_of(url)
    if not host:
        return None
    return next((s for s in SHOPS if any(host == h or host.endswith("." + h) for h in s.hosts)), None)


def _by_marks(html: str) -> Shop | None:
    head = html[:_MARK_SPAN]
    counts = [(sum(head.count(m) for m in s.marks), i) for i, s in enumerate(SHOPS)]
    best, index = max(counts)
    return SHOPS[index] if best >= _MIN_MARKS else None


def shop_for(url: str | None, tree: LexborHTMLParser | None, html: str) -> Shop | None:
    """The shop a page belongs to: its URL's host, else its own canonical URL's, else its marks."""
    if url and host_of(url):
        return _by_host(url)
    own = page_url(tree) if tree is not None else None
    if own and host_of(own):
        return _by_host(own)
    return _by_marks(html)


def is_japan_korea_shop(page: PageSeen) -> bool:
    """The registry predicate: a page of one of :data:`SHOPS` (Amazon and eBay are asked first)."""
    if page.market_site not in ("other", "unknown") or page.tree is None:
        return False
    return shop_for(page.url, page.tree, page.html) is not None


# ------------------------------------------------------------------------- the translator --
class JapanKoreaTranslator(GenericTranslator):
    """The generic reader, with each shop's results layout, name, currency, ids and auction price."""

    def read_page(self, tree: LexborHTMLParser, html: str, url: str | None) -> PageState | None:
        """The shop's own results layout first (not on item URLs), else the generic reading; then localised."""
        own = url or own_url(tree)
        shop = shop_for(url, tree, html)
        state = None
        layout = LAYOUTS.get(shop.name) if shop is not None else None
        if shop is not None and layout is not None and tree.body is not None and not _item_url(shop, own):
            res = read_layout(tree.body, layout, own or "", shop.currency)
            if res is not None and (len(res.cards) >= 3 or res.query):
                cards, nxt = res.cards, res.next_url
                urls = {c.id: c.url or "" for c, _ in cards}
                state = PageState(
                    page_type="results", site="other", url=own, query=res.query,
                    keywords=res.query.split() if res.query else None, page_num=res.page_num,
                    results=[c for c, _ in cards], next_page_url=nxt, has_search_bar=True,
                    clickables=results_clickables(cards, nxt, None, lambda i: urls.get(i, "")))
        if state is None:
            state = super().read_page(tree, html, url)
        if shop is not None and shop.name == "auctions.yahoo.co.jp" and tree.body is not None and \
                (state is None or state.page_type != "item") and (state is None or _item_url(shop, own)):
            state = auction_item(tree, tree.body, own) or state
        if state is None or shop is None:
            return state
        return localise(state, shop, tree.body, own)


_AUCTION_ID = re.compile(r"(?:オークションID|Auction ID)\s*[:：]?\s*([A-Za-z]?\d{6,})")


def auction_item(tree: LexborHTMLParser, body: LexborNode, url: str | None) -> PageState | None:
    """An auction page the generic reader did not take for an item (no cart button, no structured
    data): its h1, its price rows (現在 / 即決), its auction id and breadcrumb.
    """
    pairs = auction_pairs(body)
    heading = next((h for h in body.css("h1")[:5] if text_of(h)), None)
    if not pairs or heading is None:
        return None
    price = auction_price(pairs, "JPY")
    shop = SHOPS[0]
    found = _AUCTION_ID.search(text_of(body.css_first("table, dl.ProductDetail__items, #l-sub") or body)[:20000])
    product = ProductView(
        id=_item_url(shop, url) or (found.group(1) if found else "unknown"), title=text_of(heading),
        price=price.value, price_text=price.text, currency="JPY",
        category_path=without_title_crumb(breadcrumb_trail(body), text_of(heading)))
    return PageState(page_type="item", site="other", url=url, product=product,
                     clickables=item_clickables(product, None), has_search_bar=True)


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
        if shop.name == "auctions.yahoo.co.jp" and body is not None:
            price = auction_price(auction_pairs(body), shop.currency)
            if price.value is not None:
                changes.update(price=price.value, price_text=price.text)
        product = product.model_copy(update=changes)
        update["product"] = product
        update["clickables"] = item_clickables(product, None)
    return state.model_copy(update=update)


_LABEL = re.compile(r"^(現在|即決|現在価格|即決価格|입찰가|즉시구매가)\s*[:：]?\s*")


def auction_pairs(body: LexborNode) -> list[tuple[str, str]]:
    """(label, price text) of an auction page's price rows: '現在 1,000円（税0円）', '即決 5,000円'.

    Every era writes them as a definition list (``dl`` with the label in ``dt``, 2019-2024 classes
    ``Price--current`` / ``Price--buynow``; the 2025 layout with generated class names): the row's
    text starts with its label.
    """
    pairs: list[tuple[str, str]] = []
    for dl in body.css("dl")[:300]:
        text = text_of(dl)
        m = _LABEL.match(text)
        if m is None or len(text) > 80:
            continue
        rest = collapse(text[m.end():])
        if rest and any(c.isdigit() for c in rest) and not any(label == m.group(1) for label, _ in pairs):
            pairs.append((m.group(1), _first_price(rest)))
    return pairs


def _first_price(text: str) -> str:
    """'1,000円（税 0 円）' -> '1,000円': the amount before any tax note."""
    return re.split(r"[（(]", text, maxsplit=1)[0].strip()
