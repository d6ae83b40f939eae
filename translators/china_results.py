"""Results pages of Chinese shops: cards found by the shop's own ids, then their title, price and ad mark.

A card is either an element that carries the product id as a data attribute (JD ``li[data-sku]``,
1688 ``data-aplus-report="...object_id@<offer>..."``, ``data-nid``, ``data-offer-id``; the outermost
such element) or, where the page has none, the largest block around the links to one item URL
(``item.taobao.com/item.htm?id=``, ``detail.1688.com/offer/<id>.html``, ``aliexpress.com/item/<id>.html``)
that holds no link to another item. Titles and prices are read by the class words these shops use
(``p-name``, ``subject``, ``title``, ``price``), ads by their '广告' label or ad flags.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from selectolax.lexbor import LexborNode

from shopsim.translators.cards import price_text, text_of
from shopsim.translators.china_ids import item_id
from shopsim.translators.documents import absolute
from shopsim.translators.dom import ancestors, attr, collapse
from shopsim.translators.prices import PriceInfo, parse_price

__all__ = ["ChinaCard", "china_cards", "next_control"]

MAX_ANCHORS = 5_000
_ID_ATTRS = ("data-sku", "data-nid", "data-offer-id", "data-offerid", "data-item-id", "data-itemid", "data-product-id",
             "data-productid", "data-goods-id", "data-aplus-report")
_ID_SELECTOR = ", ".join(f"[{a}]" for a in _ID_ATTRS)
_REPORT_ID = re.compile(r"(?:object_id|offerId|offer_id|itemId)@(\d{5,})")
_REPORT_AD = re.compile(r"_p_isad@1|itemType@p4p")
_TITLE_SELECTORS = (".p-name em", ".p-name a", ".subject", '[class*="title-text"]', '[class*="titleText"]',
                    '[class*="Title--"]', '[class*="title--"]', '[class*="offer-title"]', '[class*="-title"]',
                    '[class*="title"]', '[class*="Title"]', '[class*="name"]', "h3", "h4", "h2")
_PRICE_SELECTORS = (".p-price strong i", ".p-price i", ".price_num", '[class*="priceInt"]', '[class*="priceItem"]',
                    '[class*="price-sale"]', '[class*="price-current"]', '[class*="price-item"]', '[class*="Price--"]',
                    '[class*="price"]', '[class*="Price"]')
_DECIMAL = re.compile(r"(?i)float|decimal|fraction")
_STRUCK = re.compile(r"(?i)origin|del|old|line-through|market|strike|before")
_AD_LABEL = re.compile(r"^(?:广告|廣告|推广|推廣|ad|ads|sponsored|赞助)$", re.IGNORECASE)
_AD_WORD = re.compile(r"广告|廣告|推广|推廣|(?i:\bads?\b|sponsored)")
_AD_LINK = re.compile(r"click\.simba\.taobao\.com|dj\.1688\.com/ci_bb|ccc-x\.jd\.com|/click\?|p4p")
_NUMERIC = re.compile(r"[\s¥￥$\d.,万+起人已购买评价条-]+")
_PROMO = re.compile(r"promo|icon|tag|badge|label|hot")


@dataclass
class ChinaCard:
    """One result as the page shows it."""

    id: str
    title: str
    price: PriceInfo
    url: str | None
    sponsored: bool


def _attr_id(node: LexborNode) -> str:
    for name in _ID_ATTRS:
        value = attr(node, name)
        if not value:
            continue
        if name == "data-aplus-report":
            m = _REPORT_ID.search(value)
            if m:
                return m.group(1)
        elif re.fullmatch(r"\d{5,}", value):
            return value
    return ""


def _attr_cards(body: LexborNode) -> list[tuple[str, LexborNode]]:
    """The outermost elements that carry a product id attribute."""
    found = [(i, n) for n in body.css(_ID_SELECTOR)[:MAX_ANCHORS] if (i := _attr_id(n))]
    marked = {n.mem_id for _, n in found}
    return [(i, n) for i, n in found if not any(a.mem_id in marked for a in ancestors(n, 12))]


def _link_cards(body: LexborNode) -> list[tuple[str, LexborNode]]:
    """For runs of links to one item, the largest block around them that links to no other item."""
    links = [(i, n) for n in body.css("a[href]")[:MAX_ANCHORS] if (i := item_id(attr(n, "href")))]
    groups: list[tuple[str, LexborNode]] = []
    owner: dict[int, set[int]] = {}
    for i, node in links:
        if not groups or groups[-1][0] != i:
            groups.append((i, node))
        for a in [node, *ancestors(node, 10)]:
            owner.setdefault(a.mem_id, set()).add(len(groups) - 1)
    cards: list[tuple[str, LexborNode]] = []
    for g, (i, node) in enumerate(groups):
        card = node
        for a in ancestors(node, 10):
            if owner.get(a.mem_id) != {g}:
                break
            card = a
        cards.append((i, card))
    return cards


def _title(card: LexborNode) -> str:
    for sel in _TITLE_SELECTORS:
        for node in card.css(sel)[:6]:
            if _PROMO.search(attr(node, "class").replace("title", "")) and sel != ".p-name em":
                continue
            text = collapse(attr(node, "title")) if sel == ".subject" and attr(node, "title") else text_of(node)
            if text and len(text) >= 4 and not _NUMERIC.fullmatch(text):
                return text
    named = card.css("a[title], img[alt]")[:10]  # a link's title, else the picture's alt text
    best = max((collapse(attr(n, "title") or attr(n, "alt")) for n in named), key=len, default="")
    return best if len(best) >= 4 else ""


def _price(card: LexborNode, hint: str) -> PriceInfo:
    for sel in _PRICE_SELECTORS:
        for node in card.css(sel)[:8]:
            if _STRUCK.search(attr(node, "class")) or node.tag in ("del", "s"):
                continue
            text = price_text(node) + _decimals(node)
            info = parse_price(text, hint)
            if info.value is not None:
                return PriceInfo(info.value, info.currency or hint, info.text)
    return PriceInfo(None, hint, "")


def _decimals(node: LexborNode) -> str:
    """Taobao's '.90' in the sibling after the integer part ('priceInt' / 'priceFloat')."""
    if "priceInt" not in attr(node, "class"):
        return ""
    sibling = node.next
    while sibling is not None and sibling.tag == "-text":
        sibling = sibling.next
    return text_of(sibling) if sibling is not None and _DECIMAL.search(attr(sibling, "class")) else ""


def _sponsored(card: LexborNode) -> bool:
    """An ad: flagged in its report data, linked through an ad click server, or labelled '广告'."""
    if _REPORT_AD.search(attr(card, "data-aplus-report")):
        return True
    if any(_AD_LINK.search(attr(a, "href")) for a in card.css("a[href]")[:30]):
        return True
    if not _AD_WORD.search(card.text(deep=True, separator=" ") or ""):
        return False
    return any(_AD_LABEL.match(collapse(node.text(deep=False) or ""))
               for node in card.css("span, i, em, div, b, label, a")[:300])


def china_cards(body: LexborNode, base: str, hint: str = "CNY") -> list[ChinaCard]:
    """The page's result cards in document order (a product shown twice is kept twice): the elements
    that carry ids when at least three of them read as cards, else the blocks around item links.
    """
    cards = _read(_attr_cards(body), base, hint)
    return cards if len(cards) >= 3 else _read(_link_cards(body), base, hint)


def _read(found: list[tuple[str, LexborNode]], base: str, hint: str) -> list[ChinaCard]:
    cards: list[ChinaCard] = []
    for ident, node in found[:200]:
        title = _title(node)
        if not title:
            continue
        link = next((a for a in node.css("a[href]")[:20] if item_id(attr(a, "href")) == ident), None) or \
            node.css_first("a[href]") or (node if node.tag == "a" else None)
        cards.append(ChinaCard(ident, title, _price(node, hint), absolute(attr(link, "href"), base),
                               _sponsored(node)))
    return cards


_NEXT_TEXT = re.compile(r"^(?:下一页|下一頁|下页|next(?: page)?)\s*[>›»]*$", re.IGNORECASE)
_NEXT_ARROW = re.compile(r"^[›>»→]$")
_NEXT_CLASSES = frozenset({"next", "pn-next", "fp-next", "pagination-next", "next-page", "page-next", "btn-next",
                           "fui-next", "ui-page-next", "next-next", "comet-pagination-next"})


def _in_pager(node: LexborNode) -> bool:
    return any("pag" in attr(a, "class").lower() for a in ancestors(node, 4))


def next_control(body: LexborNode, base: str) -> tuple[bool, str | None]:
    """(has next, its link when it has a usable one: a script button has none, and none is made up).

    The control is '下一页' / 'next' or a next class; a bare arrow counts only inside a pager (result
    cards have arrows of their own, for their picture strips).
    """
    for node in body.css('a, button, [class*="next"]')[:3000]:
        cls = attr(node, "class")
        label = collapse(node.text() or "") if len(node.css("*")) < 6 else ""
        if not (_NEXT_TEXT.match(label) or not _NEXT_CLASSES.isdisjoint(cls.split())
                or (_NEXT_ARROW.match(label) and _in_pager(node))):
            continue
        if "disabled" in cls or "disabled" in node.attributes or attr(node, "aria-disabled") == "true":
            return False, None
        href = attr(node, "href")
        link = absolute(href, base) if href and not href.startswith(("javascript", "#")) else None
        return True, link
    return False, None
