"""The PageStates of a session's pages, built without re-validating what the shop already trusts.

:class:`~shopsim.simsite.session.ShopSession` calls these every step. Their inputs were validated
once (the catalog when it loaded, the goal, the session's own URL parts and feedback), so each model
is built with :func:`shopsim.page.trusted`: exactly the PageState that validating the same fields
gives (``tests/simsite/test_trusted_pages.py`` checks that over real episodes), at a fraction of
the cost. Product parts that no session changes come from :mod:`shopsim.simsite.page_cache`;
everything mutable a page holds is a fresh list or dict, so pages never alias the shop or each other.
"""

from __future__ import annotations

from typing import Literal, TypedDict

from shopsim import routes
from shopsim.page import Clickable, Feedback, PageState, ProductView, Purchase, ResultCard, SubPage, trusted
from shopsim.simsite.page_cache import ProductParts
from shopsim.simsite.reward import RewardBreakdown

__all__ = ["Common", "done_page", "index_page", "item_page", "results_page", "sub_page"]

SEARCH = Clickable(arg="search", text="Search", kind="search", selector="#search_input")
BACK = Clickable(arg="back to search", text="Back to Search", kind="back_to_search",
                 selector="[data-action='back-to-search']")
PREV = Clickable(arg="< prev", text="< Prev", kind="prev", selector="[data-action='prev']")


class Common(TypedDict):
    """The PageState fields every page of a session shares."""

    site: Literal["simsite"]
    instruction: str
    feedback: Feedback


def index_page(base: str, sid: str, common: Common) -> PageState:
    """The search page."""
    return trusted(PageState, page_type="search", url=routes.index_url(base, sid), has_search_bar=True,
                   clickables=[SEARCH], **common)


def _nav_button(kind: Literal["prev", "next"], url: str) -> Clickable:
    if kind == "prev":
        return trusted(Clickable, arg="< prev", text="< Prev", kind="prev", selector="[data-action='prev']", url=url)
    return trusted(Clickable, arg="next >", text="Next >", kind="next", selector="[data-action='next']", url=url)


def results_page(base: str, sid: str, keywords: list[str], page: int, asins: list[str], shown: list[ProductParts],
                 visited: list[str], common: Common) -> PageState:
    """A results page: ``shown`` are the products of page ``page`` of the ranking ``asins``."""
    clicks = [BACK]
    at, after = routes.results_url_parts(base, sid, keywords)
    prev_url = f"{at}{page - 1}{after}" if page > 1 else None
    if prev_url is not None:
        clicks.append(_nav_button("prev", prev_url))
    next_url = f"{at}{page + 1}{after}"
    clicks.append(_nav_button("next", next_url))
    head, tail = routes.item_url_parts(base, sid, keywords, page, {})
    cards = []
    for parts in shown:
        p = parts.product
        link = head + p.asin + tail
        cards.append(trusted(ResultCard, id=p.asin, title=p.title, price=parts.price, price_text=p.price_text, url=link))
        clicks.append(trusted(Clickable, arg=parts.link_arg, text=p.asin, kind="product", url=link,
                              selector=parts.link_selector, clicked=p.asin in visited))
    return trusted(
        PageState, page_type="results", url=f"{at}{page}{after}", query=" ".join(keywords),
        keywords=list(keywords), page_num=page, total_results=len(asins), results=cards, next_page_url=next_url,
        prev_page_url=prev_url, clickables=clicks, visited_ids=list(visited), **common,
    )


def _view(parts: ProductParts, options: dict[str, str], show_attrs: bool) -> ProductView:
    p = parts.product
    return trusted(
        ProductView, id=p.asin, title=p.title, price=parts.price, price_text=p.price_text, rating=parts.rating,
        rating_text=p.rating, selected={axis: options.get(axis) for axis in p.options}, description=p.description,
        **parts.view_containers(show_attrs),
    )


def item_page(base: str, sid: str, keywords: list[str], page: int, parts: ProductParts, options: dict[str, str],
              show_attrs: bool, common: Common) -> PageState:
    """An item page with ``options`` chosen."""
    url = routes.item_url(base, sid, parts.product.asin, keywords, page, options)
    return trusted(
        PageState, page_type="item", url=url, query=" ".join(keywords), keywords=list(keywords), page_num=page,
        product=_view(parts, options, show_attrs), clickables=[BACK, PREV, *parts.item_clickables(url)], **common,
    )


def sub_page(base: str, sid: str, keywords: list[str], page: int, parts: ProductParts, options: dict[str, str],
             name: SubPage | None, show_attrs: bool, common: Common) -> PageState:
    """An item's Description / Features / Reviews / Attributes page."""
    url = routes.sub_page_url(base, sid, parts.product.asin, keywords, page, name or "", options)
    return trusted(
        PageState, page_type="item_detail", url=url, query=" ".join(keywords), keywords=list(keywords),
        page_num=page, product=_view(parts, options, show_attrs), sub_page=name, clickables=[BACK, PREV], **common,
    )


def done_page(base: str, sid: str, keywords: list[str], asin: str, options: dict[str, str], price: float,
              breakdown: RewardBreakdown, common: Common) -> PageState:
    """The page after a purchase: what was bought and its reward (scored once, by the caller)."""
    return trusted(
        PageState, page_type="done", url=routes.done_url(base, sid, asin, options), query=" ".join(keywords),
        keywords=list(keywords), purchase=trusted(Purchase, id=asin, options=dict(options), price=price),
        reward=breakdown.reward, reward_info=breakdown.model_dump(), **common,
    )
