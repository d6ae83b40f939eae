"""Option axes drawn as radio groups.

Modern shop front ends (Wayfair, Best Buy, Target, many React stores) draw a variation axis as an
accessible radio group: ``role="radiogroup"`` (or a ``<fieldset>`` with a ``<legend>``) named
'Color' or 'Bed Size', holding ``role="radio"`` buttons or radio inputs, the chosen one checked.
Selects and swatch classes are read in ``widgets``; this module adds the axes those miss.
"""

from __future__ import annotations

import re

from selectolax.lexbor import LexborNode

from shopsim.translators.cards import text_of
from shopsim.translators.dom import attr, collapse

__all__ = ["radio_groups"]

#: Radio groups that are not variation axes: delivery, quantity, plans, payment, filters, ratings...
_NOT_AXIS = re.compile(r"(?i)(?<!package )(?<!pack )quantity|\bqty|deliver|shipping|pick ?up|fulfil|protect|warrant|insur|plan\b|payment|"
                       r"pay\b|financ|rating|review|star|sort|filter|gift|subscri|frequency|store|zip|country|"
                       r"language|currency|newsletter|gender|compare|price|condition")
_SELECTED = re.compile(r"(?i)(?<![a-z])(?:selected|checked|active|is-selected|current)(?![a-z])")
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
