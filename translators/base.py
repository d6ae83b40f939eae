"""The translator interface every site implements.

A translator turns a page (``html`` plus its ``url`` when known) into a :class:`PageState` and maps
an action on that state back to a :class:`Navigation`. Text observations and valid actions are then
rendered from the PageState by :mod:`shopsim.translators.render`, the same for every site.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from shopsim.page import Navigation, PageState

__all__ = ["Translator", "parse_action"]


@runtime_checkable
class Translator(Protocol):
    """Parse pages of one site into PageState and resolve actions into navigations."""

    site: str

    def parse(self, html: str, url: str | None = None) -> PageState:
        """Return the page's state; unreadable pages give page type ``unknown`` with a reason."""
        ...

    def resolve(self, state: PageState, action: str) -> Navigation:
        """Return where ``action`` leads from ``state`` (never raises for a bad action)."""
        ...


def parse_action(action: str) -> tuple[str, str | None]:
    """Split ``name[arg]`` like WebShop does (greedy: the last ``]`` closes the argument).

    ``'click[Buy Now]'`` -> ``('click', 'Buy Now')``; a string without brackets -> ``(action, None)``.
    Newlines inside the argument are accepted (WebShop's regex rejects them; we do not need to).
    """
    if not isinstance(action, str):
        return "", None
    open_at = action.find("[")
    if open_at <= 0 or not action.endswith("]"):
        return action, None
    return action[:open_at], action[open_at + 1 : -1]
