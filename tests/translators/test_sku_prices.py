"""Each SKU's own price from the Chinese shops' SKU maps, and the v8 price of a full selection.

Synthetic pages (our own markup, in each layout's public shape) cover the classic ``skuMap``, the
React pages' ``skuBase`` + ``sku2info``, AliExpress' ``skuPriceList`` and ``skuPaths`` +
``skuIdStrPriceInfoMap``, 1688's ``skuInfoMap`` and JD's ``colorSize``; the dev pages of ../shared
that carry a SKU map are read as well. Pages without per-SKU prices keep an empty list, so answer
keys and sim pages are unchanged.
"""

from __future__ import annotations

import pytest

from shopsim.agents.transfer.v8_session import RealV8Session, v8_product
from shopsim.page import PageState, ProductView, SkuPrice
from shopsim.simsite.v8.records import V8Task
from shopsim.translators.answer_key import to_annotation_json
from shopsim.translators.registry import translate_file, translate_html
from shopsim.v8.observation_state import observation_from_page_state
from shopsim.v8.observation_text import render_observation_text
from tests.conftest import REAL_PAGES, needs_shared
from tests.translators._china_pages import TMALL_CLASSIC

CLASSIC_MAP = TMALL_CLASSIC.replace("</body>", """<script>TShop.Setup({"valItemInfo": {"defSelected": [],
"skuMap": {";1627207:28320;5919063:1;2:30;": {"price": "99.00", "stock": "5", "skuId": "41"},
";1627207:28321;5919063:1;2:30;": {"price": "109.00", "stock": "5", "skuId": "42"},
";1627207:28320;5919063:1;2:60;": {"price": "189.00", "stock": "0", "skuId": "43"},
";1627207:99999;5919063:1;2:60;": {"price": "1.00", "stock": "0", "skuId": "44"}}}});</script></body>""")

REACT_TAOBAO = """<html><head><title>纯棉T恤-淘宝网</title></head><body>
<div class="ItemHeader--root--a1"><h1 class="ItemHeader--mainTitle--b2">纯棉短袖T恤 男</h1></div>
<div class="Price--root--c3"><span class="Price--priceText--d4">39-59</span></div>
<script>window.__ICE_APP_CONTEXT__ = {"loaderData": {"home": {"data": {"res": {"item": {"itemId": "700000000001"},
"skuBase": {"props": [{"pid": "1627207", "name": "颜色分类", "values": [{"vid": "11", "name": "白色"},
{"vid": "12", "name": "黑色"}]}, {"pid": "20509", "name": "尺码", "values": [{"vid": "21", "name": "M"},
{"vid": "22", "name": "XL"}]}], "skus": [{"propPath": "1627207:11;20509:21", "skuId": "901"},
{"propPath": "1627207:11;20509:22", "skuId": "902"}, {"propPath": "1627207:12;20509:21", "skuId": "903"}]},
"skuCore": {"sku2info": {"0": {"price": {"priceText": "39-59"}}, "901": {"price": {"priceText": "49.00"},
"subPrice": {"priceText": "39.00"}}, "902": {"price": {"priceText": "59.00"}}, "903": {"quantity": "3"}}}}}}}};</script>
</body></html>"""

ALIEXPRESS_RUN_PARAMS = """<html><head><title>Phone Case - AliExpress</title></head><body>
<h1 data-pl="product-title">Silicone Case</h1>
<script>window.runParams = {"data": {"skuModule": {"productSKUPropertyList": [{"skuPropertyId": 14,
"skuPropertyName": "Color", "skuPropertyValues": [{"propertyValueId": 193, "propertyValueDisplayName": "Black"},
{"propertyValueId": 29, "propertyValueDisplayName": "White"}]}], "skuPriceList": [{"skuPropIds": "193",
"skuAttr": "14:193#Black", "skuVal": {"skuActivityAmount": {"value": 2.5, "formatedAmount": "US $2.50"},
"skuAmount": {"value": 5.0}}}, {"skuPropIds": "29", "skuAttr": "14:29#White", "skuVal": {"skuAmount": {"value": 4.0,
"formatedAmount": "US $4.00"}}}]}}};</script></body></html>"""

ALIEXPRESS_2024 = """<html><head><title>Mouse - AliExpress</title></head><body>
<h1 data-pl="product-title">Wireless Mouse</h1>
<script>window._d_c_.DCData = {"SKU": {"skuProperties": [{"skuPropertyId": 14, "skuPropertyName": "Color",
"skuPropertyValues": [{"propertyValueIdLong": 175, "propertyValueDisplayName": "Grey"}, {"propertyValueIdLong": 176,
"propertyValueDisplayName": "Pink"}]}], "skuPaths": [{"path": "14:175", "skuIdStr": "1201"},
{"path": "14:176", "skuIdStr": "1202"}]}, "PRICE": {"skuIdStrPriceInfoMap": {"1201": {"salePriceString": "US $7.10"},
"1202": {"salePriceString": "US $8.20"}}}};</script></body></html>"""

OD_1688 = """<html><head><title>新疆红枣 - 阿里巴巴</title></head><body>
<div class="title-content"><h1>新疆红枣 特级</h1></div>
<script>window.__INIT_DATA = {"globalData": {"skuModel": {"skuProps": [{"fid": 1, "prop": "规格", "value": [
{"name": "250克"}, {"name": "500克"}]}, {"fid": 2, "prop": "等级", "value": [{"name": "一级"}, {"name": "特级"}]}],
"skuInfoMap": {"250克&gt;一级": {"specAttrs": "250克&gt;一级", "price": "5.10", "skuId": 1},
"500克&gt;特级": {"specAttrs": "500克&gt;特级", "discountPrice": "9.90", "price": "12.00", "skuId": 2}}}}};</script>
</body></html>"""

JD_PRICED = """<html><head><title>【小米】小米 14 -京东</title></head><body><div class="sku-name">小米 14 手机</div>
<script>var pageConfig = {"product": {"skuid": 100000000003, "colorSize": [{"skuId": 100000000003, "颜色": "黑色",
"版本": "256GB", "price": "3999.00"}, {"skuId": 100000000004, "颜色": "白色", "版本": "512GB", "price": "4299.00"}]}};
</script></body></html>"""

JD_UNPRICED = JD_PRICED.replace(', "price": "3999.00"', "").replace(', "price": "4299.00"', "")


def _prices(html: str, url: str) -> dict[tuple[tuple[str, str], ...], float]:
    p = translate_html(html, url).product
    assert p is not None
    return {tuple(sorted(s.options.items())): s.price for s in p.sku_prices}


def test_classic_sku_map_prices_each_combination_by_its_rows_property_ids() -> None:
    got = _prices(CLASSIC_MAP, "https://detail.tmall.com/item.htm?id=600000000001")
    assert got == {(("净含量", "750g"), ("口味", "原味"), ("袋数", "30")): 99.0,
                   (("净含量", "750g"), ("口味", "盐焗"), ("袋数", "30")): 109.0,
                   (("净含量", "750g"), ("口味", "原味"), ("袋数", "60")): 189.0}  # vid 99999 is no row value


def test_react_taobao_skus_priced_by_sku2info_promotion_first() -> None:
    got = _prices(REACT_TAOBAO, "https://item.taobao.com/item.htm?id=700000000001")
    assert got == {(("尺码", "M"), ("颜色分类", "白色")): 39.0, (("尺码", "XL"), ("颜色分类", "白色")): 59.0}


@pytest.mark.parametrize(("html", "want"), [
    (ALIEXPRESS_RUN_PARAMS, {(("Color", "Black"),): 2.5, (("Color", "White"),): 4.0}),
    (ALIEXPRESS_2024, {(("Color", "Grey"),): 7.1, (("Color", "Pink"),): 8.2}),
])
def test_aliexpress_sku_price_lists(html: str, want: dict) -> None:
    assert _prices(html, "https://www.aliexpress.com/item/1005001234567890.html") == want


def test_1688_sku_info_map_keyed_by_value_names() -> None:
    got = _prices(OD_1688, "https://detail.1688.com/offer/800000000001.html")
    assert got == {(("等级", "一级"), ("规格", "250克")): 5.1, (("等级", "特级"), ("规格", "500克")): 9.9}


def test_jd_color_size_records_only_when_they_carry_prices() -> None:
    url = "https://item.jd.com/100000000003.html"
    assert _prices(JD_PRICED, url) == {(("版本", "256GB"), ("颜色", "黑色")): 3999.0,
                                       (("版本", "512GB"), ("颜色", "白色")): 4299.0}
    assert _prices(JD_UNPRICED, url) == {}


@needs_shared
@pytest.mark.parametrize(("name", "url", "count", "some"), [
    ("taobaospider_taobao-item-ffan-down-coat_561495525977_2018", "https://item.taobao.com/item.htm?id=561495525977",
     24, ({"尺码": "XS", "颜色分类": "灰色（预售18天）"}, 899.0)),
    ("ecommerceapi_1688-item-xinjiang-dates_823801520021_2026", "https://detail.1688.com/offer/823801520021.html",
     9, ({"包装规格": "和田枣一级500克（4-4.5cm）"}, 8.2)),
])
def test_dev_pages_with_a_sku_map(name: str, url: str, count: int, some: tuple[dict[str, str], float]) -> None:
    path = REAL_PAGES / "other" / "item" / f"{name}.html"
    state = translate_file(path, url)
    p = state.product
    assert p is not None and len(p.sku_prices) == count
    assert all(s.options.keys() == p.options.keys() and all(v in p.options[a] for a, v in s.options.items())
               for s in p.sku_prices)
    assert p.sku_price(some[0]) == some[1]
    chosen = state.model_copy(update={"product": p.model_copy(update={"selected": dict(some[0])})})
    assert observation_from_page_state(state).selected_price is None
    assert observation_from_page_state(chosen).selected_price == some[1]
    bare = state.model_copy(update={"product": p.model_copy(update={"sku_prices": []})})
    assert to_annotation_json(state) == to_annotation_json(bare)  # the answer key's JSON is unchanged


def _dates(price: float | tuple[float, float] | None = (3.8, 8.2)) -> PageState:
    product = ProductView(id="800000000001", title="新疆红枣", price=price, currency="CNY",
                          options={"规格": ["250克", "500克"]}, selected={"规格": None},
                          sku_prices=[SkuPrice(options={"规格": "250克"}, price=3.8),
                                      SkuPrice(options={"规格": "500克"}, price=8.2)])
    return PageState(page_type="item", site="other", shop="1688", currency="CNY",
                     url="https://detail.1688.com/offer/800000000001.html", product=product)


def test_v8_selected_price_is_the_chosen_skus_own_price() -> None:
    page = _dates()
    assert page.product is not None
    obs = observation_from_page_state(page)
    assert obs.selected_price is None and obs.missing_option_axes == ["规格"]
    chosen = page.model_copy(update={"product": page.product.model_copy(update={"selected": {"规格": "500克"}})})
    obs = observation_from_page_state(chosen)
    assert obs.options_complete and obs.selected_price == 8.2 and obs.product is not None
    assert obs.product.price == (3.8, 8.2)  # the listed range stays what the page lists
    assert "8.2" in render_observation_text(obs)
    plain = chosen.model_copy(update={"product": chosen.product.model_copy(update={"sku_prices": []})})  # type: ignore[union-attr]
    assert observation_from_page_state(plain).selected_price is None  # a range alone says nothing of one SKU


def test_v8_session_buys_at_the_selected_skus_price() -> None:
    page = _dates()
    task = V8Task(task_id=1, asin="800000000001", instruction="买红枣，5元以内", options=[(None, "250克")])
    s = RealV8Session(page, {}, task, v8_product(page), start="product")
    assert s.state.selected_price is None
    s.step("click[规格=250克]")
    assert s.state.selected_price == 3.8
    s.step("click[buy now]")
    assert s.detail is not None and s.detail.selected_price == 3.8 and s.detail.r_price == 1.0
    dear = RealV8Session(page, {}, task, v8_product(page), start="product")
    dear.step("click[规格=500克]")
    dear.step("click[buy now]")
    assert dear.detail is not None and dear.detail.selected_price == 8.2 and dear.detail.r_price == 0.0


def test_pages_without_a_sku_map_keep_no_sku_prices() -> None:
    p = ProductView(id="1", title="t", price=1.0)
    assert p.sku_prices == [] and p.sku_price({}) is None
    assert "sku_prices" not in p.model_dump(exclude_defaults=True)
