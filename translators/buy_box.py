"""The price the buy box displays, where structured data says another number.

Structured data may carry another number than the buy box shows (a set sold as one item whose
JSON-LD offer prices one piece, Wayfair's; a range over variants while one is shown); the answer
keys record the price as displayed, so a price element marked as such right after the product's
heading wins over a structured number the page never shows.
"""

from __future__ import annotations

import re

from selectolax.lexbor import LexborNode

from shopsim.translators.cards import MAX_WALK, price_text
from shopsim.translators.dom import attr
from shopsim.translators.prices import PriceInfo, parse_price

__all__ = ["displayed_price"]

_PRICE_MARK = re.compile(r"(?i)price")
_NOT_SHOWN_PRICE = re.compile(r"(?i)\b(?:was|save|savings?|off|list|reg(?:ular)?|per month|/mo|financ|each|"
                              r"per item|from)\b")


def displayed_price(body: LexborNode, prices: list[LexborNode], heading: LexborNode | None,
                    skip: set[int], structured: float | tuple[float, float]) -> PriceInfo | None:
    """The buy box's price where the page never shows the ``structured`` number (or either end of its
    range): the first price marked as a price (class, id or test id) after the product's heading,
    outside other products' cards (``skip``), not struck, not a saving, instalment or per-piece price.
    None when the page shows the structured number somewhere (then that is the price, and a misread
    split-cents price cannot win).
    """
    if heading is None or not prices:
        return None
    ends = structured if isinstance(structured, tuple) else (structured,)
    for shown in prices[:400]:  # a per-piece display ('$289.99 each') does not count
        text = price_text(shown)
        value = parse_price(text).value
        values = value if isinstance(value, tuple) else (value,) if isinstance(value, float) else ()
        if any(abs(v - e) < 0.005 for v in values for e in ends) and not _NOT_SHOWN_PRICE.search(text):
            return None
    wanted = {p.mem_id for p in prices}
    passed = False
    for walked, node in enumerate(body.traverse()):
        if walked > MAX_WALK:
            return None
        if node.mem_id == heading.mem_id:
            passed = True
        elif passed and node.mem_id in wanted:
            info = _marked_price(node, skip)
            if info is not None:
                return info
    return None


def _marked_price(node: LexborNode, skip: set[int]) -> PriceInfo | None:
    """``node``'s price when it is marked as one and is no struck, saving or per-piece price."""
    chain: list[LexborNode] = []
    up: LexborNode | None = node
    while up is not None and len(chain) < 30:
        chain.append(up)
        up = up.parent
    if any(n.mem_id in skip for n in chain) or any(n.tag in ("s", "del", "strike") for n in chain[:4]):
        return None
    marks = " ".join(f"{attr(n, 'class')} {attr(n, 'id')} {attr(n, 'data-testid')} {attr(n, 'data-test-id')}"
                     for n in chain[:3])
    text = price_text(node)
    if not _PRICE_MARK.search(marks) or re.search(r"(?i)was|old|strike|compare|regular|list", marks) or \
            _NOT_SHOWN_PRICE.search(text):
        return None
    info = parse_price(text)
    return info if isinstance(info.value, float) else None
