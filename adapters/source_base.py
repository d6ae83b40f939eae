"""What every page source shares: context-manager closing and client-side episode bookkeeping."""

from __future__ import annotations

from typing import Any

from shopsim.errors import ResetNeeded
from shopsim.page import Feedback, Navigation, PageState

__all__ = ["EpisodeBook", "LimitedSteps", "SourceBase", "StepOut"]

StepOut = tuple[PageState, float, bool, bool]


class SourceBase:
    """Closes the source when a ``with`` block ends."""

    def __enter__(self) -> Any:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:  # pragma: no cover - overridden
        """Release what the source holds (connection, browser); the base holds nothing."""
        pass


class EpisodeBook:
    """Client-side bookkeeping for sources that see pages only (HTML over HTTP, browser)."""

    def __init__(self, max_steps: int | None):
        self.max_steps = max_steps
        self.steps = 0
        self.done = False
        self.state: PageState | None = None

    def start(self, state: PageState) -> PageState:
        """Begin a new episode on its first page ``state``: step count and ``done`` cleared."""
        self.steps, self.done, self.state = 0, False, state
        return state

    def refuse(self, feedback: Feedback) -> StepOut:
        """Answer a step that loads no page: the current page again with ``feedback``, no reward."""
        assert self.state is not None
        self.state = self.state.model_copy(update={"feedback": feedback})
        return self.state, 0.0, self.done, False

    def landed(self, state: PageState) -> StepOut:
        """Record the page a step loaded; the episode ends on the done page or at ``max_steps``."""
        self.state = state
        if state.page_type == "done":
            self.done = True
            return state, float(state.reward or 0.0), True, False
        if self.max_steps is not None and self.steps >= self.max_steps:
            self.done = True
            fb = Feedback(code="action_limit", message=f"action limit of {self.max_steps} reached without a purchase")
            self.state = state.model_copy(update={"feedback": fb})
            return self.state, 0.0, True, True
        return state, 0.0, False, False

    def navigation(self, translator: Any, action: str) -> Navigation | StepOut:
        """Where ``action`` leads from the page shown; or, when it leads nowhere (the episode is over,
        the action is refused or only selects on the page), the step's answer.
        """
        early = self.before()
        if early is not None:
            return early
        assert self.state is not None
        nav = translator.resolve(self.state, action)
        if nav.kind in ("none", "select") or nav.url is None:
            return self.refuse(nav.feedback)
        return nav

    def before(self) -> StepOut | None:
        """Count the step about to be taken, or give the refusal when the episode is over."""
        if self.state is None:
            raise ResetNeeded("step")
        if self.done:
            return self.refuse(Feedback(code="episode_done", message="the episode is over; reset to start a new one"))
        self.steps += 1
        return None


class LimitedSteps(SourceBase):
    """``step()`` for sources that keep their own episode: refuse after the end, count every action,
    end the episode (truncated, ``action_limit``) at ``max_steps``. Subclasses give ``_step`` and
    ``_refuse`` and keep ``current``, ``done``, ``steps`` and ``max_steps``.
    """

    current: PageState | None
    done: bool
    steps: int
    max_steps: int | None

    def _step(self, action: str) -> StepOut:  # pragma: no cover - overridden
        raise NotImplementedError

    def _refuse(self, feedback: Feedback) -> StepOut:  # pragma: no cover - overridden
        raise NotImplementedError

    def step(self, action: str) -> StepOut:
        """Apply one action; never raises for a bad action."""
        if self.current is None:
            raise ResetNeeded("step")
        if self.done:
            return self._refuse(Feedback(code="episode_done", message="the episode is over; reset to start a new one"))
        self.steps += 1
        out = self._step(action)
        if not out[2] and self.max_steps is not None and self.steps >= self.max_steps:
            self.done = True
            fb = Feedback(code="action_limit", message=f"action limit of {self.max_steps} reached without a purchase")
            self.current = out[0].model_copy(update={"feedback": fb})
            return self.current, 0.0, True, True
        return out
