"""A sim episode seen as a real page: each page drawn in a skin (and perturbed), then read back by our translator.

:class:`SkinnedSource` wraps the in-process sim: results and item pages are drawn with the skin's
``render`` and read back with the translator a real page of that site goes through
(:func:`shopsim.adapters.skin_readback.read_back`), so a text agent sees what it would see on a real page
of that look; wrapped in :class:`~shopsim.adapters.parity_source.ParitySource` it gets the same parity
view as on the real-page transfer suite. Search and done pages are the sim's (a real shop's have no
reading). Actions go to the sim, which keeps the session, the rewards and the truth: an action phrased
from the read-back (``next``, an option's shown text) is mapped to the sim's clickable of the same kind
or text, and one the sim does not know is refused by the sim, as a real page would.
"""

from __future__ import annotations

from typing import Any

from shopsim.actions import parse_action
from shopsim.adapters.skin_readback import read_back
from shopsim.adapters.source_base import SourceBase, StepOut
from shopsim.page import PageState
from shopsim.simsite.skins import Skin

__all__ = ["SkinnedSource"]

#: Page types a real-site translator reads; the others pass through as the sim's.
READ = ("results", "item", "item_detail")


def _norm(text: str) -> str:
    return " ".join(text.split()).lower()


class SkinnedSource(SourceBase):
    """``reset(goal, seed)`` / ``step(action)`` of ``inner`` (a sim source), each page as ``skin`` reads back."""

    def __init__(self, inner: Any, skin: Skin, catalog: Any = None):
        self.inner, self.skin, self.catalog = inner, skin, catalog
        self.sim: PageState | None = None
        self.shown: PageState | None = None

    def __getattr__(self, name: str) -> Any:
        """Anything else (``reward_info``, ``goal_index``...) is the inner source's."""
        if name == "inner":
            raise AttributeError(name)
        return getattr(self.inner, name)

    def _show(self, state: PageState) -> PageState:
        self.sim = state
        if state.page_type not in READ:
            self.shown = state
            return state
        html = self.skin.render(state, self.catalog)
        read = read_back(self.skin, html, state.url)
        self.shown = read.model_copy(update={"instruction": state.instruction, "feedback": state.feedback})
        return self.shown

    def reset(self, goal_index: int, seed: int = 0) -> PageState:
        """Start the sim's episode and show its first page."""
        return self._show(self.inner.reset(goal_index, seed))

    def sim_action(self, action: str) -> str:
        """``action`` as the sim knows it: a read-back clickable's kind or text matched to the sim's own."""
        name, arg = parse_action(action) if isinstance(action, str) else ("", None)
        if name.strip().lower() != "click" or arg is None or self.sim is None or self.shown is None:
            return action
        key = _norm(arg)
        if self.sim.clickable(key) is not None:
            return f"click[{key}]"
        read = self.shown.clickable(key)
        if read is None:
            return action
        same_kind = [c for c in self.sim.clickables if c.kind == read.kind]
        if read.kind == "option":
            same_kind = [c for c in same_kind if _norm(c.text) == _norm(read.text)]
        if len(same_kind) == 1 or (read.kind != "product" and same_kind and read.kind != "option"):
            return f"click[{same_kind[0].arg}]"
        return action

    def step(self, action: str) -> StepOut:
        """Play ``action`` on the sim and show where it leads."""
        state, reward, done, truncated = self.inner.step(self.sim_action(action))
        return self._show(state), reward, done, truncated

    def close(self) -> None:
        """Close the sim source."""
        self.inner.close()
