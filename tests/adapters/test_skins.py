"""Skins: each skin's pages read back through our real-site translators as the sim's own state (the
closed translator loop), the same seed gives the same bytes, rewards do not depend on the skin, and the
server serves every skin under WebShop's URL scheme."""

from __future__ import annotations

import re

import httpx
import pytest

from shopsim.adapters.skin_readback import mismatch, read_back, seeded_episode, view
from shopsim.adapters.sources import InProcessSource
from shopsim.errors import ConfigError
from shopsim.page import PageState
from shopsim.simsite.html import render_html
from shopsim.simsite.server import ServerThread
from shopsim.simsite.shop import Shop
from shopsim.simsite.skins import SKINS, get_skin, session_skin
from shopsim.simsite.web import create_app

REAL_SKINS = [n for n in SKINS if n != "webshop"]
EPISODES = 60


@pytest.fixture(scope="module")
def episodes(bundled_shop: Shop) -> list[list[PageState]]:
    src = InProcessSource(bundled_shop)
    return [list(seeded_episode(src, ep % len(bundled_shop.goals), seed=ep)) for ep in range(EPISODES)]


@pytest.mark.parametrize("name", REAL_SKINS)
def test_every_page_reads_back_as_the_sims_state(name: str, episodes, bundled_shop: Shop) -> None:
    skin = get_skin(name)
    seen: dict[str, int] = {}
    for states in episodes:
        for state in states:
            html = skin.render(state, bundled_shop.products)
            assert mismatch(state, html, skin) is None, (state.page_type, state.url)
            seen[state.page_type] = seen.get(state.page_type, 0) + 1
    assert {"search", "results", "item", "item_detail", "done"} <= set(seen), seen


@pytest.mark.parametrize("name", REAL_SKINS)
def test_read_back_is_a_real_reading(name: str, episodes, bundled_shop: Shop) -> None:
    """The reading comes from the page's markup: products, prices, options and ratings, not empty views."""
    skin = get_skin(name)
    items = [s for states in episodes for s in states if s.page_type == "item" and s.product and s.product.options]
    state = items[0]
    read = read_back(skin, skin.render(state, bundled_shop.products), state.url)
    assert read.site == skin.site and read.page_type == "item"
    assert read.product is not None and read.product.options == state.product.options
    assert view(read, skin)["product"]["price"] is not None
    stripped = re.sub(r'<script type="application/json" id="shopsim-state">.*?</script>', "",
                      skin.render(state, bundled_shop.products), flags=re.S)
    assert mismatch(state, stripped, skin) is None  # the embedded state plays no part in the reading


@pytest.mark.parametrize("name", list(SKINS))
def test_same_state_same_bytes(name: str, episodes, bundled_shop: Shop) -> None:
    skin = get_skin(name)
    again = InProcessSource(bundled_shop)
    for ep, states in enumerate(episodes[:10]):
        replay = list(seeded_episode(again, ep % len(bundled_shop.goals), seed=ep))
        assert [skin.render(s, bundled_shop.products) for s in states] == \
            [skin.render(s, bundled_shop.products) for s in replay]


def test_webshop_skin_is_webshops_markup(episodes, bundled_shop: Shop) -> None:
    state = episodes[0][1]
    assert get_skin("webshop").render(state, bundled_shop.products) == render_html(state, bundled_shop.products)


def test_random_draws_every_skin_and_keeps_one_per_session() -> None:
    drawn = {session_skin("random", 0, str(goal)).name for goal in range(40)}
    assert drawn == set(SKINS)
    assert session_skin("random", 3, "7") == session_skin("random", 3, "7")
    assert session_skin("amazon", 3, "7").name == "amazon"


def test_unknown_skin_says_which() -> None:
    with pytest.raises(ConfigError, match="Did you mean 'amazon'"):
        get_skin("amazn")


@pytest.fixture(scope="module")
def servers(bundled_shop: Shop):
    threads = {name: ServerThread(create_app(bundled_shop, skin=name)) for name in SKINS}
    for thread in threads.values():
        thread.__enter__()
    yield {name: t.base_url for name, t in threads.items()}
    for thread in threads.values():
        thread.__exit__(None, None, None)


def _play(base: str, goal: int, product: str) -> tuple[str, float | None]:
    """Search, open a product, buy it, over HTTP: the done page's HTML and the reward the page embeds."""
    with httpx.Client(base_url=base, follow_redirects=True) as client:
        sid = f"fixed_{goal}"
        client.get(f"/{sid}")
        client.post(f"/{sid}", data={"search_query": "shoes"})
        done = client.post(f"/done/{sid}/{product}/%7B%7D")
        assert done.status_code == 200
        from shopsim.translators.sim_pages import SimsiteTranslator

        return done.text, SimsiteTranslator().parse(done.text).reward


def test_rewards_do_not_depend_on_the_skin(servers, bundled_shop: Shop) -> None:
    product = next(iter(bundled_shop.products))
    rewards = {name: _play(base, 2, product)[1] for name, base in servers.items()}
    assert len(set(rewards.values())) == 1 and rewards["webshop"] is not None, rewards


def test_server_serves_each_skin_under_webshops_urls(servers, bundled_shop: Shop) -> None:
    for name, base in servers.items():
        with httpx.Client(base_url=base, follow_redirects=True) as client:
            page = client.post("/fixed_1", data={"search_query": "shoes"})
            assert page.status_code == 200 and "/search_results/fixed_1/shoes/1" in str(page.url)
            marks = {"amazon": 's-search-result', "ebay": 'srp-results', "generic": 'ItemList',
                     "webshop": 'product-link'}
            assert marks[name] in page.text
            if name != "webshop":
                assert f'data-skin="{name}"' in page.text


def test_unknown_skin_on_the_server(bundled_shop: Shop) -> None:
    with pytest.raises(ConfigError, match="unknown skin"):
        create_app(bundled_shop, skin="ebya")


@pytest.mark.parametrize("name", REAL_SKINS)
def test_shopenv_html_observation_in_a_skin(name: str, bundled_shop: Shop) -> None:
    from shopsim.adapters.env import ShopEnv

    env = ShopEnv(bundled_shop, observation_mode="html", skin=name)
    env.reset(seed=0, options={"goal": 5})
    obs, *_ = env.step("search[shoes]")
    assert f'data-skin="{name}"' in obs and mismatch(env.state, obs, get_skin(name)) is None
    plain = ShopEnv(bundled_shop, observation_mode="html")
    plain.reset(seed=0, options={"goal": 5})
    plain.step("search[shoes]")
    first = f"click[{env.state.results[0].id}]"
    for action in (first, "click[buy now]"):
        assert plain.step(action)[1:4] == env.step(action)[1:4]  # reward, terminated, truncated


def test_shopenv_random_skin_is_drawn_per_episode_from_the_seed(bundled_shop: Shop) -> None:
    from shopsim.adapters.env import ShopEnv

    def skins(seed: int) -> list[str]:
        env = ShopEnv(bundled_shop, observation_mode="html", skin="random")
        out = []
        for goal in range(12):
            obs, _ = env.reset(seed=seed, options={"goal": goal})
            out.append(re.search(r'data-skin="(\w+)"', obs).group(1) if 'data-skin="' in obs else "webshop")
        return out

    assert skins(1) == skins(1) and len(set(skins(1))) > 1


def test_skin_needs_an_html_observation(bundled_shop: Shop) -> None:
    from shopsim.adapters.env import ShopEnv

    with pytest.raises(ConfigError, match="draws the html observation"):
        ShopEnv(bundled_shop, skin="amazon")


@pytest.mark.parametrize(("args", "says"), [
    (["eval", "--skin", "ebay", "--goals", "0:1", "--out", "OUT"], "--adapter inprocess reads no HTML pages"),
    (["serve", "--skin", "amazon", "--profile", "shopsim-v8"], "the shopsim-v8 profile serves no HTML shop"),
    (["serve", "--skin", "amzon"], "invalid choice: 'amzon'"),
])
def test_cli_refuses_a_skin_it_cannot_draw(args: list[str], says: str, tmp_path) -> None:
    import subprocess
    import sys

    argv = [str(tmp_path) if a == "OUT" else a for a in args]
    done = subprocess.run([sys.executable, "-m", "shopsim.cli", *argv], capture_output=True, text=True, timeout=120)
    assert done.returncode != 0 and "Traceback" not in done.stderr
    assert says in done.stderr


@pytest.mark.parametrize("name", list(SKINS))
def test_hostile_text_stays_text(name: str, episodes) -> None:
    """Titles, option values and queries are escaped in markup, attributes and the JSON-LD alike."""
    evil = '</script><script>alert(1)</script>"\'><img src=x onerror=alert(2)>'
    results = next(s for states in episodes for s in states if s.page_type == "results" and s.results)
    item = next(s for states in episodes for s in states if s.page_type == "item" and s.product and s.product.options)
    cards = [c.model_copy(update={"title": evil}) for c in results.results]
    axis = next(iter(item.product.options))
    product = item.product.model_copy(update={"title": evil, "description": evil,
                                              "options": {**item.product.options, axis: [evil]}})
    for state in (results.model_copy(update={"results": cards, "query": evil}),
                  item.model_copy(update={"product": product, "instruction": evil})):
        html = get_skin(name).render(state, None)
        assert "<script>alert(1)" not in html and "<img src=x" not in html
