"""The elements of the WebShop shim's ``text_to_clickable``: what WebShop's BeautifulSoup tags offer.

WebShop's clients read ``text_to_clickable[arg]`` as a ``Tag``: its name, ``class``, ``name``,
``value``, ``href`` and text. :class:`WebShopClickable` gives those for each of a page's clickables
(:func:`element`), and :class:`KnownElements` keeps an env's elements of item pages so that a
product's pages, shown again and again within and across episodes, reuse them.
"""

from __future__ import annotations

import types
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from shopsim.page import Clickable, ClickKind
from shopsim.simsite.sim_page import SimPage

__all__ = ["KnownElements", "WebShopClickable", "element"]

# The attributes WebShop's templates give each clickable element (BeautifulSoup lists ``class``).
_ATTRS: dict[str, tuple[str, dict[str, Any]]] = {
    "search": ("button", {"class": ["btn", "btn-success"], "type": "submit"}),
    "back_to_search": ("button", {"type": "submit", "class": ["btn", "btn-success"]}),
    "prev": ("button", {"type": "submit", "class": ["btn", "btn-primary"]}),
    "next": ("button", {"type": "submit", "class": ["btn", "btn-primary"]}),
    "sub_page": ("button", {"class": ["btn", "btn-primary"], "type": "submit"}),
    "buy": ("button", {"type": "submit", "class": ["btn", "btn-lg", "purchase"]}),
}


class WebShopClickable:
    """A ``text_to_clickable`` value: what WebShop's BeautifulSoup ``Tag`` offers its clients.

    ``name`` is the tag (``button``, ``a``, ``input``); ``get('class')``, ``get('name')``,
    ``['value']``, ``get_text()`` and ``.text`` read like a Tag's; ``clickable`` is our own record
    and ``kind`` its kind. Read-only by contract (``attrs`` is a read-only mapping): the env hands the
    same element out on every page that shows its clickable. A plain slotted class, not a frozen
    dataclass, because a results page makes ten of these every step and freezing tripled their cost.
    """

    __slots__ = ("attrs", "clickable", "kind", "name", "text")

    def __init__(self, name: str, attrs: Mapping[str, Any], text: str, clickable: Clickable):
        self.name, self.attrs, self.text, self.clickable = name, attrs, text, clickable
        self.kind: ClickKind = clickable.kind

    def __repr__(self) -> str:
        return f"WebShopClickable(name={self.name!r}, attrs={dict(self.attrs)!r}, text={self.text!r})"

    def get(self, key: str, default: Any = None) -> Any:
        """An attribute, or ``default`` (``Tag.get``)."""
        return self.attrs.get(key, default)

    def __getitem__(self, key: str) -> Any:
        return self.attrs[key]

    def has_attr(self, key: str) -> bool:
        """Whether the element has the attribute (``Tag.has_attr``)."""
        return key in self.attrs

    def get_text(self, separator: str = "", strip: bool = False) -> str:
        """The element's text (``Tag.get_text``)."""
        return self.text.strip() if strip else self.text


def element(c: Clickable, page: SimPage) -> WebShopClickable:
    """The element WebShop's page has for a clickable: a button, a product link or an option radio."""
    if c.kind == "product":
        attrs: dict[str, Any] = {"class": ["product-link"], "href": c.url or ""}
        return WebShopClickable("a", types.MappingProxyType(attrs), c.text, c)
    if c.kind == "option":
        axis = c.axis or ""
        values = page.options.get(axis, [])
        index = values.index(c.text) if c.text in values else 0
        attrs = {"type": "radio", "id": f"radio_{axis}{index}", "name": axis, "value": c.text}
        return WebShopClickable("input", types.MappingProxyType(attrs), "", c)
    tag, attrs = _ATTRS[c.kind]
    return WebShopClickable(tag, types.MappingProxyType(attrs), c.text, c)


#: Products whose item-page elements an env keeps between pages (options clicked, sub pages, episodes).
_KNOWN_PRODUCTS = 512
#: Results pages whose element dicts an env keeps (``simsite/page_cache.py`` keeps their clickables).
_KNOWN_RESULTS = 1024
#: Option choices of one product whose whole element dicts are kept (a page per choice made).
_KNOWN_PAGES = 16


@dataclass(eq=False)
class _Product:
    """One product's remembered elements: by clickable, and whole pages by their clickables' identities."""

    options: dict[str, list[str]]
    by_clickable: dict[int, WebShopClickable] = field(default_factory=dict)
    #: ``ids of the page's clickables -> (those clickables, the page's elements)``; holding the clickables
    #: keeps their ids from naming other objects while the entry lives.
    pages: dict[tuple[int, ...], tuple[tuple[Clickable, ...], dict[str, WebShopClickable]]] = field(default_factory=dict)


class KnownElements:
    """Elements of item and results pages already seen, reused while those pages show again.

    The shop hands every page of a product the same Clickable objects (``simsite/page_cache.py``),
    and an element depends only on its Clickable and, for an option radio, on the product's option
    values; so an element is reused for the identical Clickable on a page of the same product with
    equal options (checked once per page), and a page whose clickables are all identical to an earlier
    page's gets that page's elements whole; so does a results page whose clickables are all identical to
    an earlier one's (the shop keeps a results page's links). Each element holds its Clickable, so an ``id`` here never
    names another object. Bounded: :data:`_KNOWN_PRODUCTS` products (least recently shown out),
    :data:`_KNOWN_PAGES` pages each. Buttons the shop shares (``Search``, ``Back to Search``) are kept too.
    """

    def __init__(self) -> None:
        self._products: OrderedDict[str, _Product] = OrderedDict()
        self._buttons: dict[int, WebShopClickable] = {}
        self._results: dict[tuple[int, ...], tuple[tuple[Clickable, ...], dict[str, WebShopClickable]]] = {}

    def elements(self, page: SimPage) -> dict[str, WebShopClickable]:
        """``text_to_clickable`` for ``page``: arg -> element, in the page's order (the caller copies it)."""
        if page.page_type == "results":  # the shop hands a repeated results page the same clickables
            key = tuple(map(id, page.clickables))
            known = self._results.get(key)
            if known is None:
                if len(self._results) >= _KNOWN_RESULTS:
                    del self._results[next(iter(self._results))]
                known = self._results[key] = (tuple(page.clickables), self._build(page, self._buttons, shared_only=True))
            return known[1]
        if page.product_id is None:  # search and done pages: only their shared buttons recur
            return self._build(page, self._buttons, shared_only=True)
        product = self._for(page)
        key = tuple(map(id, page.clickables))
        known = product.pages.get(key)
        if known is None:
            if len(product.pages) >= _KNOWN_PAGES:
                product.pages.clear()
            known = product.pages[key] = (tuple(page.clickables), self._build(page, product.by_clickable))
        return known[1]

    @staticmethod
    def _build(page: SimPage, known: dict[int, WebShopClickable], shared_only: bool = False) -> dict[str, WebShopClickable]:
        out: dict[str, WebShopClickable] = {}
        for c in page.clickables:
            found = known.get(id(c))
            if found is None or found.clickable is not c:
                found = element(c, page)
                if not shared_only or c.kind in ("search", "back_to_search"):
                    if len(known) > 256:
                        known.clear()
                    known[id(c)] = found
            out[c.arg] = found
        return out

    def _for(self, page: SimPage) -> _Product:
        pid = page.product_id or ""
        entry = self._products.get(pid)
        if entry is None or entry.options != page.options or len(entry.by_clickable) > 4 * len(page.clickables) + 64:
            entry = self._products[pid] = _Product({a: list(v) for a, v in page.options.items()})
            if len(self._products) > _KNOWN_PRODUCTS:
                self._products.popitem(last=False)
        self._products.move_to_end(pid)
        return entry
