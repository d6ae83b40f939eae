"""Hostile and unlucky shop pages that once cost seconds or were misread: each stays bounded and right.

Each case was found by reading the issue-22 translators as an attacker would (a deep chain of wide
JSON objects, a 40 KB attribute, a title of 120,000 brackets, page numbers that are no numbers) or
as an unlucky shop would (a product named like a wall). Bounds are CPU seconds against
pathological work, not benchmarks.
"""

from __future__ import annotations

import json
import time

import pytest

from shopsim.page import PageState
from shopsim.translators.registry import translate_html

JD_ITEM = "https://item.jd.com/100012345678.html"
TAOBAO_ITEM = "https://item.taobao.com/item.htm?id=123456789"


def _timed(html: str, url: str | None) -> tuple[PageState, float]:
    start = time.process_time()
    state = translate_html(html, url)
    return state, time.process_time() - start


def test_a_deep_chain_of_wide_json_objects_is_walked_within_its_budget() -> None:
    chain = "1"
    for _ in range(800):  # 2.4 MB: each level holds the next and 999 empty objects
        chain = "[" + chain + "," + ",".join(["{}"] * 999) + "]"
    state, cpu = _timed(f"<html><body><script>window.__INITIAL_STATE__={chain};</script></body></html>", JD_ITEM)
    assert cpu < 2.0 and state.page_type == "unknown" and state.reason


@pytest.mark.parametrize("page", [
    '<html><body><div id="choose-attrs"><div class="li p-choose" data-type="' + " " * 40_000 + 'x">'
    '<div class="dd"><div class="item selected" data-value="黑色"><a>黑色</a></div></div></div></div></body></html>',
    '<html><head><meta property="og:title" content="' + "【" * 120_000 + '"></head><body><p>x</p></body></html>',
], ids=["long-axis-attribute", "bracket-title"])
def test_long_attributes_and_titles_cost_no_quadratic_time(page: str) -> None:
    state, cpu = _timed(page, JD_ITEM)
    assert cpu < 2.0 and isinstance(state, PageState)


@pytest.mark.parametrize(("title", "url"), [
    ("Punisher Skull Hoodie | Example Shop", "https://shop.example/p/punisher-skull-hoodie-1"),
    ("YubiKey 5 NFC 安全验证密钥 黑色-京东", JD_ITEM),
    ("登录器 游戏手柄 - 淘宝网", TAOBAO_ITEM),
])
def test_products_named_like_walls_are_products(title: str, url: str) -> None:
    name = title.split(" |")[0].rsplit("-", 1)[0].strip()
    page = (f"<html><head><title>{title}</title></head><body><h1>{name}</h1><div class=sku-name>{name}</div>"
            "<span class=price>¥129.00</span><span class=p-price>¥129.00</span><button>加入购物车 Add to cart</button>"
            + "<p>product details</p>" * 8_000 + "</body></html>")
    state = translate_html(page, url)
    assert state.page_type == "item" and state.product is not None and state.product.title == name


def test_a_small_rate_limit_page_is_still_a_wall() -> None:
    state = translate_html("<html><head><title>京东验证</title></head><body>访问频繁，请稍后再试</body></html>", JD_ITEM)
    assert state.page_type == "blocked"


@pytest.mark.parametrize(("current", "query"), [("²", "q=mugs"), ("2", "q=mugs&page=" + "9" * 5_000)])
def test_page_numbers_that_are_no_numbers_keep_the_results(current: str, query: str) -> None:
    cards = "".join(f'<div class="product-card"><a href="/p/{i}">Blue mug {i}</a><span class="price">$ {i}.00</span></div>'
                    for i in range(1, 11))
    page = f'<html><body><div class="pagination"><span class="current">{current}</span></div>{cards}</body></html>'
    state = translate_html(page, f"https://shop.example/search?{query}")
    assert state.page_type == "results" and len(state.results) == 10


def test_the_page_state_after_many_small_script_literals_is_found() -> None:
    small = "".join(f'a{i}=["x{i}"];' for i in range(60))
    data = {"item": {"itemId": "100012345678", "subject": "真正的商品标题", "formatedActivityPrice": "¥12.90",
                     "skuProps": [{"name": "颜色", "values": [{"name": "黑色"}, {"name": "白色"}]}]}}
    page = f"<html><body><script>{small}window.__INITIAL_STATE__={json.dumps(data, ensure_ascii=False)};</script></body></html>"
    state = translate_html(page, JD_ITEM)
    assert state.product is not None and state.product.title == "真正的商品标题"
    assert state.product.options == {"颜色": ["黑色", "白色"]}


def test_infinite_sku_prices_are_no_prices() -> None:
    data = ('{"item":{"itemId":"123456789","subject":"商品标题测试","formatedActivityPrice":"¥12.90","props":[{"name":"颜色",'
            '"pid":"1","values":[{"name":"黑色","vid":"10"},{"name":"白色","vid":"11"}]}]},"skuBase":{"skus":[{"propPath":'
            '"1:10","skuId":"5"},{"propPath":"1:11","skuId":"6"}]},"skuCore":{"sku2info":{"5":{"price":Infinity},'
            '"6":{"price":1e400}}}}')
    state = translate_html(f"<html><body><h1>x</h1><script>window.__INITIAL_STATE__={data};</script></body></html>",
                           TAOBAO_ITEM)
    assert state.product is not None and state.product.sku_prices == []


def test_an_item_address_showing_no_product_is_no_item_page() -> None:
    state = translate_html("<html><body><dialog open>请稍候</dialog><script>var a = 1;</script></body></html>", JD_ITEM)
    assert state.page_type == "unknown" and state.reason
