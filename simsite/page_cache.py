"""The parts of the sim's pages that depend on a product alone, computed once per shop and reused.

A session renders a page every step; most of an item page (its sub-page and buy buttons, one radio
per option value, the product's reviews and rating) and of a results card (title, price) is the same
for every session that shows that product. :class:`ShopParts` builds them the first time a shop
shows a product and keeps them, a bounded number per shop (oldest first out).

Why sharing is safe: what pages share is immutable. ``Clickable``, ``Review`` are frozen models
whose fields hold only strings, numbers, booleans and None; prices are floats or tuples; the
collections are tuples. Pages get fresh lists and dicts around these (``clickables``, ``reviews``,
:meth:`ProductParts.view_containers` copies the product's own lists), so no caller can reach the
cache, the shop's product, or another page through a page it was given. A shop is read-only after construction (:class:`~shopsim.simsite.shop.Shop`), so a
product's parts never go stale; the cache is keyed by the shop object (weakly: it goes with the shop).
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from shopsim.attr_text import attr_text
from shopsim.page import Clickable, Price, Review, css_string, trusted
from shopsim.routes import SUB_PAGES
from shopsim.simsite.models import Product
from shopsim.simsite.reward import lowered_texts
from shopsim.simsite.shop import Shop

__all__ = ["MAX_PRODUCTS_PER_SHOP", "MAX_RESULTS_LINKS", "ProductParts", "ResultsLinks", "ShopParts",
           "option_shown_clicked", "shop_parts"]

#: Products whose parts one shop keeps: a results page shows 10, an episode opens a few. About 1 kB per
#: option value (WebShop's 1,000-product set: 7.8 MB for all of its products).
MAX_PRODUCTS_PER_SHOP = 1024
#: Results pages whose links one shop keeps (about 10 kB each): an RL rollout replays the same goals, and
#: WebShop's ``reset(session=i)`` names the session after its goal, so the same pages recur episode after episode.
MAX_RESULTS_LINKS = 1024


def _clicked_needle(value: str) -> str:
    return f'"{value}"'


def option_shown_clicked(value: str, url: str | None) -> bool:
    """WebShop's rich mode marks an option clicked when ``"value"`` occurs in the URL.

    The URL holds the options as JSON, so values with quotes or non-ASCII characters never show
    as clicked. Reproduced for byte-compatible observations; ``ProductView.selected`` is the truth.
    """
    return url is not None and _clicked_needle(value) in url


def _price(p: Product) -> float | tuple[float, float]:
    return p.pricing[0] if len(p.pricing) == 1 else (p.pricing[0], p.pricing[1])


def _float_or_none(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


def _option(arg: str, axis: str, value: str, clicked: bool) -> Clickable:
    """An option radio, exactly as the item page has always built it, then shared; built without validation
    (the product's option values are validated strings): a first episode builds some 3,000 of these.
    """
    return trusted(Clickable, arg=arg, text=value, kind="option", axis=axis, clicked=clicked,
                   selector=f"input[type='radio'][name={css_string(axis)}][value={css_string(value)}]")


@dataclass(frozen=True)
class ProductParts:
    """One product's page parts for one shop and one rule set (``strict`` changes option arguments)."""

    product: Product
    price: Price
    rating: float | None
    reviews: tuple[Review, ...]
    #: The product link on a results page: its action argument and selector.
    link_arg: str
    link_selector: str
    #: The item page's own clickables after ``Back to Search`` and ``< Prev``, options unclicked.
    clickables: tuple[Clickable, ...]
    #: ``(position in clickables, needle)`` per option: :func:`option_shown_clicked`'s test, spelled once.
    option_needles: tuple[tuple[int, str], ...]
    _clicked: dict[int, Clickable] = field(default_factory=dict, repr=False, compare=False)
    #: Texts pages spell from this product alone (``session_pages``: a card's, an item page's body), built once.
    texts: dict[str, str] = field(default_factory=dict, repr=False, compare=False)

    def item_clickables(self, url: str) -> list[Clickable]:
        """The item page's own clickables for its URL, options marked as :func:`option_shown_clicked` says."""
        out = list(self.clickables)
        if '"' not in url:  # every needle is quoted: none can be in this URL (no options chosen, plain keywords)
            return out
        for i, needle in self.option_needles:
            if needle in url:
                out[i] = self._clicked_twin(i)
        return out

    def _clicked_twin(self, i: int) -> Clickable:
        twin = self._clicked.get(i)
        if twin is None:  # built once; two threads racing here build equal twins, either one is kept
            c = self.clickables[i]
            twin = self._clicked[i] = _option(c.arg, c.axis or "", c.text, True)
        return twin

    def lowered_texts(self) -> tuple[str, str, str]:
        """The product's texts as the reward's attribute test reads them (:func:`reward.lowered_texts`), kept."""
        if "title_lower" not in self.texts:  # two threads racing here store equal strings
            title, bullets, description = lowered_texts((self.product.title, self.product.bullet_points,
                                                         self.product.description))
            self.texts.update(bullets_lower=bullets, description_lower=description, title_lower=title)
        return self.texts["title_lower"], self.texts["bullets_lower"], self.texts["description_lower"]

    def view_containers(self, show_attrs: bool) -> dict[str, Any]:
        """The ProductView's list and dict fields, fresh for each page (validation would copy them too)."""
        p = self.product
        return {"options": {axis: list(values) for axis, values in p.options.items()},
                "bullet_points": list(p.bullet_points), "category_path": list(p.category_path),
                "images": list(p.images), "reviews": list(self.reviews),
                "attributes": list(p.attributes) if show_attrs else []}


def _item_clickables(product: Product, strict: bool, show_attrs: bool) -> tuple[list[Clickable], list[tuple[int, str]]]:
    """The item page's clickables after back/prev (options unclicked), and where its options are.

    WebShop keys option values in a dict: a repeated value keeps its first position and the last
    axis wins (strict mode instead qualifies repeated values by axis).
    """
    out = [trusted(Clickable, arg=s.lower(), text=s, kind="sub_page",
                   selector=f"[data-action='sub-page'][data-sub-page='{s}']")
           for s in SUB_PAGES if s != "Attributes" or show_attrs]
    out.append(trusted(Clickable, arg="buy now", text="Buy Now", kind="buy", selector="[data-action='buy-now']"))
    counts: dict[str, int] = {}
    for values in product.options.values():
        for v in values:
            counts[v] = counts.get(v, 0) + 1
    keyed: dict[str, Clickable] = {c.arg: c for c in out}
    for axis, values in product.options.items():
        for v in values:
            arg = f"{axis}: {v}" if strict and counts[v] > 1 else v
            keyed[arg] = _option(arg, axis, v, False)
    clickables = list(keyed.values())
    needles = [(i, _clicked_needle(c.text)) for i, c in enumerate(clickables) if c.kind == "option"]
    return clickables, needles


def _build(product: Product, strict: bool, show_attrs: bool) -> ProductParts:
    clickables, needles = _item_clickables(product, strict, show_attrs)
    reviews = tuple(Review(title=r.title, score=r.score, body=r.body) for r in product.reviews)
    return ProductParts(product=product, price=_price(product), rating=_float_or_none(product.rating),
                        reviews=reviews, link_arg=product.asin.lower(),
                        link_selector=f"a.product-link[data-asin='{attr_text(product.asin)}']",  # as the card writes it
                        clickables=tuple(clickables), option_needles=tuple(needles))


@dataclass(frozen=True)
class ResultsLinks:
    """A results page's links, spelled once: its own URL around the page number (``at``, ``after``), the
    prev/next URLs and the page's clickables (Back to Search, < Prev, Next >, the product links), shared
    and immutable like every Clickable here (pages copy the tuple into a list of their own).
    """

    at: str
    after: str
    prev_url: str | None
    next_url: str
    #: ``head + asin + tail`` is a shown product's item URL.
    head: str
    tail: str
    clickables: tuple[Clickable, ...]
    #: The page's simple text per instruction shown (``session_pages.results_page``), a few at most.
    texts: dict[str | None, str] = field(default_factory=dict, repr=False, compare=False)


class ShopParts:
    """One shop's product parts: at most ``maxsize`` products and rules, the oldest dropped first.

    Reads take no lock (one dict lookup, atomic in CPython); inserts do, so threads serving one
    shop (the web app) keep the bound. Keyed by ASIN and the rules: a shop's product is fixed, and
    a store's shop (which materialises a record each time it is asked) is asked only on a miss.
    """

    def __init__(self, maxsize: int = MAX_PRODUCTS_PER_SHOP) -> None:
        self.maxsize = maxsize
        self._parts: dict[tuple[str, bool, bool], ProductParts] = {}
        self._links: dict[tuple[Any, ...], ResultsLinks] = {}
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._parts)

    def get(self, products: Mapping[str, Product], asin: str, strict: bool, show_attrs: bool) -> ProductParts:
        """The parts of ``products[asin]`` (built on first use, then shared by every session of the shop)."""
        key = (asin, strict, show_attrs)
        parts = self._parts.get(key)
        if parts is None:
            parts = _build(products[asin], strict, show_attrs)
            with self._lock:
                self._parts[key] = parts
                while len(self._parts) > self.maxsize:
                    del self._parts[next(iter(self._parts))]
        return parts


    def results_links(self, key: tuple[Any, ...], build: Callable[[], ResultsLinks]) -> ResultsLinks:
        """The links of the results page ``key`` names (everything they spell: base URL, session, keywords,
        page, the shown ASINs and which were visited), from ``build`` on first use; the oldest go first.
        """
        links = self._links.get(key)
        if links is None:
            links = build()
            with self._lock:
                self._links[key] = links
                while len(self._links) > MAX_RESULTS_LINKS:
                    del self._links[next(iter(self._links))]
        return links


_SHOPS: weakref.WeakKeyDictionary[Shop, ShopParts] = weakref.WeakKeyDictionary()
_SHOPS_LOCK = threading.Lock()


def shop_parts(shop: Shop) -> ShopParts:
    """The parts cache of ``shop`` (one per shop object, gone with it)."""
    with _SHOPS_LOCK:
        cache = _SHOPS.get(shop)
        if cache is None:
            cache = _SHOPS[shop] = ShopParts()
        return cache
