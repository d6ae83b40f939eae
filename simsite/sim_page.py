"""A page of the sim as a session holds it: what every step reads, the full PageState only when asked.

Why: a step of the WebShop shim in text mode reads only the page's type, clickables, search bar and
simple text. Building the whole PageState every step (result cards, the product view and its
containers, the reward breakdown as a dict) cost more than the rest of the step. So each page of
:mod:`shopsim.simsite.session_pages` is a :class:`SimPage`: those fields eagerly, the PageState and
the simple text from closures, each built at most once. ``state`` is exactly the PageState the page
functions always built (``tests/adapters/test_lazy_pages.py`` compares the two paths over episodes).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType

from shopsim.page import Clickable, Feedback, PageState, PageType, find_clickable
from shopsim.render import render_simple

__all__ = ["NO_OPTIONS", "SimPage"]

#: The options of a page without a product (read-only, shared).
NO_OPTIONS: Mapping[str, list[str]] = MappingProxyType({})


class SimPage:
    """One page: ``page_type``, ``instruction``, ``feedback``, ``has_search_bar``, ``clickables`` (the
    page's own list: read it, do not change it), ``product_id`` and its ``options`` (the product's own
    mapping, read-only) for item pages; :attr:`state` and :meth:`simple_text` are built on first use.
    """

    __slots__ = ("_build", "_simple", "_state", "_text", "clickables", "feedback", "has_search_bar", "instruction",
                 "options", "page_type", "product_id")

    def __init__(self, page_type: PageType, instruction: str | None, feedback: Feedback, clickables: list[Clickable],
                 build: Callable[[], PageState], text: Callable[[], str] | None = None, *,
                 has_search_bar: bool = False, product_id: str | None = None,
                 options: Mapping[str, list[str]] = NO_OPTIONS):
        self.page_type, self.instruction, self.feedback = page_type, instruction, feedback
        self.clickables, self.has_search_bar = clickables, has_search_bar
        self.product_id, self.options = product_id, options
        self._build, self._text = build, text
        self._state: PageState | None = None
        self._simple: str | None = None

    @classmethod
    def of(cls, state: PageState) -> SimPage:
        """A page around a PageState already built (a refused action's copy of the page)."""
        product = state.product
        page = cls(state.page_type, state.instruction, state.feedback, state.clickables, lambda: state,
                   has_search_bar=state.has_search_bar, product_id=product.id if product is not None else None,
                   options=product.options if product is not None else NO_OPTIONS)
        page._state = state
        return page

    @property
    def state(self) -> PageState:
        """The full PageState (built once)."""
        if self._state is None:
            self._state = self._build()
        return self._state

    def simple_text(self) -> str:
        """``render_simple(self.state)``, from the page's own parts where it has them (built once)."""
        if self._simple is None:
            self._simple = self._text() if self._text is not None else render_simple(self.state)
        return self._simple

    def clickable(self, arg: str) -> Clickable | None:
        """:meth:`PageState.clickable` without the PageState."""
        return find_clickable(self.clickables, arg)
