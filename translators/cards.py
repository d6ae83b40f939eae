"""Markup heuristics for shop pages whose structured data is missing or thin.

Prices as shown (a currency mark and digits, split cents rejoined, struck list prices told apart)
and repeated product cards (siblings that each hold a link, a title and a price); the buy box,
breadcrumbs and option widgets are in :mod:`shopsim.translators.widgets`. Every rule is about markup
shapes and words shops use, never about a particular shop; each scan is one CSS query or one bounded
walk, so a 3 MB page costs a few milliseconds.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import islice

from selectolax.lexbor import LexborNode

from shopsim.translators.documents import absolute
from shopsim.translators.dom import attr, collapse
from shopsim.translators.dom import text_of as _text_of
from shopsim.translators.prices import PriceInfo, parse_price
from shopsim.translators.shops import ID_VALUE, url_id

__all__ = ["Card", "PageTexts", "PriceGroups", "card_id", "find_cards", "page_texts", "price_groups", "price_nodes",
           "price_text", "repeated_blocks", "short_text", "text_of"]

#: A currency mark: a symbol ('$' covers US$, R$, C$...), 'S/', or an ISO code / abbreviation as a word.
_SYMBOLS, _PAIRS = "$€£¥₹₩₺₽₱₫₪฿", ("S/", "zł", "Kč")
_CODES = ("USD", "EUR", "GBP", "INR", "BRL", "COP", "PEN", "MXN", "ARS", "CLP", "JPY", "CAD", "AUD", "CHF", "SEK", "NOK",
          "DKK", "PLN", "TWD", "Rs", "RM", "Rp", "kr")
_MARK = (f"(?:[{re.escape(_SYMBOLS)}]|{'|'.join(_PAIRS)}|\\b(?:{'|'.join(_CODES)})(?![A-Za-z]))")  # 'Rp179.000': no word
# boundary before the digits. The lookahead on the characters a mark starts with rules out most positions of a
# text in one step, where the alternation would try every mark there (the two regexes run twice as fast).
_MARK_FIRST = re.escape("".join(sorted({*_SYMBOLS, *(m[0] for m in (*_PAIRS, *_CODES))})))
_MARK_RE = re.compile(f"(?=[{_MARK_FIRST}]){_MARK}")
#: A text that is a price by itself (mark next to a number), or a bare number that may be one.
_PRICED = re.compile(rf"(?=[{_MARK_FIRST}\d])(?:{_MARK}\.?\s*\d|\d\s*{_MARK})")
_DIGIT = re.compile(r"\d")
_NUMBER_ONLY = re.compile(r"^[\s\d.,'\u00a0\u202f\-]*\d[\s\d.,'\u00a0\u202f\-]*$")
_SPLIT_CENTS = re.compile(r"(\d)\s*([.,])\s+(\d{2})(?!\d)")
_STRUCK_TAGS = frozenset({"s", "del", "strike"})
_STRUCK_RE = re.compile(r"previous|strike|crossed|old-?_?price|was-?price|list-?_?price|original|compare|msrp|"
                        r"rrp|line-through")
_NOT_PRICE_TEXT = re.compile(r"(?i)\b(?:save|savings?|off|cuotas?|installments?|x de|ahorra|economi[sz]e|"
                             r"shipping|env[ií]o|frete|was|antes|de:|list price|earn)\b"
                             r"|原價|原价|組合價|组合价|現省|现省|定價|定价|市價|市价|參考價|参考价")  # was / list / save
MAX_PRICE_NODES = 3_000
#: Elements whose text is no price a shopper sees.
_NOT_SHOWN = frozenset({"script", "style", "option", "title", "noscript"})
#: Nodes walked in one page-wide scan (real pages: under 50,000 with their text nodes).
MAX_WALK = 150_000
MAX_CARDS = 200
#: Screen-reader-only text ('Opens in a new window', hidden separators) is not what a shopper sees.
HIDDEN_CLASSES = ("clipped", "visually-hidden", "visuallyhidden", "sr-only", "screen-reader-text", "a-offscreen",
                  "andes-visually-hidden", "u-hide", "hidden", "hide", "offscreen")


def text_of(node: LexborNode | None, sep: str = "") -> str:
    """Visible text, screen-reader-only elements left out."""
    return _text_of(node, HIDDEN_CLASSES, sep)


# ------------------------------------------------------------------------------- prices --
def price_text(node: LexborNode) -> str:
    """A price element's text with split cents rejoined ('S/ 57 , 29' and '$5<sup>97</sup>' -> 57,29 / 5.97)."""
    parts: list[str] = []
    for child in node.traverse(include_text=True):
        if not child.is_text_node:
            continue
        text = child.text_content or ""
        parent = child.parent
        if parent is not None and parent.tag == "sup" and re.fullmatch(r"\s*\d{2}\s*", text) and \
                parts and re.search(r"\d\s*$", parts[-1]):
            text = "." + text.strip()
        parts.append(text)
        if len(parts) > 40:
            break
    text = collapse("".join(parts))
    return _SPLIT_CENTS.sub(r"\1\2\3", text) if _SPLIT_CENTS.search(text) else text  # a search costs a third of a sub


def short_text(node: LexborNode, limit: int = 120, max_nodes: int = 80) -> str | None:
    """``node``'s text when it is small (None otherwise): bounded, where ``node.text()`` would copy a
    whole page for an element that wraps it.
    """
    parts: list[str] = []
    size = 0
    for count, child in enumerate(node.traverse(include_text=True)):
        if count > max_nodes:
            return None
        if child.is_text_node:
            text = child.text_content or ""
            size += len(text.strip())
            if size > limit:
                return None
            parts.append(text)
    return "".join(parts)


def _struck(node: LexborNode | None, stop: LexborNode | None = None, levels: int = 4) -> bool:
    """Whether a price is shown struck through (list/was price), from tags, classes or inline style."""
    for _ in range(levels):
        if node is None or (stop is not None and node.mem_id == stop.mem_id):
            return False
        if node.tag in _STRUCK_TAGS:
            return True
        attrs = node.attributes
        if _STRUCK_RE.search(f"{attrs.get('class') or ''}{attrs.get('id') or ''}{attrs.get('style') or ''}".casefold()
                             .replace(" ", "")):
            return True
        node = node.parent
    return False


#: A page's texts as its scans read them: (text node, its text) in page order, whitespace-only ones left out.
PageTexts = list[tuple[LexborNode, str]]


def page_texts(root: LexborNode) -> PageTexts:
    """Every text under ``root`` that shows more than whitespace, from one bounded walk (``MAX_WALK``
    nodes): read once for the prices and the feature captions, where each walked the page itself.

    The indentation between tags is most of a page's text nodes (6,900 of 8,400 on a MercadoLibre
    search); a page's few scripts cost less to copy than a parent looked up for every text.
    """
    out: PageTexts = []
    for walked, child in enumerate(root.traverse(include_text=True)):
        if walked > MAX_WALK:
            break
        if child.is_text_node:
            text = child.text_content
            if text and not text.isspace():
                out.append((child, text))
    return out


def price_nodes(texts: PageTexts) -> list[LexborNode]:
    """Elements showing one price (digits and a currency mark in at most 60 characters), in page order.

    A number split from its currency sign ('<span>S/</span><span>57</span>') is found by climbing
    from the digits to the nearest small element that shows both.
    """
    out: list[LexborNode] = []
    seen: set[int] = set()
    # each ancestor's verdict once, however many numbers it holds: None (too long to be one price),
    # True (shows a currency mark: the price element) or False (climb on)
    verdicts: dict[int, bool | None] = {}
    for child, text in texts:
        if len(text) > 200 or not _DIGIT.search(text) or not (_NUMBER_ONLY.match(text) or _PRICED.search(text)):
            continue
        node = child.parent
        for _ in range(3):
            if node is None or node.tag in _NOT_SHOWN:
                node = None
                break
            key = node.mem_id
            verdict = verdicts.get(key, _UNSEEN)
            if verdict is _UNSEEN:
                verdict = verdicts[key] = _shows_price(node)
            if verdict is None:
                node = None
                break
            if verdict:
                break
            node = node.parent
        else:
            node = None
        if node is not None and node.mem_id not in seen:
            seen.add(node.mem_id)
            out.append(node)
            if len(out) >= MAX_PRICE_NODES:
                break
    return out


_UNSEEN = object()


def _shows_price(node: LexborNode) -> bool | None:
    """None when ``node`` shows too much text to be one price, else whether its text has a currency mark."""
    first = node.child
    shown: str | None
    if first is not None and first.next is None and first.is_text_node:  # one text (most prices): no walk
        text = first.text_content or ""
        shown = text if len(text.strip()) <= 120 else None  # short_text's limit
    else:
        shown = short_text(node)
    if shown is None or len(collapse(shown)) > 60:
        return None
    return _MARK_RE.search(shown) is not None


def _ranged(node: LexborNode, info: PriceInfo) -> PriceInfo:
    """The displayed range when this price (``info``, read from ``price_text(node)``) is the low end of
    'X to Y' split over two elements.
    """
    parent = node.parent
    if parent is None or not isinstance(info.value, float) or short_text(parent) is None:
        return info
    text = price_text(parent)  # collapsed already: parse_price keeps it as its text
    if text == info.text or len(text) > 60:  # the same single price, or too long to be one range
        return info
    wider = parse_price(text)
    if isinstance(wider.value, tuple) and abs(wider.value[0] - info.value) < 0.005:
        return wider
    return info


# -------------------------------------------------------------------------------- cards --
@dataclass
class Card:
    """One product card: its element, main link, title and displayed price."""

    node: LexborNode
    url: str
    title: str
    price: PriceInfo
    sponsored: bool


_ID_ATTRS = ("data-id", "data-product-id", "data-productid", "data-pid", "data-sku", "data-sku-id", "data-item-id",
             "data-itemid", "data-asin", "data-listing-id", "data-tcin", "data-product-sku")
_TITLE_MARK = re.compile(r"(?i)title|name")
_NOT_TITLE_MARK = re.compile(r"(?i)brand|seller|shop|store|subtitle")
#: A price closing a link's label ('ASOS DESIGN midi dress, Price £30.00'): not part of the name.
_PRICE_TAIL = re.compile(r"(?i)[,;]\s*(?:(?:current|original|sale|our)\s+)?price\b.*$")
#: A title clamped to a few lines (Carousell's '--max-line: 2'): the name, where image alts run longer.
_CLAMPED = re.compile(r"(?i)line-clamp|max-line")
_AD_WORDS = {"sponsored", "ad", "ads", "patrocinado", "promocionado", "anzeige", "gesponsert", "sponsorisé",
             "publicité", "annuncio", "sponsorizzato"}
_CAROUSEL = re.compile(r"(?i)carousel|slider|swiper|slick|glide|splide|recommend|related|similar|upsell|"
                       r"cross-?sell|also-?(?:viewed|bought)")


_ID_SELECTOR = ",".join(f"[{a}]" for a in _ID_ATTRS)


def card_id(card: Card) -> str:
    """A card's product id: an id data attribute on (or just inside) the card, else the one in its URL."""
    for node in _id_holders(card.node):
        attrs = node.attributes  # one dict, where twelve lookups of missing attributes cost 0.5 µs each
        value = next((v for v in ((attrs.get(a) or "").strip() for a in _ID_ATTRS)
                      if ID_VALUE.match(v) and any(c.isdigit() for c in v)), None)
        if value:
            return value
    return url_id(card.url)


def _id_holders(node: LexborNode) -> Iterator[LexborNode]:
    """The card, then up to three elements inside it with an id attribute (looked for only when the card has none)."""
    yield node
    yield from node.css(_ID_SELECTOR)[:3]


def _links(node: LexborNode) -> list[LexborNode]:
    return [a for a in node.css("a[href]")[:40]
            if not attr(a, "href").strip().lower().startswith(("javascript:", "#", "mailto:", "tel:"))]


def _title(node: LexborNode) -> tuple[str, LexborNode | None]:
    """A card's product title and the element showing it: heading, a title/name element, a link's label,
    an image's alt text.
    """
    heads = [(text_of(h), h) for h in node.css('h1, h2, h3, h4, h5, h6, [role="heading"], .h2, .h3, .h4')[:4]]
    heads = [(t, h) for t, h in heads if 2 < len(t) <= 400 and not _MARK_RE.search(t)]
    if heads:  # a brand line may sit in a heading of its own above the title
        return max(heads, key=lambda row: len(row[0]))
    marked = [el for el in node.css('[class*="itle"], [class*="ame"], [data-test*="itle"], [itemprop="name"], '
                                    '[style*="line-clamp"], [style*="max-line"], [class*="line-clamp"]')[:20]
              if _title_marked(el)]
    for i, el in enumerate(marked):
        if any(_inside(inner, {el.mem_id}) for inner in marked[i + 1:]):
            continue  # a title wrapper: its inner title element leaves out the promo line beside it
        text = collapse(text_of(el) or attr(el, "title") or attr(el, "aria-label"))
        if 2 < len(text) <= 400 and not _MARK_RE.search(text):
            return text, el
    labelled = [(_PRICE_TAIL.sub("", collapse(attr(a, "title") or attr(a, "aria-label"))), a) for a in _links(node)]
    labelled += [(collapse(attr(img, "alt")), img) for img in node.css("img[alt]")[:3]]
    return next(((t, n) for t, n in labelled if len(t) > 2), ("", None))


def _title_marked(el: LexborNode) -> bool:
    """Whether an element is marked as a card's title: a title/name class (not brand, seller...) or a
    line clamp.
    """
    marks = f"{attr(el, 'class')} {attr(el, 'data-test')} {attr(el, 'itemprop')}"
    if _TITLE_MARK.search(marks) and not _NOT_TITLE_MARK.search(marks):
        return True
    return bool(_CLAMPED.search(f"{attr(el, 'style')} {attr(el, 'class')}"))


def _main_link(node: LexborNode, shown: LexborNode | None) -> LexborNode | None:
    """The card's product link: the one around or inside its title, else its most repeated link."""
    if shown is not None:
        around = next((n for n in _up(shown, 6) if n.tag == "a" and attr(n, "href")), None)
        if around is not None and _inside(around, {node.mem_id}):
            return around
        inner = shown.css_first("a[href]")  # each css call parses its selector again: ~4 µs
        if inner is not None:
            return inner
    links = _links(node)
    counts = Counter(attr(a, "href").split("#", 1)[0] for a in links)
    return max(links, key=lambda a: counts[attr(a, "href").split("#", 1)[0]]) if links else None


def _sponsored(node: LexborNode) -> bool:
    """An ad label ('Sponsored', 'Ad', ...) inside the card or just before it."""
    lines = (node.text(separator="\n") or "").casefold().split("\n")  # a card holds ~200 lines: no per-line calls
    if not _AD_WORDS.isdisjoint(map(str.strip, lines)):
        return True
    if any(attr(el, "aria-label").casefold() in _AD_WORDS for el in node.css("[aria-label]")[:30]):
        return True
    prev = node.prev
    while prev is not None and prev.tag == "-text":
        prev = prev.prev
    return prev is not None and len(prev.text() or "") < 40 and text_of(prev).casefold() in _AD_WORDS


def _shape(node: LexborNode) -> tuple[str | None, str]:
    return node.tag, (attr(node, "class").split() or [""])[0]


#: (element, its children holding a not-struck price) for every ancestor of 2+ such children, most first.
PriceGroups = list[tuple[LexborNode, list[LexborNode]]]


def price_groups(prices: list[LexborNode]) -> PriceGroups:
    """The page's :data:`PriceGroups`: found once, for the cards and for the repeated blocks a buy control
    must lie outside (a climb of 25 ancestors from every price).
    """
    groups: dict[int, tuple[LexborNode, dict[int, LexborNode]]] = {}
    for p in prices:
        if _struck(p):
            continue
        child, parent = p, p.parent
        for _ in range(25):
            if parent is None:
                break
            groups.setdefault(parent.mem_id, (parent, {}))[1].setdefault(child.mem_id, child)
            child, parent = parent, parent.parent
    ranked = [(parent, list(ch.values())) for parent, ch in groups.values() if len(ch) >= 2]
    return sorted(ranked, key=lambda row: -len(row[1]))


def _card_parent(ranked: PriceGroups) -> tuple[LexborNode | None, list[LexborNode]]:
    """The element whose children most often hold a price (the card list), recommendation strips last."""
    for parent, children in ranked:
        if not _carousel(parent, children[0]):
            return parent, children
    return ranked[0] if ranked else (None, [])


def repeated_blocks(groups: PriceGroups) -> set[int]:
    """Ids of elements repeated with a price at least three times under one parent (cards, carousels).

    Only small classed elements or list items count: rows of an old layout table or page sections
    that share a wrapper class are not cards.
    """
    out: set[int] = set()
    for _parent, children in groups:
        shapes = Counter(_shape(c) for c in children)
        out |= {c.mem_id for c in children if shapes[_shape(c)] >= 3 and (_shape(c)[1] or c.tag in ("li", "article"))
                and short_text(c, 1500, 3000) is not None}
    return out


def _carousel(parent: LexborNode, child: LexborNode) -> bool:
    """Whether a card list is a recommendation strip (carousel, slider, 'related'), not the results."""
    nodes = [child, *_up(parent, 4)]
    return any(_CAROUSEL.search(f"{attr(n, 'class')} {attr(n, 'id')} {attr(n, 'data-test')}") for n in nodes)


def find_cards(prices: list[LexborNode], ranked: PriceGroups, base: str) -> list[Card]:
    """Product cards in page order: children of the card list that hold a product link and a title."""
    parent, priced = _card_parent(ranked)
    if parent is None:
        return []
    lists = _sibling_lists(parent, {p.mem_id for p, _ in ranked})
    owned: dict[int, list[LexborNode]] = {}
    for node in prices:  # each price to the child of the card list that holds it
        for anc in _up(node, 30):
            up = anc.parent
            if up is not None and up.mem_id in lists:
                owned.setdefault(anc.mem_id, []).append(node)
                break
    shapes = Counter(_shape(c) for c in priced)
    shape, count = shapes.most_common(1)[0]
    strict = count * 2 >= len(priced)  # cards share a shape; a banner or module among them does not
    tags = {c.tag for c in priced}
    cards: list[Card] = []
    children = (child for node in lists.values() for child in node.iter())
    for looked, child in enumerate(children):
        if looked > 20 * MAX_CARDS:
            break
        if (strict and _shape(child) != shape) or child.tag not in tags:
            continue
        title, shown = _title(child)
        link = _main_link(child, shown)
        if not title and link is not None:
            title = text_of(link)
        url = absolute(attr(link, "href"), base) if link is not None else None
        if not title or not url or len(title) > 400:
            continue
        price = PriceInfo(None, None, "")
        for node in owned.get(child.mem_id, []):
            if _struck(node, stop=child):
                continue
            text = price_text(node)
            if not _NOT_PRICE_TEXT.search(text):
                price = _ranged(node, parse_price(text))
                if price.value is not None:
                    break
        cards.append(Card(node=child, url=url, title=title, price=price, sponsored=_sponsored(child)))
        if len(cards) >= MAX_CARDS:
            break
    return cards if len(cards) >= 2 else []


def _sibling_lists(parent: LexborNode, priced_lists: set[int]) -> dict[int, LexborNode]:
    """The card list and its siblings of the same shape that hold priced cards too, in page order: one
    grid split into sections (ASOS renders its tiles in several ``<section>`` s under one product list).
    """
    up = parent.parent
    if up is None or not _shape(parent)[1]:
        return {parent.mem_id: parent}
    same = [n for n in islice(up.iter(), 50) if n.mem_id == parent.mem_id or (
        n.mem_id in priced_lists and _shape(n) == _shape(parent))]
    return {n.mem_id: n for n in same}


def _up(node: LexborNode | None, levels: int) -> Iterator[LexborNode]:
    """``node`` and its ancestors, ``levels`` at most, as the caller climbs (most stop after a few)."""
    for _ in range(levels):
        if node is None:
            return
        yield node
        node = node.parent


def _inside(node: LexborNode, ids: set[int]) -> bool:
    return bool(ids) and any(n.mem_id in ids for n in _up(node, 30))
