"""Results pages of Japanese and Korean shops whose cards the generic card finder misreads.

Yahoo!オークション, Rakuten, Yahoo!ショッピング, Coupang and Gmarket each mark their result cards,
titles, prices, ad badges and pager with class names stable for years (``li.Product`` and
``Product__titleLink`` on Yahoo!オークション, ``li.search-product`` on Coupang, ``box__item-container``
on Gmarket...), and give each listing an id in its link (auction id, ``/vp/products/<id>``,
``goodscode=``, ``<shop>/<item>``). A :class:`Layout` names those marks per shop; :func:`read_layout`
reads any page in one. Newer class names with build hashes (``ProductUnit_productName__x1``) are
matched by their stable prefix (``[class*=...]``).

An auction card shows a current bid (現在) and may show a buy-now price (即決): the buy-now price is
the price (what a buyer pays now), else the current bid; ``price_text`` says which.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from urllib.parse import parse_qs, unquote, unquote_plus, urlsplit

from selectolax.lexbor import LexborNode

from shopsim.page import ResultCard
from shopsim.translators.documents import absolute
from shopsim.translators.dom import MAX_RESULT_CARDS, attr, collapse, select_all, small_int, text_of
from shopsim.translators.prices import PriceInfo, parse_price
from shopsim.translators.realsite import ResultsRead

__all__ = ["LAYOUTS", "Layout", "auction_price", "query_from_url", "read_layout"]


@dataclass(frozen=True)
class Layout:
    """Where one shop's results page keeps each field (CSS selectors; each tried in order)."""

    cards: str
    link: str
    title: str
    price: str
    ids: tuple[re.Pattern[str], ...]  # the listing id in the link (first group, groups joined by ':')
    id_attrs: tuple[str, ...] = ()  # card or link attributes that hold the id
    ad: str = ""
    next: str = ""
    current: str = ""
    query: str = 'input[name="p"], input[name="q"], input[name="keyword"]'
    query_params: tuple[str, ...] = ("p", "q", "keyword", "k")
    auction: bool = False
    query_path: re.Pattern[str] | None = None  # the search words in the results URL's path
    title_query: re.Pattern[str] | None = None  # the search words in the page's <title>
    title_label: re.Pattern[str] | None = None  # the title inside an image's aria-label / alt ('<title>の画像')
    label_ads: tuple[str, ...] = field(default=("pr", "広告", "スポンサー", "광고", "ad", "sponsored"))


LAYOUTS: dict[str, Layout] = {
    "auctions.yahoo.co.jp": Layout(
        cards="li.Product",
        link="a.Product__titleLink, .Product__title a[href], a.Product__imageLink",
        title=".Product__titleLink, .Product__title",
        price=".Product__priceValue",
        ids=(re.compile(r"/auction/([A-Za-z]?\d{6,})"),),
        id_attrs=("data-auction-id",),
        ad=".Product__pr, [class*='Product__icon--pr'], .Product__label--pr",
        next="li.Pager__list--next a[href], a.Pager__link--next[href], a[data-cl_link='next'][href]",
        current=".Pager__list--current, .Pager__link--current",
        query='input[name="p"], input[name="va"]', query_params=("p", "va"), auction=True,
        title_query=re.compile(r"^「(.+?)」の(?:検索結果|落札相場)")),
    "rakuten.co.jp": Layout(
        cards="div.searchresultitem, [class*='searchresultitem']",
        link="h2 a[href], [class*='title-link'] a[href], a[class*='title-link'][href], .title a[href]",
        title="h2, [class*='title-link'], .title",
        price=".important, [class*='price--'], .price",
        ids=(re.compile(r"item\.rakuten\.co\.jp/([^/?#]+)/([^/?#]+)"),),
        id_attrs=("data-shop-item-id",),
        ad="[class*='advertisement'], [class*='-ad-'], [class*='sponsored']",
        next="a.nextPage[href], a[class*='nextPage'][href], a[rel='next'][href]",
        current=".currentPage, [class*='currentPage'], [aria-current='page']",
        query='input[name="sitem"], input[name="keyword"], input[name="q"]', query_params=("sitem", "keyword", "q"),
        query_path=re.compile(r"/search/mall/([^/?#]+)"), title_query=re.compile(r"^【楽天市場】(.+?)の通販")),
    "shopping.yahoo.co.jp": Layout(
        cards="li.LoopList__item, [class*='SearchResultItem_'], [class*='SearchResult_SearchResult__item']",
        link="a[href*='store.shopping.yahoo.co.jp'], a[href*='/product/'], a[href]",
        title="[class*='SearchResultItemTitle'], [class*='title'], h3, h2",
        price="[class*='SearchResultItemPrice'] [class*='price'], [class*='Price__value'], [class*='price']",
        ids=(re.compile(r"store\.shopping\.yahoo\.co\.jp/([^/?#]+)/([^/?#.]+)"),),
        id_attrs=("data-item-code",),
        ad="[class*='Pr'], [class*='_ad'], [class*='Sponsored']",
        next="a[class*='Pager__next'][href], a[rel='next'][href], li[class*='next'] a[href]",
        current="[class*='Pager'] [aria-current='page'], [class*='Pager__current']"),
    "jp.mercari.com": Layout(
        cards="li[data-testid='item-cell']",
        link="a[data-testid='thumbnail-link'][href], a[href*='/item/'], a[href*='/shops/product/']",
        title="[data-testid='thumbnail-item-name'], [class*='itemName']",
        price="[class*='merPrice'], [data-testid='price'], [class*='price']",
        ids=(re.compile(r"/(?:item|shops/product)/(\w{8,})"),),
        next="[data-testid='pagination-next-button'] a[href], a[data-testid='pagination-next-button'][href]",
        query='input[name="keyword"], input[aria-label*="検索"]', query_params=("keyword",),
        title_label=re.compile(r"^(.+?)の(?:画像|サムネイル)")),
    "coupang.com": Layout(
        cards="li.search-product, li[class*='ProductUnit_productUnit'], li[class*='search-product']",
        link="a.search-product-link[href], a[href*='/vp/products/']",
        title="div.name, [class*='productName'], [class*='ProductUnit_productName']",
        price="strong.price-value, [class*='priceValue'], [class*='Price_priceValue'], [class*='price-value']",
        ids=(re.compile(r"/vp/products/(\d+)"),),
        id_attrs=("data-product-id", "data-id"),
        ad=".ad-badge, .ad-badge-text, [class*='AdMark'], [class*='ad-badge']",
        next="a.btn-next[href], a[class*='Pagination_next'][href], a[class*='next'][href]",
        current="a.btn-page.selected, [class*='Pagination_selected'], [aria-current='page']",
        query='input[name="q"]', query_params=("q",)),
    "gmarket.co.kr": Layout(
        cards="div.box__item-container, [class*='box__item-container']",
        link="a.link__item[href], a[href*='goodscode='], a[href*='item.gmarket.co.kr']",
        title=".box__item-title .text__item, .text__item, .box__item-title",
        price=".box__price-seller .text__value, .box__item-price .text__value, strong.text__value",
        ids=(re.compile(r"goodscode=(\d+)", re.IGNORECASE), re.compile(r"/item/(?:[^/]+/)?(\d{6,})")),
        id_attrs=("data-montelena-goodscode",),
        ad=".box__ad-label, .text__ad, [class*='ad-label'], [class*='powerclick']",
        next="a.link__page-next[href], a[class*='page-next'][href], a[rel='next'][href]",
        current=".box__page-current, [class*='page-current'], [aria-current='page']",
        query='input[name="keyword"], input#form__search-keyword', query_params=("keyword",)),
}


def _first_text(node: LexborNode, selector: str) -> str:
    for found in node.css(selector)[:4]:
        text = text_of(found)
        if text:
            return text
    return ""


def _labelled_title(card: LexborNode, layout: Layout) -> str:
    """A card that shows its title only in an image label ('<title>の画像 売り切れ 6,000円')."""
    if layout.title_label is None:
        return ""
    for node in card.css("[aria-label], img[alt]")[:6]:
        m = layout.title_label.match(collapse(attr(node, "aria-label") or attr(node, "alt")))
        if m:
            return collapse(m.group(1))
    return ""


def _card_id(card: LexborNode, link: LexborNode | None, layout: Layout, url: str) -> str:
    for name in layout.id_attrs:
        for node in (card, link):
            value = attr(node, name).strip() if node is not None else ""
            if value and value != "0":
                return value
    for pattern in layout.ids:
        m = pattern.search(url) or pattern.search(unquote(url))  # an ad's click URL wraps the item URL
        if m:
            return ":".join(g for g in m.groups() if g)
    return ""


_BUY_NOW = re.compile(r"即決|buy\s*-?\s*it\s*now|buy\s*now", re.IGNORECASE)
_CURRENT = re.compile(r"現在|入札|current|bid", re.IGNORECASE)


def auction_price(pairs: list[tuple[str, str]], hint: str = "JPY") -> PriceInfo:
    """The price of an auction from its (label, price text) pairs: buy-now (即決) when shown, else the bid.

    ``price_text`` says which one it is ('即決 5,000円 (buy-now price; current bid 1,200円)').
    """
    buy = next((t for label, t in pairs if _BUY_NOW.search(label) and parse_price(t, hint).value), "")
    bid = next((t for label, t in pairs if not _BUY_NOW.search(label) and parse_price(t, hint).value), "")
    if buy:
        info = parse_price(buy, hint)
        note = f"; current bid {bid}" if bid else ""
        return PriceInfo(info.value, info.currency or hint, f"即決 {buy} (buy-now price{note})")
    if bid:
        info = parse_price(bid, hint)
        return PriceInfo(info.value, info.currency or hint, f"現在 {bid} (current bid; no buy-now price)")
    return PriceInfo(None, None, "")


def _auction_card_price(card: LexborNode, layout: Layout, hint: str) -> PriceInfo:
    pairs: list[tuple[str, str]] = []
    for value in card.css(layout.price)[:4]:
        box = value.parent
        label = text_of(box.css_first(".Product__label")) if box is not None else ""
        pairs.append((label or ("即決" if "buynow" in attr(value, "class").casefold() else "現在"), text_of(value)))
    for name, label in (("data-auction-buynowprice", "即決"), ("data-auction-price", "現在")):
        raw = next((attr(n, name) for n in card.css(f"[{name}]")[:2]), "")
        shown = any(bool(_BUY_NOW.search(x)) == (label == "即決") for x, _ in pairs)
        amount = small_int(raw)
        if amount and not shown:  # the link's data when the row is not rendered
            pairs.append((label, f"{amount:,}円"))
    return auction_price(pairs, hint)


_AD_CLASS = re.compile(r"(?:^|[-_])(?:ad|ads|pr|sponsored|advertisement)$", re.IGNORECASE)


def _sponsored(card: LexborNode, layout: Layout) -> bool:
    """An ad badge inside the card, an ad modifier on it ('Product--ad'), or a bare 'PR' / '광고' label."""
    if layout.ad and card.css_first(layout.ad) is not None:
        return True
    if any(_AD_CLASS.search(token) for token in attr(card, "class").split()):
        return True
    for node in card.css("span, em, i, div")[:80]:
        text = collapse(node.text(deep=False) or "").casefold()
        if text and text in layout.label_ads and not node.css_first("a"):
            return True
    return False


def _cards(body: LexborNode, layout: Layout, base: str, hint: str) -> list[tuple[ResultCard, str | None]]:
    out: list[tuple[ResultCard, str | None]] = []
    seen: set[int] = set()
    for card in select_all(body, layout.cards)[:MAX_RESULT_CARDS * 2]:
        if card.mem_id in seen or len(out) >= MAX_RESULT_CARDS:
            continue  # a card two of the selectors match
        seen.add(card.mem_id)
        link = card.css_first(layout.link)
        url = absolute(attr(link, "href"), base) or ""
        cid = _card_id(card, link, layout, url)
        title = _first_text(card, layout.title) or collapse(attr(link, "data-auction-title") or attr(link, "title"))
        title = title or _labelled_title(card, layout)
        if not cid or not title:
            continue  # an empty skeleton or a widget, not a listing
        if layout.auction:
            price = _auction_card_price(card, layout, hint)
        else:
            price = parse_price(_first_text(card, layout.price), hint)
        out.append((ResultCard(id=cid, title=title, price=price.value, price_text=price.text,
                               sponsored=_sponsored(card, layout), url=url or None), None))
    return out


def read_layout(body: LexborNode, layout: Layout, base: str, hint: str, title: str = "") -> ResultsRead | None:
    """The results a page shows in ``layout``; None when it holds no card of that layout.

    The query is the search box's value, else the URL's, else the one the page's ``title`` names.
    """
    cards = _cards(body, layout, base, hint)
    if not cards:
        return None
    out = ResultsRead(cards=cards)
    box = body.css_first(layout.query) if layout.query else None
    out.query = collapse(attr(box, "value")) or query_from_url(base, layout.query_params, layout.query_path)
    said = layout.title_query.search(collapse(title)) if layout.title_query is not None else None
    out.query = out.query or (collapse(said.group(1)) if said else None)
    nxt = body.css_first(layout.next) if layout.next else None
    out.next_url = absolute(attr(nxt, "href"), base) if nxt is not None else None
    digits = re.sub(r"\D", "", text_of(body.css_first(layout.current)) if layout.current else "")
    out.page_num = int(digits) if digits and len(digits) <= 4 else None
    return out


def query_from_url(url: str, names: tuple[str, ...], path: re.Pattern[str] | None = None) -> str | None:
    """The search words a results URL carries in one of ``names`` (or in its path, Rakuten's way)."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return None
    params = parse_qs(parts.query)
    for name in names:
        value = collapse((params.get(name) or [""])[0])
        if value:
            return value
    m = path.search(parts.path) if path is not None else None
    return collapse(unquote_plus(m.group(1))) or None if m else None
