"""One renderer for every site: PageState -> WebShop's simple and rich text, and valid actions.

The strings equal WebShop's byte for byte for the same page (tested against WebShop's recorded
episodes), so agents trained on WebShop read shopsim, Amazon and eBay pages alike. The ``html``
observation is the sim's own page, drawn by :mod:`shopsim.simsite.html`; environments get all four
modes from :func:`shopsim.adapters.env.observation`.
"""

from __future__ import annotations

import json
from itertools import repeat
from operator import itemgetter
from typing import Any, Literal

from shopsim.page import PageState, Price

__all__ = ["ObservationMode", "format_price", "observation", "render_rich", "render_simple", "valid_actions"]

ObservationMode = Literal["text", "text_rich", "url", "html"]
SEP = " [SEP] "


def _results_head(s: PageState) -> list[tuple[str, str]]:
    parts: list[tuple[str, str]] = [("button", "Back to Search")]
    parts.append(("text", f"Page {s.page_num or 1} (Total results: {s.total_results if s.total_results is not None else len(s.results)})"))
    for c in s.clickables:
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
        return [("text", "WebShop"), ("text", "Instruction: "), ("text", instr), ("button", "Search")]
    if s.page_type == "done":
        return _done_segments(s)
    if s.page_type in ("blocked", "unknown"):
        return [("text", f"Page unavailable ({s.page_type})"), ("text", s.reason or "")] + [
            ("button", c.text) for c in s.clickables
        ]
    head = [("text", "Instruction:"), ("text", instr)] if s.instruction is not None else []
    if s.page_type == "results":
        segs = head + _results_head(s)
        visited = set(s.visited_ids)
        for card in s.results:
            segs.append(("clicked_product" if card.id in visited else "product", card.id))
            segs.append(("text", card.title))
            segs.append(("text", card.price_text or format_price(card.price)))
        return segs
    segs = head + [("button", "Back to Search"), ("button", "< Prev")]
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
    clicked: dict[str | None, set[str]] = {}
    for c in s.clickables:
        if c.clicked and c.kind == "option":
            clicked.setdefault(c.axis, set()).add(c.text)
    for axis, values in p.options.items():
        segs.append(("text", axis))
        hits = clicked.get(axis)
        segs += [("clicked_option" if v in hits else "option", v) for v in values] if hits else zip(repeat("option"), values)
    segs += [("text", p.title), ("text", f"Price: {p.price_text or format_price(p.price)}"),
             ("text", f"Rating: {p.rating_text}")]
    segs += [("button", c.text) for c in s.clickables if c.kind in ("sub_page", "buy")]
    return segs


def _done_segments(s: PageState) -> list[tuple[str, str]]:
    purchase = s.purchase
    options = _htmlsafe_json(purchase.options if purchase else {})
    fixed = ["Thank you for shopping with us!", "Your code: ", "None", " (Paste it in your MTurk interface.)",
             "Purchased", "asin", purchase.id if purchase else "None", "options", options,
             "attrs", "None", "category", "None", "query", "None", "product category", "None",
             "Target", "asin", "options", "attrs", "price upper", "instuction text", "category",
             "product category", "query", "Goal ", "None", "Reward", "Your score (min 0.0, max 1.0)",
             str(s.reward), "Reward Details ", "None"]
    return [("text", t) for t in fixed]


def _htmlsafe_json(value: object) -> str:
    """Flask's ``tojson``: sorted keys, and ``< > & '`` escaped (WebShop's done page uses it)."""
    text = json.dumps(value, sort_keys=True)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026").replace("'", "\\u0027")


def render_simple(state: PageState) -> str:
    """WebShop's simple mode: visible texts, stripped, joined by ' [SEP] '."""
    return SEP.join(filter(None, map(str.strip, map(itemgetter(1), _segments(state)))))


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
