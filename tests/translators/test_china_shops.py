"""Chinese shops: item and results pages in each shop's layouts, their walls, and the dev pages.

The layouts are our own small pages written after the public descriptions of these shops' markup
(class words, ids, data attributes, script globals); the real dev pages are read from ../shared.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shopsim.translators.answer_key import NO_URL_NEXT, to_annotation_json
from shopsim.translators.china_shops import ChinaShopTranslator
from shopsim.translators.clickables import has_next_page
from shopsim.translators.registry import translate_file, translate_html
from tests.conftest import REAL_PAGES, needs_shared
from tests.translators._china_pages import (
    ALIEXPRESS_2021,
    ALIEXPRESS_2024,
    ALIEXPRESS_RUNPARAMS,
    ALIEXPRESS_SEARCH,
    JD_2026,
    JD_2026_SPEC,
    JD_SEARCH,
    S1688,
    S1688_2025,
    TAOBAO_2025,
    TAOBAO_2026,
    TAOBAO_SEARCH_2024,
    TAOBAO_SEARCH_SCRIPT,
    TMALL_CLASSIC,
    TMALL_LIST,
    TMALL_SCRIPT_ONLY,
)


# ------------------------------------------------------------------------------ item pages --
def _item(html: str, url: str | None = None) -> dict:
    state = translate_html(html, url)
    assert state.page_type == "item", state.reason
    return to_annotation_json(state)


def test_taobao_react_item_reads_hashed_class_layout() -> None:
    got = _item(TAOBAO_2026)
    assert got["shop"] == "taobao" and got["currency"] == "CNY" and got["id"] == "781234567890"
    assert got["title"] == "冬季加厚羽绒服 女 中长款"
    assert got["price"] == 459.0  # the struck original price is not the price
    assert got["options"] == {"颜色分类": ["黑色", "杏色"], "尺码": ["S", "M"]}
    assert got["selected"] == {"颜色分类": "黑色", "尺码": None}


def test_tmall_classic_item_promo_price_and_sale_props() -> None:
    got = _item(TMALL_CLASSIC, "https://detail.tmall.com/item.htm?id=520000000001")
    assert (got["shop"], got["id"], got["price"]) == ("tmall", "520000000001", 99.0)  # the promo price shown
    assert got["title"] == "良品铺子 每日坚果 混合果仁 750g/30袋"
    assert got["options"] == {"口味": ["原味", "盐焗"], "净含量": ["750g"], "袋数": ["30", "60"]}
    assert got["selected"] == {"口味": "原味", "净含量": None, "袋数": None}


def test_taobao_2025_item_with_prefixless_hashed_classes() -> None:
    got = _item(TAOBAO_2025, "https://item.taobao.com/item.htm?spm=a21n57&id=700000000001")
    assert (got["id"], got["title"], got["price"]) == ("700000000001", "新款连衣裙", 129.0)  # not the struck 199
    assert got["options"] == {"颜色分类": ["白色", "黑色"]} and got["selected"] == {"颜色分类": "白色"}


def test_aliexpress_2021_item_range_price_and_title_value() -> None:
    got = _item(ALIEXPRESS_2021, "https://www.aliexpress.com/item/1005001111111111.html")
    assert (got["id"], got["price"], got["currency"], got["rating"]) == ("1005001111111111", [1.23, 4.56], "USD", 4.7)
    assert got["options"] == {"Color": ["Red", "Blue"], "Model": ["iPhone 15", "iPhone 15 Pro"]}
    assert got["selected"] == {"Color": "Red", "Model": None}


def test_tmall_item_takes_sku_axes_from_script_when_markup_has_none() -> None:
    got = _item(TMALL_SCRIPT_ONLY, "https://detail.tmall.com/item.htm?id=612345678901&skuId=5000000001")
    assert got["shop"] == "tmall" and got["id"] == "612345678901"
    assert got["title"] == "三只松鼠 每日坚果 750g" and got["price"] == 89.9
    assert got["options"] == {"口味": ["原味", "混合坚果"], "净含量": ["750g"]}
    assert got["selected"] == {"口味": None, "净含量": None}


def test_jd_item_without_url_is_recognised_by_its_marks() -> None:
    got = _item(JD_2026)
    assert got["shop"] == "jd.com" and got["currency"] == "CNY"
    assert got["id"] == "100066896338"  # pageConfig's skuid: the page states no URL
    assert got["title"].startswith("Apple iPhone 15 (A3092) 128GB 黑色")
    assert got["price"] == 5999.0
    assert got["options"] == {"颜色": ["黑色", "蓝色"], "版本": ["128GB", "256GB"]}
    assert got["selected"] == {"颜色": "黑色", "版本": "128GB"}
    assert got["category_path"] == ["手机通讯", "手机", "手机", "Apple iPhone 15"]


def test_jd_2026_specification_layout() -> None:
    got = _item(JD_2026_SPEC)
    assert (got["id"], got["shop"], got["price"]) == ("100148282818", "jd.com", 5999.0)
    assert got["title"] == "华为 HUAWEI Mate 70 12GB+512GB 雅川青"
    assert got["options"] == {"系列": ["Mate 70", "Mate 70 Pro"], "颜色": ["雅川青", "曜石黑"],
                              "版本": ["12GB+256GB", "12GB+512GB"]}
    assert got["selected"] == {"系列": "Mate 70", "颜色": "雅川青", "版本": "12GB+512GB"}


def test_jd_item_whose_sku_rows_are_only_in_its_color_size_map() -> None:
    start, end = JD_2026.index('<div id="choose-attrs">'), JD_2026.index('<div class="m-aside">')
    html = (JD_2026[:start] + "</div>" + JD_2026[end:]).replace(
        '"版本":"128GB"}]', '"版本":"128GB"},{"skuId":100066896356,"颜色":"蓝色","版本":"256GB"}]')
    got = _item(html)
    assert got["options"] == {"颜色": ["黑色", "蓝色"], "版本": ["128GB", "256GB"]}
    assert got["selected"] == {"颜色": "黑色", "版本": "128GB"}  # the SKU this page is (pageConfig's skuid)


def test_aliexpress_item_reads_sku_rows_and_their_selected_value() -> None:
    got = _item(ALIEXPRESS_2024)
    assert got["shop"] == "aliexpress.com" and got["id"] == "1005006123456789"
    assert got["title"] == "Wireless Earbuds Bluetooth 5.3 Headphones"
    assert got["price"] == 12.99 and got["currency"] == "USD"
    assert got["options"] == {"Color": ["White", "Black"], "Ships From": ["China", "Spain"]}
    assert got["selected"] == {"Color": "White", "Ships From": None}


def test_aliexpress_item_from_run_params_only() -> None:
    got = _item(ALIEXPRESS_RUNPARAMS, "https://www.aliexpress.us/item/1005001234567890.html")
    assert got["shop"] == "aliexpress.us" and got["id"] == "1005001234567890"
    assert got["title"] == "USB C Cable 100W Fast Charging"  # runParams' subject, not the <title>
    assert got["price"] == 1.99 and got["currency"] == "USD"
    assert got["options"] == {"Color": ["Black", "White"], "Length": ["1m", "2m"]}
    assert got["rating"] == 4.8


# --------------------------------------------------------------------------- results pages --
def test_1688_search_without_url_reads_offer_cards_ads_query_and_next() -> None:
    state = translate_html(S1688)
    got = to_annotation_json(state)
    assert got["page_type"] == "results" and got["shop"] == "1688.com" and got["currency"] == "CNY"
    assert [(r["id"], r["title"], r["price"], r["sponsored"]) for r in got["results"]] == [
        ("700000000001", "透明手机壳适用苹果15", 2.5, True), ("700000000002", "磨砂硅胶手机壳批发", 1.2, False),
        ("700000000003", "卡通手机壳定制", 3.8, False)]
    assert got["query"] == "手机壳"
    assert got["next_page"] and got["next_page_url"] == NO_URL_NEXT  # a script button: offered, no URL made up
    gbk = translate_html(S1688.replace('value="手机壳"', 'value=""'),
                         "https://s.1688.com/selloffer/offer_search.htm?keywords=%CA%D6%BB%FA%BF%C7&beginPage=2")
    assert (gbk.query, gbk.page_num) == ("手机壳", 2)  # 1688 writes its query GBK-encoded


def test_taobao_search_whose_items_are_only_in_g_page_config() -> None:
    url = "https://s.taobao.com/search?q=%E6%89%8B%E6%9C%BA%E5%A3%B3"
    got = to_annotation_json(translate_html(TAOBAO_SEARCH_SCRIPT, url))
    assert got["page_type"] == "results" and got["shop"] == "taobao" and got["query"] == "手机壳"
    assert [(r["id"], r["title"], r["price"]) for r in got["results"]][:2] == [
        ("610000000001", "手机壳款1", 19.0), ("620000000001", "手机壳款2", 29.0)]


def test_search_and_product_actions_go_to_the_shops_own_addresses() -> None:
    translator = ChinaShopTranslator()
    state = translator.parse(JD_SEARCH, "https://search.jd.com/Search?keyword=%E8%80%B3%E6%9C%BA&enc=utf-8")
    assert translator.resolve(state, "search[蓝牙 耳机]").url == \
        "https://search.jd.com/Search?keyword=%E8%93%9D%E7%89%99%20%E8%80%B3%E6%9C%BA&enc=utf-8&page=1"
    assert translator.resolve(state, "click[100020000]").url == "https://item.jd.com/100020000.html"
    step = translator.resolve(state, "click[next >]")
    assert (step.kind, step.url, step.feedback.code) == ("none", None, "not_recorded")  # the next control is a script button
    item = translator.parse(S1688, None)
    assert translator.resolve(item, "search[数据线]").url == \
        "https://s.1688.com/selloffer/offer_search.htm?keywords=%CA%FD%BE%DD%CF%DF&beginPage=1"


def test_1688_2025_search_cards_are_the_offer_links_themselves() -> None:
    url = "https://s.1688.com/selloffer/offer_search.htm?keywords=%CA%FD%BE%DD%CF%DF"  # '数据线' in GBK
    got = to_annotation_json(translate_html(S1688_2025, url))
    assert [(r["id"], r["title"], r["price"], r["sponsored"]) for r in got["results"]] == [
        ("800000000001", "广告款快充数据线", 3.2, True), ("800000000002", "编织数据线 1米", 1.5, False),
        ("800000000003", "磁吸数据线 2米", 4.8, False)]
    assert (got["query"], got["page_num"], got["next_page_url"]) == ("数据线", 1, NO_URL_NEXT)


def test_jd_search_query_from_title_and_next_from_script_button() -> None:
    got = to_annotation_json(translate_html(JD_SEARCH))
    assert got["page_type"] == "results" and got["shop"] == "jd.com"
    assert [r["id"] for r in got["results"]] == ["100010000", "100020000", "100030000", "100040000"]
    assert got["results"][0]["title"] == "蓝牙耳机 1号" and got["results"][0]["price"] == 19.0
    assert [r["sponsored"] for r in got["results"]] == [False, True, False, False]
    assert got["query"] == "耳机"
    assert got["next_page_url"] == NO_URL_NEXT
    saved = "<!-- saved from url=(0046)https://search.jd.com/Search?keyword=ear&enc=utf-8 -->\n" + JD_SEARCH
    state = translate_html(saved)
    assert (state.url, state.query) == ("https://search.jd.com/Search?keyword=ear&enc=utf-8", "ear")
    assert state.next_page_url is None and has_next_page(state)


def test_taobao_and_aliexpress_search_cards_by_their_item_links() -> None:
    url = "https://s.taobao.com/search?q=%E8%BF%9E%E8%A1%A3%E8%A3%99"
    got = to_annotation_json(translate_html(TAOBAO_SEARCH_2024, url))
    assert [(r["id"], r["title"], r["price"]) for r in got["results"]] == [
        ("710000000001", "法式连衣裙 1号", 19.9), ("720000000001", "法式连衣裙 2号", 29.9), ("730000000001", "法式连衣裙 3号", 39.9)]
    assert (got["shop"], got["query"], got["next_page_url"]) == ("taobao", "连衣裙", NO_URL_NEXT)
    got = to_annotation_json(translate_html(ALIEXPRESS_SEARCH, "https://www.aliexpress.com/w/wholesale-usb-cable.html"))
    assert [(r["id"], r["price"], r["sponsored"]) for r in got["results"]] == [
        ("1005001000000", 1.99, False), ("1005002000000", 2.99, True), ("1005003000000", 3.99, False)]
    assert (got["shop"], got["currency"], got["query"]) == ("aliexpress.com", "USD", "usb cable")
    assert got["next_page_url"] == NO_URL_NEXT  # its next control is a button


def test_tmall_list_page_with_a_gbk_query_and_a_next_link() -> None:
    got = to_annotation_json(translate_html(TMALL_LIST, "https://list.tmall.com/search_product.htm?q=%BC%E1%B9%FB"))
    assert [(r["id"], r["title"], r["price"]) for r in got["results"]] == [
        ("510000000001", "三只松鼠 坚果 1", 19.9), ("520000000001", "三只松鼠 坚果 2", 29.9),
        ("530000000001", "三只松鼠 坚果 3", 39.9)]
    assert (got["shop"], got["query"]) == ("tmall", "坚果")
    assert got["next_page_url"] == "https://list.tmall.com/search_product.htm?q=%BC%E1%B9%FB&s=60"


# ---------------------------------------------------------------------------------- walls --
@pytest.mark.parametrize("html", [
    "<html><head><title>京东验证</title></head><body><div>验证一下，购物无忧</div></body></html>",
    "<html><head><title>京东</title></head><body><p>您的访问频繁，请稍后再试</p>"
    "<script src='//misc.360buyimg.com/a.js'></script></body></html>",
    "<html><head><title>验证码拦截</title></head><body><div id='nc_1_n1z'>请按住滑块，拖动到最右边</div></body></html>",
    "<html><head><title>Page unavailable</title></head><body>"
    "<script>var url='/_____tmd_____/punish?x5secdata=abc'</script></body></html>",
    "<html><head><title>淘宝网 - 淘！我喜欢</title></head><body><form><input id='fm-login-id'></form></body></html>",
])
def test_chinese_walls_are_blocked(html: str) -> None:
    state = translate_html(html)
    assert state.page_type == "blocked", (state.page_type, state.reason)
    assert state.reason


def test_item_address_showing_only_the_shop_name_and_a_login_prompt_is_a_wall() -> None:
    html = ("<html><head><title>淘宝网</title></head><body><div class='site-nav'>亲，请登录</div><div id='root'></div>"
            + "<p>x</p>" * 12_000 + "</body></html>")  # larger than a wall page, so only its emptiness tells
    state = translate_html(html, "https://item.taobao.com/item.htm?id=123456789")
    assert (state.page_type, state.reason) == ("blocked", "login wall (亲，请登录)")


def test_login_link_on_a_real_item_page_is_no_wall() -> None:
    assert translate_html(TAOBAO_2026).page_type == "item"  # its site nav says '亲，请登录'


# ------------------------------------------------------------------------------- dev pages --
DEV_PAGES = [
    "other/search/spiderfirst_jd-search-shouji_2024",
    "other/search/spiderfirst_1688-sem-search-shoujishujuxian_2024",
    "other/item/ecommerceapi_1688-item-xinjiang-dates_823801520021_2026",
    "other/item/taobaospider_taobao-item-ffan-down-coat_561495525977_2018",
    "other/search/pricecomparison_momo-tw-search-iphone_inline-data_twd_2026",
    "other/search/pricecomparison_yahoo-tw-shopping-search-iphone_twd_2026",
]


def _key(name: str) -> tuple[Path, dict]:
    page = REAL_PAGES / f"{name}.html"
    return page, json.loads(page.with_name(page.name[:-5] + ".expected.json").read_text(encoding="utf-8"))


@needs_shared
@pytest.mark.parametrize("name", DEV_PAGES)
def test_dev_pages_read_as_their_answer_keys(name: str) -> None:
    page, key = _key(name)
    got = to_annotation_json(translate_file(page, key["url"]))
    assert got["page_type"] == {"search": "results"}.get(key["page_type"], key["page_type"])
    assert (got["shop"], got["currency"]) == (key["shop"], key["currency"])
    if key["page_type"] == "search":
        assert [r["id"] for r in got["results"]] == [r["id"] for r in key["results"]]
        assert [r["title"] for r in got["results"]] == [r["title"] for r in key["results"]] or "yahoo" in name
        assert [r["sponsored"] for r in got["results"]] == [r["sponsored"] for r in key["results"]]
        assert got["query"] == key["query"] and bool(got["next_page_url"]) == key["next_page"]
        if "yahoo" not in name:  # bundle cards show their promo line's price first (generic cards)
            assert [r["price"] for r in got["results"]] == [r["price"] for r in key["results"]]
    else:
        for field in ("id", "title", "price", "options", "selected", "category_path", "rating"):
            assert got[field] == key[field], field


# ------------------------------------------------------------------------- never a traceback --
LAYOUTS = [TMALL_LIST, TAOBAO_2026, TAOBAO_SEARCH_2024, ALIEXPRESS_SEARCH, TMALL_CLASSIC, TAOBAO_2025,
           ALIEXPRESS_2021, TMALL_SCRIPT_ONLY, JD_2026, JD_2026_SPEC, S1688_2025,
           ALIEXPRESS_2024, ALIEXPRESS_RUNPARAMS, S1688, JD_SEARCH, TAOBAO_SEARCH_SCRIPT]
URLS = [None, "https://item.jd.com/100066896338.html", "https://s.1688.com/x?keywords=%CA", "http://[bad",
        "https://www.aliexpress.com/item/1005006123456789.html", "https://item.taobao.com/item.htm?id=5"]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(LAYOUTS), st.sampled_from(LAYOUTS), st.integers(0, 10_000), st.integers(0, 10_000),
       st.integers(0, 600), st.sampled_from(URLS), st.text(max_size=20))
def test_spliced_chinese_pages_always_give_a_page_state(a: str, b: str, cut: int, start: int, size: int,
                                                        url: str | None, noise: str) -> None:
    """Pieces of one layout pasted into another (broken tags, scripts, attributes) never crash."""
    html = a[: cut % len(a)] + noise + b[start % len(b):][:size] + a[cut % len(a):]
    state = ChinaShopTranslator().parse(html, url)
    assert state.page_type in ("results", "item", "blocked", "unknown")
    assert translate_html(html, url).page_type in ("results", "item", "blocked", "unknown")
