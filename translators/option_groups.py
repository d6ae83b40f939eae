"""Option axes drawn as radio groups, and the price the buy box displays.

Modern shop front ends (Wayfair, Best Buy, Target, many React stores) draw a variation axis as an
accessible radio group: ``role="radiogroup"`` (or a ``<fieldset>`` with a ``<legend>``) named
'Color' or 'Bed Size', holding ``role="radio"`` buttons or radio inputs, the chosen one checked.
Selects and swatch classes are read in ``widgets``; this module adds the axes those miss.

The displayed price: structured data may carry another number than the buy box shows (a set sold
as one item whose JSON-LD offer prices one piece); the answer keys record the price as displayed,
so a price element marked as such right after the product's heading wins over the structured one.
"""

from __future__ import annotations

import re

from selectolax.lexbor import LexborNode

from shopsim.translators.cards import MAX_WALK, price_text, text_of
from shopsim.translators.dom import attr, collapse
from shopsim.translators.prices import PriceInfo, parse_price

__all__ = ["displayed_price", "radio_groups"]

#: Radio groups that are not variation axes: delivery, quantity, plans, payment, filters, ratings...
_NOT_AXIS = re.compile(r"(?i)quantity|\bqty|deliver|shipping|pick ?up|fulfil|protect|warrant|insur|plan\b|payment|"
                       r"pay\b|financ|rating|review|star|sort|filter|gift|subscri|frequency|store|zip|country|"
                       r"language|currency|newsletter|gender|compare|price|condition")
_SELECTED = re.compile(r"(?i)(?<![a-z])(?:selected|checked|active|is-selected|current)(?![a-z])")
_PRICE_MARK = re.compile(r"(?i)price")
_NOT_SHOWN_PRICE = re.compile(r"(?i)\b(?:was|save|savings?|off|list|reg(?:ular)?|per month|/mo|financ|each|"
                              r"per item|from)\b")
MAX_GROUPS = 40


def radio_groups(root: LexborNode) -> tuple[dict[str, list[str]], dict[str, str | None]]:
    """Variation axes drawn as radio groups: ({axis: values in page order}, {axis: chosen or None})."""
    options: dict[str, list[str]] = {}
    chosen: dict[str, str | None] = {}
    for group in root.css('[role="radiogroup"], fieldset')[:MAX_GROUPS]:
        if _in_chrome(group):
            continue
        axis, picked = _axis(group, root)
        members = group.css('[role="radio"]')[:100] or group.css('input[type="radio"]')[:100]
        values: list[str] = []
        for member in members:
            value = _member_text(member, root)
            if value and len(value) <= 60 and value not in values:
                values.append(value)
                if _checked(member):
                    picked = value
        if len(values) < 2 or not axis or len(axis) > 30 or _NOT_AXIS.search(axis) or axis in options:
            continue
        options[axis], chosen[axis] = values, picked if picked in values else None
    return options, chosen


def _axis(group: LexborNode, root: LexborNode) -> tuple[str, str | None]:
    """The group's caption ('Color: Gray' -> ('Color', 'Gray')): aria-labelledby, aria-label, legend, or
    the short text just before it.
    """
    text = ""
    for ref in attr(group, "aria-labelledby").split()[:2]:
        label = root.css_first(f'[id="{ref}"]') if not set(ref) & set('"\\') else None
        text = text_of(label) if label is not None else ""
        if text:
            break
    legend = group.css_first("legend") if group.tag == "fieldset" else None
    text = text or attr(group, "aria-label") or (text_of(legend) if legend is not None else "") or _before(group)
    name, _, picked = collapse(text).partition(":")
    return name.strip(" *"), collapse(picked) or None


def _before(node: LexborNode) -> str:
    """A short caption just before ``node`` (or before its parent)."""
    for el in (node, node.parent):
        prev = el.prev if el is not None else None
        while prev is not None and prev.tag == "-text" and not (prev.text_content or "").strip():
            prev = prev.prev
        if prev is not None and prev.tag not in ("script", "style"):
            text = collapse(prev.text_content or "") if prev.tag == "-text" else text_of(prev)
            if text and len(text) <= 60:
                return text
    return ""


def _member_text(member: LexborNode, root: LexborNode) -> str:
    """What a radio shows: its aria-label or value label, its text, its image's alt."""
    if member.tag == "input":
        ref = attr(member, "id")
        label = root.css_first(f'label[for="{ref}"]') if ref and not set(ref) & set('"\\') else None
        if label is None and member.parent is not None and member.parent.tag == "label":
            label = member.parent
        shown = attr(member, "aria-label") or (text_of(label) if label is not None else "")
        if not shown and label is not None and label.css_first("img[alt]") is not None:
            shown = attr(label.css_first("img[alt]"), "alt")
        return collapse(shown or attr(member, "value"))
    img = member.css_first("img[alt]")
    return collapse(attr(member, "aria-label") or text_of(member) or (attr(img, "alt") if img is not None else ""))


def _checked(member: LexborNode) -> bool:
    return attr(member, "aria-checked") == "true" or "checked" in member.attributes or bool(
        _SELECTED.search(attr(member, "class")))


def _in_chrome(node: LexborNode) -> bool:
    up: LexborNode | None = node
    for _ in range(30):
        if up is None:
            return False
        if up.tag in ("header", "footer", "nav", "dialog") or attr(up, "role") in ("navigation", "search", "dialog"):
            return True
        up = up.parent
    return False


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
