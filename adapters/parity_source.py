"""A page source that shows real pages with the sim's conventions (see :mod:`shopsim.translators.parity`).

:class:`ParitySource` wraps any page source of real pages (a :class:`~shopsim.adapters.replay.ReplaySource`,
a :class:`~shopsim.adapters.browser_replay.BrowserReplaySource`) and hands the agent the parity view:
results ten at a time, the sim's price, rating and option formats, and the sim's action model. Moving
between windows of a results page and to the search page happens here, without touching the inner
source; every other action is passed on, with option arguments mapped back to the site's own. Pages
of the sim itself pass through unchanged, so wrapping a sim source is harmless.
"""

from __future__ import annotations

from typing import Any, Literal

from shopsim.actions import parse_action
from shopsim.adapters.source_base import LimitedSteps, StepOut
from shopsim.page import Feedback, FeedbackCode, PageState
from shopsim.translators.parity import ActionModel, item_view, results_view, search_view, view, window_count

__all__ = ["ParitySource"]


def _fb(code: FeedbackCode, message: str) -> Feedback:
    return Feedback(code=code, message=message)


def _page_key(state: PageState) -> tuple[Any, ...]:
    """What identifies one site results page (to come back to the window the agent left)."""
    return (state.url, state.query, state.page_num, tuple(c.id for c in state.results[:3]))


class ParitySource(LimitedSteps):
    """``reset() -> PageState`` / ``step(action) -> (state, reward, done, truncated)`` over ``inner``.

    Args:
        inner: the page source of real pages.
        action_model: ``sim`` (the default: a search bar on the search page only, ``back to search``
            leads there) or ``native`` (the site's search bar on every page, ``back to search`` to the
            site's home page, as the inner source does).
        strict: refuse ``search[...]`` where the page shows no search bar, as the sim's strict mode
            does (by default a search is accepted anywhere, as in WebShop).
        max_steps: end the episode (truncated) after this many actions, window moves included.
        start: ``page`` shows the inner source's first page; ``search`` starts on the search page, as
            a sim episode does (the transfer suite's tasks start there).
    """

    def __init__(self, inner: Any, *, action_model: ActionModel = "sim", strict: bool = False,
                 max_steps: int | None = None, start: Literal["page", "search"] = "page"):
        if start not in ("page", "search"):
            raise ValueError(f"start must be 'page' or 'search', not {start!r}")
        self.start = start
        if action_model not in ("sim", "native"):
            raise ValueError(f"action_model must be 'sim' or 'native', not {action_model!r}")
        self.inner, self.action_model, self.strict, self.max_steps = inner, action_model, strict, max_steps
        self.native: PageState | None = None  # the inner source's page
        self.current: PageState | None = None  # what the agent sees
        self.window = 1
        self.visited: list[str] = []
        self._windows: dict[tuple[Any, ...], int] = {}
        self._native_args: dict[str, str] = {}
        self._searching = False
        self.steps, self.done = 0, False

    def __getattr__(self, name: str) -> Any:
        """Anything else (``bundle``, ``observe``, ``viewport``...) is the inner source's."""
        if name == "inner":
            raise AttributeError(name)
        return getattr(self.inner, name)

    # ---- episode -----------------------------------------------------------------------------------
    def reset(self, goal_index: int = 0, seed: int = 0) -> PageState:
        """Start the inner source's episode and show its first page."""
        self.visited, self._windows, self._searching = [], {}, False
        self.steps, self.done = 0, False
        self.native = None
        first = self._land(self.inner.reset(goal_index, seed), 0.0, False, False, None)[0]
        if self.start == "search":
            self._searching = True
            self.current = search_view(first, self._instruction())
        assert self.current is not None  # _land() just showed the first page
        return self.current

    def _step(self, action: str) -> StepOut:
        assert self.current is not None and self.native is not None
        name, arg = parse_action(action) if isinstance(action, str) else ("", None)
        name = name.strip().lower()
        key = " ".join((arg or "").split()).lower()
        shown = self.current
        if name == "search":
            if self.strict and not shown.has_search_bar:
                return self._refuse(_fb("not_available", "there is no search bar on this page; click[back to search] first"))
            return self._pass(action, None)
        if name != "click" or arg is None:
            return self._pass(action, None)  # the inner source says what is wrong with it
        if self._searching or shown.page_type == "search":
            return self._refuse(_fb("not_available", f"{key!r} is not clickable here; available: none"))
        if key == "back to search" and self.action_model == "sim" and shown.page_type != "done":
            self._searching, self.visited = True, []
            self.current = search_view(self.native, self._instruction())
            return self.current, 0.0, False, False
        if shown.page_type == "results" and self.native.page_type == "results":
            n = window_count(self.native)
            if key == "next >" and self.window < n:
                return self._window(self.window + 1)
            if key == "< prev" and self.window > 1:
                return self._window(self.window - 1)
            target = shown.clickable(key)
            if target is None:
                available = ", ".join(c.arg for c in shown.clickables)
                return self._refuse(_fb("not_available", f"{key!r} is not clickable here; available: {available}"))
            if target.kind == "product" and target.text not in self.visited:
                self.visited.append(target.text)
            return self._pass(f"click[{key}]", key)
        if key in self._native_args:
            return self._pass(f"click[{self._native_args[key]}]", key)
        return self._pass(action, key)

    # ---- moves -------------------------------------------------------------------------------------
    def _pass(self, action: str, key: str | None) -> StepOut:
        state, reward, done, truncated = self.inner.step(action)
        return self._land(state, reward, done, truncated, key)

    def _land(self, state: PageState, reward: float, done: bool, truncated: bool, key: str | None) -> StepOut:
        """Show the inner source's page ``state`` as the sim would."""
        before, self.native, self._searching = self.native, state, False
        self.done = done
        if state.page_type == "results" and state.site != "simsite":
            page = _page_key(state)
            if before is not None and _page_key(before) == page and before.page_type == "results":
                window = self.window  # refused, or the same page again: stay on this window
            elif key == "< prev" and before is not None and before.page_type == "results":
                window = window_count(state)  # the site's previous page: its last window, as the sim counts
            else:
                window = self._windows.get(page, 1)
            self.window = window
            self._windows[page] = window
            shown = results_view(state, window, action_model=self.action_model, visited=self.visited)
        elif state.page_type in ("item", "item_detail") and state.site != "simsite":
            shown, self._native_args = item_view(state, action_model=self.action_model)
            shown = shown.model_copy(update={"visited_ids": list(self.visited)})
        else:
            shown = view(state, action_model=self.action_model, visited=self.visited)
        self.current = shown
        return shown, reward, done, truncated

    def _window(self, window: int) -> StepOut:
        assert self.native is not None
        self.window = window
        self._windows[_page_key(self.native)] = window
        self.current = results_view(self.native, window, action_model=self.action_model, visited=self.visited)
        return self.current, 0.0, False, False

    def _refuse(self, feedback: Feedback) -> StepOut:
        assert self.current is not None
        self.current = self.current.model_copy(update={"feedback": feedback})
        return self.current, 0.0, self.done, False

    def _instruction(self) -> str | None:
        assert self.native is not None
        return self.native.instruction if self.native.instruction is not None else getattr(
            self.inner, "instruction", None)

    def close(self) -> None:
        """Close the inner source."""
        self.inner.close()
