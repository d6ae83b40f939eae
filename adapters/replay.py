"""Replay a recorded bundle offline, with the same API as the other page sources.

:class:`ReplaySource` translates the recorded pages with the site's translator and resolves each
action with that translator, so an agent sees exactly what it would have seen live, but no network
is touched. No page is a dead end: a URL the session never loaded gives an explicit ``not_recorded``
page, and it and any recorded ``blocked``/``unknown`` page offer ``back to search`` (the bundle's
start page) and ``< prev`` (the previous page of this replay); an option whose variant page was not
recorded is chosen on the page shown; with ``any_search`` a search that was not recorded shows the
bundle's first results page, and with ``card_pages`` a product whose page was not recorded is shown
from its results card (title and price; for fixture shops such as the transfer suite's). ``buy now`` ends the episode, scored by an optional callback
(``agents.transfer``), only where a product with a known id is shown.
:class:`BrowserReplaySource` does the same in real Chromium, every request answered from the
bundle (or its HAR) and everything else aborted.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from shopsim.actions import parse_action
from shopsim.adapters.bundle import Bundle, BundleStep, normalize_url
from shopsim.adapters.source_base import LimitedSteps
from shopsim.errors import SourceError
from shopsim.page import Clickable, Feedback, Navigation, PageState, ProductView, Purchase, ResultCard
from shopsim.translators.clickables import item_clickables, sub_page_view

__all__ = ["DEAD_ENDS", "ESCAPES", "ReplaySource", "Scorer", "translator_for_site",
           "with_selection"]

StepOut = tuple[PageState, float, bool, bool]
#: ``scorer(product_page_state, chosen_options, context) -> (reward, reward_info)``; context holds
#: ``query`` (the search that led to the product) and ``site``.
Scorer = Callable[[PageState, dict[str, str], dict[str, Any]], tuple[float, dict[str, Any] | None]]

#: Pages with nothing to act on (a captcha, an unreadable page, a URL the session never loaded).
DEAD_ENDS = ("blocked", "unknown")
#: What a dead end always offers, so an agent is never stuck: the bundle's start page, and back.
ESCAPES = (Clickable(arg="back to search", text="Back to Search", kind="back_to_search"),
           Clickable(arg="< prev", text="< Prev", kind="prev"))
#: Product ids a translator gives when it could not read one.
UNKNOWN_IDS = ("", "unknown")


def translator_for_site(site: str) -> Any:
    """The translator that reads a bundle's pages (simsite, amazon, ebay or a registered shop)."""
    from shopsim.translators.registry import translator_for

    return translator_for(site)


def navigation_url(state: PageState, nav: Navigation) -> str | None:
    """The GET URL a navigation loads; the sim's search form posts and redirects to its results URL."""
    if nav.kind == "form" and nav.form.get("search_query") is not None and state.site == "simsite":
        from shopsim.links import PageUrls
        from shopsim.routes import split_state_url

        links = PageUrls(state)
        links.keywords, links.page = nav.form["search_query"].split(" "), 1
        return split_state_url(state.url)[0] + links.results(1)
    return nav.url


class ReplaySource(LimitedSteps):
    """Serve a bundle offline: ``reset() -> PageState``, ``step(action) -> (state, reward, done, truncated)``.

    A bundle given as a path is read with ``Bundle.load``: a malformed one raises ``BundleError`` (a
    DataError and a SourceError) at once, and nothing in it (a FIFO, a huge page) can block the replay.
    """

    def __init__(
        self,
        bundle: Bundle | str | Path,
        *,
        instruction: str | None = None,
        scorer: Scorer | None = None,
        max_steps: int | None = None,
        translator: Any = None,
        any_search: bool = False,
        card_pages: bool = False,
    ):
        self.bundle = bundle if isinstance(bundle, Bundle) else Bundle.load(bundle)
        self.site = self.bundle.site
        self.translator = translator or translator_for_site(self.site)
        self.instruction = instruction if instruction is not None else self.bundle.manifest.instruction
        self.scorer, self.max_steps = scorer, max_steps
        self.any_search, self.card_pages = any_search, card_pages
        self._by_url: dict[str, list[BundleStep]] = {}
        finals: dict[str, list[BundleStep]] = {}
        for step in self.bundle.load_steps():
            self._by_url.setdefault(step.normalized_url or normalize_url(step.url or ""), []).append(step)
            if step.final_url:
                finals.setdefault(normalize_url(step.final_url), []).append(step)
        for key, steps in finals.items():  # a redirect target is reachable directly too
            self._by_url.setdefault(key, steps)
        self._parsed: dict[int, PageState] = {}
        self.current: PageState | None = None
        self.base: PageState | None = None  # the last recorded page shown (what actions resolve against)
        self.history: list[PageState] = []
        self._chosen_log: list[dict[str, str]] = []  # the options chosen when each history page was shown
        self._off_record = False  # the current page is a not_recorded placeholder (not in the history)
        self.visits: Counter[str] = Counter()
        self.chosen: dict[str, str] = {}
        self.query: str | None = None
        self.steps, self.done = 0, False

    # ---- pages -------------------------------------------------------------------------------------
    def _page(self, step: BundleStep) -> PageState:
        """The recorded page's state (parsed once; states are frozen)."""
        state = self._parsed.get(step.index)
        if state is None:
            state = self.translator.parse(self.bundle.html(step), step.final_url or step.url)
            self._parsed[step.index] = state
        return state

    def _inject(self, state: PageState) -> PageState:
        if self.instruction is None or state.instruction == self.instruction:
            return state
        return state.model_copy(update={"instruction": self.instruction})

    def lookup(self, url: str) -> BundleStep | None:
        """The k-th recording of ``url`` for its k-th visit (the last one after that); counts the visit."""
        key = normalize_url(url)
        steps = self._by_url.get(key)
        if not steps:
            return None
        k = self.visits[key]
        self.visits[key] += 1
        return steps[min(k, len(steps) - 1)]

    # ---- episode -----------------------------------------------------------------------------------
    def reset(self, goal_index: int = 0, seed: int = 0) -> PageState:
        """Start over at the bundle's first page (a bundle is one session: the goal index is ignored)."""
        self.visits.clear()
        self.history, self._chosen_log, self.chosen, self.query = [], [], {}, None
        self.steps, self.done, self._off_record = 0, False, False
        steps = self.bundle.load_steps()
        if not steps:
            raise SourceError(f"bundle {self.bundle.root} has no recorded pages to start from")
        first = steps[0]
        self.visits[first.normalized_url or normalize_url(first.url or "")] += 1
        self.current = None
        self.base = None
        return self._show(self._page(first))

    def _show(self, state: PageState, keep_choice: bool = False, restore: dict[str, str] | None = None,
              feedback: Feedback | None = None) -> PageState:
        """Make ``state`` the current page (and the base actions resolve against).

        The options chosen so far carry over while the product stays the same (``keep_choice``: also
        onto another variant's page); ``restore`` puts back the choice a history page was shown with.
        """
        state = self._inject(state)
        if state.page_type in DEAD_ENDS:
            state = _with_escapes(state)
        if state.page_type == "results":
            self.query = state.query or self.query
        if restore is not None:
            self.chosen = dict(restore)
        else:
            new_product = state.product is not None and (self.base is None or self.base.product is None
                                                         or self.base.product.id != state.product.id)
            if new_product and not keep_choice:
                self.chosen = {}
        if self.chosen and state.product is not None:
            state = with_selection(state, self.chosen)
        self.base = state
        self.current = state if feedback is None else state.model_copy(update={"feedback": feedback})
        self._off_record = False
        self.history.append(state)
        self._chosen_log.append(dict(self.chosen))
        return self.current

    def _step(self, action: str) -> StepOut:
        assert self.current is not None and self.base is not None
        name, arg = parse_action(action)
        key = " ".join((arg or "").split()).lower() if name.strip().lower() == "click" else None
        if self.current.page_type in DEAD_ENDS:  # a page with nothing on it: the ways out, never a purchase
            if key == "< prev":
                return self._previous()
            if key == "back to search":
                return self._start_page()
            if key == "buy now":
                return self._refuse(self._no_purchase())
            if self._off_record and (key is not None or not self.current.has_search_bar):
                return self._refuse(Feedback(code="not_available", message=(
                    f"{action!r} is not available on a page that was not recorded: "
                    "click[< prev] goes back, click[back to search] to the bundle's start page")))
        if self.current.page_type == "item_detail" and self.current.site != "simsite" and key == "< prev":
            return self._previous()  # a real item's sub page goes back to its item page, as the sim's does
        nav = self.translator.resolve(self.base, action)
        if nav.kind == "sub_page" and nav.value:
            return self._show(sub_page_view(self.base, nav.value), restore=dict(self.chosen)), 0.0, False, False
        if nav.kind == "none":
            back = self._back() if key == "< prev" else None
            return (back, 0.0, False, False) if back is not None else self._refuse(nav.feedback)
        if nav.kind == "purchase":
            return self._purchase()
        if nav.kind == "select":
            return self._select(nav)
        url = navigation_url(self.base, nav)
        if url is None:
            return self._refuse(Feedback(code="navigation_failed", message=f"{action!r} leads nowhere"))
        step = self.lookup(url)
        if step is None:
            if key == "< prev":
                back = self._back()
                if back is not None:
                    return back, 0.0, False, False
            if key == "back to search":
                return self._start_page(f"{url} was not recorded")
            if self.any_search and name.strip().lower() == "search":
                found = self._recorded_results()
                if found is not None:
                    return found
            if self.card_pages and self.base.page_type == "results":
                card = next((c for c in self.base.results if c.id.lower() == key), None)
                if card is not None:
                    return self._card_page(card, url)
            if nav.axis and nav.value and self.base.product is not None:
                # the variant's own page was not recorded: choose the option on the page we have
                return self._select(nav, note=(
                    f"the page of {nav.axis}: {nav.value} ({url}) was not recorded; the option is selected on "
                    "this page instead (title, price and id stay the recorded variant's)"))
            return self._not_recorded(url)
        if nav.axis and nav.value:
            self.chosen[nav.axis] = nav.value
        # an option link may lead to another variant's page: the choice that led there still counts
        return self._show(self._page(step), keep_choice=bool(nav.axis)), 0.0, False, False

    def _back(self) -> PageState | None:
        """``< prev`` with no URL of its own: back to the last results page in the history."""
        for i in range(len(self.history) - 2, -1, -1):
            if self.history[i].page_type == "results":
                target, chosen = self.history[i], self._chosen_log[i]
                del self.history[i:], self._chosen_log[i:]
                return self._show(target, restore=chosen)
        return None

    def _previous(self) -> StepOut:
        """``< prev`` from a dead end: the page shown before it in this replay."""
        keep = len(self.history) - (0 if self._off_record else 1)  # a recorded dead end leaves the history
        if keep < 1:
            return self._refuse(Feedback(code="not_available", message="there is no previous page in this replay; "
                                         "click[back to search] goes to the bundle's start page"))
        target, chosen = self.history[keep - 1], self._chosen_log[keep - 1]
        del self.history[keep - 1:], self._chosen_log[keep - 1:]
        return self._show(target, restore=chosen), 0.0, False, False

    def _start_page(self, why: str | None = None) -> StepOut:
        """``back to search`` where its own page was not recorded (or from a dead end): the bundle's first page."""
        first = self.bundle.load_steps()[0]
        step = self.lookup(first.url or "") or first
        fb = Feedback(message=f"{why}; showing the bundle's start page instead") if why else None
        return self._show(self._page(step), feedback=fb), 0.0, False, False

    def _recorded_results(self) -> StepOut | None:
        """``any_search``: an unrecorded search shows the bundle's first recorded results page."""
        for step in self.bundle.load_steps():
            if step.kind == "load" and step.page is not None:
                state = self._page(step)
                if state.page_type == "results":
                    fb = Feedback(message=f"this bundle recorded one search ({state.query!r}); its results are shown")
                    return self._show(state, feedback=fb), 0.0, False, False
        return None

    def _card_page(self, card: ResultCard, url: str) -> StepOut:
        """``card_pages``: a product whose page was not recorded, shown from its results card alone."""
        assert self.base is not None
        product = ProductView(id=card.id, title=card.title, price=card.price, price_text=card.price_text,
                              currency=self.base.currency)
        state = PageState(page_type="item", site=self.base.site, shop=self.base.shop, currency=self.base.currency,
                          url=url, instruction=self.instruction, product=product, has_search_bar=self.base.has_search_bar,
                          clickables=item_clickables(product, None))
        fb = Feedback(message="this product's page was not recorded; it is shown from its results card")
        return self._show(state, feedback=fb), 0.0, False, False

    def _no_purchase(self) -> Feedback:
        assert self.current is not None
        what = "was not recorded" if self._off_record else f"is {self.current.page_type} ({self.current.reason})"
        return Feedback(code="not_available", message=f"cannot buy here: this page {what} and shows no product; "
                        "click[< prev] goes back")

    def _refuse(self, feedback: Feedback) -> StepOut:
        assert self.current is not None
        self.current = self.current.model_copy(update={"feedback": feedback})
        return self.current, 0.0, self.done, False

    def _not_recorded(self, url: str) -> StepOut:
        assert self.base is not None
        msg = (f"{url} was not recorded in this bundle; click[< prev] goes back, click[back to search] to the "
               "bundle's start page")
        state = PageState(page_type="unknown", site=self.base.site, url=url, instruction=self.instruction,
                          reason=f"not recorded: {url}", clickables=list(ESCAPES),
                          has_search_bar=self.base.has_search_bar,
                          feedback=Feedback(code="not_recorded", message=msg))
        self.current, self._off_record = state, True
        return state, 0.0, False, False

    def _select(self, nav: Navigation, note: str = "") -> StepOut:
        """An option chosen on the page itself: the page stays, the option shows as chosen, buying uses it."""
        assert self.base is not None
        if nav.axis is None or nav.value is None or self.base.product is None:
            return self._refuse(Feedback(code="not_available", message="no option to select here"))
        self.chosen[nav.axis] = nav.value
        state = with_selection(self.base, self.chosen)
        self.base = state
        self.current = state.model_copy(update={"feedback": Feedback(message=note)}) if note else state
        if self.history:
            self.history[-1], self._chosen_log[-1] = state, dict(self.chosen)
        return self.current, 0.0, False, False

    def _purchase(self) -> StepOut:
        """``buy now``: end the episode here; scored by the callback, nothing is contacted.

        Refused (page unchanged, no reward) where no product with a known id is shown: buying
        "something" there would score a purchase the agent never saw.
        """
        assert self.base is not None and self.current is not None
        product = self.base.product
        if self.current.page_type in DEAD_ENDS:
            return self._refuse(self._no_purchase())
        if product is None or product.id.strip().lower() in UNKNOWN_IDS:
            return self._refuse(Feedback(code="not_available", message=(
                "nothing to buy on this page: it shows no product" if product is None else
                "cannot buy: this page's product has no known id (the translator could not read one)")))
        price = product.price[0] if isinstance(product.price, tuple) else product.price
        reward, info = 0.0, None
        if self.scorer is not None:
            reward, info = self.scorer(self.base, dict(self.chosen), {"query": self.query, "site": self.site})
        state = PageState(page_type="done", site=self.base.site, url=None, instruction=self.instruction,
                          purchase=Purchase(id=product.id, options=dict(self.chosen), price=price),
                          reward=reward, reward_info=info)
        self.current, self.done = state, True
        return state, float(reward), True, False

    def close(self) -> None:
        """Nothing to release."""


def _with_escapes(state: PageState) -> PageState:
    """A recorded dead end (captcha, unreadable page) with ``back to search`` and ``< prev`` added."""
    have = {c.arg for c in state.clickables}
    extra = [c for c in ESCAPES if c.arg not in have]
    return state.model_copy(update={"clickables": [*state.clickables, *extra]}) if extra else state


def with_selection(state: PageState, chosen: dict[str, str]) -> PageState:
    """``state`` with ``chosen`` options shown as selected (product.selected and clicked buttons)."""
    product = state.product
    if product is None:
        return state
    selected = dict(product.selected)
    selected.update({axis: value for axis, value in chosen.items() if axis in product.options})
    clickables: list[Clickable] = []
    for c in state.clickables:
        if c.kind == "option" and c.axis in chosen:
            c = c.model_copy(update={"clicked": c.text == selected.get(c.axis)})
        clickables.append(c)
    return state.model_copy(update={"product": product.model_copy(update={"selected": selected}),
                                    "clickables": clickables})


def __getattr__(name: str) -> Any:
    """``BrowserReplaySource`` moved to :mod:`shopsim.adapters.browser_replay`; still importable here."""
    if name == "BrowserReplaySource":
        from shopsim.adapters.browser_replay import BrowserReplaySource

        return BrowserReplaySource
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
