"""One v8 episode: the page state machine behind ``observation_state``.

Pages: search home -> results (20 a page, at most 150) -> product -> terminal. A refused action
leaves the page as it was, counts as a step and says why (``action_feedback``). The episode ends
with a purchase, at the action limit, or when the runtime reports a generation-length overflow;
a step after the end is an error. A ``multi_turn`` session also takes ``ask[question]``: the
shopper simulator (:mod:`shopsim.simsite.v8.shopper`) answers, the page stays as it was, and the
ask counts as an action; ``dialogue`` keeps every question and answer (snapshots do not carry it).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Literal

from shopsim.budget import parse_budget
from shopsim.errors import ConfigError, SessionError
from shopsim.page import trusted
from shopsim.simsite.snapshots import SnapshotError, V8SessionState, decode, encode
from shopsim.simsite.v8.environment import RUNTIME_TERMINATIONS
from shopsim.simsite.v8.prices import resolve_price, task_budget
from shopsim.simsite.v8.records import TaskMode, V8Product, V8Task
from shopsim.simsite.v8.reward import RewardDetail, score_v8_purchase, zero_detail
from shopsim.simsite.v8.search import PAGE_SIZE, RESULTS_N
from shopsim.simsite.v8.shop import V8Shop
from shopsim.simsite.v8.shopper import DialogueTurn, Shopper, ShopperFactory, rule_shopper
from shopsim.text import tokenize
from shopsim.v8.observation_state import ObservationState, ProductFacts, ResultEntry, V8Feedback
from shopsim.v8.observation_text import render_observation_text
from shopsim.v8.runtime import MAX_ACTIONS, InteractionMode
from shopsim.v8.tool_calls import option_arg, parse_v8_action

__all__ = [
    "MAX_QUERY_CHARS",
    "TERMINATIONS",
    "V8Session",
    "V8Step",
]

MAX_QUERY_CHARS = 500
KEY_ATTRIBUTES = 4
TOKEN_PRIME_TEXTS = 60_000
"""Up to this many distinct page texts fit ``shopsim.text``'s token cache (65,536) with room to spare."""
TERMINATIONS = ("purchase", "action_limit", "generation_length")
BACK, PREV, NEXT, BUY = "back to search", "< prev", "next >", "buy now"


@dataclass(frozen=True)
class V8Step:
    """What one action did: the new state, its feedback, and the reward when the episode ended."""

    state: ObservationState
    reward: float
    done: bool
    termination: str | None
    detail: RewardDetail | None
    feedback: V8Feedback
    reply: str | None = None
    """The shopper's answer when the action was an ``ask``."""


@dataclass
class _Page:
    kind: Literal["search", "results", "product", "terminal"] = "search"
    query: str = ""
    page: int = 1
    asin: str | None = None
    selected: dict[str, str] = field(default_factory=dict)


class V8Session:
    """A session on a shared :class:`V8Shop` for one task."""

    def __init__(self, shop: V8Shop, task: V8Task, *, max_actions: int | None = None,
                 interaction_mode: InteractionMode = "single_turn", shopper: ShopperFactory | None = None):
        self.shop, self.task, self.interaction_mode = shop, task, interaction_mode
        self._shopper_factory = shopper or rule_shopper
        self._shopper: Shopper | None = None
        self.dialogue: list[DialogueTurn] = []
        self.reply: str | None = None
        self.max_actions = max_actions if max_actions is not None else MAX_ACTIONS[interaction_mode]
        self.actions = 0
        self.done = False
        self.termination: str | None = None
        self.detail: RewardDetail | None = None
        self._page = _Page()
        self._results: tuple[str, list[str]] | None = None
        self.restored_task_mode: TaskMode | None = None
        self.state = self._render("ok", "")

    @property
    def reward(self) -> float:
        """The reward so far: ``r_strict`` after a purchase, else 0."""
        return self.detail.r_strict if self.detail is not None else 0.0

    # ---- actions -------------------------------------------------------------------------------
    def step(self, action: str) -> V8Step:
        """Apply one canonical action (``search[...]`` or ``click[...]``)."""
        if self.done:
            raise SessionError(f"the episode has ended ({self.termination}); start a new session")
        self.actions += 1
        self.reply = None
        feedback, message = self._apply(action)
        if not self.done and self.actions >= self.max_actions:
            self._end("action_limit", zero_detail())
        self.state = self._render(feedback, message)  # once per step, after any ending
        return V8Step(self.state, self.reward, self.done, self.termination, self.detail, feedback, self.reply)

    def terminate(self, reason: str) -> V8Step:
        """End the episode for a runtime reason (``generation_length``): the zero vector."""
        if self.done:
            raise SessionError(f"the episode has ended ({self.termination}); start a new session")
        if reason not in RUNTIME_TERMINATIONS:
            raise SessionError(f"cannot terminate for {reason!r}: use generation_length or action_limit")
        self.reply = None  # the runtime's ending answers no question: the last ask's reply is not repeated
        self._end(reason, zero_detail())
        self.state = self._render(self.state.action_feedback, self.state.feedback_message)
        return V8Step(self.state, 0.0, True, reason, self.detail, "ok")

    def _end(self, reason: str, detail: RewardDetail) -> None:
        """Record the ending and move to the terminal page; the caller renders it."""
        self.done, self.termination, self.detail = True, reason, detail
        bought = self._page.asin if reason == "purchase" else None
        self._page = _Page("terminal", self._page.query, self._page.page, bought, dict(self._page.selected))

    def _apply(self, action: str) -> tuple[V8Feedback, str]:
        parsed = parse_v8_action(action)
        if parsed is None:
            return "invalid_format", "expected search[query] or click[value]"
        tool, arg = parsed
        page = self._page
        if tool == "ask":
            return self._ask(arg)
        if tool == "search":
            if not arg or len(arg) > MAX_QUERY_CHARS:
                return "invalid_format", f"a query needs 1-{MAX_QUERY_CHARS} characters"
            if page.kind != "search":
                return "search_unavailable", "search is only available on the search page; click back to search"
            self._page = _Page("results", arg, 1)
            return "ok", ""
        if arg == BUY and page.kind == "product" and not self.state.options_complete:
            return "incomplete_options", f"choose {', '.join(self.state.missing_option_axes)} first"
        if arg not in self.state.clickables:
            return "unavailable_action", f"{arg[:80]!r} is not clickable on this page"
        if arg == BACK:
            self._page = _Page()
        elif arg == NEXT:
            self._page = _Page("results", page.query, page.page + 1)
        elif arg == PREV and page.kind == "results":
            self._page = _Page("results", page.query, page.page - 1)
        elif arg == PREV:
            self._page = _Page("results", page.query, page.page)
        elif arg == BUY:
            product = self.shop.products[page.asin or ""]
            gold = self.shop.product(self.task.asin)
            self._end("purchase", score_v8_purchase(product, page.selected, self.task, gold, self.shop.terms))
        elif page.kind == "results":
            self._page = _Page("product", page.query, page.page, arg)
        else:
            axis, _, value = arg.partition("=")
            if page.selected.get(axis) == value:
                return "already_selected", f"{axis} is already {value}"
            self._page = _Page("product", page.query, page.page, page.asin, {**page.selected, axis: value})
        return "ok", ""

    def _ask(self, question: str) -> tuple[V8Feedback, str]:
        """The shopper answers; the page is unchanged (single-turn sessions have no shopper to ask)."""
        if self.interaction_mode != "multi_turn":
            return "invalid_format", "ask[question] is only available in multi_turn mode"
        if not question or len(question) > MAX_QUERY_CHARS:
            return "invalid_format", f"a question needs 1-{MAX_QUERY_CHARS} characters"
        if self._shopper is None:
            gold = self.shop.product(self.task.asin)
            self._shopper = self._shopper_factory(self.task, gold.title if gold is not None else "")
        self.reply = self._shopper.answer(question)
        self.dialogue.append(DialogueTurn(action=self.actions, question=question, answer=self.reply))
        return "ok", ""

    # ---- snapshots ------------------------------------------------------------------------------
    def snapshot(self, *, task_mode: str | None = None, key: str | bytes | None = None) -> str:
        """This session's state as an opaque token (:mod:`shopsim.simsite.snapshots`)."""
        return encode(self.snapshot_state(task_mode), self.shop, key=key)

    def snapshot_state(self, task_mode: str | None = None) -> V8SessionState:
        """The state a token carries: the task's id, limits, counters and page (``task_mode`` is the caller's)."""
        page = self._page
        return V8SessionState(
            task_id=self.task.task_id, task_mode=task_mode, interaction_mode=self.interaction_mode,  # type: ignore[arg-type]
            max_actions=self.max_actions, actions=self.actions, done=self.done,
            termination=self.termination, page=page.kind, query=page.query, page_num=page.page,  # type: ignore[arg-type]
            asin=page.asin, selected=dict(page.selected), feedback=self.state.action_feedback,
            message=self.state.feedback_message)

    @classmethod
    def from_snapshot(cls, shop: V8Shop, token: str, *, key: str | bytes | None = None,
                      shopper: ShopperFactory | None = None) -> V8Session:
        """A new session in a token's state; ``restored_task_mode`` keeps the mode the token recorded.
        ``shopper`` answers its asks (a service's own shopper, not silently the rule-based one).
        """
        state = decode(token, shop, key=key)
        assert isinstance(state, V8SessionState)
        try:
            task = shop.task_by_id(state.task_id)
        except ConfigError as exc:
            raise SnapshotError(f"snapshot's {exc}") from None
        _check_v8_state(shop, state)
        session = cls(shop, task, max_actions=state.max_actions, interaction_mode=state.interaction_mode,
                      shopper=shopper)
        session.actions, session.done, session.termination = state.actions, state.done, state.termination
        session._page = _Page(state.page, state.query, state.page_num, state.asin, dict(state.selected))
        if state.page in ("results", "product") and state.query is not None:
            pages = max(1, math.ceil(len(session._search(state.query)) / PAGE_SIZE))
            if not 1 <= state.page_num <= pages:  # a re-signed token can name a page no session reaches
                raise SnapshotError(f"snapshot describes an impossible session: page {state.page_num} of {pages}")
        if state.termination == "purchase":
            product = shop.products[state.asin or ""]
            session.detail = score_v8_purchase(product, dict(state.selected), task, shop.product(task.asin), shop.terms)
        elif state.termination is not None:
            session.detail = zero_detail()
        session.restored_task_mode = state.task_mode
        session.state = session._render(state.feedback, state.message)
        return session

    # ---- rendering ------------------------------------------------------------------------------
    def _search(self, query: str) -> list[str]:
        if self._results is None or self._results[0] != query:
            hits = self.shop.search_engine.search(query, RESULTS_N)
            self._results = (query, [asin for asin, _ in hits if asin in self.shop.products])
        return self._results[1]

    def _render(self, feedback: V8Feedback, message: str) -> ObservationState:
        """The page's state, built with :func:`~shopsim.page.trusted` (every step renders one): its values
        are the catalog's validated records and this session's own checked strings, in fresh containers
        (``tests/simsite/v8/test_v8_trusted_pages.py`` re-validates every model of real episodes' pages).
        """
        page = self._page
        if page.kind == "search":
            return trusted(ObservationState, page_type="search", search_available=True, action_feedback=feedback,
                           feedback_message=message)
        if page.kind == "terminal":
            return trusted(ObservationState, page_type="terminal", search_text=page.query or None,
                           termination=self.termination, purchased_asin=page.asin, selected_options=dict(page.selected),
                           action_feedback=feedback, feedback_message=message)
        if page.kind == "results":
            return self._results_state(feedback, message)
        product = self.shop.products[page.asin or ""]
        missing = [a for a in product.options if a not in page.selected]
        complete = not missing
        price = resolve_price(product, page.selected)
        clicks = [option_arg(axis, o.value) for axis, opts in product.options.items() for o in opts]
        clicks += [PREV, BACK] + ([BUY] if complete else [])
        return trusted(
            ObservationState, page_type="product", search_text=page.query, page=page.page, product=self._facts(product),
            selected_options=dict(page.selected), missing_option_axes=missing, options_complete=complete,
            selected_price=float(price.price) if price.verifiable and price.price is not None else None,
            clickables=clicks, action_feedback=feedback, feedback_message=message)

    def _results_state(self, feedback: V8Feedback, message: str) -> ObservationState:
        page = self._page
        asins = self._search(page.query)
        pages = max(1, math.ceil(len(asins) / PAGE_SIZE))
        start = (page.page - 1) * PAGE_SIZE
        shown = asins[start : start + PAGE_SIZE]
        entries = [self._entry(start + i + 1, a) for i, a in enumerate(shown)]
        clicks = list(shown)
        if page.page > 1:
            clicks.append(PREV)
        if page.page < pages:
            clicks.append(NEXT)
        clicks.append(BACK)
        return trusted(
            ObservationState, page_type="results", search_text=page.query, results=entries, page=page.page,
            total_pages=pages, total_results=len(asins), rank_start=start + 1 if shown else None,
            rank_end=start + len(shown) if shown else None, clickables=clicks, action_feedback=feedback,
            feedback_message=message)

    def _facts(self, p: V8Product) -> ProductFacts:
        """A product's facts never change: built once per shop, shared by its sessions."""
        cache = self.shop.facts_cache
        hit = cache.get(p.asin)
        if hit is None:
            hit = cache[p.asin] = self._build_facts(p)
        return hit

    def _entry(self, rank: int, asin: str) -> ResultEntry:
        """A results card: the product's parts worked out once per shop, fresh lists per card."""
        parts = self.shop.entry_cache.get(asin)
        if parts is None:
            parts = self.shop.entry_cache[asin] = _card_parts(self.shop.products[asin])
        title, price, brand, category, keys = parts
        return trusted(ResultEntry, rank=rank, asin=asin, title=title, price=price, brand=brand,
                       category=list(category), key_attributes=list(keys))

    @staticmethod
    def _build_facts(p: V8Product) -> ProductFacts:
        return ProductFacts(asin=p.asin, title=p.title, shop_name=p.shop_name, brand=p.brand, model=p.model,
                            category=p.category, price=p.display_price, attributes=p.attribute_texts,
                            bullets=p.bullets, option_axes={a: p.option_values(a) for a in p.options})

    def observation(self) -> str:
        """The current page as protocol-neutral text, rendered from ``observation_state``, after the
        shopper's answer when the last action was an ``ask`` (the answer is dialogue, not a page fact).
        """
        page = render_observation_text(self.state)
        return page if self.reply is None else f"The shopper answered: {self.reply}\n{page}"


def _card_parts(p: V8Product) -> tuple[Any, ...]:
    return (p.title, p.display_price, p.brand, tuple(p.category), tuple(p.attribute_texts[:KEY_ATTRIBUTES]))


def prime_session_caches(shop: V8Shop) -> None:
    """Fill at open what sessions would fill on first use (each product's card parts and facts, each
    task's budget, and the tokens of the texts its pages show), so a run's
    first pass over its tasks steps nearly as fast as its later ones; no page or reward changes.
    """
    texts: set[str] = set()
    for p in shop.products.values():
        if p.asin not in shop.entry_cache:
            shop.entry_cache[p.asin] = _card_parts(p)
        facts = shop.facts_cache.get(p.asin) or shop.facts_cache.setdefault(p.asin, V8Session._build_facts(p))
        texts.update((facts.title, facts.brand or ""), facts.category, facts.attributes, facts.bullets)
        for values in facts.option_axes.values():
            texts.update(values)
    if len(texts) <= TOKEN_PRIME_TEXTS:  # else the caches would drop what they were filled with
        for text in texts:
            tokenize(text)
    for task in shop.goals:
        task_budget(task)
        parse_budget(task.instruction)


def _check_v8_state(shop: V8Shop, s: V8SessionState) -> None:
    """Refuse a state no sequence of actions reaches, so a restored session never renders a broken page."""
    def bad(why: str) -> SnapshotError:
        return SnapshotError(f"snapshot describes an impossible session: {why}")

    if s.actions > s.max_actions or (not s.done and s.actions >= s.max_actions):
        raise bad(f"{s.actions} actions taken with a limit of {s.max_actions}")
    if not s.done == (s.termination is not None) == (s.page == "terminal"):
        raise bad("its done flag, termination and page do not agree")
    if s.page in ("search", "results") and (s.asin is not None or s.selected):
        raise bad(f"a {s.page} page carries product state")
    if s.page == "search" and s.query:
        raise bad("the search page carries a query")
    if s.page in ("results", "product") and not s.query:
        raise bad(f"a {s.page} page needs the query that led to it")
    if len(s.query) > MAX_QUERY_CHARS:
        raise bad(f"its query is over {MAX_QUERY_CHARS} characters")
    if s.page == "product" or s.termination == "purchase":
        product = shop.products.get(s.asin or "")
        if product is None:
            raise bad(f"product {str(s.asin)[:40]!r} is not in this catalog")
        for axis, value in s.selected.items():
            if value not in {o.value for o in product.options.get(axis, ())}:
                raise bad(f"{axis[:40]!r}={value[:40]!r} is not an option of {product.asin}")
    elif s.page == "terminal" and s.asin is not None:
        raise bad("only a purchase ends on a bought product")
