"""The actions a real results or item page offers, in WebShop's order, and refusals."""

from __future__ import annotations

from collections.abc import Callable

from shopsim.page import (
    Clickable,
    Feedback,
    FeedbackCode,
    Navigation,
    PageState,
    ProductView,
    ResultCard,
    SubPage,
)

__all__ = ["has_next_page", "item_clickables", "refuse", "results_clickables", "sub_page_view", "sub_pages"]


def results_clickables(cards: list[tuple[ResultCard, str | None]], next_url: str | None,
                       prev_url: str | None, product_url: Callable[[str], str], *, next_control: bool = False,
                       next_selector: str | None = None) -> list[Clickable]:
    """WebShop's results-page actions: back, paging, then one ``click[<id>]`` per distinct card.

    ``next_control``: the page has a next control without a URL (a script button); ``next >`` is
    offered all the same, with no URL (taking it is refused as not recorded: nothing is guessed).
    """
    out = [Clickable(arg="back to search", text="Back to Search", kind="back_to_search")]
    if prev_url:
        out.append(Clickable(arg="< prev", text="< Prev", kind="prev", url=prev_url))
    if next_url or next_control:
        out.append(Clickable(arg="next >", text="Next >", kind="next", url=next_url or None, selector=next_selector))
    seen = {c.arg for c in out}
    for card, selector in cards:
        arg = card.id.lower()
        if arg in seen:
            continue
        seen.add(arg)
        out.append(Clickable(arg=arg, text=card.id, kind="product", url=product_url(card.id),
                             selector=selector))
    return out


def has_next_page(state: PageState) -> bool:
    """Whether a results page offers a next page: a next URL, or a ``next >`` control without one."""
    return bool(state.next_page_url) or any(c.kind == "next" for c in state.clickables)


def sub_pages(product: ProductView) -> list[SubPage]:
    """The sub pages a real item page offers, as the sim's item pages do: Description, Features and
    Reviews always (possibly empty, like a sim product without them), Attributes when it lists item
    specifics (as the sim does with ``show_attrs``).
    """
    out: list[SubPage] = ["Description", "Features", "Reviews"]
    if product.attributes:
        out.append("Attributes")
    return out


def item_clickables(product: ProductView, prev_url: str | None) -> list[Clickable]:
    """Item-page actions in the sim's order (back, prev, sub pages, buy, options); an option value
    shared by two axes is qualified as '<axis>: <value>'.
    """
    out = [Clickable(arg="back to search", text="Back to Search", kind="back_to_search"),
           Clickable(arg="< prev", text="< Prev", kind="prev", url=prev_url)]
    out += [Clickable(arg=name.lower(), text=name, kind="sub_page") for name in sub_pages(product)]
    out.append(Clickable(arg="buy now", text="Buy Now", kind="buy"))
    seen = {c.arg for c in out}
    for axis, values in product.options.items():
        urls = product.option_urls.get(axis, {})
        chosen = product.selected.get(axis)
        for value in values:
            arg = value.lower()
            if not arg:
                continue
            if arg in seen:
                arg = f"{axis}: {value}".lower()
                if arg in seen:
                    continue
            seen.add(arg)
            out.append(Clickable(arg=arg, text=value, kind="option", axis=axis, url=urls.get(value),
                                 clicked=value == chosen))
    return out


def refuse(code: FeedbackCode, message: str) -> Navigation:
    """A non-navigation: the action is refused with a feedback code saying why."""
    return Navigation(kind="none", feedback=Feedback(code=code, message=message))


def sub_page_view(state: PageState, name: str) -> PageState:
    """A real item page's sub page, drawn from the page already read (the sim's ``item_detail``):
    the same product, only ``back to search`` and ``< prev`` (back to the item page) to click.
    """
    if state.product is None:
        raise ValueError("a sub page needs an item page")
    match = {n.lower(): n for n in sub_pages(state.product)}.get(name.lower())
    if match is None:
        raise ValueError(f"this item page has no {name} sub page")
    return state.model_copy(update={
        "page_type": "item_detail", "sub_page": match, "has_search_bar": False, "feedback": Feedback(),
        "clickables": [Clickable(arg="back to search", text="Back to Search", kind="back_to_search"),
                       Clickable(arg="< prev", text="< Prev", kind="prev")]})
