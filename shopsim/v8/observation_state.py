"""``observation_state`` (schema ``shopping-observation-v7``): the v8 profile's public page facts.

The one source of what a v8 page shows and allows: the text observation is rendered from it alone
(:mod:`shopsim.v8.observation_text`), the click enum is its ``clickables``, and nothing private (the
full instruction, target attributes, options, budget or gold ASIN) is ever in it.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from shopsim.page import Clickable, Feedback, PageState, ProductView, ResultCard, trusted

__all__ = [
    "OBSERVATION_SCHEMA",
    "V8_FEEDBACK_CODES",
    "ObservationState",
    "PageOrigin",
    "ProductFacts",
    "ResultEntry",
    "V8Feedback",
    "V8PageType",
    "observation_from_page_state",
    "page_state_from_observation",
    "product_observation",
    "selected_sku_price",
]

OBSERVATION_SCHEMA = "shopping-observation-v7"
V8PageType = Literal["search", "results", "product", "terminal"]
V8Feedback = Literal[
    "ok", "invalid_format", "search_unavailable", "unavailable_action", "already_selected", "incomplete_options"
]
V8_FEEDBACK_CODES: tuple[str, ...] = V8Feedback.__args__  # type: ignore[attr-defined]
#: A listed price: one number, a ``[low, high]`` range, or ``None``.
ListedPrice = float | tuple[float, float] | None


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class ResultEntry(_Frozen):
    """One product on a results page, with the facts the contract lists."""

    rank: int
    asin: str
    title: str
    price: ListedPrice = None
    brand: str = ""
    category: list[str] = Field(default_factory=list)
    key_attributes: list[str] = Field(default_factory=list)


class ProductFacts(_Frozen):
    """The product on a product page: its facts and its option axes (raw axis names)."""

    asin: str
    title: str
    shop_name: str = ""
    brand: str = ""
    model: str = ""
    category: list[str] = Field(default_factory=list)
    price: ListedPrice = None
    attributes: list[str] = Field(default_factory=list)
    bullets: list[str] = Field(default_factory=list)
    option_axes: dict[str, list[str]] = Field(default_factory=dict)


class PageOrigin(_Frozen):
    """Where a translated real page came from: its shop, the currency of its prices and any note.

    ``None`` on the sim's own pages (their catalog has one shop and one currency, CNY), so sim
    observations and texts are unchanged; a real page must say which currency its numbers are in.
    """

    shop: str | None = None
    currency: str | None = None
    url: str | None = None
    note: str = ""
    """Why the page reads as it does (unreadable, blocked, shown from a results card), else empty."""


class ObservationState(_Frozen):
    """Everything a v8 page shows; ``clickables`` is exactly the click enum of this page."""

    schema_version: str = OBSERVATION_SCHEMA
    page_type: V8PageType
    search_available: bool = False
    search_text: str | None = None
    results: list[ResultEntry] = Field(default_factory=list)
    page: int | None = None
    total_pages: int | None = None
    total_results: int | None = None
    rank_start: int | None = None
    rank_end: int | None = None
    product: ProductFacts | None = None
    selected_options: dict[str, str] = Field(default_factory=dict)
    missing_option_axes: list[str] = Field(default_factory=list)
    options_complete: bool = False
    selected_price: float | None = None
    clickables: list[str] = Field(default_factory=list)
    action_feedback: V8Feedback = "ok"
    feedback_message: str = ""
    termination: str | None = None
    purchased_asin: str | None = None
    origin: PageOrigin | None = None


def page_state_from_observation(obs: ObservationState, instruction: str | None = None, url: str | None = None) -> PageState:
    """The site-neutral PageState of a v8 page, so agents, traces and viewers built on PageState work.

    Option clickables keep their v8 argument (``axis=value``); ``text`` is the bare value. The page,
    its product and feedback are built with :func:`~shopsim.page.trusted` (their fields come from a
    validated ObservationState, in fresh containers): this runs every step. Clickables and result
    cards hold only strings, numbers and tuples, so equal ones are one cached object (:func:`_click`,
    :func:`_card`): a results page no longer builds 40 models a step.
    """
    clicks: list[Clickable] = [_click("search", "search", None, False)] if obs.search_available else []
    selected = obs.selected_options
    for arg in obs.clickables:
        kind = _NAV_KINDS.get(arg)
        if kind is not None:
            clicks.append(_click(arg, kind, None, False))
        elif obs.page_type == "results":
            clicks.append(_click(arg, "product", None, False))
        else:
            axis, _, value = arg.partition("=")
            clicks.append(_click(arg, "option", axis, selected.get(axis) == value))
    product = None
    if obs.product is not None:
        p = obs.product
        product = trusted(ProductView, id=p.asin, title=p.title, price=p.price,
                          currency=obs.origin.currency if obs.origin else None,
                          options={a: list(v) for a, v in p.option_axes.items()},
                          selected={a: selected.get(a) for a in p.option_axes},
                          bullet_points=list(p.bullets), category_path=list(p.category), attributes=list(p.attributes))
    return trusted(
        PageState, page_type=_PAGE_TYPES[obs.page_type], url=url, instruction=instruction, query=obs.search_text,  # type: ignore[arg-type]
        page_num=obs.page, total_results=obs.total_results, clickables=clicks, has_search_bar=obs.search_available,
        results=[_card(r.asin, r.title, r.price) for r in obs.results],
        product=product, feedback=trusted(Feedback, code=obs.action_feedback, message=obs.feedback_message),
    )


@lru_cache(maxsize=1 << 16)
def _click(arg: str, kind: str, axis: str | None, clicked: bool) -> Clickable:
    """One clickable of a v8 page (immutable all through, so one object serves every page that shows it)."""
    text = "Search" if kind == "search" else arg if axis is None else arg.partition("=")[2]
    return trusted(Clickable, arg=arg, text=text, kind=kind, selector=None, url=None, axis=axis, clicked=clicked)


@lru_cache(maxsize=1 << 16)
def _card(asin: str, title: str, price: ListedPrice) -> ResultCard:
    """One result card (immutable all through, like :func:`_click`)."""
    return trusted(ResultCard, id=asin, title=title, price=price, price_text="", sponsored=False, url=None)


_NAV_KINDS = {"back to search": "back_to_search", "next >": "next", "< prev": "prev", "buy now": "buy"}
_PAGE_TYPES = {"search": "search", "results": "results", "product": "item", "terminal": "done"}

def _listed(price: object) -> ListedPrice:
    if isinstance(price, tuple | list) and len(price) == 2:
        return (float(price[0]), float(price[1]))
    return float(price) if isinstance(price, int | float) and not isinstance(price, bool) else None


#: Attribute names a page uses for the brand (``品牌: vivo``), as v8 catalogs take brands from attributes.
_BRAND_NAMES = frozenset({"brand", "品牌", "ブランド", "브랜드", "marke", "marque", "marca"})


def _brand(attributes: list[str]) -> str:
    for text in attributes:
        name, sep, value = text.replace("：", ":").partition(":")
        if sep and name.strip().casefold() in _BRAND_NAMES and value.strip():
            return value.strip()
    return ""


def _origin(state: PageState, note: str = "") -> PageOrigin | None:
    if state.site == "simsite" and not note:
        return None
    currency = state.currency or (state.product.currency if state.product is not None else None)
    return PageOrigin(shop=state.shop, currency=currency, url=state.url, note=note)


def _axes(p: ProductView) -> dict[str, list[str]]:
    """Option axes with values, each value once (an axis without values cannot be chosen: dropped)."""
    axes: dict[str, list[str]] = {}
    for axis, values in p.options.items():
        unique = list(dict.fromkeys(v for v in values if v))
        if axis and unique:
            axes[axis] = unique
    return axes


def observation_from_page_state(state: PageState) -> ObservationState:
    """A v8 ``observation_state`` for any site's page (a real Amazon, eBay or Chinese shop page included).

    The v8 action model applies: search only on a search page, products by id, options as
    ``axis=value`` with the page's raw axis names, ``buy now`` once every axis has a value, no
    sub-pages. ``selected_price`` is, once every axis is chosen, the selected SKU's own price where
    the page's SKU map states one, else the page's price when it shows one number; a displayed range
    stays the listed price and the SKU price unknown. Facts a page does not show stay empty rather than guessed; a real page names its shop
    and currency in ``origin``.
    """
    if state.page_type == "search":
        return ObservationState(page_type="search", search_available=True, origin=_origin(state))
    if state.page_type == "done":
        return ObservationState(page_type="terminal", termination="purchase", origin=_origin(state),
                                purchased_asin=state.purchase.id if state.purchase else None)
    if state.page_type == "results":
        return _results(state)
    if state.page_type in ("item", "item_detail") and state.product is not None:
        return product_observation(state, state.product)
    why = state.reason or f"unreadable page ({state.page_type})"
    return ObservationState(page_type="search", search_available=False,
                            origin=_origin(state, f"{state.page_type} page: {why}"))


def _results(state: PageState) -> ObservationState:
    kinds = {c.kind for c in state.clickables}
    nav = [a for a, k in (("< prev", "prev"), ("next >", "next")) if k in kinds] + ["back to search"]
    seen: set[str] = set()
    entries: list[ResultEntry] = []
    for r in state.results:
        if r.id and r.id not in seen:  # the click enum names each product once
            seen.add(r.id)
            entries.append(ResultEntry(rank=len(entries) + 1, asin=r.id, title=r.title, price=_listed(r.price)))
    return ObservationState(page_type="results", search_text=state.query, results=entries, page=state.page_num,
                            total_results=state.total_results, rank_start=1 if entries else None,
                            rank_end=len(entries) or None, clickables=[e.asin for e in entries] + nav,
                            origin=_origin(state))


def product_observation(state: PageState, p: ProductView) -> ObservationState:
    """The product page of ``p`` with its page's selection (values the page offers on each axis)."""
    axes = _axes(p)
    selected = {a: v for a, v in p.selected.items() if v is not None and v in axes.get(a, ())}
    missing = [a for a in axes if a not in selected]
    clicks = [f"{a}={v}" for a, vals in axes.items() for v in vals] + ["< prev", "back to search"]
    if not missing:
        clicks.append("buy now")
    facts = ProductFacts(asin=p.id, title=p.title, shop_name=state.shop or "", brand=_brand(p.attributes),
                         category=p.category_path, price=_listed(p.price), attributes=p.attributes,
                         bullets=p.bullet_points, option_axes=axes)
    return ObservationState(page_type="product", search_text=state.query, product=facts, selected_options=selected,
                            missing_option_axes=missing, options_complete=not missing,
                            selected_price=None if missing else selected_sku_price(p, selected),
                            clickables=clicks, origin=_origin(state))


def selected_sku_price(p: ProductView, selected: dict[str, str]) -> float | None:
    """The chosen SKU's price: its own where the page's SKU map prices it, else the one listed number.

    A listed range without a SKU price stays unknown (a range says nothing of one configuration).
    """
    own = p.sku_price(selected) if p.sku_prices else None
    single = _listed(p.price)
    return own if own is not None else single if isinstance(single, float) else None
