"""A v8 episode on saved real pages: the sim's page machine, with translated pages as its catalog.

The pages are what ``shopsim translate --profile shopsim-v8`` shows (:mod:`shopsim.v8.observation_state`);
this adds the episode: search home -> the recorded results page (whatever the query: one search was
recorded) -> a product (its recorded item page, else its results card alone) -> ``buy now``, scored
with v8's own reward on the real product's facts. A task that starts on an item page has no search
and no navigation: it ends there. Refusals use v8's feedback codes and leave the page unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from shopsim.errors import SessionError
from shopsim.page import PageState, ProductView
from shopsim.simsite.v8.records import V8Option, V8Product, V8Task
from shopsim.simsite.v8.reward import RewardDetail, score_v8_purchase, zero_detail
from shopsim.simsite.v8.session import MAX_QUERY_CHARS, V8Step
from shopsim.v8.observation_state import (
    ObservationState,
    PageOrigin,
    V8Feedback,
    observation_from_page_state,
    page_state_from_observation,
    product_observation,
)
from shopsim.v8.observation_text import render_observation_text
from shopsim.v8.tool_calls import parse_v8_action

__all__ = ["RealV8Session", "card_product", "v8_product"]

BACK, PREV, BUY = "back to search", "< prev", "buy now"
Start = Literal["search", "product"]


def v8_product(state: PageState, selected: dict[str, str] | None = None) -> V8Product:
    """The product on a translated page as v8's catalog record: what v8's reward scores.

    Option values carry no SKU prices, so the price resolves as v8 resolves a catalog product
    without option prices: one listed price, else unverifiable. Where the page's SKU map prices
    the ``selected`` combination, that SKU's price is the one listed price (what the buyer pays).
    """
    p = state.product
    if p is None:
        raise ValueError(f"page {state.url} shows no product")
    own = p.sku_price(selected) if selected and p.sku_prices else None
    pricing = [own] if own is not None else [p.price[0], p.price[1]] if isinstance(p.price, tuple) else \
        [p.price] if p.price is not None else []
    return V8Product(asin=p.id, title=p.title, shop_name=state.shop or "", category=list(p.category_path),
                     pricing=pricing, options={a: [V8Option(value=v) for v in vals] for a, vals in p.options.items()},
                     attribute_list=list(p.attributes), description=p.description, bullets=list(p.bullet_points))


def card_product(results: PageState, product_id: str) -> PageState | None:
    """A product whose page was not recorded, as an item page built from its results card alone."""
    card = next((r for r in results.results if r.id == product_id), None)
    if card is None:
        return None
    product = ProductView(id=card.id, title=card.title, price=card.price, price_text=card.price_text,
                          currency=results.currency)
    return PageState(page_type="item", site=results.site, shop=results.shop, currency=results.currency,
                     url=card.url, product=product)


@dataclass
class _Page:
    kind: Literal["search", "results", "product", "terminal"]
    product: PageState | None = None
    selected: dict[str, str] = field(default_factory=dict)
    from_card: bool = False


class RealV8Session:
    """One task on real pages, with :class:`~shopsim.simsite.v8.session.V8Session`'s ``step`` and ``state``."""

    def __init__(self, start_page: PageState, items: dict[str, PageState], task: V8Task, gold: V8Product | None,
                 *, start: Start, max_actions: int = 30):
        self.start_page, self.items, self.task, self.gold = start_page, items, task, gold
        self.start, self.max_actions = start, max_actions
        self.actions, self.done = 0, False
        self.termination: str | None = None
        self.detail: RewardDetail | None = None
        self.bought: str | None = None
        self._base = observation_from_page_state(start_page)  # the start page as the page shows it
        self._page = _Page("product", start_page) if start == "product" else _Page("search")
        self.state = self._render("ok", "")

    @property
    def reward(self) -> float:
        """``r_strict`` after a purchase, else 0."""
        return self.detail.r_strict if self.detail is not None else 0.0

    def observation(self) -> str:
        """The current page as v8's text."""
        return render_observation_text(self.state)

    def info(self, instruction: str) -> dict[str, Any]:
        """The ``info`` agents read on v8 pages (``observation_state`` and the keys every agent reads)."""
        page = page_state_from_observation(self.state, instruction)
        return {"valid_actions": page.valid_actions(), "page_state": page, "feedback": page.feedback,
                "instruction": instruction, "observation_state": self.state, "termination": self.termination,
                "reward_info": self.detail.model_dump(mode="json") if self.detail is not None else None}

    def step(self, action: str) -> V8Step:
        """Apply one canonical action (``search[...]`` or ``click[...]``); a step after the end is refused."""
        if self.done:
            raise SessionError(f"the episode has ended ({self.termination}); start a new session")
        self.actions += 1
        feedback, message = self._apply(action)
        if not self.done and self.actions >= self.max_actions:
            self.done, self.termination, self.detail = True, "action_limit", zero_detail()
            self._page = _Page("terminal")
        self.state = self._render(feedback, message)
        return V8Step(self.state, self.reward, self.done, self.termination, self.detail, feedback)

    def _apply(self, action: str) -> tuple[V8Feedback, str]:
        parsed = parse_v8_action(action)
        if parsed is None:
            return "invalid_format", "expected search[query] or click[value]"
        tool, arg = parsed
        page = self._page
        if tool == "ask":  # real pages have no shopper to answer: single-turn only
            return "invalid_format", "ask[question] is only available in multi_turn mode"
        if tool == "search":
            if not arg or len(arg) > MAX_QUERY_CHARS:
                return "invalid_format", f"a query needs 1-{MAX_QUERY_CHARS} characters"
            if page.kind != "search":
                return "search_unavailable", "search is only available on the search page"
            self._page = _Page("results")
            return "ok", ""
        if arg == BUY and page.kind == "product" and not self.state.options_complete:
            return "incomplete_options", f"choose {', '.join(self.state.missing_option_axes)} first"
        if arg not in self.state.clickables:
            return "unavailable_action", f"{arg[:80]!r} is not clickable on this page"
        if arg == BACK:
            self._page = _Page("search")
        elif arg == PREV:
            self._page = _Page("results")
        elif arg == BUY:
            self._buy(page)
        elif page.kind == "results":
            item = self.items.get(arg)
            self._page = _Page("product", item or card_product(self.start_page, arg), from_card=item is None)
        else:
            axis, _, value = arg.partition("=")
            if self.state.selected_options.get(axis) == value:
                return "already_selected", f"{axis} is already {value}"
            self._page = _Page("product", page.product, {**page.selected, axis: value}, page.from_card)
        return "ok", ""

    def _buy(self, page: _Page) -> None:
        assert page.product is not None and page.product.product is not None
        bought = v8_product(page.product, dict(self.state.selected_options))
        self.detail = score_v8_purchase(bought, dict(self.state.selected_options), self.task, self.gold)
        self.done, self.termination, self.bought = True, "purchase", bought.asin
        self._page = _Page("terminal")

    def _render(self, feedback: V8Feedback, message: str) -> ObservationState:
        page, base = self._page, self._base
        update: dict[str, Any] = {"action_feedback": feedback, "feedback_message": message}
        if page.kind == "search":
            obs = ObservationState(page_type="search", search_available=True, origin=base.origin)
        elif page.kind == "terminal":
            obs = ObservationState(page_type="terminal", termination=self.termination, purchased_asin=self.bought,
                                   selected_options=dict(self.state.selected_options), origin=base.origin)
        elif page.kind == "results":
            note = f"one search was recorded ({self.start_page.query or 'query not shown'}); its results are shown"
            obs = base
            update["clickables"] = [r.asin for r in base.results] + [BACK]
            update["origin"] = (base.origin or PageOrigin()).model_copy(update={"note": note})
        else:
            obs = self._product_page(page)
            nav = [PREV, BACK] if self.start == "search" else []
            update["clickables"] = [c for c in obs.clickables if c not in (PREV, BACK, BUY)] + nav + (
                [BUY] if obs.options_complete else [])
        return obs.model_copy(update=update)

    def _product_page(self, page: _Page) -> ObservationState:
        state = page.product
        assert state is not None and state.product is not None
        p = state.product
        chosen = {**{a: v for a, v in p.selected.items() if v is not None}, **page.selected}
        obs = product_observation(state, p.model_copy(update={"selected": chosen}))
        if page.from_card:
            note = "this product's page was not recorded; it is shown from its results card"
            obs = obs.model_copy(update={"origin": (obs.origin or PageOrigin()).model_copy(update={"note": note})})
        return obs
