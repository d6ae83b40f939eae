"""The translator interface every site implements.

A translator turns a page (``html`` plus its ``url`` when known) into a :class:`PageState` and maps
an action on that state back to a :class:`Navigation`. Text observations and valid actions are then
rendered from the PageState by :mod:`shopsim.render`, the same for every site. Actions are read
with :func:`shopsim.actions.parse_action`. A translator is made known with
``registry.register_translator``; the real-site base classes are in ``realsite``.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from shopsim.page import Navigation, PageState

__all__ = ["Translator"]


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

