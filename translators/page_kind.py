"""Results grid or one product's page: the evidence a generic shop page gives for each.

A results page is a grid of product cards, each with its own product link and price; an item page
shows one product (its name in the main heading, a buy control beside it). Pages mix both: item
pages carry "you may also like" grids, results pages carry a "Buy now pay later" footer link, a
quick-buy button or a listing-level schema.org Product (Carousell's search "Product" with an
AggregateOffer). So a grid of many distinct priced cards outweighs one buy control, and only a
product that names the page (its structured name in the h1) or a buy control that comes before
the grid makes a page with such a grid an item page.
"""

from __future__ import annotations

import re

from selectolax.lexbor import LexborNode

from shopsim.translators.cards import MAX_WALK, Card, text_of
from shopsim.translators.dom import attr, collapse

__all__ = ["GRID_MIN", "PageOrder", "buy_control", "is_grid", "names_page", "similar"]

#: Distinct product links (each card its own) that make a grid: item pages' strips hold 3 to 5.
GRID_MIN = 6
_BUY_WORDS = re.compile(r"(?i)add[\s_-]?to[\s_-]?(?:cart|bag|basket|trolley)|addtocart|buy[\s_-]?now|"
                        r"agregar al carrito|comprar ahora|adicionar ao carrinho|in den warenkorb|"
                        r"ajouter au panier|aggiungi al carrello|カートに入れる")
#: A piece of every ``_BUY_WORDS`` phrase, lower-cased, with no i, k or s: the letters a case-blind
#: regex also matches in other scripts ('ı', 'K', 'ſ'), where ``str.lower`` would not give them.
_BUY_ANCHORS = ("add", "buy", "carr", "compr", "ajout", "waren", "カート")
_MARK_ATTRS = ("id", "class", "name", "value", "title", "aria-label", "alt")
#: Payment-method words that contain a buy word: 'Buy now, pay later' (Klarna, Clearpay) is no buy box.
_PAY_LATER = re.compile(r"(?i)buy[\s_-]?now[\s,_-]*pay[\s_-]?later|\bbnpl\b")
_CART_ACTION = re.compile(r"(?i)cart|basket|/bag\b|add_multiple_products|checkout")
_CHROME_TAGS = frozenset({"footer", "nav", "header", "dialog"})  # a quick-view dialog's button buys a card
_CHROME_ROLES = frozenset({"contentinfo", "navigation", "banner", "dialog"})


def is_grid(cards: list[Card]) -> bool:
    """Whether the cards are a results grid: many distinct product links, most of them priced."""
    urls = {c.url.split("#", 1)[0] for c in cards}
    priced = sum(c.price.value is not None for c in cards)
    return len(urls) >= GRID_MIN and priced * 2 >= len(cards)


def buy_control(body: LexborNode, inside: set[int], among: set[int] | None = None) -> LexborNode | None:
    """The page's control to buy one product (an add-to-cart form or button), outside repeated cards,
    page chrome (header, footer, navigation), dialogs and payment-method links; None when there is none.

    With ``among`` (the elements that open the page, ``PageOrder.ids``), only the controls among them:
    the first one found is still the page's first, and a grid's add-to-cart buttons are not read.
    """
    for node in body.css("form[action], button, input[type=submit], input[type=image], input[type=button], "
                         "a[href], img[alt]")[:4000]:
        if among is not None and node.mem_id not in among:
            return None  # in page order: every control from here on comes later
        if node.tag == "form":
            hit = bool(_CART_ACTION.search(attr(node, "action")))
        else:
            attrs = node.attributes  # one dict per node, not one per attribute asked for
            marks = " ".join([attrs.get(k) or "" for k in _MARK_ATTRS])
            label = collapse(node.text() or "") if node.tag in ("button", "a") else ""
            shown = f"{marks} {label if len(label) <= 80 else ''}"
            low = shown.lower()  # the anchors first: the case-blind regex costs ~10 µs a label, a page holds thousands
            hit = any(a in low for a in _BUY_ANCHORS) and bool(_BUY_WORDS.search(shown)) and not _PAY_LATER.search(shown)
        if hit and not _in_chrome_or(node, inside):
            return node
    return None


def _in_chrome_or(node: LexborNode, inside: set[int]) -> bool:
    """Whether ``node`` sits in a repeated card (``inside``) or in the page's header, footer or navigation."""
    up: LexborNode | None = node
    for _ in range(40):
        if up is None:
            return False
        if up.mem_id in inside or up.tag in _CHROME_TAGS or attr(up, "role") in _CHROME_ROLES:
            return True
        up = up.parent
    return False


class PageOrder:
    """The elements before ``node`` in page order, from one bounded walk (``MAX_WALK`` elements): a page
    asks 'does this come before the first card?' of its heading and of its buy control.
    """

    def __init__(self, root: LexborNode, node: LexborNode) -> None:
        self.node = node
        self.ids: set[int] = set()
        self.met = False  # whether the walk reached ``node``
        for walked, seen in enumerate(root.traverse()):
            if walked > MAX_WALK:
                return
            if seen.mem_id == node.mem_id:
                self.met = True
                return
            self.ids.add(seen.mem_id)

    def before(self, first: LexborNode) -> bool:
        """Whether ``first`` comes before the node in page order (False when the walk met neither)."""
        return first.mem_id in self.ids or (first.mem_id == self.node.mem_id and self.met)


def similar(a: str, b: str) -> bool:
    """Whether two names are the same product's: one inside the other, or most words shared."""
    x, y = a.casefold(), b.casefold()
    wa, wb = set(re.findall(r"\w+", x)), set(re.findall(r"\w+", y))
    return bool(x and y) and (x in y or y in x or (bool(wa and wb) and len(wa & wb) / len(wa | wb) >= 0.6))


def names_page(name: str, ids: list[str], heading: LexborNode | None, url_id: str) -> bool:
    """Whether a structured product is the page's own: its name is the main heading's, or its id is
    the one in the page's URL (a listing's summary "Product" names the search, not a product).
    """
    if url_id and url_id in ids:
        return True
    return bool(name) and heading is not None and similar(text_of(heading), name)
