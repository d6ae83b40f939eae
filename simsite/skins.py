"""Skins: the same shop state drawn in the page structure of a real site (Amazon, eBay, a schema.org shop).

A skin is one object that names its parts: its name, its page template, the real-site translator that
reads its pages back (``site``, a name in :mod:`shopsim.translators.registry`) and the product fields
that translator reads from its pages (``fields``: eBay shows no feature bullets, for one). Nothing else
branches on the skin: the server renders a session's pages with ``skin.render``, every skin serves
WebShop's URL scheme (one skin per server, or one per session with ``random``), and its pages keep the
sim's hooks (``data-action``, ``#search_input``, ``.product-link``, the embedded ``#shopsim-state``), so
actions, sources and rewards are the skin's own no more than the catalog is.

Templates are our own (``templates/skins/<name>.html``), written from the structure the translators read
(class and id names), never copied markup. Rendering is a pure function of the PageState (and the
catalog), so the same seed gives the same bytes. The ``webshop`` skin is :func:`render_html` itself:
WebShop's golden pages stay byte for byte.

A later perturbation (sponsored cards, locales...) wraps a skin: ``dataclasses.replace(skin,
render=perturbed(skin.render))`` keeps its name, translator and fields and changes only the drawing.
"""

from __future__ import annotations

import difflib
import hashlib
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from shopsim.errors import ConfigError
from shopsim.links import PageUrls
from shopsim.page import PageState
from shopsim.simsite.html import render_html, script_json, state_json, template_env
from shopsim.simsite.images import product_image_url
from shopsim.simsite.models import Product

__all__ = ["PLAIN_SKIN", "SKINS", "SKIN_CHOICES", "Skin", "get_skin", "session_skin"]

#: What a skin's render function is given: the page's state and the shop's products (or None).
Render = Callable[[PageState, Mapping[str, Product] | None], str]

#: Product fields a read-back compares; every skin shows these.
CORE_FIELDS = ("id", "title", "price", "rating", "options", "selected", "category_path")


@dataclass(frozen=True)
class Skin:
    """One look for the shop: name, renderer, the translator site that reads it back, the fields it shows."""

    name: str
    site: str
    render: Render
    fields: tuple[str, ...] = CORE_FIELDS


def _money(value: float) -> str:
    return f"${value:,.2f}"


#: What a skin's pages carry beyond the template's own context (the generic shop's JSON-LD).
Extra = Callable[[PageState, PageUrls], dict[str, Any]]


def _template_render(name: str, extra: Extra | None = None) -> Render:
    """A renderer over ``templates/skins/<name>.html``: one template with a block per page type."""

    def render(state: PageState, catalog: Mapping[str, Product] | None = None) -> str:
        urls = PageUrls(state)
        order = {c.arg: i for i, c in enumerate(state.clickables)}
        product = state.product
        option_links: dict[str, list[tuple[str, str]]] = {}
        if product is not None:
            for axis, values in product.options.items():
                option_links[axis] = list(zip(values, urls.with_each_option(axis, values), strict=True))
        return template_env().get_template(f"skins/{name}.html").render(
            s=state, urls=urls, order=order, p=product, option_links=option_links, money=_money, image=product_image_url,
            state_json=state_json(state), **(extra(state, urls) if extra is not None else {}))

    return render


def _offer(price: Any) -> dict[str, Any]:
    """A schema.org Offer, or an AggregateOffer for a price range."""
    if isinstance(price, (tuple, list)):
        return {"@type": "AggregateOffer", "lowPrice": price[0], "highPrice": price[1], "priceCurrency": "USD"}
    return {"@type": "Offer", "price": price, "priceCurrency": "USD"}


def _json_ld(state: PageState, urls: PageUrls) -> dict[str, Any]:
    """``ld_json``: the page's schema.org description (an ItemList of the results, or the Product and its
    BreadcrumbList), as a generic shop describes itself to search engines.
    """
    docs: list[dict[str, Any]] = []
    p = state.product
    if state.page_type == "results":
        docs.append({"@context": "https://schema.org", "@type": "ItemList", "itemListElement": [
            {"@type": "ListItem", "position": i, "item": {"@type": "Product", "name": r.title, "sku": r.id,
                                                          "url": urls.product(r.id), "offers": _offer(r.price)}}
            for i, r in enumerate(state.results, 1)]})
    elif p is not None and state.page_type in ("item", "item_detail"):
        product: dict[str, Any] = {"@context": "https://schema.org", "@type": "Product", "name": p.title,
                                   "sku": p.id, "productID": p.id, "description": p.description}
        if p.price is not None:
            product["offers"] = _offer(p.price)
        if p.rating is not None:
            product["aggregateRating"] = {"@type": "AggregateRating", "ratingValue": p.rating, "bestRating": 5}
        docs.append(product)
        if p.category_path:
            docs.append({"@context": "https://schema.org", "@type": "BreadcrumbList", "itemListElement": [
                {"@type": "ListItem", "position": i, "name": name} for i, name in enumerate(p.category_path, 1)]})
    text = json.dumps(docs if len(docs) != 1 else docs[0], ensure_ascii=False)
    return {"ld_json": script_json(text)}


#: The skin that draws WebShop's own pages (the default everywhere; byte for byte WebShop's markup).
PLAIN_SKIN = "webshop"

SKINS: dict[str, Skin] = {
    PLAIN_SKIN: Skin(PLAIN_SKIN, "simsite", render_html,
                    (*CORE_FIELDS, "bullet_points", "description")),
    "amazon": Skin("amazon", "amazon", _template_render("amazon"),
                   (*CORE_FIELDS, "bullet_points", "description")),
    "ebay": Skin("ebay", "ebay", _template_render("ebay")),
    "generic": Skin("generic", "other", _template_render("generic", _json_ld), (*CORE_FIELDS, "description")),
}
#: What ``--skin`` accepts: a skin's name, or ``random`` (one per session, drawn from the seed).
SKIN_CHOICES = (*SKINS, "random")


def get_skin(name: str) -> Skin:
    """The skin called ``name``; an unknown name raises ConfigError with the likely one."""
    skin = SKINS.get(name)
    if skin is None:
        close = difflib.get_close_matches(name, list(SKIN_CHOICES), n=1)
        hint = f" Did you mean {close[0]!r}?" if close else ""
        raise ConfigError(f"unknown skin {name!r}: use one of {', '.join(SKIN_CHOICES)}.{hint}")
    return skin


def session_skin(choice: str, seed: int, key: str) -> Skin:
    """The skin of one session: ``choice`` itself, or for ``random`` one drawn from ``seed`` and ``key`` (the
    server and ``ShopEnv`` key on the goal, so an episode keeps its skin and a seed gives the same draws).

    A hash, not a random generator, so the draw needs no state and a session keeps its skin on every page.
    """
    if choice != "random":
        return get_skin(choice)
    digest = hashlib.sha256(f"{seed}:{key}".encode()).digest()
    names = list(SKINS)
    return SKINS[names[int.from_bytes(digest[:4], "big") % len(names)]]
