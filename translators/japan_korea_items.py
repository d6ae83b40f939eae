"""Item pages of Japanese and Korean shops that the generic reader does not take for items.

An auction page (Yahoo!オークション) has no cart button and often no structured data; Coupang,
Gmarket and Rakuten buttons say 장바구니 / 구매하기 / 買い物かごに入れる. On those pages the
shop's own title and price elements (``h1.itemtit``, ``.price_real``, ``.total-price strong``...)
or, on an auction, its price rows (現在 / 即決) make the item state. The auction rule: the buy-now
price when the page shows one, else the current bid (``japan_korea_results.auction_price``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from selectolax.lexbor import LexborNode

from shopsim.page import PageState, ProductView
from shopsim.translators.clickables import item_clickables
from shopsim.translators.dom import collapse, text_of
from shopsim.translators.japan_korea_results import auction_price
from shopsim.translators.prices import PriceInfo, parse_price
from shopsim.translators.widgets import breadcrumb_trail, without_title_crumb

__all__ = ["ItemReading", "auction_pairs", "item_price", "shop_item"]


@dataclass(frozen=True)
class ItemReading:
    """How one shop's item page shows its fields (see ``japan_korea_shops.SHOPS``)."""

    currency: str
    title_sel: str = ""
    price_sel: str = ""
    auction: bool = False


_LABEL = re.compile(r"^(現在|即決|現在価格|即決価格|입찰가|즉시구매가)\s*[:：]?\s*")
_AUCTION_ID = re.compile(r"(?:オークションID|Auction ID)\s*[:：]?\s*([A-Za-z]?\d{6,})")


def auction_pairs(body: LexborNode) -> list[tuple[str, str]]:
    """(label, price text) of an auction page's price rows: '現在 1,000円（税0円）', '即決 5,000円'.

    Every era writes them as a definition list (``dl`` with the label in ``dt``, 2019-2024 classes
    ``Price--current`` / ``Price--buynow``; the 2025 layout with generated class names): the row's
    text starts with its label.
    """
    pairs: list[tuple[str, str]] = []
    for dl in body.css("dl")[:300]:
        first = dl.child
        while first is not None and not first.is_element_node and not (first.text_content or "").strip():
            first = first.next  # the row's first element (dt) or text: its label
        label = collapse(first.text_content if first is not None and not first.is_element_node else text_of(first))
        m = _LABEL.match(label) if first is not None and len(label) <= 40 else None
        if m is None or any(seen == m.group(1) for seen, _ in pairs):
            continue
        rest = collapse(text_of(dl)[:200])[len(label):] if len(label) == m.end() else label[m.end():]
        rest = collapse(rest)
        if rest and any(c.isdigit() for c in rest):
            pairs.append((m.group(1), _first_price(rest)))
    return pairs


def _first_price(text: str) -> str:
    """'1,000円（税 0 円）' -> '1,000円': the amount before any tax note."""
    return re.split(r"[（(]", text, maxsplit=1)[0].strip()


def item_price(body: LexborNode, reading: ItemReading) -> PriceInfo:
    """The item's price: an auction's buy-now price or bid, else the shop's own price element."""
    if reading.auction:
        return auction_price(auction_pairs(body), reading.currency)
    for node in body.css(reading.price_sel)[:6] if reading.price_sel else []:
        info = parse_price(text_of(node), reading.currency)
        if info.value is not None:
            return PriceInfo(info.value, info.currency or reading.currency, info.text)
    return PriceInfo(None, None, "")


def shop_item(body: LexborNode, url: str | None, listing: str, reading: ItemReading) -> PageState | None:
    """The item state from the shop's own title and price elements; None without both."""
    heading = next((h for h in (body.css(reading.title_sel)[:3] if reading.title_sel else []) if text_of(h)), None)
    heading = heading or next((h for h in body.css("h1")[:5] if text_of(h)), None)
    price = item_price(body, reading)
    if heading is None or price.value is None:
        return None
    title = text_of(heading)
    if not listing and reading.auction:
        found = _AUCTION_ID.search(text_of(body.css_first("table, dl.ProductDetail__items, #l-sub") or body)[:20000])
        listing = found.group(1) if found else ""
    product = ProductView(
        id=listing or "unknown", title=title, price=price.value, price_text=price.text, currency=reading.currency,
        category_path=without_title_crumb(breadcrumb_trail(body), title))
    return PageState(page_type="item", site="other", url=url, product=product,
                     clickables=item_clickables(product, None), has_search_bar=True)
