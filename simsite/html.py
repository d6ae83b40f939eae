"""The sim's HTML pages, rendered from a PageState alone.

The markup keeps WebShop's hooks (``#instruction-text``, ``#search_input``, ``a.product-link``,
``button.btn``, option radios, ``#reward pre``) so HTML-scraping WebShop clients work unchanged,
adds ``data-*`` hooks for the selectors in :mod:`shopsim.simsite.session`, and embeds the PageState
as JSON so :class:`shopsim.translators.simsite.SimsiteTranslator` reads pages back without loss.
Links come from :mod:`shopsim.links` (re-exported here, their former home), percent-encoded per
segment, so odd keywords or option values (``/``, ``#``, ``%``, quotes) survive a real browser.
Result cards, the item page and option swatches show :mod:`shopsim.simsite.images`' local URLs; a
catalog's remote original stays in ``data-original-src`` (offline it could not load).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, select_autoescape
from markupsafe import Markup

from shopsim.links import (
    ROUTE_NAMES,
    PageUrls,
    done_path,
    index_path,
    item_path,
    page_urls,
    results_path,
    split_state_url,
    sub_page_path,
)
from shopsim.page import PageState, css_string
from shopsim.simsite.images import option_image_url, original_url, product_image_url
from shopsim.simsite.models import Product

__all__ = [
    "ROUTE_NAMES",
    "PageUrls",
    "css_string",
    "done_path",
    "index_path",
    "item_path",
    "page_urls",
    "render_error",
    "render_html",
    "results_path",
    "split_state_url",
    "state_json",
    "sub_page_path",
]

TEMPLATES = Path(__file__).resolve().parent / "templates"


@lru_cache(maxsize=1)
def _env() -> Environment:
    return Environment(
        loader=FileSystemLoader(str(TEMPLATES)),
        autoescape=select_autoescape(default=True, default_for_string=True),
        trim_blocks=True,
        lstrip_blocks=True,
    )


# ---- rendering --------------------------------------------------------------------------------
def state_json(state: PageState) -> Markup:
    """The PageState as JSON that is safe inside ``<script>`` (no ``</``, ``<!--``, ``&``)."""
    text = state.model_dump_json()
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
    """The page for ``state``: WebShop's markup hooks plus the embedded PageState.

    ``catalog`` (the web app passes its shop's products) adds what a PageState does not carry: the
    catalog's original image URLs and which option values have images of their own. Without it
    pages show the same generated images, and the item page always shows the product's main one.
    """
    urls = PageUrls(state)
    order = {c.arg: i for i, c in enumerate(state.clickables)}
    options: list[dict] = []
    if state.product is not None and state.page_type == "item":
        opt_click = {(c.axis, c.text): c for c in state.clickables if c.kind == "option"}
        for a, (axis, values) in enumerate(state.product.options.items()):
            rows = []
            for i, v in enumerate(values):
                c = opt_click.get((axis, v))
                rows.append({
                    "value": v,
                    "url": urls.with_option(axis, v),
                    "checked": state.product.selected.get(axis) == v,
                    "arg": c.arg if c else None,
                    "index": order.get(c.arg) if c else None,
                    "clicked": bool(c and c.clicked),
                    "image": option_image_url(state.product.id, a, i),
                })
            options.append({"axis": axis, "values": rows})
    tpl = _env().get_template(_TEMPLATE.get(state.page_type, "unknown.html"))
    return tpl.render(
        s=state,
        urls=urls,
        order=order,
        options=options,
        card_images=_card_images(state, catalog),
        main_image=_main_image(state, catalog),
        state_json=state_json(state),
        keywords_json=json.dumps(state.keywords) if state.keywords is not None else "",
        reward_rows=_reward_rows(state),
        purchase_options=json.dumps(state.purchase.options) if state.purchase else "{}",
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


def _reward_rows(state: PageState) -> list[tuple[str, str]]:
    info = state.reward_info or {}
    return [(k, "n/a" if v is None else str(v)) for k, v in info.items()]


def render_error(status: int, title: str, message: str, home: str | None = None) -> str:
    """A small error page (400/404/410): what is wrong, in words."""
    return _env().get_template("error.html").render(status=status, title=title, message=message, home=home)
