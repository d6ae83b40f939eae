"""One renderer for every site: PageState -> WebShop's simple and rich text, and valid actions.

The strings equal WebShop's byte for byte for the same page (tested against WebShop's recorded
episodes), so agents trained on WebShop read shopsim, Amazon and eBay pages alike. The ``html``
observation is the sim's own page, drawn by :mod:`shopsim.simsite.html`; environments get all four
modes from :func:`shopsim.adapters.env.observation`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from itertools import repeat
from operator import itemgetter
from typing import Any, Literal

from shopsim.page import Clickable, PageState, Price, ProductView

__all__ = ["SEP", "ObservationMode", "card_segments", "done_segments", "format_price", "instruction_segments", "item_head",
           "observation", "product_segments", "render_rich", "render_simple", "results_head", "search_segments",
           "simple_text", "valid_actions"]

ObservationMode = Literal["text", "text_rich", "url", "html"]
SEP = " [SEP] "


def _results_head(s: PageState) -> list[tuple[str, str]]:
    total = s.total_results if s.total_results is not None else len(s.results)
    return results_head(s.page_num or 1, total, s.clickables)


def results_head(page_num: int, total: int, clickables: Iterable[Clickable]) -> list[tuple[str, str]]:
    """A results page's segments between the instruction and the cards."""
    parts: list[tuple[str, str]] = [("button", "Back to Search")]
    parts.append(("text", f"Page {page_num} (Total results: {total})"))
    for c in clickables:
        if c.kind in ("prev", "next"):
            parts.append(("button", c.text))
    return parts


def format_price(price: Price) -> str:
    """WebShop's price text for a number or range ('$12.5', '$10.0 to $20.0'); '' when none is shown."""
    if price is None:
        return ""
    if isinstance(price, tuple):
        return f"${price[0]} to ${price[1]}"
    return f"${price}"


def _segments(s: PageState) -> list[tuple[str, str]]:
    """The page as (kind, text) segments in reading order; kinds drive the rich format."""
    instr = s.instruction or ""
    if s.page_type == "search":
        return search_segments(instr)
    if s.page_type == "done":
        return _done_segments(s)
    if s.page_type in ("blocked", "unknown"):
        return [("text", f"Page unavailable ({s.page_type})"), ("text", s.reason or "")] + [
            ("button", c.text) for c in s.clickables
        ]
    head = instruction_segments(s.instruction)
    if s.page_type == "results":
        segs = head + _results_head(s)
        visited = set(s.visited_ids)
        for card in s.results:
            segs += card_segments(card.id, card.title, card.price_text or format_price(card.price), card.id in visited)
        return segs
    segs = item_head(s.instruction)
    p = s.product
    if p is None:
        return segs
    if s.page_type == "item_detail":
        if s.sub_page == "Description":
            segs.append(("text", p.description))
        elif s.sub_page == "Features":
            segs += [("spaced", b) for b in p.bullet_points]
        elif s.sub_page == "Reviews":
            for r in p.reviews:
                segs += [("text", r.title), ("text", "" if r.score is None else f"{r.score:g}"), ("text", r.body)]
        elif s.sub_page == "Attributes":
            segs += [("text", a) for a in p.attributes]
        return segs
    return segs + product_segments(p, s.clickables)


def instruction_segments(instruction: str | None) -> list[tuple[str, str]]:
    """The instruction at the top of a results or item page (none when the page has none)."""
    return [("text", "Instruction:"), ("text", instruction or "")] if instruction is not None else []


def item_head(instruction: str | None) -> list[tuple[str, str]]:
    """An item or item-detail page's segments before the product."""
    return [*instruction_segments(instruction), ("button", "Back to Search"), ("button", "< Prev")]


def card_segments(asin: str, title: str, price: str, clicked: bool) -> list[tuple[str, str]]:
    """One result card's segments (``price`` as shown)."""
    return [("clicked_product" if clicked else "product", asin), ("text", title), ("text", price)]


def search_segments(instruction: str) -> list[tuple[str, str]]:
    """The search page's segments."""
    return [("text", "WebShop"), ("text", "Instruction: "), ("text", instruction), ("button", "Search")]


def product_segments(p: ProductView, clickables: list[Clickable]) -> list[tuple[str, str]]:
    """An item page's segments after its navigation buttons: options, title, price, rating, buttons."""
    segs: list[tuple[str, str]] = []
    clicked: dict[str | None, set[str]] = {}
    for c in clickables:
        if c.clicked and c.kind == "option":
            clicked.setdefault(c.axis, set()).add(c.text)
    for axis, values in p.options.items():
        segs.append(("text", axis))
        hits = clicked.get(axis)
        segs += [("clicked_option" if v in hits else "option", v) for v in values] if hits else zip(repeat("option"), values)
    segs += [("text", p.title), ("text", f"Price: {p.price_text or format_price(p.price)}"),
             ("text", f"Rating: {p.rating_text}")]
    segs += [("button", c.text) for c in clickables if c.kind in ("sub_page", "buy")]
    return segs


def _done_segments(s: PageState) -> list[tuple[str, str]]:
    purchase = s.purchase
    return done_segments(purchase.id if purchase else "None", purchase.options if purchase else {}, s.reward)


def done_segments(asin: str, options: dict[str, str], reward: float | None) -> list[tuple[str, str]]:
    """The done page's segments: what was bought and the score (WebShop's template, its typo kept)."""
    fixed = ["Thank you for shopping with us!", "Your code: ", "None", " (Paste it in your MTurk interface.)",
             "Purchased", "asin", asin, "options", _htmlsafe_json(options),
             "attrs", "None", "category", "None", "query", "None", "product category", "None",
             "Target", "asin", "options", "attrs", "price upper", "instuction text", "category",
             "product category", "query", "Goal ", "None", "Reward", "Your score (min 0.0, max 1.0)",
             str(reward), "Reward Details ", "None"]
    return list(zip(repeat("text"), fixed))


def _htmlsafe_json(value: object) -> str:
    """Flask's ``tojson``: sorted keys, and ``< > & '`` escaped (WebShop's done page uses it)."""
    text = json.dumps(value, sort_keys=True)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026").replace("'", "\\u0027")


def render_simple(state: PageState) -> str:
    """WebShop's simple mode: visible texts, stripped, joined by ' [SEP] '."""
    return simple_text(_segments(state))


def simple_text(segments: Iterable[tuple[str, str]]) -> str:
    """Segments in the simple mode. Joins compose: the simple text of ``a + b`` is the non-empty ones of
    ``simple_text(a)`` and ``simple_text(b)`` joined by ``SEP``, so pages may spell shared parts once.
    """
    return SEP.join(filter(None, map(str.strip, map(itemgetter(1), segments))))


def render_rich(state: PageState) -> str:
    """WebShop's rich mode: one line per text, buttons and clicked buttons marked."""
    out = ""
    for kind, t in _segments(state):
        if not t.strip():
            continue
        if kind == "button":
            line = f"[button] {t} [button_]"
        elif kind == "option":
            line = f"  [button] {t} [button_]"
        elif kind == "clicked_option":
            line = f"  [clicked button] {t} [clicked button_]"
            out = f"You have clicked {t}.\n" + out
        elif kind == "product":
            line = f"\n[button] {t} [button_]"
        elif kind == "clicked_product":
            line = f"\n[clicked button] {t} [clicked button_]"
        elif kind == "spaced":
            line = f" {t}"
        else:
            line = t
        out += line + "\n"
    return out


def valid_actions(state: PageState) -> dict[str, Any]:
    """WebShop's ``get_available_actions()``: ``{has_search_bar, clickables}``."""
    return state.valid_actions()


def observation(state: PageState, mode: ObservationMode = "text") -> str:
    """The observation string for a text mode: ``text``, ``text_rich`` or ``url``.

    :raises ValueError: for ``html`` (the sim's own page, see :func:`shopsim.adapters.env.observation`)
        and for unknown modes.
    """
    if mode == "text":
        return render_simple(state)
    if mode == "text_rich":
        return render_rich(state)
    if mode == "url":
        return state.url or ""
    if mode == "html":
        raise ValueError("observation mode 'html' is the sim's own page, which this renderer does not draw: "
                         "use shopsim.adapters.env.observation or shopsim.simsite.html.render_html")
    raise ValueError(f"observation mode {mode!r} not supported: use text, text_rich, url or html")
