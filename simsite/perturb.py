"""Perturbations: seeded page-level variations real shops show, drawn over any skin.

A :class:`PerturbSpec` (parsed from ``--perturb sponsored,locale=de,...``) names its parts; each part is a
small named function, either over the PageState before the skin draws it (sponsored cards, result counts
and orders, price ranges: the skin's own markup draws them) or over the drawn HTML (banners and pop-ups,
out-of-stock notes, lazy images, another locale's prices, translated labels). :func:`perturbed` wraps a
skin's ``render``, so name, translator and fields stay the skin's.

Only the drawing changes: the session, its actions and its rewards are the sim's. A card a perturbation
hides can still be clicked by its action (``click[<id>]``, as by URL); an option shown out of stock can
still be chosen and bought. :data:`CHANGES` says which facts of the read-back each perturbation changes.
Each page draws from a generator seeded by the spec's seed and the page (URL, type, query), so the same
seed and page give the same bytes.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import random
import re
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Literal

from markupsafe import escape
from pydantic import BaseModel, ConfigDict, Field

from shopsim.errors import ConfigError
from shopsim.page import PageState
from shopsim.simsite.html import script_json
from shopsim.simsite.models import Product
from shopsim.simsite.skins import Render, Skin

__all__ = ["CHANGES", "HTML_PERTURBATIONS", "PERTURBATIONS", "STATE_PERTURBATIONS", "PerturbSpec", "parse_perturb", "perturbed", "perturbed_skin"]

StateFn = Callable[[PageState, random.Random], PageState]
HtmlFn = Callable[[str, PageState, random.Random, "PerturbSpec"], str]
Locale = Literal["en", "de", "fr"]


class PerturbSpec(BaseModel):
    """Which perturbations a page gets: named switches, a locale and UI language, or ``random`` (a seeded draw per page)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    names: tuple[str, ...] = ()
    locale: Locale | None = None
    """Number and currency format of prices (``de``: ``1.234,56 €``; ``fr``: ``1 234,56 €``)."""
    labels: Locale | None = None
    """Language of the page's UI labels (buttons, headings)."""
    random: bool = False
    seed: int = Field(default=0, ge=0)

    @property
    def active(self) -> bool:
        """Whether the spec changes any page."""
        return bool(self.names or self.locale or self.labels or self.random)

    def label(self) -> str:
        """The spec as ``--perturb`` spells it (``none`` when it changes nothing)."""
        parts = list(self.names) + [f"{k}={v}" for k, v in (("locale", self.locale), ("labels", self.labels)) if v]
        return ",".join((["random"] if self.random else []) + parts) or "none"


# --- perturbations over the state, drawn by the skin's own markup -------------------------------------

def _sponsored(state: PageState, rng: random.Random) -> PageState:
    """An ad: a copy of one result, flagged sponsored, at the top of the list (as Amazon and eBay show them)."""
    if state.page_type != "results" or not state.results:
        return state
    ad = rng.choice(state.results).model_copy(update={"sponsored": True})
    return state.model_copy(update={"results": [ad, *state.results]})


def _count(state: PageState, rng: random.Random) -> PageState:
    """A shorter page: between half the cards and all of them (the rest stay clickable by their action)."""
    n = len(state.results)
    if state.page_type != "results" or n < 2:
        return state
    return state.model_copy(update={"results": state.results[: rng.randint((n + 1) // 2, n)]})


def _order(state: PageState, rng: random.Random) -> PageState:
    """The result cards in another (seeded) order, as relevance rankings differ from shop to shop."""
    if state.page_type != "results":
        return state
    results = list(state.results)
    rng.shuffle(results)
    return state.model_copy(update={"results": results})


def _ranged(price: float | tuple[float, float] | None, rng: random.Random) -> float | tuple[float, float] | None:
    if price is None or isinstance(price, tuple):
        return price
    return (price, round(price * rng.uniform(1.1, 1.6), 2))


def _price_range(state: PageState, rng: random.Random) -> PageState:
    """Variant prices: a ``low - high`` range where the sim shows one price (the sim still charges its own)."""
    if state.page_type == "results":
        cards = [c.model_copy(update={"price": _ranged(c.price, rng)}) if rng.random() < 0.5 else c
                 for c in state.results]
        return state.model_copy(update={"results": cards})
    if state.product is not None and state.page_type in ("item", "item_detail"):
        return state.model_copy(update={"product": state.product.model_copy(
            update={"price": _ranged(state.product.price, rng)})})
    return state


# --- perturbations over the drawn page ------------------------------------------------------------------

_BODY = re.compile(r"<body[^>]*>")
_END = re.compile(r"</body>")
_STATE = re.compile(r'<script[^>]*id="shopsim-state"[^>]*>.*?</script>', re.S)


def _at_body(html: str, fragment: str, *, end: bool = False) -> str:
    """``fragment`` just inside ``<body>`` (or before ``</body>``); a page without one gets it at its start/end."""
    found = (_END if end else _BODY).search(html)
    if found is None:
        return html + fragment if end else fragment + html
    cut = found.start() if end else found.end()
    return html[:cut] + fragment + html[cut:]


def _banner(html: str, state: PageState, rng: random.Random, spec: PerturbSpec) -> str:
    """A promotion banner on top and a cookie pop-up in a corner (it lets clicks through around it)."""
    promo = rng.choice(["Free delivery on your first order", "Holiday deals are here", "Join and save today"])
    popup = ('<div class="cookie-consent" role="dialog" aria-label="Cookies" style="position:fixed;right:8px;'
             'bottom:8px;width:240px;background:#fff;border:1px solid #888;padding:6px;pointer-events:none">'
             'We use cookies to improve your visit. <button type="button" class="cookie-accept" '
             'style="pointer-events:auto" onclick="this.parentNode.remove()">OK</button></div>')
    return _at_body(_at_body(html, f'<div class="promo-banner" role="banner">{promo}</div>'), popup, end=True)


def _out_of_stock(html: str, state: PageState, rng: random.Random, spec: PerturbSpec) -> str:
    """One option value marked as currently unavailable (the sim still sells it: a note, not a removed choice)."""
    p = state.product
    axes = [(axis, values) for axis, values in (p.options.items() if p is not None else []) if values]
    if not axes or state.page_type != "item":
        return html
    axis, values = rng.choice(axes)
    value = rng.choice(values)
    note = f'<p class="availability out-of-stock" data-axis="{_esc(axis)}">{_esc(value)}: currently unavailable</p>'
    return _at_body(html, note, end=True)


def _esc(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


_IMG = re.compile(r'<img([^>]*?)\ssrc="([^"]*)"')
_LAZY_SCRIPT = ('<script>for(const i of document.querySelectorAll("img[data-src]")){i.src=i.dataset.src;'
                'i.removeAttribute("data-src")}</script>')


#: Where a result card starts on each skin's results page (WebShop's own page reads its embedded state).
_CARD = re.compile(r'<(div) data-component-type="s-search-result"|<(li) class="s-card |<(li) class="product type-product')
_LAZY_CARDS = ('<script>{const t=document.currentScript.previousElementSibling;'
               't.replaceWith(t.content)}</script>')


def _element_end(html: str, start: int, tag: str) -> int:
    """Where the ``<tag>`` element opened at ``start`` closes (our templates' tags are balanced)."""
    depth, at = 0, start
    pattern = re.compile(rf"<(/?){tag}[\s>]")
    for m in pattern.finditer(html, start):
        depth += -1 if m.group(1) else 1
        at = m.end()
        if depth == 0:
            return html.index(">", m.start()) + 1
    return at


def _lazy_cards(html: str, rng: random.Random) -> str:
    """The cards after the first few held in a ``<template>`` that a script puts in place once the page runs."""
    starts = list(_CARD.finditer(html))
    if len(starts) < 3:
        return html
    first = starts[rng.randint(2, len(starts) - 1)]
    last = starts[-1]
    end = _element_end(html, last.start(), next(g for g in last.groups() if g))
    return (html[:first.start()] + "<template>" + html[first.start():end] + "</template>" + _LAZY_CARDS
            + html[end:])


def _lazy(html: str, state: PageState, rng: random.Random, spec: PerturbSpec) -> str:
    """Lazy loading, as infinite-scroll shops do it: the later result cards arrive by script (a reader of the
    static page does not see them; a browser does), and each image's ``src`` waits in ``data-src``.
    """
    out = _IMG.sub(lambda m: f'<img{m.group(1)} loading="lazy" src="data:," data-src="{m.group(2)}"', html)
    out = out if out == html else _at_body(out, _LAZY_SCRIPT, end=True)
    return _lazy_cards(out, rng) if state.page_type == "results" else out


#: A dollar amount, with eBay's ``US `` before it (``US 1.234,56 €`` is no shop's way of writing euros).
_MONEY = re.compile(r"(?:US )?\$\s?(\d{1,3}(?:,\d{3})*|\d+)\.(\d{2})")
_SEPARATORS = {"de": (".", ","), "fr": ("\u202f", ","), "en": (",", ".")}


def _local_money(m: re.Match[str], locale: str) -> str:
    group, decimal = _SEPARATORS[locale]
    whole = m.group(1).replace(",", group)
    return f"${whole}.{m.group(2)}" if locale == "en" else f"{whole}{decimal}{m.group(2)}\u00a0€"


def _catalog_forms(state: PageState) -> list[str]:
    """The catalog's own texts that quote a dollar amount, as the skins write them (HTML-escaped, and inside the
    generic skin's JSON-LD), longest first: a seller's "Save $150.00" is not a price the shop shows.
    """
    p = state.product
    texts = [c.title for c in state.results]
    if p is not None:
        texts += [p.title, p.description, *p.bullet_points, *(v for vals in p.options.values() for v in vals)]
    forms: set[str] = set()
    for text in (t for t in texts if _MONEY.search(t)):
        forms.update((str(escape(text)), str(script_json(json.dumps(text, ensure_ascii=False)[1:-1]))))
    return sorted(forms, key=len, reverse=True)


def _locale(html: str, state: PageState, rng: random.Random, spec: PerturbSpec) -> str:
    """Prices in the locale's number and currency format (``$1,234.56`` -> ``1.234,56 €`` for ``de``); the
    catalog's own words stay as written (set aside while the prices are rewritten).
    """
    locale = spec.locale or "en"
    if locale == "en":
        return html
    kept = _catalog_forms(state)
    for i, form in enumerate(kept):
        html = html.replace(form, f"\x01{i}\x01")
    html = _MONEY.sub(lambda m: _local_money(m, locale), html)
    for i, form in enumerate(kept):
        html = html.replace(f"\x01{i}\x01", form)
    html = html.replace('<span class="a-price-symbol">$</span>', '<span class="a-price-symbol">€</span>')
    html = html.replace('<span class="a-price-decimal">.</span>', '<span class="a-price-decimal">,</span>')
    return html.replace('"priceCurrency": "USD"', '"priceCurrency": "EUR"')


#: UI labels in other languages (the page's own words for them, matched as whole text nodes).
LABELS: dict[str, dict[str, str]] = {
    "de": {"Back to Search": "Zurück zur Suche", "Buy Now": "Jetzt kaufen", "Next": "Weiter", "Next >": "Weiter >",
           "< Prev": "< Zurück", "Previous": "Zurück", "Search": "Suchen", "Description": "Beschreibung",
           "Features": "Merkmale", "Reviews": "Bewertungen", "Sponsored": "Gesponsert",
           "Add to Cart": "In den Einkaufswagen"},
    "fr": {"Back to Search": "Retour à la recherche", "Buy Now": "Acheter maintenant", "Next": "Suivant",
           "Next >": "Suivant >", "< Prev": "< Précédent", "Previous": "Précédent", "Search": "Rechercher",
           "Description": "Description", "Features": "Caractéristiques", "Reviews": "Avis",
           "Sponsored": "Sponsorisé", "Add to Cart": "Ajouter au panier"},
    "en": {},
}
_TEXT = re.compile(r">([^<>]+)<")


def _labels(html: str, state: PageState, rng: random.Random, spec: PerturbSpec) -> str:
    """The page's UI labels in another language (buttons keep their hooks, so clicks and actions are unchanged)."""
    words = LABELS[spec.labels or "en"]

    def swap(m: re.Match[str]) -> str:
        text = m.group(1)
        new = words.get(text.strip())
        return m.group(0) if new is None else ">" + text.replace(text.strip(), new) + "<"

    return _TEXT.sub(swap, html) if words else html


#: The perturbations over the state, in the order they apply (the skin's own markup draws what they change).
STATE_PERTURBATIONS: dict[str, StateFn] = {
    "sponsored": _sponsored, "count": _count, "order": _order, "price_range": _price_range}
#: The perturbations over the drawn page, in the order they apply.
HTML_PERTURBATIONS: dict[str, HtmlFn] = {
    "out_of_stock": _out_of_stock, "lazy": _lazy, "banner": _banner, "locale": _locale, "labels": _labels}
#: Every perturbation's name (``locale`` and ``labels`` take a value: ``locale=de``).
PERTURBATIONS = (*STATE_PERTURBATIONS, *HTML_PERTURBATIONS)
_VALUED = ("locale", "labels")

#: Facts of the read-back (the keys of :func:`shopsim.adapters.skin_readback.view`) each perturbation changes.
CHANGES: dict[str, tuple[str, ...]] = {
    "sponsored": ("results",), "count": ("results",), "order": ("results",),
    "price_range": ("results", "product.price"), "out_of_stock": (), "lazy": ("results",), "banner": (),
    "locale": (), "labels": (),
}


def parse_perturb(text: str | None, seed: int = 0) -> PerturbSpec:
    """``sponsored,locale=de,...`` (or ``random``, ``none``) as a spec; an unknown part raises ConfigError in one line."""
    names: list[str] = []
    values: dict[str, str] = {}
    rand = False
    for part in (p.strip() for p in (text or "").split(",")):
        key, _, value = part.partition("=")
        if part in ("", "none"):
            continue
        if part == "random":
            rand = True
        elif key in _VALUED and value in LABELS:
            values[key] = value
        elif key in _VALUED:
            raise ConfigError(f"--perturb {key}={value or '?'}: use one of {', '.join(LABELS)}")
        elif part in PERTURBATIONS:
            names.append(part)
        else:
            close = difflib.get_close_matches(key, [*PERTURBATIONS, "random", "none"], n=1)
            hint = f" Did you mean {close[0]!r}?" if close else ""
            raise ConfigError(f"unknown perturbation {part!r}: use {', '.join(PERTURBATIONS)} (locale= and "
                              f"labels= take {'|'.join(LABELS)}), random or none.{hint}")
    return PerturbSpec(names=tuple(dict.fromkeys(names)), random=rand, seed=seed, **values)  # type: ignore[arg-type]


def _page_rng(spec: PerturbSpec, state: PageState, name: str) -> random.Random:
    key = f"{spec.seed}:{name}:{state.url}:{state.page_type}:{state.query}:{state.page_num}"
    return random.Random(int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big"))


def page_spec(spec: PerturbSpec, state: PageState) -> PerturbSpec:
    """The spec a page gets: ``random`` draws each switch (and a locale and language) from the seed and the page."""
    if not spec.random:
        return spec
    rng = _page_rng(spec, state, "random")
    names = tuple(n for n in PERTURBATIONS if n not in _VALUED and rng.random() < 0.5)
    return spec.model_copy(update={"random": False, "names": tuple(dict.fromkeys((*spec.names, *names))),
                                   "locale": spec.locale or rng.choice(list(LABELS)),
                                   "labels": spec.labels or rng.choice(list(LABELS))})


def apply_state(spec: PerturbSpec, state: PageState) -> PageState:
    """The state as the perturbed page shows it (the state-level perturbations, in a fixed order)."""
    for name, fn in STATE_PERTURBATIONS.items():
        if name in spec.names:
            state = fn(state, _page_rng(spec, state, name))
    return state


def apply_html(spec: PerturbSpec, state: PageState, html: str) -> str:
    """The drawn page with the page-level perturbations, leaving the embedded sim state as it was."""
    kept = _STATE.search(html)
    body = html if kept is None else html[:kept.start()] + "\0" + html[kept.end():]
    for name, fn in HTML_PERTURBATIONS.items():
        if name in spec.names or (name == "locale" and spec.locale) or (name == "labels" and spec.labels):
            body = fn(body, state, _page_rng(spec, state, name), spec)
    return body if kept is None else body.replace("\0", kept.group(0), 1)


def perturbed(render: Render, spec: PerturbSpec) -> Render:
    """``render`` with ``spec``'s perturbations (``render`` itself when the spec changes nothing)."""
    if not spec.active:
        return render

    def draw(state: PageState, catalog: Mapping[str, Product] | None = None) -> str:
        page = page_spec(spec, state)
        return apply_html(page, state, render(apply_state(page, state), catalog))

    return draw


def perturbed_skin(skin: Skin, spec: PerturbSpec) -> Skin:
    """``skin`` drawn with ``spec``: the same name, translator and fields."""
    return skin if not spec.active else replace(skin, render=perturbed(skin.render, spec))
