"""Every skin in real Chromium: seeded episodes through BrowserSource, and at each step the page the browser
holds reads back through the skin's real-site translator as the sim's state (the closed translator loop).

The suite runs ``SHOPSIM_SKIN_EPISODES`` episodes per skin (default 12); ``benchmarks/skins.py --soak 200``
runs 200 per skin."""

from __future__ import annotations

import os

import pytest

from shopsim.adapters.browser_source import BrowserSource
from shopsim.adapters.skin_readback import mismatch, seeded_episode
from shopsim.adapters.sources import InProcessSource
from shopsim.page import PageState
from shopsim.simsite.server import ServerThread
from shopsim.simsite.shop import Shop
from shopsim.simsite.skins import SKINS, get_skin, session_skin
from shopsim.simsite.web import create_app

EPISODES = int(os.environ.get("SHOPSIM_SKIN_EPISODES", "12"))


@pytest.mark.slow
@pytest.mark.parametrize("name", [*SKINS, "random"])
def test_browser_episodes_read_back_as_the_sim(name: str, bundled_shop: Shop, chromium_path, browser_shutdown) -> None:
    with ServerThread(create_app(bundled_shop, skin=name)) as srv, \
            BrowserSource(srv.base_url, executable_path=chromium_path, assets=False) as src:
        types: set[str] = set()
        for ep in range(EPISODES):
            goal = ep % len(bundled_shop.goals)
            skin = session_skin(name, 0, str(goal)) if name == "random" else get_skin(name)
            for state in seeded_episode(src, goal, seed=ep):
                html, _ = src.document()
                assert f'data-skin="{skin.name}"' in html or skin.name == "webshop"
                assert mismatch(state, html, skin) is None, (skin.name, state.page_type, state.url)
                types.add(state.page_type)
        assert {"search", "results", "item"} <= types


def _buy_first(src: object, shop: Shop) -> tuple[list[str], float]:
    """Search, open the first result with options, choose the last value of each, buy: the actions and reward."""
    actions = ["search[shoes]"]
    state = src.reset(4)  # type: ignore[attr-defined]
    state, *_ = src.step(actions[-1])  # type: ignore[attr-defined]
    actions.append(f"click[{next(c.id for c in state.results if shop.products[c.id].options)}]")
    state, *_ = src.step(actions[-1])  # type: ignore[attr-defined]
    assert state.product.options
    for axis, values in state.product.options.items():
        actions.append(f"click[{values[-1]}]")
        state, *_ = src.step(actions[-1])  # type: ignore[attr-defined]
        assert state.product.selected.get(axis) == values[-1]
    state, reward, done, _ = src.step("click[buy now]")  # type: ignore[attr-defined]
    assert done and state.page_type == "done"
    return actions, reward


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["url", "click"])
@pytest.mark.parametrize("name", list(SKINS))
def test_e2e_search_open_buy(name: str, mode: str, bundled_shop: Shop, chromium_path, browser_shutdown) -> None:
    """The same actions in Chromium on each skin (loading URLs, or typing and clicking the real elements)
    and in-process choose the same options and earn the same reward."""
    with ServerThread(create_app(bundled_shop, skin=name)) as srv, \
            BrowserSource(srv.base_url, mode=mode, executable_path=chromium_path, timeout_ms=10_000) as src:
        actions, reward = _buy_first(src, bundled_shop)
    want_actions, want = _buy_first(InProcessSource(bundled_shop), bundled_shop)
    assert (actions, reward) == (want_actions, want)


@pytest.mark.slow
@pytest.mark.parametrize("name", [n for n in SKINS if n != "webshop"])
def test_browser_observations_find_every_clickable(name: str, bundled_shop: Shop, chromium_path,
                                                   browser_shutdown) -> None:
    """Set-of-marks and the accessibility tree find each clickable's element on every skin's pages."""
    with ServerThread(create_app(bundled_shop, skin=name)) as srv, \
            BrowserSource(srv.base_url, executable_path=chromium_path) as src:
        src.reset(4)
        results, *_ = src.step("search[shoes]")
        _all_marked(src, results)
        item, *_ = src.step(f"click[{next(c.id for c in results.results if bundled_shop.products[c.id].options)}]")
        assert item.product is not None and item.product.options
        _all_marked(src, item)


def _all_marked(src: BrowserSource, state: PageState) -> None:
    ids = {str(i) for i in range(1, len(state.clickables) + 1)}
    for mode in ("som", "axtree", "dom"):
        seen = src.observe(mode)
        assert set(seen.element_actions) == ids and set(seen.shown) == ids, (mode, ids - set(seen.shown))
