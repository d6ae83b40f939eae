"""Amazon search-results pages, 2010-2026 markup: result cards, query, paging.

Card containers by era: ``div[data-component-type="s-search-result"]`` (2018+), ``li.s-result-item``
(2014-2018), ``div[id^="result_"][name]`` (2010-2014). Each card reads its own subtree only.
"""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlsplit

from selectolax.lexbor import LexborHTMLParser, LexborNode

from shopsim.page import ResultCard
from shopsim.translators.documents import absolute
from shopsim.translators.dom import MAX_RESULT_CARDS, attr, collapse, first, landmarks, select_all, text_of
from shopsim.translators.marketplaces import is_label, labelled_link, strip_label_prefix
from shopsim.translators.prices import PriceInfo, parse_price
from shopsim.translators.realsite import ResultsRead

__all__ = ["a_price_text", "first_card", "is_results_page", "read_results"]

_MODERN = 'div[data-component-type="s-search-result"][data-asin]'
_LEGACY = ("li.s-result-item[data-asin]", "div.s-result-item[data-asin]", 'div[id^="result_"][name]')
_ASIN_RE = re.compile(r"^[A-Z0-9]{10}$")
_DP_RE = re.compile(r"/(?:dp|gp/product|gp/aw/d)/([A-Z0-9]{10})")


def first_card(tree: LexborHTMLParser) -> LexborNode | None:
    """The first modern result card (found early on results pages, so this scan is cheap there)."""
    return tree.body.css_first(_MODERN) if tree.body is not None else None


def is_results_page(html: str) -> bool:
    """Cheap check for older layouts: results markup present (result list or results-count bar)."""
    return any(mark in html for mark in ("s-search-result", "s-result-item", 's-result-list', 'id="result_0"',
                                         "s-result-count", "atfResults", "resultsCol"))


_PART_SEL = "h2, .a-price, .puis-sponsored-label-text, .s-sponsored-label-text, .s-label-popover-default"
_LABEL_CLASSES = frozenset({"puis-sponsored-label-text", "s-sponsored-label-text", "s-label-popover-default"})


class _Parts:
    """A card's title headings, price blocks and ad labels, from one scan of the card."""

    def __init__(self, card: LexborNode) -> None:
        self.h2s: list[LexborNode] = []
        self.prices: list[LexborNode] = []
        self.labels: list[LexborNode] = []
        for node in select_all(card, _PART_SEL):
            if node.tag == "h2":
                self.h2s.append(node)
                continue
            classes = set(attr(node, "class").split())
            if "a-price" in classes:
                self.prices.append(node)
            if not _LABEL_CLASSES.isdisjoint(classes):
                self.labels.append(node)


def a_price_text(node: LexborNode) -> str:
    """The text of one ``.a-price``: its screen-reader copy, else the shown parts joined.

    Some country sites leave ``.a-offscreen`` empty and split the visible price into symbol, whole,
    decimal mark and fraction spans ('R$' '303' ',' '05'), which plain text would space apart.
    """
    text = text_of(node.css_first(".a-offscreen"))
    whole = node.css_first(".a-price-whole")
    if whole is None:
        return text or text_of(node.css_first('span[aria-hidden="true"]'))
    mark = text_of(node.css_first(".a-price-decimal"))
    fraction = text_of(node.css_first(".a-price-fraction"))
    shown = text_of(whole, skip_classes=("a-price-decimal",))
    if text and not (fraction and _lost_decimals(text, shown, fraction)):
        return text
    number = shown + ((mark or ".") + fraction if fraction else "")
    return f"{text_of(node.css_first('.a-price-symbol'))} {number}".strip()


def _lost_decimals(text: str, whole: str, fraction: str) -> bool:
    """Whether the screen-reader copy dropped the decimal mark ('EUR1403' for 14,03 on the mobile layout)."""
    digits = re.sub(r"\D", "", text)
    return digits == re.sub(r"\D", "", whole) + fraction and not re.search(rf"[.,]\s*{re.escape(fraction)}\D*$", text)


def _card_price(card: LexborNode, parts: _Parts, hint: str | None) -> PriceInfo:
    """First current (not struck, not unit/secondary) ``.a-price`` of the card, or a legacy price."""
    for node in parts.prices:
        cls = attr(node, "class").split()
        if attr(node, "data-a-strike") == "true" or "a-text-price" in cls:
            continue
        info = parse_price(a_price_text(node), hint)
        if info.value is None:
            continue
        rng = node.parent
        if rng is not None and "a-price-range" in attr(rng, "class").split():  # '$12.99 - $24.99'
            ends = [parse_price(a_price_text(n), hint) for n in rng.css(".a-price")]
            low, high = ends[0].value, ends[-1].value
            if len(ends) >= 2 and isinstance(low, float) and isinstance(high, float):
                text = f"{ends[0].text} - {ends[-1].text}"
                return PriceInfo((low, high) if high >= low else low, info.currency, text)
        return info
    sx = card.css_first(".sx-price")  # 2016-2018: $<whole><sup>fraction</sup>, no decimal point shown
    if sx is not None:
        whole = text_of(sx.css_first(".sx-price-whole"))
        frac = text_of(sx.css_first(".sx-price-fractional")) or "00"
        return parse_price(f"{text_of(sx.css_first('.sx-price-currency'))}{whole}.{frac}", hint)
    legacy = card.css_first("span.s-price, .a-color-price, .newp .bld, span.bld.lrg.red, .price")
    return parse_price(text_of(legacy), hint) if legacy is not None else PriceInfo(None, None, "")


def _linked(h2: LexborNode, card: LexborNode) -> LexborNode | None:
    """The product link of a title h2: inside it, or an <a> around it within the card."""
    link = h2.css_first("a[href]")
    if link is not None:
        return link
    parent = h2.parent
    while parent is not None and parent.mem_id != card.mem_id and parent.tag != "a":
        parent = parent.parent
    return parent if parent is not None and parent.tag == "a" else None


def _card_title(card: LexborNode, parts: _Parts) -> tuple[str, LexborNode | None]:
    """Title as displayed (the linked h2, or the legacy title link) and the link that opens the product.

    A card may hold several h2 (a brand line, a sustainability popover); the title is the one
    that links to the product, else the first non-empty one.
    """
    chosen: tuple[LexborNode, LexborNode | None] | None = None
    for h2 in parts.h2s:
        if not text_of(h2, skip_classes=("a-offscreen",)):
            continue
        link = _linked(h2, card)
        if link is not None:
            chosen = (h2, link)
            break
        if chosen is None:
            chosen = (h2, None)
    if chosen is not None and chosen[1] is None:
        recipe = card.css_first('[data-cy="title-recipe"] a.a-text-normal, [data-cy="title-recipe"] a[href]')
        if recipe is not None and len(text_of(recipe)) > len(text_of(chosen[0])):
            return text_of(recipe), recipe  # brand-only h2 above a linked product name
    if chosen is not None:
        h2, link = chosen
        title = collapse(attr(h2, "data-attribute")) or text_of(h2, skip_classes=("a-offscreen",))
        title = strip_label_prefix(title, "sponsored_ad", dash=True)  # 'Sponsored Ad - ', 'Anuncio patrocinado - '
        return title, link or first(card, "a.a-link-normal[href]", "a[href]")
    link = first(card, "a.s-access-detail-page", "h3.newaps a", ".productTitle a", "a.title")
    title = attr(link, "title") or text_of(link)
    return collapse(title), link


def _sponsored(card: LexborNode, modern: bool, parts: _Parts) -> bool:
    """Ad cards: the AdHolder class (2019+) or a visible 'Sponsored' label in any UI language."""
    if "AdHolder" in attr(card, "class"):
        return True
    labels = parts.labels
    if not modern:
        labels = labels + select_all(card, ".s-sponsored-header, .s-sponsored-list-header, "
                                           ".s-sponsored-label-info-icon")
    return any(is_label(text_of(label), "sponsored", exact=False) for label in labels)


def _card_asin(card: LexborNode, modern: bool) -> str:
    """The card's ASIN; modern cards with an empty data-asin are widgets, not results."""
    asin = attr(card, "data-asin") or attr(card, "name")
    if _ASIN_RE.match(asin) or modern:
        return asin if _ASIN_RE.match(asin) else ""
    link = card.css_first("a[href]")
    m = _DP_RE.search(attr(link, "href"))
    return m.group(1) if m else ""


def _selector(card: LexborNode, asin: str, link: LexborNode | None, modern: bool) -> str:
    base = f'div[data-component-type="s-search-result"][data-asin="{asin}"]' if modern else f'[data-asin="{asin}"]'
    if not modern and not attr(card, "data-asin"):
        base = f'div[name="{asin}"]'
    if link is not None and link.parent is not None and link.parent.tag == "h2":
        return f"{base} h2 a"
    if link is not None and link.css_first("h2") is not None:
        return f"{base} a:has(h2)"
    return f"{base} a[href]"


_PAGING = {
    "next": "a.s-pagination-next, #pagnNextLink, a.pagnNext",
    "prev": "a.s-pagination-previous, #pagnPrevLink, a.pagnPrev",
    "current": ".s-pagination-selected, span.pagnCur",
}


_PAGING_BOX = ".s-pagination-strip, .s-pagination-container, ul.a-pagination, #pagn"


def _pager(last_card: LexborNode) -> dict[str, LexborNode]:
    """Paging links from the blocks after the last card (where every era puts them): small scans."""
    sib = last_card.next
    while sib is not None:
        if sib.is_element_node:
            found = landmarks(sib, _PAGING)
            if found:
                return found
        sib = sib.next
    return {}


def _labelled_pager(body: LexborNode) -> dict[str, LexborNode]:
    """Paging links found by what they say ('Next', 'Weiter', '次へ'...) in a paging block.

    A fallback for paging markup without the known classes (``ul.a-pagination`` 2017-2020).
    """
    found: dict[str, LexborNode] = {}
    box = body.css_first(_PAGING_BOX)
    for kind in ("next", "prev"):
        link = labelled_link(box, kind)
        if link is not None:
            found[kind] = link
    current = box.css_first(".a-selected, .s-pagination-selected") if box is not None else None
    if current is not None:
        found["current"] = current
    return found


def read_results(tree: LexborHTMLParser, base: str, first_card: LexborNode | None = None,
                 hint: str | None = None) -> ResultsRead | None:
    """Result cards and paging, or None when the page has no results markup at all.

    ``hint`` is the marketplace's currency (for price marks several currencies share).
    """
    body = tree.body
    if body is None:
        return None
    out = ResultsRead()
    nodes = body.css(_MODERN) if first_card is not None else []
    modern = bool(nodes)
    if not modern:
        for sel in _LEGACY:
            nodes = body.css(sel)
            if nodes:
                break
    for card in nodes[:MAX_RESULT_CARDS]:
        asin = _card_asin(card, modern)
        if not asin:
            continue
        parts = _Parts(card)
        title, link = _card_title(card, parts)
        if not title:
            continue
        url = absolute(attr(link, "href"), base) if link is not None else None
        price = _card_price(card, parts, hint)
        out.cards.append((ResultCard(id=asin, title=title, price=price.value, price_text=price.text,
                                     sponsored=_sponsored(card, modern, parts), url=url),
                          _selector(card, asin, link, modern)))
    search_box = first(body, "#twotabsearchtextbox", "#nav-search-keywords", 'input[name="field-keywords"]')
    out.query = collapse(attr(search_box, "value")) or _query_from_url(base) or _query_from_title(tree)
    paging = _pager(nodes[-1]) if nodes else {}
    if not paging:
        paging = landmarks(body, _PAGING) or _labelled_pager(body)
    nxt = paging.get("next")
    out.next_url = absolute(attr(nxt, "href"), base)
    out.prev_url = absolute(attr(paging.get("prev"), "href"), base)
    digits = re.sub(r"\D", "", text_of(paging.get("current")))
    if digits:
        out.page_num = int(digits)
    elif out.next_url:
        page = parse_qs(urlsplit(out.next_url).query).get("page", [""])[0]
        out.page_num = int(page) - 1 if page.isdigit() and int(page) > 1 else None
    if not out.cards and not out.query and nxt is None:
        return None
    return out


_TITLE_QUERY = re.compile(r"^Amazon(?:\.[a-z]{2,3}){1,2}\s*[:：]\s*(.+)$", re.IGNORECASE)


def _query_from_title(tree: LexborHTMLParser) -> str | None:
    """'Amazon.co.jp : 水筒' -> '水筒': a results page titles itself with the query (mobile pages too)."""
    root = tree.head or tree.root
    node = root.css_first("title") if root is not None else None
    m = _TITLE_QUERY.match(text_of(node)) if node is not None else None
    return collapse(m.group(1)) or None if m else None


def _query_from_url(url: str) -> str | None:
    params = parse_qs(urlsplit(url).query)
    value = (params.get("k") or params.get("field-keywords") or [""])[0]
    return collapse(value) or None
