"""eBay search-results pages, 2010-2026 markup: result cards, query, paging, promoted listings.

Card containers by era: ``li.s-card`` (2025+), ``li.s-item`` (2018-2025), ``li.sresult`` in
``#ListViewInner`` (2012-2018). Only cards of the results river count: "Shop on eBay" placeholders
(item id 123456) and carousels are skipped.
"""

from __future__ import annotations

import base64
import binascii
import re
from urllib.parse import parse_qs, unquote, urlsplit

from selectolax.lexbor import LexborHTMLParser, LexborNode

from shopsim.page import ResultCard
from shopsim.translators.documents import absolute
from shopsim.translators.dom import MAX_RESULT_CARDS, attr, collapse, first, landmarks, select_all, text_of
from shopsim.translators.marketplaces import is_label, labelled_link
from shopsim.translators.prices import PriceInfo, parse_price
from shopsim.translators.realsite import ResultsRead

__all__ = ["item_id_from_url", "read_results"]

_ITM_RE = re.compile(r"/itm/(?:[^?#]*?/)?(\d{9,15})(?:[/?#&]|$)")
_PLACEHOLDER_ID = "123456"
_TITLE_SKIP = ("clipped", "LIGHT_HIGHLIGHT", "s-card__new-listing", "s-item__title--tagblock",
               "NEW_LISTING", "s-item__new-listing", "newly")
_TKP_RE = re.compile(r"tkp(?:%3A|:)([A-Za-z0-9_\-]{4,})")


_PAGING = {
    "next": "a.pagination__next, a.gspr.next, a.pagn-next",
    "prev": "a.pagination__previous, a.gspr.prev, a.pagn-prev",
    "current": '.pagination__item[aria-current="page"], .pagn-cur, a.pg.curr',
}


def item_id_from_url(url: str | None) -> str:
    """Listing id from an /itm/ link ('/itm/<digits>' or '/itm/<slug>/<digits>'), else ''."""
    m = _ITM_RE.search(url or "")
    return m.group(1) if m else ""


def is_results_page(html: str) -> bool:
    """Cheap check: results markup present (river list, cards, count heading)."""
    return any(mark in html for mark in ("srp-results", "srp-controls__count", "s-item__", "s-card__",
                                         'id="ListViewInner"', "sresult", "srp-river"))


def _promoted(card: LexborNode, link: LexborNode | None) -> bool:
    """Promoted listing: the tracking token says PL (base64 '\\x04PL'...) or ampid is PL_CLK."""
    html = attr(link, "href")
    if "PL_CLK" in html or "ampid%3APL" in html:
        return True
    for node in (link, card.css_first('a[href*="tkp"]')):
        m = _TKP_RE.search(attr(node, "href"))
        if m:
            token = m.group(1)
            try:
                raw = base64.urlsafe_b64decode(token[:8] + "=" * (-len(token[:8]) % 4))
            except (binascii.Error, ValueError):
                continue
            return raw[1:3] == b"PL"
    label = card.css_first(".s-item__sep, .s-card__sep")
    return label is not None and is_label(text_of(label), "sponsored")


def _card_price(card: LexborNode, kind: str, hint: str | None) -> PriceInfo:
    """Current price; an s-card range is split over sibling spans ('$1.90', ' to ', '$2.37')."""
    if kind == "s-card":
        parts = card.css(".s-card__price")
        if not parts:
            return PriceInfo(None, None, "")
        texts = [text_of(parts[0])]
        first_parent = parts[0].parent
        for extra in parts[1:3]:
            if extra.parent is None or first_parent is None or extra.parent.mem_id != first_parent.mem_id:
                break
            texts.append(text_of(extra))
        return parse_price(" ".join(texts), hint)
    node = card.css_first(".s-item__price" if kind == "s-item" else ".lvprice, .prc .bold, .g-b")
    if node is None:
        return PriceInfo(None, None, "")
    return parse_price(text_of(first(node, ".bold") if kind == "legacy" else node, sep=" ") or text_of(node), hint)


def _card_title(card: LexborNode, kind: str) -> str:
    sel = {"s-card": ".s-card__title", "s-item": ".s-item__title"}.get(kind, ".lvtitle, a.vip, .ttl a")
    return text_of(card.css_first(sel), skip_classes=_TITLE_SKIP)


def _card_kind(card: LexborNode) -> str:
    cls = attr(card, "class").split()
    return "s-card" if "s-card" in cls else "s-item" if "s-item" in cls else "legacy"


def _river_cards(body: LexborNode) -> list[LexborNode]:
    cards: list[LexborNode] = []
    for ul in body.css("ul.srp-results"):
        cards.extend(li for li in select_all(ul, "li.s-item, li.s-card")
                     if li.parent is not None and li.parent.mem_id == ul.mem_id)
    if cards:
        return cards
    cards = select_all(body, "#ListViewInner > li.sresult, #ListViewInner > li[listingid]")
    if cards:
        return cards
    out = []
    for li in select_all(body, "li.s-item, li.s-card"):
        parent, nested = li.parent, False
        while parent is not None and parent.tag != "body":
            if "carousel" in attr(parent, "class"):
                nested = True
                break
            parent = parent.parent
        if not nested:
            out.append(li)
    return out


def read_results(tree: LexborHTMLParser, base: str, url: str | None, hint: str | None = None) -> ResultsRead | None:
    """Result cards and paging, or None when nothing on the page looks like a results page.

    ``hint`` is the marketplace's currency (for price marks several currencies share).
    """
    body = tree.body
    if body is None:
        return None
    out = ResultsRead()
    seen_placeholder = False
    for card in _river_cards(body)[:MAX_RESULT_CARDS]:
        link = card.css_first('a[href*="/itm/"]')
        item_id = attr(card, "data-listingid") or attr(card, "listingid") or item_id_from_url(attr(link, "href"))
        kind = _card_kind(card)
        title = _card_title(card, kind)
        if not item_id or item_id == _PLACEHOLDER_ID or not title or title.lower() == "shop on ebay":
            seen_placeholder = True
            continue
        href = absolute(attr(link, "href"), base)
        selector = (f'li[data-listingid="{item_id}"] a[href*="/itm/"]' if attr(card, "data-listingid")
                    else f'ul.srp-results a[href*="/itm/"][href*="{item_id}"]')
        price = _card_price(card, kind, hint)
        out.cards.append((ResultCard(id=item_id, title=title, price=price.value, price_text=price.text,
                                     sponsored=_promoted(card, link), url=href), selector))
    box = first(body, "#gh-ac", 'input[name="_nkw"]')
    out.query = collapse(attr(box, "value")) or _query_from_url(url)
    paging = landmarks(body, _PAGING)
    if "next" not in paging:  # paging markup of an unknown era: the link that says 'Next' / 'Weiter' / '次へ'
        nxt = labelled_link(body.css_first("nav.pagination, .pagination, #Pagination, .pagn"), "next")
        if nxt is not None:
            paging["next"] = nxt
    nxt = paging.get("next")
    if attr(nxt, "aria-disabled") != "true":  # the last page keeps a disabled 'next' link
        out.next_url = absolute(attr(nxt, "href"), base)
    out.prev_url = absolute(attr(paging.get("prev"), "href"), base)
    current = paging.get("current")
    digits = re.sub(r"\D", "", text_of(current))
    if digits:
        out.page_num = int(digits)
    elif url and "_pgn=" in url:
        pgn = parse_qs(urlsplit(url).query).get("_pgn", [""])[0]
        out.page_num = int(pgn) if pgn.isdigit() else None
    elif out.cards:
        out.page_num = 1
    if not out.cards and not out.query and not seen_placeholder:
        return None
    return out


def _query_from_url(url: str | None) -> str | None:
    if not url:
        return None
    value = parse_qs(urlsplit(url).query).get("_nkw", [""])[0]
    return collapse(unquote(value)) or None
