"""amazon.co.jp's mobile layout (``<html class="a-mobile">``) in the Japanese and the English UI:
title, price in JPY, options from the twister card, breadcrumb, results, query, next page.

No real mobile page is in the dev set: these are small pages of our own markup written after the
layout's public description (its ids and class names: ``span#title`` in ``#title_feature_div``,
``#corePrice_mobile_feature_div``, ``#twister-plus-inline-twister``, ``#nav-search-keywords``).
"""

from __future__ import annotations

import pytest

from shopsim.translators.registry import translate_html

# ------------------------------------------------------------------ amazon.co.jp mobile --
_M_HEAD = """<!DOCTYPE html><html lang="{lang}" class="a-touch a-mobile a-js a-ios a-hires">
<head><meta charset="utf-8"><title>Amazon | {title}</title>{canonical}</head><body>
<header class="nav-mobile nav-locale-jp nav-lang-{ui}"><div id="nav-logo"><a href="/ref=navm_hdr_logo"
 class="nav-logo-link">Amazon</a></div><form id="nav-search-form" action="{prefix}/s/ref=nb_sb_noss">
<input type="text" name="k" id="nav-search-keywords" value="{query}"></form></header>"""


def _swatch(asin: str, value: str, chosen: bool, image: bool) -> str:
    inner = f'<img alt="{value}" src="s.jpg">' if image else f'<span class="swatch-title-text-display">{value}</span>'
    sel = " a-button-selected" if chosen else ""
    init = ' data-initiallyselected="true"' if chosen else ""
    return (f'<li data-asin="{asin}"{init} class="inline-twister-swatch"><span class="a-button{sel}">'
            f'<span class="a-button-inner"><span class="a-button-text">{inner}</span></span></span></li>')


def _row(dim: str, label: str, chosen: str, swatches: str) -> str:
    return (f'<div id="inline-twister-row-{dim}" class="inline-twister-row"><div id="inline-twister-dim-title-{dim}">'
            f'<span class="a-color-secondary">{label}</span><span id="inline-twister-expanded-dimension-text-{dim}"'
            f' class="a-text-bold">{chosen}</span></div><ul class="a-unordered-list">{swatches}</ul></div>')


def mobile_item(ui: str = "ja", back: str = "", offscreen: str = "￥2,480") -> str:
    """An amazon.co.jp product page in the mobile layout (span#title, corePrice_mobile_feature_div, twister card)."""
    color, size = ("色：", "サイズ：") if ui == "ja" else ("Color:", "Size:")
    crumbs = (f'<div id="wayfinding-breadcrumbs_feature_div"><ul><li><a id="breadcrumb-back-link" href="/s?k=x">'
              f'{back}</a></li></ul></div>') if back else ""
    twister = _row("color_name", color, "ブラック", _swatch("B0TESTJP01", "ブラック", True, True)
                   + _swatch("B0TESTJP02", "ホワイト", False, True))
    twister += _row("size_name", size, "500ml", _swatch("B0TESTJP01", "500ml", True, False)
                    + _swatch("B0TESTJP03", "750ml", False, False))
    return _M_HEAD.format(lang="ja-jp" if ui == "ja" else "en-us", title="水筒", canonical="", ui=ui, query="",
                          prefix="" if ui == "ja" else "/-/en") + f"""{crumbs}
<div id="dp"><input type="hidden" id="ASIN" name="ASIN" value="B0TESTJP01">
<div id="title_feature_div"><div id="titleSection"><h1 class="a-size-small"><span id="title"> ミニ水筒 ステンレス
 500ml 保温 保冷 </span></h1></div></div>
<div id="averageCustomerReviews" data-asin="B0TESTJP01"><span class="a-icon-alt">5つ星のうち4.4</span></div>
<div id="corePrice_mobile_feature_div"><span class="a-price a-text-price" data-a-strike="true">
<span class="a-offscreen">￥3,280</span></span><span class="a-price priceToPay"><span class="a-offscreen">{offscreen}</span>
<span aria-hidden="true"><span class="a-price-symbol">￥</span><span class="a-price-whole">2,480</span></span></span></div>
<div id="twister-plus-inline-twister-card"><div id="twister-plus-inline-twister">{twister}</div></div>
<div id="feature-bullets"><ul><li><span class="a-list-item">真空断熱構造で保温・保冷</span></li>
<li><span class="a-list-item">食洗機対応</span></li></ul></div></div></body></html>"""


def _card(asin: str, title: str, price: str | None, ad: bool = False) -> str:
    href = f"/sspa/click?url=%2Fdp%2F{asin}%2F" if ad else f"/dp/{asin}/ref=sr_1_2"
    label = '<span class="a-color-secondary puis-sponsored-label-text">スポンサー</span>' if ad else ""
    cost = (f'<span class="a-price"><span class="a-offscreen">{price}</span><span aria-hidden="true">'
            f'<span class="a-price-symbol">￥</span><span class="a-price-whole">{price[1:]}</span></span></span>'
            if price else '<span class="a-color-base">在庫切れ</span>')
    return (f'<div data-asin="{asin}" data-component-type="s-search-result" class="s-result-item s-asin'
            f'{" AdHolder" if ad else ""}"><div class="sg-col-inner"><a class="a-link-normal s-no-outline" href="{href}">'
            f'<img class="s-image" src="i.jpg"></a>{label}<a class="a-link-normal a-text-normal" href="{href}">'
            f'<h2 class="a-size-small a-color-base a-text-normal"><span>{title}</span></h2></a>{cost}</div></div>')


def mobile_search(ui: str = "ja") -> str:
    """An amazon.co.jp results page in the mobile layout (relative links only, query in #nav-search-keywords)."""
    nxt = "次へ" if ui == "ja" else "Next"
    cards = _card("B0MOBAD001", "広告の水筒 1L", "￥1,980", ad=True) + _card("B0MOB00002", "サーモス 水筒 500ml", "￥2,780")
    cards += _card("B0MOB00003", "象印 ステンレスマグ 480ml", None)
    return _M_HEAD.format(lang="ja-jp", title="水筒", canonical="", ui=ui, query="水筒", prefix="") + f"""
<div id="search"><div class="s-main-slot s-result-list">{cards}</div>
<div class="s-pagination-container"><span class="s-pagination-strip"><span class="s-pagination-item
 s-pagination-selected">1</span><a href="/s?k=%E6%B0%B4%E7%AD%92&page=2" class="s-pagination-item s-pagination-next">
{nxt}</a></span></div></div></body></html>"""


@pytest.mark.parametrize("ui", ["ja", "en"])
def test_amazon_co_jp_mobile_item_reads_like_desktop(ui: str) -> None:
    state = translate_html(mobile_item(ui, back="結果に戻る" if ui == "ja" else "Back to results"))
    assert (state.page_type, state.site, state.shop, state.currency) == ("item", "amazon", "amazon.co.jp", "JPY")
    p = state.product
    assert p is not None
    assert (p.id, p.title, p.price, p.rating) == ("B0TESTJP01", "ミニ水筒 ステンレス 500ml 保温 保冷", 2480.0, 4.4)
    axes = ("色", "サイズ") if ui == "ja" else ("Color", "Size")
    assert p.options == {axes[0]: ["ブラック", "ホワイト"], axes[1]: ["500ml", "750ml"]}
    assert p.selected == {axes[0]: "ブラック", axes[1]: "500ml"}
    assert p.bullet_points == ["真空断熱構造で保温・保冷", "食洗機対応"]
    assert p.category_path == []  # the back-to-results link is no category
    assert any(c.url and c.url.startswith("https://www.amazon.co.jp/") for c in state.clickables if c.kind == "option")


def test_amazon_mobile_price_whose_hidden_copy_lost_its_decimal_mark() -> None:
    page = mobile_item().replace('<span class="a-price-whole">2,480</span>',
                                 '<span class="a-price-whole">14<span class="a-price-decimal">,</span></span>'
                                 '<span class="a-price-fraction">03</span>').replace("￥", "€")
    state = translate_html(page.replace("€2,480", "EUR1403"), "https://www.amazon.de/dp/B0TESTJP01")
    assert state.product is not None and state.product.price == 14.03
    state = translate_html(page.replace("€2,480", "14,03 €"), "https://www.amazon.de/dp/B0TESTJP01")
    assert state.product is not None and state.product.price == 14.03


@pytest.mark.parametrize("ui", ["ja", "en"])
def test_amazon_co_jp_mobile_search(ui: str) -> None:
    state = translate_html(mobile_search(ui))
    assert (state.page_type, state.shop, state.currency, state.query) == ("results", "amazon.co.jp", "JPY", "水筒")
    assert [(r.id, r.title, r.price, r.sponsored) for r in state.results] == [
        ("B0MOBAD001", "広告の水筒 1L", 1980.0, True), ("B0MOB00002", "サーモス 水筒 500ml", 2780.0, False),
        ("B0MOB00003", "象印 ステンレスマグ 480ml", None, False)]
    assert state.page_num == 1
    assert state.next_page_url == "https://www.amazon.co.jp/s?k=%E6%B0%B4%E7%AD%92&page=2"


def test_amazon_mobile_title_variants_and_stars_in_the_feature_div() -> None:
    page = mobile_item().replace('<div id="averageCustomerReviews" data-asin="B0TESTJP01">',
                                 '<div id="averageCustomerReviews_feature_div"><div class="a-row">')
    nested = page.replace('<span id="title"', '<span id="productTitle"').replace('<h1 class="a-size-small">',
                                                                                 '<h1 id="title" class="a-size-small">')
    bare = page.replace('<h1 class="a-size-small">', '<div class="a-row">').replace("</span></h1>", "</span></div>")
    for html in (nested, bare):
        state = translate_html(html, "https://www.amazon.co.jp/dp/B0TESTJP01")
        assert state.product is not None and state.product.title == "ミニ水筒 ステンレス 500ml 保温 保冷"
        assert state.product.rating == 4.4
    # a span#title outside any title block is no product title (and this page shows nothing else)
    stray = '<html class="a-mobile"><body><div id="nav-logo"></div><p><span id="title">Hello</span></p></body></html>'
    assert translate_html(stray, "https://www.amazon.co.jp/gp/help").page_type != "item"


def test_amazon_query_from_the_title_when_the_box_is_empty() -> None:
    page = mobile_search().replace('value="水筒"', 'value=""')
    assert translate_html(page).query is None  # 'Amazon | 水筒' is no results title
    titled = page.replace("<title>Amazon | 水筒</title>", "<title>Amazon.co.jp : 水筒</title>")
    assert translate_html(titled).query == "水筒"


def test_marketplace_from_the_body_class_of_a_page_with_relative_links_only() -> None:
    page = mobile_search().replace("nav-locale-jp", "nav-mobile-x").replace("<body>", '<body class="a-m-jp a-aui_72554-c">')
    assert translate_html(page).shop == "amazon.co.jp"
    assert translate_html(page.replace("a-m-jp", "a-m-de")).shop == "amazon.de"


def test_amazon_mobile_pitch_price_block() -> None:
    page = mobile_item().replace('id="corePrice_mobile_feature_div"', 'id="newPitchPriceWrapper_feature_div"')
    state = translate_html(page, "https://www.amazon.co.jp/gp/aw/d/B0TESTJP01")
    assert state.product is not None and (state.product.id, state.product.price) == ("B0TESTJP01", 2480.0)
