"""A session's pages (:class:`SimPage`), their PageStates built without re-validating what the shop trusts.

:class:`~shopsim.simsite.session.ShopSession` calls these every step. Each gives the clickables at
once and the PageState and simple text only when asked (:mod:`shopsim.simsite.sim_page`). Their inputs
were validated once (the catalog, the goal, the session's own URL parts and feedback), so each model
is built with :func:`shopsim.page.trusted`: exactly the PageState that validating the same fields
gives (``tests/simsite/test_trusted_pages.py`` checks that over real episodes), at a fraction of
the cost. Product parts that no session changes come from :mod:`shopsim.simsite.page_cache`, and so
do the texts a card or an item page spells from its product alone; everything mutable a page holds
is a fresh list or dict, so pages never alias the shop or each other.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Literal, TypedDict

from shopsim import routes
from shopsim.page import Clickable, Feedback, PageState, ProductView, Purchase, ResultCard, SubPage, trusted
from shopsim.render import (
    SEP,
    card_segments,
    done_segments,
    format_price,
    instruction_segments,
    item_head,
    product_segments,
    results_head,
    search_segments,
    simple_text,
)
from shopsim.simsite.page_cache import ProductParts, ResultsLinks, ShopParts
from shopsim.simsite.reward import RewardBreakdown
from shopsim.simsite.sim_page import SimPage

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



def index_page(base: str, sid: str, common: Common) -> SimPage:
    """The search page."""
    def build() -> PageState:
        return trusted(PageState, page_type="search", url=routes.index_url(base, sid), has_search_bar=True,
                       clickables=[SEARCH], **common)

    return SimPage("search", common["instruction"], common["feedback"], [SEARCH], build,
                   lambda: _search_text(common["instruction"]), has_search_bar=True)


@lru_cache(maxsize=4096)
def _search_text(instruction: str) -> str:
    """The search page's simple text (its instruction's alone: remembered, goals recur)."""
    return simple_text(search_segments(instruction))


@lru_cache(maxsize=4096)
def _item_head_text(instruction: str | None) -> str:
    """The simple text of an item page's head (remembered per instruction, like :func:`_search_text`)."""
    return simple_text(item_head(instruction))


def _nav_button(kind: Literal["prev", "next"], url: str) -> Clickable:
    if kind == "prev":
        return trusted(Clickable, arg="< prev", text="< Prev", kind="prev", selector="[data-action='prev']", url=url)
    return trusted(Clickable, arg="next >", text="Next >", kind="next", selector="[data-action='next']", url=url)


def _joined(*texts: str) -> str:
    """Simple texts of consecutive parts of one page, as the page's whole simple text (see :func:`simple_text`)."""
    return SEP.join(filter(None, texts))


def _card_text(parts: ProductParts) -> str:
    text = parts.texts.get("card")
    if text is None:
        p = parts.product
        segments = card_segments(p.asin, p.title, p.price_text or format_price(parts.price), False)
        text = parts.texts["card"] = simple_text(segments)
    return text


def _results_links(base: str, sid: str, keywords: list[str], page: int, shown: list[ProductParts],
                   clicked: tuple[bool, ...]) -> ResultsLinks:
    """A results page's URLs and clickables (:class:`ResultsLinks`), spelled from its parts."""
    clicks = [BACK]
    at, after = routes.results_url_parts(base, sid, keywords)
    prev_url = f"{at}{page - 1}{after}" if page > 1 else None
    if prev_url is not None:
        clicks.append(_nav_button("prev", prev_url))
    next_url = f"{at}{page + 1}{after}"
    clicks.append(_nav_button("next", next_url))
    head, tail = routes.item_url_parts(base, sid, keywords, page, {})
    for parts, was_clicked in zip(shown, clicked, strict=True):
        p = parts.product
        clicks.append(trusted(Clickable, arg=parts.link_arg, text=p.asin, kind="product", url=head + p.asin + tail,
                              selector=parts.link_selector, clicked=was_clicked))
    return ResultsLinks(at, after, prev_url, next_url, head, tail, tuple(clicks))


def results_page(base: str, sid: str, keywords: list[str], page: int, asins: list[str], shown: list[ProductParts],
                 visited: list[str], common: Common, cache: ShopParts) -> SimPage:
    """A results page: ``shown`` are the products of page ``page`` of the ranking ``asins``; its links come
    from ``cache`` (the same session, query and page give the same links, episode after episode).
    """
    window = tuple([parts.product.asin for parts in shown])
    clicked = tuple([asin in visited for asin in window]) if visited else (False,) * len(window)
    links = cache.results_links((base, sid, tuple(keywords), page, window, clicked),
                                lambda: _results_links(base, sid, keywords, page, shown, clicked))
    clicks = list(links.clickables)
    seen = list(visited)

    def build() -> PageState:
        head, tail = links.head, links.tail
        cards = [trusted(ResultCard, id=parts.product.asin, title=parts.product.title, price=parts.price,
                         price_text=parts.product.price_text, url=head + parts.product.asin + tail) for parts in shown]
        return trusted(
            PageState, page_type="results", url=f"{links.at}{page}{links.after}", query=" ".join(keywords),
            keywords=list(keywords), page_num=page, total_results=len(asins), results=cards,
            next_page_url=links.next_url, prev_page_url=links.prev_url, clickables=list(clicks),
            visited_ids=list(seen), **common,
        )

    def text() -> str:  # the same links and instruction show the same text (``ResultsLinks.texts``)
        instruction = common["instruction"]
        found = links.texts.get(instruction)
        if found is None:
            top = simple_text([*instruction_segments(instruction), *results_head(page, len(asins), clicks)])
            found = _joined(top, *[parts.texts.get("card") or _card_text(parts) for parts in shown])
            if len(links.texts) < 8:
                links.texts[instruction] = found
        return found

    return SimPage("results", common["instruction"], common["feedback"], clicks, build, text)


def _view(parts: ProductParts, options: dict[str, str], show_attrs: bool) -> ProductView:
    p = parts.product
    return trusted(
        ProductView, id=p.asin, title=p.title, price=parts.price, price_text=p.price_text, rating=parts.rating,
        rating_text=p.rating, selected={axis: options.get(axis) for axis in p.options}, description=p.description,
        **parts.view_containers(show_attrs),
    )


def _body_text(parts: ProductParts, show_attrs: bool) -> str:
    """An item page's simple text after its navigation buttons: the same for every session and choice."""
    text = parts.texts.get("item")
    if text is None:
        segments = product_segments(_view(parts, {}, show_attrs), list(parts.clickables))
        text = parts.texts["item"] = simple_text(segments)
    return text


def item_page(base: str, sid: str, keywords: list[str], page: int, parts: ProductParts, options: dict[str, str],
              show_attrs: bool, common: Common) -> SimPage:
    """An item page with ``options`` chosen."""
    url = routes.item_url(base, sid, parts.product.asin, keywords, page, options)
    clicks = [BACK, PREV, *parts.item_clickables(url)]

    def build() -> PageState:
        return trusted(
            PageState, page_type="item", url=url, query=" ".join(keywords), keywords=list(keywords), page_num=page,
            product=_view(parts, options, show_attrs), clickables=list(clicks), **common,
        )

    def text() -> str:
        return _joined(_item_head_text(common["instruction"]), _body_text(parts, show_attrs))

    return SimPage("item", common["instruction"], common["feedback"], clicks, build, text,
                   product_id=parts.product.asin, options=parts.product.options)


def sub_page(base: str, sid: str, keywords: list[str], page: int, parts: ProductParts, options: dict[str, str],
             name: SubPage | None, show_attrs: bool, common: Common) -> SimPage:
    """An item's Description / Features / Reviews / Attributes page."""
    url = routes.sub_page_url(base, sid, parts.product.asin, keywords, page, name or "", options)

    def build() -> PageState:
        return trusted(
            PageState, page_type="item_detail", url=url, query=" ".join(keywords), keywords=list(keywords),
            page_num=page, product=_view(parts, options, show_attrs), sub_page=name, clickables=[BACK, PREV], **common,
        )

    return SimPage("item_detail", common["instruction"], common["feedback"], [BACK, PREV], build,
                   product_id=parts.product.asin, options=parts.product.options)


def done_page(base: str, sid: str, keywords: list[str], asin: str, options: dict[str, str], price: float,
              breakdown: RewardBreakdown, common: Common) -> SimPage:
    """The page after a purchase: what was bought and its reward (scored once, by the caller)."""
    def build() -> PageState:
        return trusted(
            PageState, page_type="done", url=routes.done_url(base, sid, asin, options), query=" ".join(keywords),
            keywords=list(keywords), purchase=trusted(Purchase, id=asin, options=dict(options), price=price),
            reward=breakdown.reward, reward_info=breakdown.model_dump(), **common,
        )

    return SimPage("done", common["instruction"], common["feedback"], [], build,
                   lambda: simple_text(done_segments(asin, options, breakdown.reward)))
