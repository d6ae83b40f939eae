"""The generic translator: real pages of other shops against their answer keys, and small pages.

The real pages and the scorer live in the shared folder beside the repository
(``<repo>/../shared``); they are read from there, never copied, and these tests skip when it is
absent. The small hand-written pages cover each reader on its own: JSON-LD, microdata, RDFa,
OpenGraph-only pages, card heuristics, bot walls, search forms, pagination, and hostile structured
data (bad, huge, deeply nested or mistyped JSON) that must never raise nor hang.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from shopsim.page import PageState
from shopsim.translators.answer_key import to_annotation_json
from shopsim.translators.detect import detect_site, wall_reason
from shopsim.translators.documents import decode_html, load_tree
from shopsim.translators.generic import GenericTranslator
from shopsim.translators.registry import translate_html, translator_for
from shopsim.translators.schema_org import read_structured
from shopsim.translators.shops import currency_for, registrable, shop_name, url_id
from tests.conftest import ISSUE_22_PAGES, REAL_PAGES, load_scorer, needs_shared

OTHER = REAL_PAGES / "other"


# ------------------------------------------------------------------------ real pages --
@pytest.fixture(scope="module")
def scored() -> list[dict]:
    """Every page in other/ translated in-process (with the URL its key states) and scored."""
    scorer = load_scorer()
    records = []
    for page in scorer.discover(OTHER, "other"):
        html = decode_html(Path(page["html"]).read_bytes())
        start = time.perf_counter()
        state = translate_html(html, page["expected"].get("url") or None)
        seconds = time.perf_counter() - start
        out = json.loads(json.dumps(to_annotation_json(state)))
        records.append({"name": page["name"], "kind": page["kind"], "shop": page["expected"]["shop"],
                        "expected": page["expected"], "state": state, "seconds": seconds,
                        "checks": scorer.score_page(page["expected"], out)})
    return records


def held(scored: list[dict]) -> list[dict]:
    """The pages the accuracy bars hold (not yet issue 22's; those are only checked for speed here)."""
    return [r for r in scored if r["name"] not in ISSUE_22_PAGES]


def _mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else float("nan")


@needs_shared
@pytest.mark.slow
def test_other_shops_meet_the_bar(scored: list[dict]) -> None:
    """Field accuracy >= 0.90 over all pages and for each shop with more than one page; page type 100%."""
    scored = held(scored)
    assert len(scored) >= 15
    by_shop: dict[str, list[float]] = {}
    for rec in scored:
        by_shop.setdefault(rec["shop"], []).extend(c["score"] for c in rec["checks"])
    lines = [f"  {shop:<28} {_mean(v):.3f} ({len(v)} checks)" for shop, v in sorted(by_shop.items())]
    lines += [f"  not passed: {r['name']}: {c['check']} {c['score']:.2f}" for r in scored for c in r["checks"]
              if not c["passed"]]
    overall = _mean([c["score"] for r in scored for c in r["checks"]])
    print("\n".join([f"other shops: field accuracy {overall:.4f}", *lines]))
    assert all(c["passed"] for r in scored for c in r["checks"] if c["check"] == "page_type")
    assert overall >= 0.90
    pages = {shop: sum(r["shop"] == shop for r in scored) for shop in by_shop}
    assert all(_mean(v) >= 0.90 for shop, v in by_shop.items() if pages[shop] > 1)


#: Issue 22's modern Western dev pages (Micro Center, Lowe's, Very, a Shopify grid, Zalando, IKEA,
#: Carousell), Rakuten's item title and Yahoo Taiwan's grid (goods ids in query parameters, a bundle's
#: 原組合價 promo line): read exactly, with their shop (where the page shows it) and currency.
WESTERN_22 = ("microcenter", "lowes", "very-ie", "nobodyschild", "zalando", "ikea", "carousell", "rakuten",
              "yahoo-tw-shopping")


@needs_shared
def test_issue_22_western_pages_are_read_exactly(scored: list[dict]) -> None:
    recs = [r for r in scored if r["name"] in ISSUE_22_PAGES and any(w in r["name"] for w in WESTERN_22)]
    assert len(recs) == len(WESTERN_22)
    wrong = [(r["name"], c["check"], c.get("detail")) for r in recs for c in r["checks"] if not c["passed"]]
    assert not wrong, wrong
    for rec in recs:
        state: PageState = rec["state"]
        assert state.currency == rec["expected"]["currency"], rec["name"]
        assert state.shop == rec["expected"]["shop"] or (state.shop is None and rec["expected"]["url"] is None), \
            rec["name"]  # a grid fragment without a URL or links to its shop names none


@needs_shared
def test_other_shops_are_named_with_their_currency(scored: list[dict]) -> None:
    """site 'other', the shop as the keys name it, and the ISO currency of the prices shown."""
    scored = held(scored)
    for rec in scored:
        state: PageState = rec["state"]
        assert state.site == "other", rec["name"]
        assert state.shop == rec["expected"]["shop"], rec["name"]
        assert state.currency == rec["expected"]["currency"], rec["name"]


@needs_shared
def test_other_shops_without_their_url(scored: list[dict]) -> None:
    """Kind and shop come from the page itself when no URL is given."""
    scored = held(scored)
    for rec in scored:
        page = OTHER / rec["kind"] / f"{rec['name']}.html"
        state = translate_html(decode_html(page.read_bytes()), None)
        kind = {"search": "results"}.get(rec["kind"], rec["kind"])
        assert (state.site, state.page_type, state.shop) == ("other", kind, rec["expected"]["shop"]), rec["name"]


@needs_shared
def test_other_shops_are_fast(scored: list[dict]) -> None:
    """A page (up to 2 MB) translates well within a second, parse included (about 50 ms of our own work)."""
    assert max(r["seconds"] for r in scored) < 1.5


@needs_shared
def test_real_results_resolve_to_the_shops_urls(scored: list[dict]) -> None:
    translator = GenericTranslator()
    target = next(r for r in scored if r["shop"] == "target")
    page = OTHER / "search" / f"{target['name']}.html"
    state = translator.parse(decode_html(page.read_bytes()), "https://www.target.com/s/ipad+air")
    first = state.results[0]
    nav = translator.resolve(state, f"click[{first.id}]")
    assert nav.kind == "goto" and nav.url == first.url and "/A-" + first.id in (nav.url or "")
    nav = translator.resolve(state, "search[usb c cable]")  # through the page's own search form
    assert nav.url == "https://www.target.com/s?searchTerm=usb+c+cable"
    assert state.next_page_url is None and state.clickable("next >") is not None  # a next button, no link
    nav = translator.resolve(state, "click[next >]")  # offered, and refused: no URL is made up
    assert nav.kind == "none" and nav.feedback.code == "not_recorded" and "no URL is guessed" in nav.feedback.message
    assert translator.resolve(state, "click[back to search]").url == "https://www.target.com/"


# ---------------------------------------------------------------------- small pages --
def _state(html: str, url: str | None = "https://shop.example.com/p/123456") -> PageState:
    return GenericTranslator().parse(html, url)


JSON_LD = """<html><head><title>Blue Kettle | Example Shop</title>
<script type="application/ld+json">{"@context": "https://schema.org", "@type": "Product", "name": "Blue Kettle",
 "sku": "KT-1001", "offers": {"@type": "Offer", "price": "24.50", "priceCurrency": "EUR"},
 "aggregateRating": {"ratingValue": "4.4", "reviewCount": 10}}</script>
<script type="application/ld+json">{"@type": "BreadcrumbList", "itemListElement": [
 {"@type": "ListItem", "position": 2, "name": "Kettles"}, {"@type": "ListItem", "position": 1, "name": "Kitchen"}]}
</script></head><body><h1>Blue Kettle</h1><p class="price">24,50 €</p></body></html>"""


def test_json_ld_product() -> None:
    state = _state(JSON_LD)
    p = state.product
    assert state.page_type == "item" and state.site == "other" and p is not None
    assert (p.id, p.title, p.price, p.currency, p.rating) == ("KT-1001", "Blue Kettle", 24.5, "EUR", 4.4)
    assert p.category_path == ["Kitchen", "Kettles"]
    assert state.shop == "example" and state.currency == "EUR"
    assert {"back to search", "< prev", "buy now"} <= {c.arg for c in state.clickables}


GROUP = """<html><body><h1>Stacking Blocks</h1><script type="application/ld+json">
{"@type": "ProductGroup", "name": "Stacking Blocks", "productGroupID": 99887766, "hasVariant": [
 {"@type": "Product", "name": "Stacking Blocks - Small", "size": "Small", "offers": {"price": 45, "priceCurrency": "USD"}},
 {"@type": "Product", "name": "Stacking Blocks - Large", "size": "Large", "offers": {"price": "85.00"}}]}
</script><select id="variation-size"><option value="">Select an option</option><option value="1">Small</option>
<option value="2">Large</option></select><label for="variation-size">Size</label></body></html>"""


def test_product_group_variants_give_a_range_and_an_axis() -> None:
    p = _state(GROUP).product
    assert p is not None and p.id == "99887766" and p.price == (45.0, 85.0) and p.currency == "USD"
    assert p.options == {"Size": ["Small", "Large"]} and p.selected == {"Size": None}


def test_aggregate_offer_is_a_range() -> None:
    html = JSON_LD.replace('"@type": "Offer", "price": "24.50"', '"@type": "AggregateOffer", "lowPrice": 20, '
                                                                '"highPrice": "29.00"')
    shown = html.replace('<p class="price">24,50 €</p>', '<p class="price">20,00 € – 29,00 €</p>')
    assert _state(shown).product.price == (20.0, 29.0)  # type: ignore[union-attr]
    # a buy box showing one price the structured range never names: that price, as displayed
    assert _state(html).product.price == 24.5  # type: ignore[union-attr]


MICRODATA = """<html><body><div itemscope itemtype="https://schema.org/Product">
<h1 itemprop="name">Arm Pillow</h1><span itemprop="productID">5894513</span>
<div itemprop="offers" itemscope itemtype="https://schema.org/Offer"><span itemprop="price" content="28.49">$28.49</span>
<meta itemprop="priceCurrency" content="USD"></div>
<div itemprop="aggregateRating" itemscope itemtype="https://schema.org/AggregateRating">
<span itemprop="ratingValue">4.6</span></div></div>
<ol itemscope itemtype="https://schema.org/BreadcrumbList">
<li itemprop="itemListElement" itemscope itemtype="https://schema.org/ListItem"><a itemprop="item" href="/b">
<span itemprop="name">Bedding</span></a></li>
<li itemprop="itemListElement" itemscope itemtype="https://schema.org/ListItem"><a itemprop="item" href="/p">
<span itemprop="name">Pillows</span></a></li></ol></body></html>"""


def test_microdata_product() -> None:
    p = _state(MICRODATA, "https://www.overstock.com/x/5894513/product.html").product
    assert p is not None
    assert (p.id, p.title, p.price, p.currency, p.rating) == ("5894513", "Arm Pillow", 28.49, "USD", 4.6)
    assert p.category_path == ["Bedding", "Pillows"]


RDFA = """<html><body><div vocab="https://schema.org/" typeof="Product"><h1 property="name">Desk Lamp</h1>
<div property="offers" typeof="Offer"><span property="price" content="19.99">$19.99</span>
<meta property="priceCurrency" content="USD"></div></div></body></html>"""


def test_rdfa_product() -> None:
    p = _state(RDFA).product
    assert p is not None and (p.title, p.price, p.currency) == ("Desk Lamp", 19.99, "USD")


OG_ONLY = """<html><head><title>Wool Scarf - Tiny Shop</title><meta property="og:type" content="product">
<meta property="og:title" content="Wool Scarf - Tiny Shop"><meta property="og:site_name" content="Tiny Shop">
<meta property="product:price:amount" content="35.00"><meta property="product:price:currency" content="GBP">
<link rel="canonical" href="https://tinyshop.co.uk/products/wool-scarf"></head><body><p>Warm.</p></body></html>"""


def test_opengraph_only_page() -> None:
    state = _state(OG_ONLY, None)
    p = state.product
    assert state.page_type == "item" and p is not None
    assert (p.title, p.price, p.currency, p.id) == ("Wool Scarf", 35.0, "GBP", "wool-scarf")
    assert state.url == "https://tinyshop.co.uk/products/wool-scarf" and state.shop == "tinyshop.co.uk"


def _card(i: int, price: str) -> str:
    return (f'<li class="result"><a href="/item/{i}000{i}"><img alt="Widget {i}"></a>'
            f'<h3 class="title"><a href="/item/{i}000{i}">Widget number {i}</a></h3>'
            f'<span class="price">{price}</span><s class="old">$99.00</s></li>')


CARDS = ("""<html><head><title>widgets - Search</title></head><body>
<form action="/find" method="get"><input type="text" name="term" value="widgets"></form>
<ul class="grid">""" + _card(1, "$10.00") + _card(2, "$12.50 - $15.00") + '<li class="result"><span>Ad</span>'
         + _card(3, "S/ 7 , 90")[len('<li class="result">'):] + """</ul>
<nav class="pagination"><a class="current">1</a><a href="/find?term=widgets&page=2">2</a>
<button class="pagination__next" aria-label="Next page"></button></nav></body></html>""")


def test_card_heuristics_read_a_results_page() -> None:
    state = _state(CARDS, "https://www.widgets.example/find?term=widgets")
    assert state.page_type == "results" and state.query == "widgets" and state.page_num == 1
    assert [(r.id, r.title, r.price) for r in state.results] == [
        ("10001", "Widget number 1", 10.0), ("20002", "Widget number 2", (12.5, 15.0)),
        ("30003", "Widget number 3", 7.9)]
    assert [r.sponsored for r in state.results] == [False, False, True]
    assert state.results[0].url == "https://www.widgets.example/item/10001"
    assert state.next_page_url == "https://www.widgets.example/find?term=widgets&page=2"  # the pager's '2' link


def test_rel_next_link_is_the_next_page() -> None:
    html = CARDS.replace("<title>", '<link rel="next" href="/find?term=widgets&amp;page=2&amp;x=1"><title>')
    state = _state(html, "https://www.widgets.example/find?term=widgets")
    assert state.next_page_url == "https://www.widgets.example/find?term=widgets&page=2&x=1"
    assert GenericTranslator().resolve(state, "click[next >]").url == state.next_page_url


def test_search_resolves_through_the_pages_form() -> None:
    translator = GenericTranslator()
    state = translator.parse(CARDS, "https://www.widgets.example/find?term=widgets")
    assert translator.resolve(state, "search[red hat]").url == "https://www.widgets.example/find?term=red+hat"
    post = CARDS.replace('method="get"', 'method="post"')
    state = translator.parse(post, "https://www.widgets.example/find?term=widgets")
    nav = translator.resolve(state, "search[red hat]")
    assert (nav.kind, nav.method, nav.form) == ("form", "POST", {"term": "red hat"})
    assert translator.resolve(state, "click[20002]").url == "https://www.widgets.example/item/20002"
    assert translator.resolve(state, "search[]").feedback.code == "empty_query"


def test_search_without_a_form_uses_search_action_or_a_default() -> None:
    translator = GenericTranslator()
    action = ('<script type="application/ld+json">{"@type": "WebSite", "potentialAction": {"@type": "SearchAction",'
              ' "target": "https://shop.example.com/q/{search_term_string}"}}</script>')
    state = translator.parse(JSON_LD.replace("</head>", action + "</head>"), "https://shop.example.com/p/1")
    assert translator.resolve(state, "search[a b]").url == "https://shop.example.com/q/a%20b"
    state = GenericTranslator().parse(JSON_LD, "https://other.example.org/p/1")
    assert GenericTranslator().resolve(state, "search[a b]").url == "https://other.example.org/search?q=a+b"


WALLS = {
    "cloudflare": '<html><head><title>Just a moment...</title></head><body><div id="cf-chl-widget"></div>'
                  '<script src="/cdn-cgi/challenge-platform/h/b/orchestrate/chl_page/v1"></script></body></html>',
    "perimeterx": '<html><head><title>Access to this page has been denied</title></head><body>'
                  '<div id="px-captcha"></div><p>Press &amp; Hold to confirm you are a human</p></body></html>',
    "datadome": '<html><head><title>shop.example</title></head><body><iframe '
                'src="https://geo.captcha-delivery.com/captcha/?initialCid=x"></iframe></body></html>',
    "akamai": "<html><head><title>Access Denied</title></head><body><h1>Access Denied</h1>You don't have permission "
              'to access "http://www.shop.example/" on this server.<p>Reference #18.5f3c1702.1700000000</p></body></html>',
    "walmart": '<html><head><title>Robot or human?</title></head><body><h1>Robot or human?</h1>'
               "<p>Activate and hold the button to confirm that you're human.</p></body></html>",
    "captcha": "<html><head><title>Are you a robot?</title></head><body><form>captcha</form></body></html>",
}


@pytest.mark.parametrize("name", sorted(WALLS))
def test_bot_walls_are_blocked(name: str) -> None:
    html = WALLS[name]
    state = translate_html(html, None)
    assert state.page_type == "blocked" and state.site == "other" and state.reason, (name, state)
    tree, _ = load_tree(html)
    assert tree is not None and wall_reason(tree, html)


def test_a_challenge_script_on_a_real_product_page_is_no_wall() -> None:
    html = JSON_LD.replace("</body>", '<script src="/cdn-cgi/challenge-platform/scripts/jsd/main.js"></script>'
                                      + "<!--" + "x" * 70_000 + "--></body>")
    assert _state(html).page_type == "item"


def test_detect_site_and_translate_html_fall_back_to_the_generic_translator() -> None:
    def site(html: str, url: str | None = None) -> str:
        tree, _ = load_tree(html)
        return detect_site(html, tree, url)

    assert site("<html><body>x</body></html>", "https://www.etsy.com/listing/1") == "other"
    assert site('<html><head><link rel="canonical" href="https://www.etsy.com/listing/1"></head></html>') == "other"
    assert site(JSON_LD) == "other"
    assert site("<html><body>hello</body></html>") == "unknown"
    assert site("<html><body>x</body></html>", "https://www.amazon.de/dp/B000000000") == "amazon"
    assert translate_html("<html><body>hello</body></html>").page_type == "unknown"
    assert translate_html(JSON_LD, None).product.title == "Blue Kettle"  # type: ignore[union-attr]
    assert type(translator_for("other")).__name__ == "GenericTranslator"


# ------------------------------------------------------------------ hostile structured data --
HOSTILE = [
    '<script type="application/ld+json">{"@type": "Product", "name": </script>',  # cut off
    '<script type="application/ld+json">{"@type": "Product", "name": "A",}</script>',  # trailing comma
    '<script type="application/ld+json">' + "[" * 100_000 + "]" * 100_000 + "</script>",  # deep
    '<script type="application/ld+json">{"@type": "Product", "name": "' + "x" * 1_500_000 + '"}</script>',  # huge
    '<script type="application/ld+json">' + '{"a": ' * 5_000 + "1" + "}" * 5_000 + "</script>",  # deep objects
    '<script type="application/ld+json">{"@type": ["Product", 7], "name": {"x": [1]}, "offers": "cheap",'
    ' "sku": 123456, "aggregateRating": [{"ratingValue": {"v": 1}}], "hasVariant": "none"}</script>',  # wrong types
    '<script type="application/ld+json">{"@type": "Product", "offers": {"price": {"amount": 5}},'
    ' "name": null, "productID": true}</script>',
    '<script type="application/ld+json">{"@type": "BreadcrumbList", "itemListElement": "Home > Shoes"}</script>',
    '<script type="application/ld+json">{"@type": "ItemList", "itemListElement": [1, null, "x", {"item": 5}]}'
    "</script>",
    '<script type="application/ld+json">{"@graph": ' + '[{"@type": "Offer", "price": "NaN"}]' * 3 + "}</script>",
    '<div itemscope itemtype="http://schema.org/Product"><span itemprop="name"></span>'
    '<div itemprop="offers" itemscope><span itemprop="price">free</span></div></div>',
    '<div typeof="Product"><span property="price" content="1e400"></span></div>',
    '<meta property="product:price:amount" content="-"><meta property="og:type" content="product">',
]


@pytest.mark.parametrize("snippet", HOSTILE, ids=range(len(HOSTILE)))
def test_hostile_structured_data_never_raises_nor_hangs(snippet: str) -> None:
    html = f"<html><head><title>t</title></head><body><h1>Thing</h1>{snippet}</body></html>"
    start = time.perf_counter()
    tree, _ = load_tree(html)
    if tree is not None:
        read_structured(tree)
    state = translate_html(html, "https://shop.example.com/p/1")
    assert isinstance(state, PageState) and state.site == "other"
    assert time.perf_counter() - start < 3.0


LARGE = {  # shapes the markup guard accepts (up to 200,000 elements) that would be quadratic if unbounded
    "numbers under one parent": "<h1>x</h1>" + "<i>1</i>" * 100_000 + "<span>$5</span>",
    "30,000 cards": "<h1>x</h1>" + '<div class="c"><a href="/p/12345">Item</a><span>$1.00</span></div>' * 30_000,
    "30,000 captions": "<h1>x</h1><span>$1</span>" + "<div><span>Features</span></div>" * 30_000 + "<ul><li>a</li></ul>",
    "3,000 microdata products": '<div itemscope itemtype="http://schema.org/Product"><span itemprop="name">A</span>'
                                '<div itemprop="offers" itemscope itemtype="http://schema.org/Offer">'
                                '<span itemprop="price">1</span></div></div>' * 3_000,
    "20,000 pagers": '<div class="pagination"><a class="next" href="/p?page=2">Next</a></div>' * 20_000,
}


@pytest.mark.parametrize("name", sorted(LARGE))
def test_large_pages_cost_linear_time(name: str) -> None:
    html = f"<html><head><title>t</title></head><body>{LARGE[name]}</body></html>"
    start = time.process_time()
    state = translate_html(html, "https://shop.example.com/p/1")
    assert isinstance(state, PageState)
    assert time.process_time() - start < 4.0  # about 1 s of CPU here, most of it the markup guard and parse


def test_many_ld_blocks_are_bounded() -> None:
    block = '<script type="application/ld+json">{"@type": "Offer", "price": 1, "x": "' + "y" * 200_000 + '"}</script>'
    html = "<html><body><h1>x</h1>" + block * 40 + "</body></html>"
    start = time.perf_counter()
    tree, _ = load_tree(html)
    assert tree is not None
    read_structured(tree)
    assert time.perf_counter() - start < 3.0


# ------------------------------------------------------------------------ shop names, ids --
@pytest.mark.parametrize(("url", "name"), [
    ("https://www.etsy.com/listing/1", "etsy"),
    ("http://www.homedepot.com/p/x/202286744", "homedepot"),
    ("https://www1.crutchfield.com/p_333ORAK/x.html", "crutchfield"),
    ("https://listado.mercadolibre.com.pe/mouse-gamer", "mercadolibre.com.pe"),
    ("https://www.mercadolibre.com/x", "mercadolibre.com"),
    ("https://www.kabum.com.br/produto/609956/x", "kabum.com.br"),
    ("http://www.buy.com/prod/x/217127211.html", "buy.com"),
    ("https://www.target.com/s/ipad+air", "target"),
    ("https://shop.example.co.uk/x", "example.co.uk"),
])
def test_shop_names(url: str, name: str) -> None:
    assert shop_name(url, None, "") == name


def test_shopify_and_page_signals_name_the_shop() -> None:
    assert shop_name("https://ostrichpillow.com/products/x", None, '<img src="//cdn.shopify.com/a.jpg">') == \
        "shopify:ostrichpillow.com"
    tree, _ = load_tree('<html><head><meta property="og:site_name" content="Flipkart.com"></head></html>')
    assert shop_name(None, tree, "") == "flipkart"
    tree, _ = load_tree('<a href="https://help.walmart.com/x">a</a><a href="https://www.walmart.com/">b</a>'
                        '<script src="https://client.px-cloud.net/x.js"></script>')
    assert shop_name(None, tree, "") == "walmart"
    assert registrable("a.b.example.com.br") == "example.com.br"


@pytest.mark.parametrize(("url", "item_id"), [
    ("https://www.etsy.com/listing/252423036/happy-soba-tee", "252423036"),
    ("http://www.beachaudio.com/Canon/3506b001-p-271456.html", "271456"),
    ("http://www.buy.com/prod/x/q/loc/33409/217127211.html", "217127211"),
    ("https://www.overstock.com/Bedding-Bath/Dream-Man-Arm-Pillow/5894513/product.html", "5894513"),
    ("https://www.target.com/p/apple-ipad-air/-/A-94651514?preselect=1#lnk=sametab", "94651514"),
    ("https://www.flipkart.com/redmi/p/itm3227d2404ad5d?pid=MOBH7VY5TU7UHKVE&lid=x", "MOBH7VY5TU7UHKVE"),
    ("https://www1.crutchfield.com/p_333ORAK/Parrot-Orak-Minidrone.html", "333ORAK"),
    ("https://shop.example.com/about-us", ""),
])
def test_ids_in_shop_urls(url: str, item_id: str) -> None:
    assert url_id(url) == item_id


@pytest.mark.parametrize(("text", "url", "code"), [
    ("$ 71.492", "https://www.mercadolibre.com.co/x", "COP"), ("$10.00", "https://www.target.com/x", "USD"),
    ("S/ 57,29", None, "PEN"), ("R$ 1.559,99", None, "BRL"), ("₹11,299", None, "INR"), ("EUR 3,50", None, "EUR"),
    ("199 kr", "https://shop.example.dk/x", "DKK"), ("free", None, None),
])
def test_currency_of_a_displayed_price(text: str, url: str | None, code: str | None) -> None:
    assert currency_for(text, url) == code


def _ld_page(ld: dict, body: str, title: str = "Acme Outdoor") -> str:
    return (f"<html><head><title>{title}</title><script type=\"application/ld+json\">{json.dumps(ld)}</script>"
            f"</head><body><header><form action=\"/search\"><input name=\"q\"></form></header>{body}</body></html>")


def _item_list(*names: str) -> dict:
    return {"@context": "https://schema.org", "@type": "ItemList", "itemListElement": [
        {"@type": "ListItem", "position": i, "item": {"@type": "Product", "name": n, "sku": f"SKU{i}",
                                                      "url": f"https://acme.example/p/sku{i}",
                                                      "offers": {"@type": "Offer", "price": "19.99", "priceCurrency": "USD"}}}
        for i, n in enumerate(names, 1)]}


def test_a_search_of_one_listed_product_is_a_results_page():
    """A shop's search with one hit describes it as an ItemList: no grid to see, still a results page."""
    body = ("<h1>1 result for \"trail tent\"</h1><div class=\"hit\"><a href=\"/p/sku1\">Trail Tent 2P</a>"
            "<span>$19.99</span><button>Add to cart</button></div>")
    state = translate_html(_ld_page(_item_list("Trail Tent 2P"), body), "https://acme.example/search?q=trail+tent")
    assert state.page_type == "results" and state.query == "trail tent"
    assert [(c.id, c.title, c.price) for c in state.results] == [("SKU1", "Trail Tent 2P", 19.99)]
    empty = translate_html(_ld_page(_item_list(), "<h1>No results for \"zz\"</h1>"), "https://acme.example/search?q=zz")
    assert (empty.page_type, empty.results, empty.query) == ("results", [], "zz")


def test_an_item_page_with_a_related_item_list_stays_an_item_page():
    """An ItemList of related products on an item page (no search in its URL) does not make it a results page."""
    body = ("<h1>Trail Tent 2P</h1><span class=\"price\">$149.00</span><button>Add to cart</button>"
            "<section><h2>Related</h2><a href=\"/p/sku1\">Camp Stove</a></section>")
    state = translate_html(_ld_page(_item_list("Camp Stove"), body), "https://acme.example/p/trail-tent-2p")
    assert state.page_type == "item" and state.product is not None and state.product.title == "Trail Tent 2P"
