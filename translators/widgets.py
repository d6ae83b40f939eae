"""Buy box, breadcrumbs and option widgets on shop pages without (enough) structured data.

Split from :mod:`shopsim.translators.cards` (prices and product cards), which these build on:
the buy-box price is the first price outside repeated cards, a breadcrumb trail a run of short
links with separators, options the variation selects and swatches a shopper sees.
"""

from __future__ import annotations

import re

from selectolax.lexbor import LexborNode

from shopsim.translators.cards import (
    _NOT_PRICE_TEXT,
    _inside,
    _links,
    _struck,
    _up,
    price_text,
    short_text,
    text_of,
)
from shopsim.translators.documents import absolute
from shopsim.translators.dom import attr, collapse, marked
from shopsim.translators.prices import PriceInfo, parse_price

__all__ = ["breadcrumb_trail", "buybox_price", "option_widgets", "without_title_crumb"]


# ----------------------------------------------------------------------------- buy box --
def buybox_price(root: LexborNode, nodes: list[LexborNode], after: LexborNode | None,
                 skip: set[int]) -> PriceInfo | None:
    """The product's displayed price: the first price marked as such (class/id 'price') after the title.

    Struck list prices, savings, instalments and prices inside other products' cards (``skip``) are
    passed over; without any element marked 'price', the first plain price after the title counts.
    """
    start = _position(root, nodes, after)
    fallback: PriceInfo | None = None
    for node in nodes[start:]:
        if _inside(node, skip) or _struck(node):
            continue
        text = price_text(node)
        info = parse_price(text)
        if info.value is None or _NOT_PRICE_TEXT.search(re.sub(r"(?i)^\s*(?:our\s+)?price\s*:?", "", text)):
            continue
        marked = any("price" in f"{attr(n, 'class')} {attr(n, 'id')}".casefold() for n in _up(node, 3))
        if marked:
            return info
        fallback = fallback or info
    return fallback


def _position(root: LexborNode, nodes: list[LexborNode], after: LexborNode | None) -> int:
    """Index of the first of ``nodes`` (page order) that follows ``after`` (0 when unknown)."""
    if after is None or not nodes:
        return 0
    wanted = {n.mem_id for n in nodes} | {after.mem_id}
    order: dict[int, int] = {}
    for i, node in enumerate(root.traverse()):
        if node.mem_id in wanted:
            order[node.mem_id] = i
    at = order.get(after.mem_id)
    if at is None:
        return 0
    return next((i for i, node in enumerate(nodes) if order.get(node.mem_id, -1) > at), 0)


# ------------------------------------------------------------------------- breadcrumbs --
_SEPARATORS = "»›>/→⟩|\u00a0·•:"
_SEPARATOR_ONLY = re.compile(r"^[\s»›>/→⟩·•\\-]+$")
#: The marks a trail of links must show between them: a parent whose own text has none is no trail.
_TRAIL_MARK = re.compile("[»›>→⟩]")
#: A breadcrumb container's marks (attribute, substring), found through one class scan for 'read'.
_CRUMBS = (("class", "readcrumb"), ("id", "readcrumb"), ("aria-label", "readcrumb"), ("class", "read-crumb"),
           ("data-testid", "readcrumb"))
_CRUMB_CANDIDATES = '[class*="read"], [id*="readcrumb"], [aria-label*="readcrumb"], [data-testid*="readcrumb"]'


def _trail(links: list[LexborNode]) -> list[str]:
    """Link texts in order; a trail never repeats itself, so a second copy (post-script DOMs) ends it."""
    out: list[str] = []
    for text in (collapse(text_of(a).strip(_SEPARATORS + " ")) for a in links):
        if text in out:
            break
        out += [text] if text else []
    return out


def breadcrumb_trail(root: LexborNode) -> list[str]:
    """A breadcrumb trail from markup: a container named 'breadcrumb', else links joined by » › > / →."""
    for node in marked(root, _CRUMBS, _CRUMB_CANDIDATES, 5):
        trail = _trail(_links(node))
        if len(trail) >= 2:
            return trail
    seen: set[int] = set()
    for a in root.css("a[href]")[:3000]:
        parent = a.parent
        if parent is None or parent.mem_id in seen:
            continue
        seen.add(parent.mem_id)
        if not _TRAIL_MARK.search(parent.text(deep=False) or ""):  # its own texts, joined, in one call
            continue
        children = list(parent.iter(include_text=True))
        anchors = [c for c in children if c.tag == "a"]
        texts = [c.text_content or "" for c in children if c.tag == "-text" and (c.text_content or "").strip()]
        others = [c for c in children if c.tag not in ("a", "-text", "-comment", "span", "b", "br")]
        if len(anchors) >= 2 and texts and not others and all(_SEPARATOR_ONLY.match(t) for t in texts) \
                and any(set(t) & set("»›>→⟩") for t in texts):
            trail = _trail(anchors)
            if len(trail) >= 2:
                return trail
    return []


def without_title_crumb(trail: list[str], title: str) -> list[str]:
    """``trail`` without a last crumb that only repeats the product title (structured trails often end so).

    A crumb cut short ('Hello Kitty strap 13…') counts when the title starts with it. A trail of two
    crumbs (the shop's home and the product) is left whole: no category path remains to read.
    """
    if len(trail) < 3 or not title:
        return trail
    last = collapse(trail[-1]).casefold()
    name = collapse(title).casefold()
    cut = last.rstrip(".…").rstrip()
    if last == name or (cut != last and len(cut) >= 10 and name.startswith(cut)):
        return trail[:-1]
    return trail


# ---------------------------------------------------------------------- option widgets --
_SKIP_SELECT = re.compile(r"(?i)(?<!package )(?<!pack )quantity|\bqty|country|region|language|locale|currency|sort|\border|per.?page|"
                          r"\bview|search|categor|department|rating|review|shipping|zip|\bstate\b|month|year|"
                          r"\bday\b|treasury|report|reason|filter|price|\bmin|\bmax|gift|subscri|delivery")
_OPTION_HINT = re.compile(r"(?i)variation|variant|option|attribute|swatch|size|colou?r|style|\bsku|talla|"
                          r"tama[nñ]o|gr[oö](?:ß|ss)e|farbe|taille|couleur|\bcor\b|tamanho|flavou?r|capacity")
_PLACEHOLDER = re.compile(r"(?i)^[\s\-–—]*(?:select|choose|please|pick|seleccion|elige|escolh|selecion|w[aä]hle|"
                          r"bitte|choisi|scegli)")
_SWATCH = re.compile(r"(?i)(?<![a-z])swatch")
_HIDDEN_STYLE = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden")


def _axis_label(text: str) -> tuple[str, str | None]:
    """'Color: Sleepy Blue' -> ('Color', 'Sleepy Blue'); 'Size*' -> ('Size', None)."""
    name, _, chosen = collapse(text).partition(":")
    return name.strip(" *"), (collapse(chosen) or None)


def _label_for(node: LexborNode, root: LexborNode) -> str:
    """A widget's caption: its <label for>, the element aria-labelledby names, aria-label, text before it."""
    refs = [('label[for="{}"]', attr(node, "id"))]
    refs += [('[id="{}"]', ref) for ref in attr(node, "aria-labelledby").split()[:2]]
    for pattern, value in refs:
        label = root.css_first(pattern.format(value)) if value and not set(value) & set('"\\') else None
        if label is not None and text_of(label):
            return text_of(label)
    return attr(node, "aria-label") or _nearby_label(node, 3)


def _nearby_label(node: LexborNode, levels: int) -> str:
    """A short text just before ``node`` or one of its first ancestors (the axis caption of a widget)."""
    for _ in range(levels):
        prev, hops = node.prev, 0
        while prev is not None and hops < 12:
            text = collapse(short_text(prev, 40, 40) or "") if prev.tag != "-text" else collapse(prev.text_content)
            if text and len(text) <= 40 and prev.tag not in ("script", "style"):
                return text
            if text or short_text(prev, 40, 40) is None:
                break
            prev, hops = prev.prev, hops + 1
        parent = node.parent
        if parent is None:
            break
        node = parent
    return ""


def _value_text(node: LexborNode) -> str:
    for name in ("data-value", "title", "aria-label"):
        if collapse(attr(node, name)):
            return collapse(attr(node, name))
    inner = node.css_first("a, button, label")
    text = text_of(inner) if inner is not None else ""
    if not text:
        img = node.css_first("img[alt]")
        text = collapse(attr(img, "alt")) if img is not None else ""
    text = text or text_of(node, sep=" ")
    half = text[: len(text) // 2].strip()
    return half if half and text == f"{half} {half}" else text


def option_widgets(root: LexborNode, base: str) -> tuple[dict[str, list[str]], dict[str, str | None],
                                                        dict[str, dict[str, str]]]:
    """Variation axes from selects and swatch groups: ({axis: values}, {axis: chosen}, {axis: {value: url}})."""
    options: dict[str, list[str]] = {}
    chosen: dict[str, str | None] = {}
    urls: dict[str, dict[str, str]] = {}
    for sel in root.css("select")[:60]:
        marks = " ".join(attr(sel, k) for k in ("id", "name", "class", "data-selector", "aria-label"))
        axis, picked = _axis_label(_label_for(sel, root))
        hidden = "hidden" in sel.attributes or attr(sel, "aria-hidden") == "true" or \
            _HIDDEN_STYLE.search(attr(sel, "style"))
        if hidden or not axis or _SKIP_SELECT.search(f"{marks} {axis}") or \
                not (_OPTION_HINT.search(marks) or _OPTION_HINT.search(axis)):
            continue
        values: list[str] = []
        for opt in sel.css("option")[:200]:
            text = text_of(opt)
            if text and not _PLACEHOLDER.match(text) and not (attr(opt, "value") == "" and not values):
                values.append(text)
                if "selected" in opt.attributes:
                    picked = text
        if values and axis not in options:
            options[axis], chosen[axis] = values, picked if picked in values else None
    groups: dict[int, list[LexborNode]] = {}
    marked = [el for el in root.css('[class*="swatch"], [id*="swatch"]')[:400]
              if _SWATCH.search(f"{attr(el, 'class')} {attr(el, 'id')}")]
    for el in marked:
        inner = el.css('[class*="swatch"], [id*="swatch"]')[:2]
        if el.parent is not None and not any(x.mem_id != el.mem_id for x in inner):
            groups.setdefault(el.parent.mem_id, []).append(el)
    for members in groups.values():
        axis, picked = _axis_label(_nearby_label(members[0], 4))
        values = [v for v in dict.fromkeys(_value_text(m) for m in members) if v and len(v) <= 80]
        if len(values) < 2 or not axis or len(axis) > 30 or _SKIP_SELECT.search(axis):
            continue
        if axis in options and set(values) <= set(options[axis]):
            continue
        options[axis], chosen[axis] = values, picked if picked in values else None
        links = {_value_text(m): absolute(attr(m.css_first("a[href]"), "href"), base) for m in members}
        urls[axis] = {k: v for k, v in links.items() if k in values and v}
    return options, chosen, urls
