"""The session builds its pages without validation (``shopsim.page.trusted``) and from per-shop product
parts (``simsite/page_cache.py``); the pages must be exactly what validation gives, and never shared.

Every model of every page of real episodes (random and goal-directed actions, strict and WebShop
rules, with and without the Attributes sub page, snapshots restored, pages jumped to by URL) is
rebuilt by validating its own fields, and the two must match in every detail: types (a float is not
an int, a tuple not a list), values, which fields were set, field order, defaults.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest
from pydantic import BaseModel, Field

from shopsim.page import Clickable, PageState, ResultCard, trusted
from shopsim.simsite.page_cache import MAX_PRODUCTS_PER_SHOP, ShopParts, shop_parts
from shopsim.simsite.session import ShopSession
from shopsim.simsite.shop import Shop, ShopConfig
from tests.conftest import SMALL


def revalidated(model: BaseModel) -> BaseModel:
    """``model`` built again by validating the fields it was given (nested models first)."""
    return type(model)(**{name: _revalidated(getattr(model, name)) for name in model.model_fields_set})


def _revalidated(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return revalidated(value)
    if isinstance(value, list):
        return [_revalidated(v) for v in value]
    if isinstance(value, tuple):
        return tuple(_revalidated(v) for v in value)
    if isinstance(value, dict):
        return {k: _revalidated(v) for k, v in value.items()}
    return value


def assert_identical(a: Any, b: Any, where: str = "page") -> None:
    """Equal in every detail: the same types all the way down, fields set, field order and values."""
    assert type(a) is type(b), f"{where}: {type(a).__name__} != {type(b).__name__}"
    if isinstance(a, BaseModel):
        assert a.model_fields_set == b.model_fields_set, f"{where}: fields set"
        assert list(a.__dict__) == list(b.__dict__), f"{where}: field order"
        assert a.__pydantic_extra__ == b.__pydantic_extra__ and a.__pydantic_private__ == b.__pydantic_private__
        for name in type(a).model_fields:
            assert_identical(getattr(a, name), getattr(b, name), f"{where}.{name}")
    elif isinstance(a, list | tuple):
        assert len(a) == len(b), f"{where}: length"
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            assert_identical(x, y, f"{where}[{i}]")
    elif isinstance(a, dict):
        assert list(a) == list(b), f"{where}: keys"
        for k in a:
            assert_identical(a[k], b[k], f"{where}[{k!r}]")
    else:
        assert a == b, f"{where}: {a!r} != {b!r}"


#: Odd queries too: quotes mark options clicked in WebShop's URL test, '/' and '%' sit in URL segments.
QUERIES = ["red shirt", '"blue" mug', "x/y %"]


def _action(state: PageState, goal_text: str, rng: random.Random) -> str:
    if state.page_type == "search" or rng.random() < 0.1:
        return f"search[{goal_text if rng.random() < 0.7 else rng.choice(QUERIES)}]"
    if rng.random() < 0.05:
        return rng.choice(["click[nothing here]", "jump[x]", "search[ ]"])
    args = [c.arg for c in state.clickables if c.kind != "search"]
    return f"click[{rng.choice(args)}]" if args else "click[x]"


def episode_pages(shop: Shop, goal: int, *, strict: bool, seed: int) -> Iterator[PageState]:
    """Every page one seeded random episode shows, a restored snapshot and a jump by URL parts included."""
    rng = random.Random(seed)
    session = ShopSession(shop, shop.goals[goal], f"s{goal}", strict=strict, goal_index=goal,
                          max_steps=14 if goal % 4 == 0 else None)
    yield session.state
    for step in range(16):
        result = session.step(_action(session.state, shop.goals[goal].instruction_text.lower(), rng))
        yield result.state
        if step == 3:
            yield ShopSession.from_snapshot(shop, session.snapshot()).state
        if result.done:
            break
    jump = ShopSession(shop, shop.goals[goal], f"j{goal}")
    asin = next(iter(shop.products))
    yield jump.show("item_sub_page", keywords=["a", "b"], page_num=2, asin=asin, sub_page="Reviews").state
    yield jump.show("search_results", keywords=["red"], page_num=3).state
    yield jump.show("done", asin=asin, options={}).state


@pytest.fixture(scope="module")
def shops() -> list[Shop]:
    """WebShop's small set when present (real products, options, reviews), and the bundled catalog
    with the Attributes sub page on."""
    out = [Shop.from_config(ShopConfig(show_attrs=True))]
    if (SMALL / "items_shuffle_1000.json").exists():
        out.append(Shop.from_config(ShopConfig(data_dir=SMALL, num_products=1000, seed=0)))
    return out


@pytest.mark.parametrize("strict", [False, True])
def test_pages_equal_what_validation_gives(shops: list[Shop], strict: bool) -> None:
    kinds: set[str] = set()
    for shop in shops:
        for goal in range(0, 120, 3):
            for page in episode_pages(shop, goal, strict=strict, seed=goal):
                assert_identical(page, revalidated(page))
                kinds.add(page.page_type)
    assert kinds == {"search", "results", "item", "item_detail", "done"}


def test_pages_share_nothing_mutable(shops: list[Shop]) -> None:
    """Mutating every list and dict of a session's pages changes neither the product nor the same pages
    rendered again (which come from the same shared product parts)."""
    shop = shops[-1]
    product = next((p for p in shop.product_list if p.options and p.reviews and p.bullet_points),
                   shop.product_list[0])
    before = product.model_dump_json()
    session = ShopSession(shop, shop.goals[0], "s1")
    session.step(f"search[{product.title.lower()}]")

    def show() -> list[PageState]:
        return [session.show("search_results", keywords=product.title.lower().split(), page_num=1).state,
                session.show("item_page", keywords=["a"], page_num=1, asin=product.asin, options={}).state,
                session.show("item_sub_page", keywords=["a"], page_num=1, asin=product.asin, sub_page="Reviews").state]

    show()  # the product is now visited, so its link shows clicked from here on
    pages = show()
    expected = [page.model_dump_json() for page in pages]
    for page in pages:
        _scribble(page)
    assert all("scribbled" in repr(page) for page in pages)
    assert [page.model_dump_json() for page in show()] == expected
    assert shop.products[product.asin].model_dump_json() == before


def _scribble(value: Any) -> None:
    """Append to every list and add to every dict reachable from ``value``."""
    if isinstance(value, BaseModel):
        for name in type(value).model_fields:
            _scribble(getattr(value, name))
    elif isinstance(value, list):
        for v in list(value):
            _scribble(v)
        value.append("scribbled")
    elif isinstance(value, dict):
        for v in list(value.values()):
            _scribble(v)
        value["scribbled"] = "scribbled"


def test_product_parts_are_bounded_and_rebuilt_alike(bundled_shop: Shop) -> None:
    cache = ShopParts(maxsize=3)  # the oldest out first
    asins = [p.asin for p in bundled_shop.product_list[:5]]
    first = [cache.get(bundled_shop.products, a, False, False) for a in asins]
    assert len(cache) == 3
    rebuilt = cache.get(bundled_shop.products, asins[0], False, False)
    assert rebuilt is not first[0] and rebuilt.clickables == first[0].clickables
    assert cache.get(bundled_shop.products, asins[0], False, False) is rebuilt
    assert shop_parts(bundled_shop) is shop_parts(bundled_shop) and MAX_PRODUCTS_PER_SHOP >= 1000


def test_trusted_fills_defaults_as_validation_does() -> None:
    values = {"id": "B01", "title": "Mug", "price": (1.0, 2.0), "url": "u"}
    assert_identical(trusted(ResultCard, **values), ResultCard(**values))
    assert_identical(trusted(PageState, page_type="search"), PageState(page_type="search"))
    assert trusted(PageState, page_type="search").results is not trusted(PageState, page_type="search").results
    assert_identical(trusted(Clickable, arg="a", text="A", kind="buy"), Clickable(arg="a", text="A", kind="buy"))

    class Aliased(BaseModel):
        name: str = Field(alias="Name")

    with pytest.raises(TypeError):
        trusted(Aliased, name="x")  # validation would read "Name": not a model trusted() can build


def test_reward_breakdowns_equal_what_validation_gives(shops: list[Shop]) -> None:
    """``combine`` builds the purchase's breakdown without validation; it must be the validated model,
    for the session's purchases (top results, first option values) and WebShop's dict API alike."""
    import numpy as np

    from shopsim.simsite.reward import RewardBreakdown, combine

    checked = 0
    for shop in shops:
        for goal in range(0, 120, 3):
            session = ShopSession(shop, shop.goals[goal], f"r{goal}")
            session.step(f"search[{shop.goals[goal].instruction_text.lower()}]")
            products = [c.arg for c in session.page.clickables if c.kind == "product"]
            session.step(f"click[{products[goal % len(products)]}]")
            options = [c.arg for c in session.page.clickables if c.kind == "option"]
            for arg in options[: goal % 3]:
                session.step(f"click[{arg}]")
            result = session.step("click[buy now]")
            assert result.breakdown is not None and type(result.breakdown) is RewardBreakdown
            assert_identical(result.breakdown, revalidated(result.breakdown))
            checked += 1
    assert checked >= 40
    # callers of ``combine`` (WebShop's dict API) may pass ints and numpy booleans: coerced as validation would
    odd = combine((1, 1, 0, 1), 1, 0, (2, 0), price_ok=np.bool_(True), noun_source="spacy", asins=("A", "B"))
    assert_identical(odd, revalidated(odd))
    assert odd == RewardBreakdown(**combine((1.0, True, False, 1.0), 1, 0, (2, 0), price_ok=True, noun_source="spacy",
                                            asins=("A", "B")).model_dump())


def test_results_pages_share_their_links_and_the_cache_is_bounded(bundled_shop: Shop) -> None:
    """A results page shown again (same session, query, page, visited products) gets the very same
    clickables; a visit changes its key; the shop keeps at most ``MAX_RESULTS_LINKS`` pages."""
    from shopsim.simsite.page_cache import MAX_RESULTS_LINKS

    def results(session_id: str) -> list[Clickable]:
        session = ShopSession(bundled_shop, bundled_shop.goals[0], session_id)
        return session.step("search[red shirt]").page.clickables

    first, again = results("same"), results("same")
    assert all(a is b for a, b in zip(first, again, strict=True)) and first is not again
    session = ShopSession(bundled_shop, bundled_shop.goals[0], "same")
    session.step("search[red shirt]")
    link = next(c for c in session.page.clickables if c.kind == "product")
    session.step(f"click[{link.arg}]")
    visited = session.step("click[< prev]").page.clickables
    assert next(c for c in visited if c.arg == link.arg).clicked and not link.clicked
    for i in range(MAX_RESULTS_LINKS + 5):
        results(f"s{i}")
    assert len(shop_parts(bundled_shop)._links) == MAX_RESULTS_LINKS
