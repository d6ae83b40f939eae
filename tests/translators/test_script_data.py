"""Script data: product lists, one product's fields and SKU axes read from inline scripts, bounded,
never executed, and nothing from JavaScript that is not JSON.
"""

from __future__ import annotations

import json
import time

from selectolax.lexbor import LexborHTMLParser

from shopsim.translators.answer_key import to_annotation_json
from shopsim.translators.registry import translate_html
from shopsim.translators.script_data import (
    MAX_SCRIPTS,
    script_blobs,
    script_listing,
    script_product,
    script_text,
    sku_axes,
)

GOODS = [{"goodsCode": f"88{i:04d}", "goodsName": f"Desk lamp model {i}", "goodsPrice": f"${i},299",
          "isAdGoods": i == 2, "goodsUrl": f"/goods/{i}"} for i in range(1, 6)]


def _tree(scripts: str) -> LexborHTMLParser:
    return LexborHTMLParser(f"<html><head></head><body><div id='app'></div>{scripts}</body></html>")


def test_listing_from_a_window_global() -> None:
    state = json.dumps({"search": {"total": 5, "goods": GOODS}})
    blobs = script_blobs(_tree(f"<script>window.__INITIAL_STATE__ = {state};</script>"))
    assert blobs[0].name == "__INITIAL_STATE__"
    items = script_listing(blobs)
    assert [(i.id, i.title, i.price, i.sponsored) for i in items[:2]] == [
        ("880001", "Desk lamp model 1", "$1,299", False), ("880002", "Desk lamp model 2", "$2,299", True)]
    assert len(items) == 5


def test_listing_from_next_data_and_flight_payload_chunks() -> None:
    nxt = json.dumps({"props": {"pageProps": {"items": GOODS}}})
    assert len(script_listing(script_blobs(_tree(
        f'<script id="__NEXT_DATA__" type="application/json">{nxt}</script>')))) == 5
    line = "7:" + json.dumps({"goodsInfoList": GOODS}) + "\n"
    half = len(line) // 2
    chunks = "".join(f"<script>self.__next_f.push([1,{json.dumps(part)}])</script>" for part in (line[:half],
                                                                                                 line[half:]))
    items = script_listing(script_blobs(_tree("<script>self.__next_f.push([0])</script>" + chunks)))
    assert [i.id for i in items] == [g["goodsCode"] for g in GOODS]


def test_a_list_repeated_in_the_payload_is_read_once() -> None:
    doc = json.dumps({"a": {"goodsInfoList": GOODS}, "b": {"goodsInfoList": GOODS}})
    assert len(script_listing(script_blobs(_tree(f"<script>var data = {doc};</script>")))) == 5


def test_javascript_that_is_not_json_gives_nothing() -> None:
    scripts = ("<script>var cfg = {items: [{title: 'a', price: 1}, {title: 'b', price: 2}], }; "
               "g_page_config = {'mods': {'itemlist': {data: {auctions: []}}}};</script>"
               "<script>var f = function(){ return {\"a\": undefined}; }</script>")
    blobs = script_blobs(_tree(scripts))
    assert script_listing(blobs) == [] and script_product(blobs) is None and sku_axes(blobs) == {}


def test_sku_axes_in_each_shape_shops_use() -> None:
    shapes = {
        "skuProps": [{"prop": "包装规格", "value": [{"name": "250克"}, {"name": "500克"}]}],
        "props": [{"name": "颜色分类", "values": [{"vid": "1", "name": "黑色"}, {"vid": "2", "name": "白色"}]}],
        "productSKUPropertyList": [{"skuPropertyName": "Color", "skuPropertyValues": [
            {"propertyValueDisplayName": "Red"}, {"propertyValueName": "blue"}]}],
    }
    expected = [{"包装规格": ["250克", "500克"]}, {"颜色分类": ["黑色", "白色"]}, {"Color": ["Red", "blue"]}]
    for (key, value), want in zip(shapes.items(), expected, strict=True):
        doc = json.dumps({"model": {key: value}})
        assert sku_axes(script_blobs(_tree(f"<script>window.context = load('/p', {doc});</script>"))) == want


def test_one_products_fields_by_id_and_by_key() -> None:
    doc = json.dumps({"rec": [{"itemId": "111", "title": "Other", "price": "9"}],
                      "item": {"itemId": "222", "title": "This one", "price": "19.90"},
                      "priceModule": {"formatedActivityPrice": "US $1.99"}})
    blobs = script_blobs(_tree(f"<script>var d = {doc};</script>"))
    found = script_product(blobs, "222")
    assert found is not None and found.title == "This one" and found.price == "19.90"
    assert script_text(blobs, ("formatedActivityPrice",)) == "US $1.99"


def test_reading_is_bounded_on_hostile_scripts() -> None:
    deep = "<script>var x = " + "[" * 200_000 + '"a"' + "]" * 200_000 + ";</script>"
    noise = "<script>" + '{"a' * 300_000 + "</script>"
    many = "".join(f'<script>var v{i} = {{"k": "{"x" * 50}"}};</script>' for i in range(MAX_SCRIPTS + 200))
    nested = "<script>var n = " + '{"a":' * 40 + '"' + "x" * 2_000_000 + '"' + "}" * 39 + ", f: g()};</script>"
    for scripts in (deep, noise, many, nested):
        start = time.perf_counter()
        blobs = script_blobs(_tree(scripts))
        script_listing(blobs)
        sku_axes(blobs)
        assert time.perf_counter() - start < 2.0
    assert len(script_blobs(_tree(many))) <= MAX_SCRIPTS


def test_generic_shop_whose_products_are_only_in_scripts_is_a_results_page() -> None:
    nxt = json.dumps({"props": {"pageProps": {"results": GOODS}}})
    html = (f"<html><head><title>lamp - Example Shop</title></head><body><div id='__next'></div>"
            f'<script id="__NEXT_DATA__" type="application/json">{nxt}</script></body></html>')
    got = to_annotation_json(translate_html(html, "https://shop.example.com/search?q=lamp"))
    assert got["page_type"] == "results" and got["query"] == "lamp"
    assert [(r["id"], r["price"], r["sponsored"]) for r in got["results"][:2]] == [
        ("880001", 1299.0, False), ("880002", 2299.0, True)]
