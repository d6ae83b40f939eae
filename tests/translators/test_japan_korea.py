"""Japanese and Korean shops: Yahoo!オークション (bid vs buy-now), Rakuten, Mercari, Coupang and Gmarket
pages, and the shop names / currencies / ids of the Japanese dev pages (amazon.co.jp's mobile layout:
``test_amazon_mobile``).

The layouts without a real page here are tested on small pages of our own markup written after the
shops' public descriptions (their class names and ids); the real dev pages are read from ../shared.
"""

from __future__ import annotations

import json

import pytest

from shopsim.page import PageState
from shopsim.translators.japan_korea_results import auction_price
from shopsim.translators.japan_korea_shops import JapanKoreaTranslator, shop_for
from shopsim.translators.registry import translate_html
from shopsim.translators.widgets import without_title_crumb
from tests.conftest import REAL_PAGES, needs_shared


# ------------------------------------------------------------------------ Yahoo!オークション --
def _auction(aid: str, title: str, bid: str | None, buy: str | None, pr: bool = False) -> str:
    rows = ""
    if bid:
        rows += (f'<span class="Product__price"><span class="Product__label">現在</span>'
                 f'<span class="Product__priceValue u-textRed">{bid}</span></span>')
    if buy:
        rows += (f'<span class="Product__price"><span class="Product__label">即決</span>'
                 f'<span class="Product__priceValue">{buy}</span></span>')
    href = f"https://page.auctions.yahoo.co.jp/jp/auction/{aid}"
    return (f'<li class="Product"><div class="Product__image"><a class="Product__imageLink" href="{href}" '
            f'data-auction-id="{aid}"><img class="Product__imageData" src="https://auctions.c.yimg.jp/{aid}.jpg"></a>'
            f'</div><div class="Product__detail">{"<span class=Product__pr>PR</span>" if pr else ""}'
            f'<h3 class="Product__title"><a class="Product__titleLink" href="{href}" data-auction-id="{aid}">{title}'
            f'</a></h3><div class="Product__priceInfo">{rows}</div><dd class="Product__bid">3</dd></div></li>')


AUCTION_SEARCH = f"""<!DOCTYPE html><html lang="ja"><head><meta charset="utf-8">
<title>「ファミコン」の検索結果 - Yahoo!オークション</title></head><body>
<form action="https://auctions.yahoo.co.jp/search/search"><input type="search" name="p" value="ファミコン"></form>
<ul class="Products__items">{_auction("x1100000001", "ファミコン 本体 動作品", "1,200円", "3,000円")}
{_auction("b1100000002", "ファミコン ソフト まとめ 10本", "2,500円", None)}
{_auction("1100000003", "ディスクシステム 本体", None, "8,800円", pr=True)}</ul>
<div class="Pager"><ul><li class="Pager__list Pager__list--current"><span class="Pager__link">1</span></li>
<li class="Pager__list Pager__list--next"><a class="Pager__link"
 href="https://auctions.yahoo.co.jp/search/search?p=%E3%83%95%E3%82%A1%E3%83%9F%E3%82%B3%E3%83%B3&amp;b=51">次へ</a>
</li></ul></div></body></html>"""


@pytest.mark.parametrize("url", [None, "https://auctions.yahoo.co.jp/search/search?p=%E3%83%95%E3%82%A1%E3%83%9F"])
def test_yahoo_auctions_search(url: str | None) -> None:
    state = translate_html(AUCTION_SEARCH, url)
    assert (state.page_type, state.site, state.shop, state.currency) == ("results", "other", "auctions.yahoo.co.jp",
                                                                          "JPY")
    assert (state.query, state.page_num) == ("ファミコン", 1)
    assert state.next_page_url is not None and "b=51" in state.next_page_url
    got = [(r.id, r.title, r.price, r.sponsored) for r in state.results]
    assert got == [("x1100000001", "ファミコン 本体 動作品", 3000.0, False),  # buy-now price over the bid
                   ("b1100000002", "ファミコン ソフト まとめ 10本", 2500.0, False),
                   ("1100000003", "ディスクシステム 本体", 8800.0, True)]
    no_box = translate_html(AUCTION_SEARCH.replace('name="p" value="ファミコン"', 'name="p" value=""'))
    assert no_box.query == "ファミコン"  # from the title '「ファミコン」の検索結果'
    texts = [r.price_text for r in state.results]
    assert "buy-now" in texts[0] and "1,200円" in texts[0] and "current bid" in texts[1]


def _auction_item(canonical: bool, old: bool) -> str:
    link = '<link rel="canonical" href="https://auctions.yahoo.co.jp/jp/auction/x1100000001">' if canonical else ""
    if old:
        prices = ('<div class="Price Price--current"><dl class="Price__body"><dt class="Price__title">現在</dt>'
                  '<dd class="Price__value">1,200円<span class="Price__tax">（税 0 円）</span></dd></dl></div>'
                  '<div class="Price Price--buynow"><dl class="Price__body"><dt class="Price__title">即決</dt>'
                  '<dd class="Price__value">3,000円<span class="Price__tax">（税 0 円）</span></dd></dl></div>')
    else:
        prices = ('<dl class="sc-5e2a1"><dt>現在</dt><dd><span>1,200円</span><span>（税 0 円）</span></dd></dl>'
                  '<dl class="sc-5e2a2"><dt>即決</dt><dd><span>3,000円</span><span>（税 0 円）</span></dd></dl>')
    return f"""<!DOCTYPE html><html lang="ja"><head><meta charset="utf-8">
<title>ファミコン 本体 動作品 - Yahoo!オークション</title>{link}</head><body>
<nav><ol class="sc-breadcrumb"><li><a href="https://auctions.yahoo.co.jp/">オークション</a></li>
<li><a href="https://auctions.yahoo.co.jp/category/list/2084019018/">おもちゃ、ゲーム</a></li>
<li><a href="https://auctions.yahoo.co.jp/category/list/2084048399/">ファミコン</a></li></ol></nav>
<h1 class="ProductTitle__text">ファミコン 本体 動作品</h1>{prices}
<a href="https://auctions.yahoo.co.jp/jp/show/bid_hist?aID=x1100000001">入札 3件</a>
<img src="https://auctions.c.yimg.jp/images.auctions.yahoo.co.jp/image/a.jpg" alt="">
<table><tr><th>オークションID</th><td>x1100000001</td></tr><tr><th>開始時の価格</th><td>1円</td></tr></table>
</body></html>"""


@pytest.mark.parametrize(("canonical", "old"), [(True, False), (False, False), (True, True)])
def test_yahoo_auctions_item_price_is_the_buy_now_price(canonical: bool, old: bool) -> None:
    state = translate_html(_auction_item(canonical, old))
    assert (state.page_type, state.shop, state.currency) == ("item", "auctions.yahoo.co.jp", "JPY")
    p = state.product
    assert p is not None and (p.id, p.title, p.price) == ("x1100000001", "ファミコン 本体 動作品", 3000.0)
    assert p.price_text.startswith("即決 3,000円") and "current bid 1,200円" in p.price_text
    assert p.category_path == ["オークション", "おもちゃ、ゲーム", "ファミコン"]


def test_auction_price_rule() -> None:
    assert auction_price([("現在", "1,200円"), ("即決", "3,000円")]).value == 3000.0
    bid = auction_price([("現在", "1,200円")])
    assert (bid.value, bid.currency) == (1200.0, "JPY") and "no buy-now" in bid.text
    assert auction_price([]).value is None


# --------------------------------------------------------------------- Coupang, Gmarket --
COUPANG_SEARCH = """<!DOCTYPE html><html lang="ko"><head><meta charset="utf-8"><title>쿠팡! | 텀블러</title></head>
<body><form action="/np/search"><input type="text" name="q" value="텀블러"></form><ul id="productList">
<li class="search-product search-product__ad-badge" data-product-id="7000000001"><a class="search-product-link"
 href="/vp/products/7000000001?itemId=1&amp;vendorItemId=2"><dl><dd><div class="name">스탠리 텀블러 591ml</div>
<strong class="price-value">32,900</strong>원<span class="ad-badge-text">광고</span></dd></dl></a></li>
<li class="search-product" data-product-id="7000000002"><a class="search-product-link"
 href="/vp/products/7000000002?itemId=3"><div class="name">락앤락 텀블러 473ml</div>
<strong class="price-value">12,800</strong>원<em class="rating">4.5</em></a></li>
<li class="search-product" data-product-id="7000000003"><a class="search-product-link" href="/vp/products/7000000003">
<div class="name">써모스 텀블러 350ml</div><strong class="price-value">19,900</strong>원</a></li></ul>
<div class="search-pagination"><a class="btn-page selected">1</a><a class="btn-page" href="/np/search?q=%ED%85%80&amp;page=2">2</a>
<a class="btn-next" href="/np/search?q=%ED%85%80&amp;page=2">다음</a></div>
<img src="https://thumbnail6.coupangcdn.com/a.jpg"><img src="https://thumbnail7.coupangcdn.com/b.jpg"></body></html>"""

GMARKET_SEARCH = """<!DOCTYPE html><html lang="ko"><head><meta charset="utf-8"><title>G마켓 - 텀블러</title></head>
<body><input id="form__search-keyword" name="keyword" value="텀블러">
<div class="box__item-container"><div class="box__ad-label">광고</div><div class="box__item-title">
<a class="link__item" href="https://item.gmarket.co.kr/Item?goodscode=3000000001"><span class="text__item">스탠리 퀜처 텀블러</span></a>
</div><div class="box__item-price"><div class="box__price-seller"><strong class="text__value">39,800</strong>원</div></div></div>
<div class="box__item-container"><div class="box__item-title"><a class="link__item"
 href="https://item.gmarket.co.kr/Item?goodscode=3000000002"><span class="text__item">보온 텀블러 500ml</span></a></div>
<div class="box__item-price"><div class="box__price-seller"><strong class="text__value">9,900</strong>원</div></div></div>
<div class="box__item-container"><div class="box__item-title"><a class="link__item"
 href="https://item.gmarket.co.kr/Item?goodscode=3000000003"><span class="text__item">빨대 텀블러</span></a></div>
<div class="box__item-price"><div class="box__price-seller"><strong class="text__value">7,500</strong>원</div></div></div>
<a class="link__page-next" href="https://browse.gmarket.co.kr/search?keyword=%ED%85%80&amp;p=2">다음</a></body></html>"""


def test_coupang_search() -> None:
    state = translate_html(COUPANG_SEARCH, "https://www.coupang.com/np/search?q=%ED%85%80%EB%B8%94%EB%9F%AC")
    assert (state.page_type, state.shop, state.currency, state.query) == ("results", "coupang.com", "KRW", "텀블러")
    assert [(r.id, r.title, r.price, r.sponsored) for r in state.results] == [
        ("7000000001", "스탠리 텀블러 591ml", 32900.0, True), ("7000000002", "락앤락 텀블러 473ml", 12800.0, False),
        ("7000000003", "써모스 텀블러 350ml", 19900.0, False)]
    assert state.next_page_url == "https://www.coupang.com/np/search?q=%ED%85%80&page=2" and state.page_num == 1
    assert translate_html(COUPANG_SEARCH).shop == "coupang.com"  # without a URL: its image hosts say so


def test_gmarket_search() -> None:
    state = translate_html(GMARKET_SEARCH, "https://browse.gmarket.co.kr/search?keyword=%ED%85%80")
    assert (state.page_type, state.shop, state.currency, state.query) == ("results", "gmarket.co.kr", "KRW", "텀블러")
    assert [(r.id, r.price, r.sponsored) for r in state.results] == [
        ("3000000001", 39800.0, True), ("3000000002", 9900.0, False), ("3000000003", 7500.0, False)]
    assert state.next_page_url == "https://browse.gmarket.co.kr/search?keyword=%ED%85%80&p=2"


def test_korean_won_mark_names_krw() -> None:
    state = translate_html(COUPANG_SEARCH.replace("coupangcdn", "cdn.example"), "https://www.coupang.com/np/search")
    assert state.currency == "KRW"


# ------------------------------------------------------------------------- odd pages --
@pytest.mark.parametrize("html", ["", "<html>", "<li class='Product'><a class='Product__titleLink'></a></li>" * 3,
                                  "<dl><dt>現在</dt><dd>円円円</dd></dl><h1></h1>", "\x00" * 50])
def test_odd_pages_never_raise(html: str) -> None:
    state = JapanKoreaTranslator().parse(html, "https://auctions.yahoo.co.jp/jp/auction/x1")
    assert isinstance(state, PageState) and state.page_type in ("unknown", "blocked", "item", "results")


def test_shop_for_other_hosts_is_none() -> None:
    assert shop_for("https://www.example.com/x", None, "") is None
    assert shop_for("https://item.rakuten.co.jp/shop/item/", None, "").name == "rakuten.co.jp"
    taiwan = shop_for("https://tw.coupang.com/products/123", None, "")
    assert taiwan is not None and (taiwan.name, taiwan.currency) == ("tw.coupang.com", "TWD")
    assert shop_for("https://www.mercari.com/us/item/m1/", None, "") is None  # the US site is no Japanese shop


def test_without_title_crumb() -> None:
    assert without_title_crumb(["ホーム", "ストラップ", "ハローキティ 根付"], "ハローキティ 根付") == ["ホーム", "ストラップ"]
    assert without_title_crumb(["Home", "Straps"], "Hello Kitty") == ["Home", "Straps"]
    assert without_title_crumb(["Home", "Toys", "Hello Kitty strap 13…"], "Hello Kitty strap 13 set") == ["Home", "Toys"]
    assert without_title_crumb(["Home", "Hello Kitty"], "Hello Kitty") == ["Home", "Hello Kitty"]
    assert without_title_crumb([], "x") == []


# ------------------------------------------------------------------ the real dev pages --
_JP_PAGES = {
    "other/item/shokandon_mercari-item-hello-kitty-netsuke-13set_m38793557194_2026": "jp.mercari.com",
    "other/item/shokandon_yahoo-fleamarket-item-lumix-dmc-zs6_z654038474_2026": "paypayfleamarket.yahoo.co.jp",
    "other/item/flaskquote_rakuten-item-chivas-mizunara-12_f000000027_2025": "rakuten.co.jp",
    "amazon/item/simplepages_switch-neon_B07WXL5YPW_amazon-co-jp_en-ui_2022": "amazon.co.jp",
}


@needs_shared
@pytest.mark.parametrize("name", sorted(_JP_PAGES))
@pytest.mark.parametrize("with_url", [True, False])
def test_japanese_dev_pages(name: str, with_url: bool) -> None:
    key = json.loads((REAL_PAGES / f"{name}.expected.json").read_text(encoding="utf-8"))
    html = (REAL_PAGES / f"{name}.html").read_bytes().decode("utf-8", "replace")
    state = translate_html(html, key["url"] if with_url else None)
    assert (state.shop, state.currency) == (_JP_PAGES[name], "JPY") == (key["shop"], key["currency"])
    p = state.product
    assert p is not None and p.id == key["id"] and p.price == key["price"]
    crumbs = [key["category_path"], *key.get("alternatives", {}).get("category_path", [])]
    assert p.category_path in crumbs


def _rakuten_card(shop: str, item: str, title: str, price: str, ad: bool = False) -> str:
    href = f"https://item.rakuten.co.jp/{shop}/{item}/"
    if ad:
        href = "https://rd.rakuten.co.jp/s/?R2=" + href.replace(":", "%3A").replace("/", "%2F")
    label = '<span class="label--pr">PR</span>' if ad else ""
    return (f'<div class="dui-card searchresultitem"><div class="image"><a href="{href}"><img src="i.jpg"></a></div>'
            f'<div class="content title"><h2 class="title-link-wrapper--2sUFJ"><a href="{href}" '
            f'class="title-link--3Ho6z">{title}</a></h2>{label}</div><div class="content price">'
            f'<div class="price--OX_YW">{price}<span class="price-unit--2Q4N0">円</span></div></div></div>')


RAKUTEN_SEARCH = f"""<!DOCTYPE html><html lang="ja"><head><meta charset="utf-8"><title>【楽天市場】水筒の通販</title>
</head><body><form action="https://search.rakuten.co.jp/search/mall/"><input name="sitem" value=""></form>
{_rakuten_card("shopa", "tb-500", "【送料無料】水筒 500ml 保温", "2,480", ad=True)}
{_rakuten_card("shopb", "10001234", "サーモス 真空断熱ケータイマグ", "3,300")}
{_rakuten_card("shopc", "bottle-1l", "象印 ステンレスボトル 1L", "4,180")}
<div class="dui-pagination"><span class="item -active currentPage">1</span>
<a class="item -next nextPage" href="https://search.rakuten.co.jp/search/mall/%E6%B0%B4%E7%AD%92/?p=2">次のページ</a></div>
</body></html>"""


def test_rakuten_search() -> None:
    state = translate_html(RAKUTEN_SEARCH, "https://search.rakuten.co.jp/search/mall/%E6%B0%B4%E7%AD%92/")
    assert (state.page_type, state.shop, state.currency, state.query) == ("results", "rakuten.co.jp", "JPY", "水筒")
    assert [(r.id, r.price, r.sponsored) for r in state.results] == [
        ("shopa:tb-500", 2480.0, True), ("shopb:10001234", 3300.0, False), ("shopc:bottle-1l", 4180.0, False)]
    assert state.results[1].title == "サーモス 真空断熱ケータイマグ" and state.page_num == 1
    assert state.next_page_url == "https://search.rakuten.co.jp/search/mall/%E6%B0%B4%E7%AD%92/?p=2"


COUPANG_ITEM = """<!DOCTYPE html><html lang="ko"><head><meta charset="utf-8"><title>스탠리 텀블러 591ml - 텀블러 | 쿠팡</title>
</head><body><ul id="breadcrumb" class="breadcrumb"><li><a href="/">쿠팡 홈</a></li>
<li><a href="/np/categories/1">주방용품</a></li><li><a href="/np/categories/2">텀블러</a></li></ul>
<div class="prod-atf"><h2 class="prod-buy-header__title">스탠리 텀블러 591ml</h2><div class="prod-price">
<div class="prod-origin-price"><span class="origin-price">45,000원</span></div><div class="prod-sale-price">
<span class="total-price"><strong>32,900<span class="price-unit">원</span></strong></span></div></div>
<button class="prod-cart-btn">장바구니 담기</button><button class="prod-buy-btn">바로구매</button></div></body></html>"""

GMARKET_ITEM = """<!DOCTYPE html><html lang="ko"><head><meta charset="utf-8"><title>G마켓 - 스탠리 퀜처 텀블러</title></head>
<body><div class="item-topinfo"><h1 class="itemtit">스탠리 퀜처 텀블러</h1><div class="price">
<span class="price_original">49,000원</span><strong class="price_real">39,800<span class="unit">원</span></strong></div>
<button>구매하기</button></div></body></html>"""


@pytest.mark.parametrize(("html", "url", "shop", "ident", "title", "price"), [
    (COUPANG_ITEM, "https://www.coupang.com/vp/products/7000000001?itemId=1&vendorItemId=2", "coupang.com",
     "7000000001", "스탠리 텀블러 591ml", 32900.0),
    (GMARKET_ITEM, "https://item.gmarket.co.kr/Item?goodscode=3000000001", "gmarket.co.kr", "3000000001",
     "스탠리 퀜처 텀블러", 39800.0)])
def test_korean_item_pages(html: str, url: str, shop: str, ident: str, title: str, price: float) -> None:
    for given in (url, None):  # without a URL the page's <title> names the shop
        state = translate_html(html, given)
        assert (state.page_type, state.shop, state.currency) == ("item", shop, "KRW")
        p = state.product
        assert p is not None and (p.title, p.price) == (title, price)
        assert p.id == (ident if given else p.id)
    coupang = translate_html(COUPANG_ITEM, "https://www.coupang.com/vp/products/7000000001")
    assert coupang.product is not None and coupang.product.category_path == ["쿠팡 홈", "주방용품", "텀블러"]


def test_actions_stay_on_the_shop() -> None:
    translator = JapanKoreaTranslator()
    state = translator.parse(AUCTION_SEARCH)
    nav = translator.resolve(state, "search[ファミコン 本体]")
    assert nav.url == "https://auctions.yahoo.co.jp/search/search?p=%E3%83%95%E3%82%A1%E3%83%9F%E3%82%B3%E3%83%B3+%E6%9C%AC%E4%BD%93"
    assert translator.resolve(state, "click[x1100000001]").url == "https://page.auctions.yahoo.co.jp/jp/auction/x1100000001"
    assert translator.resolve(state, "click[back to search]").url == "https://auctions.yahoo.co.jp/"
    assert "b=51" in (translator.resolve(state, "click[next >]").url or "")
    fresh = JapanKoreaTranslator()  # a page without a search form: the shop's own search address
    item = fresh.parse(GMARKET_ITEM, "https://item.gmarket.co.kr/Item?goodscode=3000000001")
    assert fresh.resolve(item, "search[텀블러]").url == "https://browse.gmarket.co.kr/search?keyword=%ED%85%80%EB%B8%94%EB%9F%AC"


def test_auction_card_price_from_the_link_data_when_no_row_is_rendered() -> None:
    bare = AUCTION_SEARCH.replace('<div class="Product__priceInfo">', '<div class="Product__priceInfo" hidden>')
    bare = bare.replace('class="Product__priceValue', 'class="Hidden__value')
    page = bare.replace('data-auction-id="b1100000002">', 'data-auction-id="b1100000002" data-auction-price="2500">', 1)
    state = translate_html(page)
    assert state.results[1].price == 2500.0 and state.results[0].price is None


def test_auction_item_with_recommended_auctions_is_an_item() -> None:
    cards = "".join(_auction(f"r11000000{i}", f"おすすめ {i}", "500円", None) for i in range(4))
    page = _auction_item(False, False).replace("</body>", f'<ul class="Products__items">{cards}</ul></body>')
    state = translate_html(page)
    assert state.page_type == "item" and state.product is not None
    assert (state.product.id, state.product.price) == ("x1100000001", 3000.0)


def _mercari_cell(item: str, title: str, price: str, named: bool) -> str:
    name = f'<span data-testid="thumbnail-item-name">{title}</span>' if named else ""
    return (f'<li data-testid="item-cell"><div><a data-testid="thumbnail-link" href="/item/{item}">'
            f'<div class="merItemThumbnail" role="img" id="{item}" aria-label="{title}の画像 {price}円">'
            f'<img alt="{title}のサムネイル" src="https://static.mercdn.net/thumb/{item}.jpg">{name}'
            f'<span class="merPrice"><span class="currency">¥</span><span class="number">{price}</span></span>'
            f'</div></a></div></li>')


MERCARI_SEARCH = f"""<!DOCTYPE html><html lang="ja"><head><meta charset="utf-8"><title>ストラップの通販 - メルカリ</title>
</head><body><ul>{_mercari_cell("m10000000001", "ハローキティ 根付", "6,000", True)}
{_mercari_cell("m10000000002", "サンリオ ストラップ", "1,200", False)}{_mercari_cell("m10000000003", "キーホルダー", "800", True)}
<li data-testid="item-cell"><div class="merSkeleton"></div></li></ul>
<div data-testid="pagination-next-button"><a href="/search?keyword=%E3%82%B9&amp;page_token=v1%3A1">次へ</a></div>
</body></html>"""


def test_mercari_search() -> None:
    state = translate_html(MERCARI_SEARCH, "https://jp.mercari.com/search?keyword=%E3%82%B9%E3%83%88%E3%83%A9%E3%83%83%E3%83%97")
    assert (state.page_type, state.shop, state.currency, state.query) == ("results", "jp.mercari.com", "JPY", "ストラップ")
    assert [(r.id, r.title, r.price) for r in state.results] == [
        ("m10000000001", "ハローキティ 根付", 6000.0), ("m10000000002", "サンリオ ストラップ", 1200.0),
        ("m10000000003", "キーホルダー", 800.0)]  # the skeleton cell is no result
    assert state.next_page_url == "https://jp.mercari.com/search?keyword=%E3%82%B9&page_token=v1%3A1"
