"""Real pages under the v8 contract: the same observation_state shape and text structure as sim pages.

Every real page of ../shared renders (JSON and text) without error; results and product pages have
the sim's line structure; options are ``axis=value`` with the page's raw axis names (Chinese ones
kept as they are); ``buy now`` appears only once every axis has a value; a real page names its shop
and currency. Synthetic PageStates (our own: Chinese axis names, CNY prices) cover the Chinese shops
whatever today's translators read of the saved pages.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import SHARED

from shopsim.page import Clickable, PageState, ProductView, ResultCard
from shopsim.v8.observation_state import (
    ObservationState,
    observation_from_page_state,
    page_state_from_observation,
)
from shopsim.v8.observation_text import page_view, render_observation_text

REAL = SHARED / "fixtures" / "real"
needs_real = pytest.mark.skipif(not REAL.exists(), reason=f"the real pages are not at {REAL} (not redistributed)")
NAV = ("next >", "< prev", "back to search", "buy now")


def _pages(kind: str | None = None, sites: tuple[str, ...] = ("amazon", "ebay", "other")) -> list[Path]:
    if not REAL.exists():
        return []
    return sorted(p for site in sites for p in (REAL / site).glob(f"{kind or '*'}/*.html"))


def _url(path: Path) -> str | None:
    key = path.with_name(path.stem + ".expected.json")
    return json.loads(key.read_text(encoding="utf-8")).get("url") if key.exists() else None


def _shape(text: str) -> list[str]:
    """Line kinds of a v8 text observation (content removed)."""
    out = []
    for line in text.splitlines():
        for kind, pat in (("origin", r"^Real page from "), ("head", r"^(Search results for|Product .+?: )"),
                          ("count", r"^Showing"), ("entry", r"^\d+\. "), ("option", r"^option "),
                          ("clicks", r"^Clickable values: ")):
            if re.match(pat, line):
                out.append(kind)
                break
    return [k for i, k in enumerate(out) if i == 0 or k != out[i - 1]]


def _translate(path: Path) -> PageState:
    from shopsim.cli.translate import translate_path

    return translate_path(str(path), _url(path), None)


@needs_real
@pytest.mark.parametrize("path", _pages(), ids=lambda p: p.stem)
def test_every_real_page_renders_under_the_v8_contract(path: Path) -> None:
    """Any page (read or not) gives a valid observation_state and a text with the sim's structure."""
    state = _translate(path)
    obs = observation_from_page_state(state)
    assert ObservationState.model_validate(json.loads(page_view(state, "json"))) == obs
    text = page_view(state, "text")
    assert text == render_observation_text(obs) and "[SEP]" not in text and "search[" not in text
    assert obs.origin is not None and text.startswith("Real page from ")
    if state.currency:
        assert f"prices in {state.currency}" in text.splitlines()[0]
    assert len(set(obs.clickables)) == len(obs.clickables)
    if obs.page_type == "results" and obs.results:
        assert _shape(text) == ["origin", "head", "count", "entry", "clicks"]
        assert [c for c in obs.clickables if c not in NAV] == [r.asin for r in obs.results]
    elif obs.page_type == "product":
        assert obs.product is not None and _shape(text)[:2] == ["origin", "head"]
        assert _shape(text)[-1] == "clicks"
        options = [c for c in obs.clickables if c not in NAV]
        assert all(c.split("=", 1)[0] in obs.product.option_axes for c in options)
        assert ("buy now" in obs.clickables) == obs.options_complete == (not obs.missing_option_axes)
    elif obs.page_type == "search":
        assert not obs.search_available and "This page shows nothing to search or buy." in text
        assert state.page_type in ("blocked", "unknown") and obs.origin.note


@needs_real
@pytest.mark.parametrize("path", _pages("search"), ids=lambda p: p.stem)
def test_real_results_pages_read_like_sim_results(path: Path) -> None:
    state = _translate(path)
    obs = observation_from_page_state(state)
    if state.page_type != "results" or not state.results:
        pytest.skip(f"{path.name} has no result cards as read today ({state.page_type})")
    assert obs.page_type == "results" and not obs.search_available
    assert [r.asin for r in obs.results] == list(dict.fromkeys(r.id for r in state.results))
    assert obs.search_text == state.query


@needs_real
@pytest.mark.parametrize("path", _pages("item"), ids=lambda p: p.stem)
def test_real_item_pages_use_axis_qualified_options(path: Path) -> None:
    state = _translate(path)
    if state.page_type != "item" or state.product is None:
        pytest.skip(f"{path.name} is not an item page as read today ({state.page_type})")
    obs = observation_from_page_state(state)
    assert obs.product is not None
    for axis, values in state.product.options.items():
        for value in values:
            assert f"{axis}={value}" in obs.clickables
    assert obs.product.shop_name == (state.shop or "")


# ---- synthetic Chinese pages (our own PageStates) --------------------------------------------------
def _taobao(selected: dict[str, str | None], price: float | tuple[float, float] = 899.0) -> PageState:
    product = ProductView(id="600000000001", title="加厚羽绒服女中长款 大毛领", price=price, currency="CNY",
                          options={"尺码": ["S", "M", "M"], "颜色分类": ["灰色（预售）", "黑色"], "空轴": []},
                          selected=selected, attributes=["品牌: 某某", "面料: 聚酯纤维"], category_path=["女装", "羽绒服"])
    return PageState(page_type="item", site="other", shop="taobao", currency="CNY",
                     url="https://item.taobao.com/item.htm?id=600000000001", product=product)


def test_chinese_item_axes_keep_their_raw_names_and_buy_waits_for_every_axis() -> None:
    obs = observation_from_page_state(_taobao({"尺码": None, "颜色分类": None}))
    assert obs.page_type == "product" and obs.product is not None
    assert obs.product.option_axes == {"尺码": ["S", "M"], "颜色分类": ["灰色（预售）", "黑色"]}  # no empty axis
    assert obs.clickables == ["尺码=S", "尺码=M", "颜色分类=灰色（预售）", "颜色分类=黑色", "< prev", "back to search"]
    assert obs.missing_option_axes == ["尺码", "颜色分类"] and obs.selected_price is None
    assert (obs.product.shop_name, obs.product.brand, obs.product.price) == ("taobao", "某某", 899.0)
    assert obs.origin is not None and (obs.origin.shop, obs.origin.currency) == ("taobao", "CNY")
    half = observation_from_page_state(_taobao({"尺码": "M", "颜色分类": None}))
    assert "buy now" not in half.clickables and half.missing_option_axes == ["颜色分类"]
    full = observation_from_page_state(_taobao({"尺码": "M", "颜色分类": "黑色"}))
    assert full.clickables[-1] == "buy now" and full.options_complete and full.selected_price == 899.0
    text = render_observation_text(full)
    assert text.splitlines()[0] == "Real page from taobao; prices in CNY."
    assert "option 颜色分类: 灰色（预售） / 黑色 (selected: 黑色)" in text
    assert "selected price: 899" in text and "shop: taobao" in text and "brand: 某某" in text


def test_a_displayed_range_is_the_listed_price_not_the_sku_price() -> None:
    obs = observation_from_page_state(_taobao({"尺码": "S", "颜色分类": "黑色"}, price=(680.0, 1580.0)))
    assert obs.product is not None and obs.product.price == (680.0, 1580.0)
    assert obs.selected_price is None and "buy now" in obs.clickables
    text = render_observation_text(obs)
    assert "listed price: 680 - 1580" in text and "selected price: unknown" in text


def test_a_value_the_page_does_not_offer_is_not_selected() -> None:
    obs = observation_from_page_state(_taobao({"尺码": "XXL", "颜色分类": "黑色"}))
    assert obs.selected_options == {"颜色分类": "黑色"} and obs.missing_option_axes == ["尺码"]


def test_chinese_results_page_names_each_product_once() -> None:
    cards = [ResultCard(id="100105483276", title="vivo iQOO 手机", price=1999.0),
             ResultCard(id="100105483276", title="vivo iQOO 手机（广告）", price=1999.0, sponsored=True),
             ResultCard(id="100058934613", title="Redmi Note 12T Pro", price=(1199.0, 1299.0))]
    state = PageState(page_type="results", site="other", shop="jd.com", currency="CNY", query="手机", page_num=1,
                      results=cards, clickables=[Clickable(arg="next >", text="Next", kind="next")])
    obs = observation_from_page_state(state)
    assert obs.clickables == ["100105483276", "100058934613", "next >", "back to search"]
    assert [(r.rank, r.price) for r in obs.results] == [(1, 1999.0), (2, (1199.0, 1299.0))]
    text = render_observation_text(obs)
    assert _shape(text) == ["origin", "head", "count", "entry", "clicks"]
    assert "Search results for: 手机" in text and "2. 100058934613 | Redmi Note 12T Pro | price: 1199 - 1299" in text
    back = page_state_from_observation(obs, "找手机")
    assert [c.arg for c in back.clickables][:2] == ["100105483276", "100058934613"]


def test_blocked_page_says_why_and_offers_nothing() -> None:
    state = PageState(page_type="blocked", site="other", shop="jd.com", reason="访问频繁 (rate limited)")
    obs = observation_from_page_state(state)
    assert obs.page_type == "search" and not obs.search_available and obs.clickables == []
    text = render_observation_text(obs)
    assert "Note: blocked page: 访问频繁 (rate limited)" in text and "This page shows nothing to search or buy." in text
    assert "Nothing is clickable on this page." in text


def test_sim_results_page_has_the_same_shape_and_no_origin() -> None:
    from shopsim.simsite.v8.session import V8Session
    from shopsim.simsite.v8.shop import V8Shop

    shop = V8Shop.load()
    s = V8Session(shop, shop.goals[0])
    s.step(f"search[{shop.goals[0].simple_text[:10]}]")
    assert s.state.origin is None
    assert _shape(s.observation()) == ["head", "count", "entry", "clicks"]


@needs_real
def test_translate_cli_profile_v8() -> None:
    page = _pages("search", ("amazon",))[0]
    exe = str(Path(sys.executable).with_name("shopsim"))
    out = subprocess.run([exe, "translate", str(page), "--profile", "shopsim-v8", "--format", "text"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and "Clickable values:" in out.stdout and "[SEP]" not in out.stdout
    out = subprocess.run([exe, "translate", str(page), "--profile", "shopsim-v8", "--format", "json"],
                         capture_output=True, text=True, timeout=60)
    doc = json.loads(out.stdout)
    assert doc["schema_version"] == "shopping-observation-v7" and doc["origin"]["currency"] == "USD"
