"""One shopping session: WebShop's page state machine, producing one PageState per page.

Semantics follow WebShop's text environment: action arguments are lower-cased, clickables are the
page's buttons, product links (by lower-cased ASIN) and option values; ``< prev`` on an item page
goes back to the results (clearing options); ``back to search`` resets the session. Additions:
an invalid action leaves the page unchanged and says why (``feedback``); a strict mode
(ShopSimulator's rules); an action limit that ends the episode as truncated with zero reward.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal, cast

from shopsim import routes
from shopsim.actions import parse_action
from shopsim.page import Feedback, FeedbackCode, PageState, SubPage
from shopsim.simsite import session_pages as pages
from shopsim.simsite.models import Goal, Product
from shopsim.simsite.page_cache import shop_parts
from shopsim.simsite.reward import RewardBreakdown, score_purchase
from shopsim.simsite.search import MAX_QUERY_CHARS, SEARCH_RETURN_N
from shopsim.simsite.session_pages import Common
from shopsim.simsite.shop import Shop
from shopsim.simsite.sim_page import SimPage

if TYPE_CHECKING:  # snapshots load on first use: an RL rollout never takes one (shopsim.v8's models, pydantic schemas)
    from shopsim.simsite.snapshots import WebShopSessionState

__all__ = ["PRODUCT_WINDOW", "ShopSession", "StepResult"]

PRODUCT_WINDOW = 10
_OK = Feedback()  # frozen, so every page of every session may share it
PageName = Literal["index", "search_results", "item_page", "item_sub_page", "done"]


@dataclass(frozen=True)
class StepResult:
    """What one action did: ``page`` (its ``state``, the full PageState, is built when first read)."""

    page: SimPage
    reward: float
    done: bool
    truncated: bool
    breakdown: RewardBreakdown | None = None

    @property
    def state(self) -> PageState:
        """The page's PageState."""
        return self.page.state


@dataclass
class _Nav:
    page: PageName = "index"
    keywords: list[str] | None = None
    page_num: int | None = None
    asin: str | None = None
    options: dict[str, str] = field(default_factory=dict)
    sub_page: SubPage | None = None


class ShopSession:
    """A session on a shared :class:`Shop`, with its own goal and navigation state."""

    def __init__(
        self,
        shop: Shop,
        goal: Goal,
        session_id: str,
        *,
        strict: bool = False,
        max_steps: int | None = None,
        base_url: str = routes.DEFAULT_BASE_URL,
        goal_index: int | None = None,
    ):
        self.shop, self.goal, self.session_id = shop, goal, session_id
        self.goal_index = goal_index  # for snapshots; found by lookup when not given
        self.strict, self.max_steps, self.base_url = strict, max_steps, base_url
        self.steps = 0
        self.done = False
        self.truncated = False
        self.breakdown: RewardBreakdown | None = None
        self.visited: list[str] = []
        self._nav = _Nav()
        self._results_cache: tuple[str, list[str]] | None = None
        self._parts = shop_parts(shop)  # looked up once: every page reads it
        self.page = self._render(_OK)

    @property
    def state(self) -> PageState:
        """The current page's PageState (built on first read: :mod:`shopsim.simsite.sim_page`)."""
        return self.page.state

    # ---- actions -------------------------------------------------------------------------------
    def step(self, action: str) -> StepResult:
        """Apply one action string; invalid actions leave the page as it was, with feedback."""
        if self.done:
            return self._refuse("episode_done", "the episode is over; reset to start a new one")
        self.steps += 1
        result = self._apply(action)
        if not result.done and self.max_steps is not None and self.steps >= self.max_steps:
            self.done = self.truncated = True
            fb = Feedback(code="action_limit", message=f"action limit of {self.max_steps} reached without a purchase")
            self.page = SimPage.of(self.state.model_copy(update={"feedback": fb}))
            return StepResult(self.page, 0.0, True, True)
        return result

    def show(
        self,
        page: PageName,
        *,
        keywords: list[str] | None = None,
        page_num: int | None = None,
        asin: str | None = None,
        options: dict[str, str] | None = None,
        sub_page: SubPage | None = None,
    ) -> StepResult:
        """Jump to a page by its URL parts (how the web app serves WebShop's URL scheme).

        ``page='done'`` buys ``asin`` with ``options``; an unknown ASIN raises ``KeyError``.
        """
        if self.done:
            return self._refuse("episode_done", "the episode is over; reset to start a new one")
        if asin is not None and asin not in self.shop.products:
            raise KeyError(asin)
        if page == "index":
            self._nav, self.visited = _Nav(), []
            return self._moved()
        nav = _Nav(page, keywords or [], page_num or 1, asin, dict(options or {}), sub_page)
        if page == "item_page" and asin is not None and asin not in self.visited:
            self.visited.append(asin)
        if page == "done":
            self._nav = nav
            return self._purchase(self.shop.products[asin or ""])
        self._nav = nav
        return self._moved()

    def _refuse(self, code: FeedbackCode, message: str) -> StepResult:
        self.page = SimPage.of(self.state.model_copy(update={"feedback": Feedback(code=code, message=message)}))
        return StepResult(self.page, 0.0, self.done, self.truncated)

    def _apply(self, action: str) -> StepResult:
        name, arg = parse_action(action) if isinstance(action, str) else ("", None)
        if name not in ("search", "click") or arg is None:
            return self._refuse("unknown_action", f"expected search[...] or click[...], got {str(action)[:80]!r}")
        arg = arg.lower()
        if name == "search":
            if not arg.strip():
                return self._refuse("empty_query", "search[] needs keywords")
            if len(arg) > MAX_QUERY_CHARS:
                return self._refuse("query_too_long", f"queries are limited to {MAX_QUERY_CHARS} characters")
            if self.strict and not self.page.has_search_bar:
                return self._refuse("not_available", "there is no search bar on this page; click[back to search] first")
            self._nav = _Nav(page="search_results", keywords=arg.split(" "), page_num=1)
            return self._moved()
        return self._click(arg)

    def _click(self, arg: str) -> StepResult:
        target = self.page.clickable(arg)
        if target is None or target.kind == "search":
            available = ", ".join(c.arg for c in self.page.clickables if c.kind != "search")
            if self.strict and self._nav.page == "item_page" and self._ambiguous(arg):
                return self._refuse("ambiguous_option", f"{arg!r} is a value of several options; click[<option>: {arg}]")
            return self._refuse("not_available", f"{arg!r} is not clickable here; available: {available or 'none'}")
        nav = self._nav
        if target.kind == "buy":
            product = self.shop.products[nav.asin or ""]
            if self.strict and (missing := [a for a in product.options if a not in nav.options]):
                return self._refuse("options_incomplete", f"choose {', '.join(missing)} before buying")
            return self._purchase(product)
        if target.kind == "back_to_search":
            self._nav = _Nav()
            self.visited = []
        elif target.kind == "next":
            self._nav = _Nav("search_results", nav.keywords, (nav.page_num or 1) + 1)
        elif target.kind == "prev" and nav.page == "search_results":
            self._nav = _Nav("search_results", nav.keywords, (nav.page_num or 2) - 1)
        elif target.kind == "prev" and nav.page == "item_sub_page":
            self._nav = _Nav("item_page", nav.keywords, nav.page_num, nav.asin, nav.options)
        elif target.kind == "prev":  # item page -> its results page; options are cleared
            self._nav = _Nav("search_results", nav.keywords, nav.page_num)
        elif target.kind == "sub_page":  # these clickables' texts are SUB_PAGES (_item_clickables)
            sub_page = cast(SubPage, target.text)
            self._nav = _Nav("item_sub_page", nav.keywords, nav.page_num, nav.asin, nav.options, sub_page)
        elif target.kind == "product":
            asin = target.text
            if asin not in self.visited:
                self.visited.append(asin)
            self._nav = _Nav("item_page", nav.keywords, nav.page_num, asin, {})
        elif target.kind == "option" and target.axis is not None:
            options = dict(nav.options)
            options[target.axis] = target.text
            self._nav = _Nav("item_page", nav.keywords, nav.page_num, nav.asin, options)
        return self._moved()

    def _ambiguous(self, arg: str) -> bool:
        product = self.shop.products.get(self._nav.asin or "")
        return product is not None and sum(arg in vals for vals in product.options.values()) > 1

    def _moved(self) -> StepResult:
        self.page = self._render(_OK)
        return StepResult(self.page, 0.0, False, False)

    def _purchase(self, product: Product) -> StepResult:
        price = self.shop.prices[product.asin]
        lowered = self._parts.get(self.shop.products, product.asin, self.strict, self.shop.show_attrs).lowered_texts()
        self.breakdown = score_purchase(product, self.goal, price, self._nav.options, self.shop.nouns, lowered)
        self._nav = _Nav("done", self._nav.keywords, self._nav.page_num, product.asin, self._nav.options)
        self.done = True
        self.page = self._render(_OK)
        return StepResult(self.page, self.breakdown.reward, True, False, self.breakdown)

    # ---- snapshots ------------------------------------------------------------------------------
    def snapshot(self, *, key: str | bytes | None = None) -> str:
        """This session's state as an opaque token (:mod:`shopsim.simsite.snapshots`)."""
        from shopsim.simsite.snapshots import encode

        return encode(self.snapshot_state(), self.shop, key=key)

    def snapshot_state(self) -> WebShopSessionState:
        """The state a token carries: the goal's index (never the goal), rules, counters and page."""
        from shopsim.simsite.snapshots import WebShopSessionState

        nav, fb = self._nav, self.page.feedback
        return WebShopSessionState(
            goal_index=self._goal_index(), session_id=self.session_id, strict=self.strict, max_steps=self.max_steps,
            steps=self.steps, done=self.done, truncated=self.truncated, visited=list(self.visited), page=nav.page,
            keywords=list(nav.keywords) if nav.keywords is not None else None, page_num=nav.page_num, asin=nav.asin,
            options=dict(nav.options), sub_page=nav.sub_page, feedback_code=fb.code, feedback_message=fb.message)

    @classmethod
    def from_snapshot(cls, shop: Shop, token: str, *, session_id: str | None = None,
                      base_url: str = routes.DEFAULT_BASE_URL, key: str | bytes | None = None) -> ShopSession:
        """A new session in a token's state (its own session id unless ``session_id`` is given)."""
        from shopsim.simsite.snapshots import WebShopSessionState, check_webshop_state, decode

        state = decode(token, shop, key=key)
        assert isinstance(state, WebShopSessionState)
        check_webshop_state(shop, state)
        session = cls(shop, shop.goals[state.goal_index], session_id or state.session_id, base_url=base_url,
                      goal_index=state.goal_index)
        session._load(state)
        return session

    def restore(self, token: str, *, key: str | bytes | None = None) -> PageState:
        """Put this session into a token's state (goal and rules included); its id and base URL stay."""
        from shopsim.simsite.snapshots import WebShopSessionState, check_webshop_state, decode

        state = decode(token, self.shop, key=key)
        assert isinstance(state, WebShopSessionState)
        check_webshop_state(self.shop, state)
        self.goal, self.goal_index = self.shop.goals[state.goal_index], state.goal_index
        self._load(state)
        return self.state

    def _goal_index(self) -> int:
        if self.goal_index is None:
            goals = self.shop.goals
            found = next((i for i, g in enumerate(goals) if g is self.goal), None)
            if found is None:
                found = next((i for i, g in enumerate(goals) if g == self.goal), None)
            if found is None:
                from shopsim.simsite.snapshots import SnapshotError

                raise SnapshotError("this session's goal is not one of the shop's goals, so it cannot be snapshot")
            self.goal_index = found
        return self.goal_index

    def _load(self, s: WebShopSessionState) -> None:
        """Become a decoded, checked state (the page is rendered afresh)."""
        self.strict, self.max_steps, self.steps = s.strict, s.max_steps, s.steps
        self.done, self.truncated, self.visited = s.done, s.truncated, list(s.visited)
        self._nav = _Nav(s.page, list(s.keywords) if s.keywords is not None else None, s.page_num, s.asin,
                         dict(s.options), s.sub_page)
        self._results_cache = None
        self.breakdown = None
        if s.page == "done":
            product = self.shop.products[s.asin or ""]
            self.breakdown = score_purchase(product, self.goal, self.shop.prices[product.asin], self._nav.options,
                                            self.shop.nouns)
        self.page = self._render(Feedback(code=s.feedback_code, message=s.feedback_message))

    # ---- rendering ------------------------------------------------------------------------------
    def _search(self, keywords: list[str]) -> list[str]:
        query = " ".join(keywords)
        if self._results_cache is None or self._results_cache[0] != query:
            asins = self.shop.search_engine.search(query, SEARCH_RETURN_N)
            self._results_cache = (query, list(filter(self.shop.products.__contains__, asins)))  # `in`, looped in C
        return self._results_cache[1]

    def _render(self, feedback: Feedback) -> SimPage:
        nav, sid, base, shop = self._nav, self.session_id, self.base_url, self.shop
        common: Common = {"site": "simsite", "instruction": self.goal.instruction_text, "feedback": feedback}
        if nav.page == "index":
            return pages.index_page(base, sid, common)
        keywords, page = nav.keywords or [], nav.page_num or 1
        cache, products, strict, show_attrs = self._parts, shop.products, self.strict, shop.show_attrs
        if nav.page == "search_results":
            asins = self._search(keywords)
            window = asins[(page - 1) * PRODUCT_WINDOW : page * PRODUCT_WINDOW]
            shown = [cache.get(products, asin, strict, show_attrs) for asin in window]
            return pages.results_page(base, sid, keywords, page, asins, shown, self.visited, common, cache)
        asin = nav.asin or ""
        if nav.page == "done":
            assert self.breakdown is not None
            return pages.done_page(base, sid, keywords, asin, nav.options, float(shop.prices[asin]), self.breakdown,
                                   common)
        parts = cache.get(products, asin, strict, show_attrs)
        if nav.page == "item_sub_page":
            return pages.sub_page(base, sid, keywords, page, parts, nav.options, nav.sub_page, show_attrs, common)
        return pages.item_page(base, sid, keywords, page, parts, nav.options, show_attrs, common)
