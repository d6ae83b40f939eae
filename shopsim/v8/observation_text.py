"""The v8 text observation, rendered from ``observation_state`` alone.

Protocol-neutral on purpose: it describes the page and lists what can be clicked, but shows no
call syntax, no ``[SEP]``, no instruction and no schema version, so the same text serves a
tool-calling model, a prompt-based one or a person.
"""

from __future__ import annotations

import json
from functools import lru_cache

from shopsim.page import PageState
from shopsim.v8.observation_state import ListedPrice, ObservationState, ProductFacts

__all__ = ["format_listed_price", "render_observation_text"]

_FEEDBACK_TEXT = {
    "invalid_format": "The last action was not understood; the page is unchanged.",
    "search_unavailable": "Search is only possible from the search page; the page is unchanged.",
    "unavailable_action": "That value is not clickable on this page; the page is unchanged.",
    "already_selected": "That option is already selected; the page is unchanged.",
    "incomplete_options": "Choose a value for every option before buying; the page is unchanged.",
}


def _num(x: float) -> str:
    return f"{x:.2f}".rstrip("0").rstrip(".") if x != int(x) else str(int(x))


def format_listed_price(price: ListedPrice) -> str:
    """``1100`` -> ``"1100"``, ``(680, 1580)`` -> ``"680 - 1580"``, ``None`` -> ``"not listed"``."""
    if price is None:
        return "not listed"
    if isinstance(price, tuple | list):
        return f"{_num(price[0])} - {_num(price[1])}"
    return _num(price)


def render_observation_text(obs: ObservationState) -> str:
    """One text observation for one page state."""
    lines: list[str] = []
    if obs.action_feedback != "ok":
        lines.append(_FEEDBACK_TEXT.get(obs.action_feedback, obs.feedback_message))
    if obs.origin is not None:
        lines.extend(_origin_lines(obs))
    if obs.page_type == "search" and not obs.search_available:
        lines.append("This page shows nothing to search or buy.")
    elif obs.page_type == "search":
        lines.append("Search page: enter a query to search the catalog.")
    elif obs.page_type == "results":
        lines.append(f"Search results for: {obs.search_text or ''}")
        if obs.total_results and obs.total_pages:
            lines.append(f"Showing results {obs.rank_start}-{obs.rank_end} of {obs.total_results} "
                         f"(page {obs.page} of {obs.total_pages}).")
        elif obs.results:
            lines.append(f"Showing {len(obs.results)} results" + (f" (page {obs.page})." if obs.page else "."))
        else:
            lines.append("No products match this query.")
        for r in obs.results:
            lines.append(f"{r.rank}. {_card_text(r.asin, r.title, r.price, r.brand, tuple(r.category), tuple(r.key_attributes))}")
    elif obs.page_type == "product" and obs.product is not None:
        lines.extend(_product_lines(obs, obs.product))
    elif obs.page_type == "terminal":
        if obs.termination == "purchase":
            lines.append(f"Purchased {obs.purchased_asin}. The episode is over.")
        else:
            lines.append(f"The episode ended ({obs.termination}).")
    if obs.clickables:
        lines.append("Clickable values: " + " | ".join(obs.clickables))
    elif obs.page_type == "search" and obs.search_available:
        lines.append("Nothing to click yet: search first.")
    elif obs.page_type != "terminal":
        lines.append("Nothing is clickable on this page.")
    return "\n".join(lines)


@lru_cache(maxsize=1 << 16)
def _card_text(asin: str, title: str, price: ListedPrice, brand: str, category: tuple[str, ...],
               key_attributes: tuple[str, ...]) -> str:
    """A result's line after its rank (cached: a product's card reads the same on every page showing it)."""
    shown = (("brand", brand, brand), ("category", category, " > ".join(category)),
             ("attributes", key_attributes, "; ".join(key_attributes)))
    return " | ".join([asin, title, f"price: {format_listed_price(price)}",
                       *(f"{label}: {text}" for label, given, text in shown if given)])


def _product_lines(obs: ObservationState, p: ProductFacts) -> list[str]:
    """A product page: its facts, each option axis with its choice, what is missing and the SKU price."""
    lines = [f"Product {p.asin}: {p.title}"]
    for label, value in (("shop", p.shop_name), ("brand", p.brand), ("model", p.model),
                         ("category", " > ".join(p.category))):
        if value:
            lines.append(f"{label}: {value}")
    lines.append(f"listed price: {format_listed_price(p.price)}")
    if p.attributes:
        lines.append("attributes: " + "; ".join(p.attributes))
    for b in p.bullets:
        lines.append(f"- {b}")
    for axis, values in p.option_axes.items():
        chosen = obs.selected_options.get(axis)
        lines.append(f"option {axis}: {' / '.join(values)} (selected: {chosen if chosen is not None else 'none'})")
    if p.option_axes:
        missing = ", ".join(obs.missing_option_axes) or "none"
        lines.append(f"missing options: {missing}")
    price = "unknown until every price-changing option is chosen" if obs.selected_price is None else _num(obs.selected_price)
    lines.append(f"selected price: {price}")
    return lines


def _origin_lines(obs: ObservationState) -> list[str]:
    """A real page's shop and currency (every price on it is in that currency), and its note."""
    origin = obs.origin
    assert origin is not None
    where = f"Real page from {origin.shop}" if origin.shop else "Real page from a shop not recognised"
    money = f"; prices in {origin.currency}" if origin.currency else ""
    out = [f"{where}{money}."]
    if origin.note:
        out.append(f"Note: {origin.note}")
    return out


def page_view(state: PageState, fmt: str) -> str:
    """A translated page under the v8 contract: its ``observation_state`` as JSON, or that state's text."""
    from shopsim.v8.observation_state import observation_from_page_state

    obs = observation_from_page_state(state)
    if fmt == "json":
        return json.dumps(obs.model_dump(mode="json"), ensure_ascii=False)
    return render_observation_text(obs)
