"""The sim's HTML pages, rendered from a PageState alone.

Each page's ``<body>`` is WebShop's own markup (``golden/episodes_html_seed0.jsonl``, rendered by
WebShop's templates): the same visible text nodes in the same order, whitespace-only ones included,
the same tags around them, buttons, labels, ``a.product-link`` elements, option radios (``name=axis
value=value id=radio_<axis><i>``) and forms, so scrapers that read positions in BeautifulSoup's
``findAll(text=True)`` list (ReAct, Reflexion, LATS: ``float(texts[i + 1])`` after the score label)
read ours alike. Our own hooks add no text: ``data-*`` attributes (the selectors of
:mod:`shopsim.simsite.session`, :mod:`shopsim.translators.sim_pages`'s markup fallback), a few ids and
classes, option swatch ``<img>`` inside labels, and the PageState as JSON in ``<head>`` (invisible
to scrapers) so the translator reads pages back without loss. ``#feedback`` appears only after a
refused action (WebShop has none).

What differs from WebShop byte for byte, on purpose: ``<head>`` (our local stylesheet; no CDN links,
since the shop runs offline), image URLs (local SVGs; a catalog's remote original stays in
``data-original-src``), the item page's script (plain JS wiring radios to their ``data-url``, not
jQuery), and link and form targets: path-style URLs (``/search_results/{session}/{keywords}/{page}``)
as WebShop's Flask app renders them and as our server answers them, not the ``/?session_id=..&
keywords=..`` query strings WebShop's in-process text env prints (its SimServer puts every route on
``/``: URLs its Flask app does not route). Links come from :mod:`shopsim.links`,
percent-encoded per segment, so odd keywords or option values survive a real browser.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from markupsafe import Markup

from shopsim.links import (
    PageUrls,
)
from shopsim.page import PageState
from shopsim.simsite.html_cards import result_cards
from shopsim.simsite.html_options import option_radios
from shopsim.simsite.images import option_image_url, original_url, product_image_url
from shopsim.simsite.models import Product

if TYPE_CHECKING:
    from jinja2 import Environment

__all__ = [
    "render_error",
    "render_html",
    "script_json",
    "state_json",
    "template_env",
]

TEMPLATES = Path(__file__).resolve().parent / "templates"
#: The ``name`` WebShop's item and sub pages give each sub page's column.
SUB_PAGE_NAMES = {"Description": "description", "Features": "bulletpoints", "Reviews": "reviews",
                  "Attributes": "attributes"}


@lru_cache(maxsize=1)
def template_env() -> Environment:
    """The one Jinja environment of the sim's templates (WebShop's pages and the skins'), built on first use."""
    from jinja2 import Environment, FileSystemLoader, select_autoescape  # HTML pages only, not text envs

    return Environment(
        loader=FileSystemLoader(str(TEMPLATES)),
        autoescape=select_autoescape(default=True, default_for_string=True),
        auto_reload=False,  # package files: no stat() of each template and include on every page
    )  # no trim_blocks/lstrip_blocks: Flask's defaults, so whitespace text nodes fall where WebShop's do


# ---- rendering --------------------------------------------------------------------------------
def state_json(state: PageState) -> Markup:
    """The PageState as JSON that is safe inside ``<script>`` (no ``</``, ``<!--``, ``&``)."""
    return script_json(state.model_dump_json())


def script_json(text: str) -> Markup:
    """JSON text made safe inside ``<script>``: ``< > &`` and the JS line separators as ``\\u`` escapes."""
    text = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    text = text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
    return Markup(text)


_TEMPLATE = {
    "search": "search.html",
    "results": "results.html",
    "item": "item.html",
    "item_detail": "sub_page.html",
    "done": "done.html",
}


def render_html(state: PageState, catalog: Mapping[str, Product] | None = None) -> str:
    """The page for ``state``: WebShop's markup, our ``data-*`` hooks and the embedded PageState.

    ``catalog`` (the web app passes its shop's products) adds what a PageState does not carry: the
    catalog's original image URLs and which option values have images of their own. Without it
    pages show the same generated images, and the item page always shows the product's main one.
    """
    urls = PageUrls(state)
    order = {c.arg: i for i, c in enumerate(state.clickables)}
    tpl = template_env().get_template(_TEMPLATE.get(state.page_type, "unknown.html"))
    card_images = _card_images(state, catalog)
    card_info = {c.id: catalog[c.id] for c in state.results if c.id in catalog} if catalog is not None else {}
    return tpl.render(
        s=state,
        urls=urls,
        order=order,
        options=option_radios(state, urls, order),
        title=_title(state),
        cards=result_cards(state, urls, order, card_images, card_info) if state.page_type == "results" else "",
        main_image=_main_image(state, catalog),
        sub_page_names=SUB_PAGE_NAMES,
        state_json=state_json(state),
        keywords_json=json.dumps(state.keywords) if state.keywords is not None else "",
        reward_info_json=json.dumps(state.reward_info, default=str) if state.reward_info else "",
        purchase_options=json.dumps(state.purchase.options) if state.purchase else "{}",
        purchase_json=_flask_tojson(state.purchase.options if state.purchase else {}),
    )


def _card_images(state: PageState, catalog: Mapping[str, Product] | None) -> dict[str, dict[str, Any]]:
    """Each result card's image: the served URL and the catalog's original URL, if one is worth keeping."""
    out = {}
    for card in state.results:
        product = catalog.get(card.id) if catalog is not None else None
        out[card.id] = {"src": product_image_url(card.id), "original": original_url(product.main_image if product else None)}
    return out


def _main_image(state: PageState, catalog: Mapping[str, Product] | None) -> dict[str, Any] | None:
    """The item page's big image: the first chosen option value that has an image of its own, else the main one."""
    view = state.product
    if view is None or state.page_type != "item":
        return None
    product = catalog.get(view.id) if catalog is not None else None
    if product is not None:
        for a, (axis, values) in enumerate(view.options.items()):
            chosen = view.selected.get(axis)
            if chosen in values and product.option_to_image.get(chosen):
                return {"src": option_image_url(view.id, a, values.index(chosen)), "alt": f"{view.title} ({chosen})",
                        "original": original_url(product.option_to_image[chosen]), "option": chosen}
    return {"src": product_image_url(view.id), "alt": view.title,
            "original": original_url(view.images[0] if view.images else None), "option": None}


def _title(state: PageState) -> str:
    """The ``<title>`` (in ``<head>``, so no scraper reads it): what a browser tab shows."""
    if state.page_type == "results":
        return f"Results: {state.query or ''}"
    if state.page_type == "item" and state.product is not None:
        return state.product.title
    if state.page_type == "item_detail":
        return state.sub_page or "Item"
    return "Thank you" if state.page_type == "done" else "WebShop"


def _flask_tojson(value: object) -> Markup:
    """Flask's ``tojson`` (sorted keys; ``< > & '`` escaped), as WebShop's done page prints the options."""
    text = json.dumps(value, sort_keys=True)
    text = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026").replace("'", "\\u0027")
    return Markup(text)


def render_error(status: int, title: str, message: str, home: str | None = None) -> str:
    """A small error page (400/404/410): what is wrong, in words."""
    return template_env().get_template("error.html").render(status=status, title=title, message=message, home=home)
