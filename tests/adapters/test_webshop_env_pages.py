"""The WebShop shim builds a page's elements and observations once and reuses them: they must equal
what building them afresh from the page gives, on every page of real episodes, and callers get fresh
``text_to_clickable`` dicts, as WebShop's env hands out."""

from __future__ import annotations

import random

import pytest

from shopsim.adapters.webshop_elements import _KNOWN_PAGES, _KNOWN_PRODUCTS, WebShopClickable, element
from shopsim.adapters.webshop_env import WebAgentTextEnv
from shopsim.page import PageState
from shopsim.render import render_rich, render_simple
from shopsim.simsite.html import render_html
from shopsim.simsite.shop import Shop, ShopConfig
from shopsim.simsite.sim_page import SimPage
from tests.conftest import SMALL


@pytest.fixture(scope="module")
def shop(bundled_shop: Shop) -> Shop:
    """WebShop's small set when present (products with many options), else the bundled catalog."""
    if (SMALL / "items_shuffle_1000.json").exists():
        return Shop.from_config(ShopConfig(data_dir=SMALL, num_products=1000, seed=0))
    return bundled_shop


def _same_element(got: WebShopClickable, fresh: WebShopClickable) -> None:
    assert (got.name, dict(got.attrs), got.text, got.kind) == (fresh.name, dict(fresh.attrs), fresh.text, fresh.kind)
    assert got.clickable is fresh.clickable


def _check_page(env: WebAgentTextEnv) -> None:
    state: PageState = env._page()
    first = env.get_available_actions()
    elements = env.text_to_clickable
    assert elements is not None and first["clickables"] == [c.arg for c in state.clickables]
    for c in state.clickables:
        _same_element(elements[c.arg], element(c, SimPage.of(state)))
    elements.clear()  # the caller's dict: the next call hands out a full one again
    second = env.get_available_actions()
    assert second == first and env.text_to_clickable is not elements and list(env.text_to_clickable) == first["clickables"]
    assert env.observation == render_simple(state)


def test_elements_and_observations_equal_fresh_ones(shop: Shop) -> None:
    env = WebAgentTextEnv(observation_mode="text", server=shop)
    rng = random.Random(3)
    for episode in range(60):
        env.reset(session=episode % 25)  # goals come back, and with them their products' pages
        goal = env.instruction_text.split("Instruction: ", 1)[-1]
        _check_page(env)
        for _ in range(10):
            clickables = env.get_available_actions()["clickables"]
            page = env._page().page_type
            action = f"search[{goal}]" if page == "search" else f"click[{rng.choice(clickables)}]"
            _, _, done, _ = env.step(action)
            _check_page(env)
            if done:
                break


@pytest.mark.parametrize("mode", ["text_rich", "url", "html"])
def test_each_mode_renders_the_current_page(shop: Shop, mode: str) -> None:
    env = WebAgentTextEnv(observation_mode=mode, server=shop)
    obs, _ = env.reset(session=2)
    render = {"text_rich": render_rich, "url": lambda s: s.url or "", "html": render_html}[mode]
    assert obs == render(env._page())
    goal = env.instruction_text.split("Instruction: ", 1)[-1]
    obs, *_ = env.step(f"search[{goal}]")
    assert obs == env.observation == render(env._page())
    link = next(c.arg for c in env._page().clickables if c.kind == "product")
    obs, *_ = env.step(f"click[{link}]")
    assert obs == env.observation == render(env._page())
    assert env.state["html"] == render_html(env._page())


def test_option_elements_follow_the_page_options(shop: Shop) -> None:
    """An option radio's id counts its place among the axis's values: a page of the same product with
    other options (a hand-made state) gets its own elements, not the ones remembered."""
    env = WebAgentTextEnv(observation_mode="text", server=shop)
    product = next(p for p in shop.product_list if any(len(v) > 1 for v in p.options.values()))
    env._session.show("item_page", keywords=["x"], page_num=1, asin=product.asin, options={})  # type: ignore[union-attr]
    env.get_available_actions()
    state = env._page()
    assert state.product is not None
    reordered = {axis: values[::-1] for axis, values in state.product.options.items()}
    other = state.model_copy(update={"product": state.product.model_copy(update={"options": reordered})})
    for c, (arg, got) in zip(other.clickables, env._known.elements(SimPage.of(other)).items(), strict=True):
        assert arg == c.arg
        _same_element(got, element(c, SimPage.of(other)))


def test_remembered_elements_stay_bounded(shop: Shop) -> None:
    """An env keeps item-page elements of at most _KNOWN_PRODUCTS products and _KNOWN_PAGES pages each,
    and a remembered page's elements still equal fresh ones."""
    env = WebAgentTextEnv(observation_mode="text", server=shop)
    session = env._session
    assert session is not None
    many = next(p for p in shop.product_list if sum(len(v) for v in p.options.values()) >= 4)
    values = [(axis, v) for axis, vs in many.options.items() for v in vs]
    for i in range(3 * _KNOWN_PAGES):  # more option choices of one product than it keeps pages for
        axis, value = values[i % len(values)]
        session.show("item_page", keywords=["x"], page_num=1 + i, asin=many.asin, options={axis: value})
        _check_page(env)
        assert all(len(p.pages) <= _KNOWN_PAGES for p in env._known._products.values())
    for product in shop.product_list[: _KNOWN_PRODUCTS + 20]:
        session.show("item_page", keywords=["x"], page_num=1, asin=product.asin, options={})
        env.get_available_actions()
    assert len(env._known._products) <= _KNOWN_PRODUCTS
    _check_page(env)
