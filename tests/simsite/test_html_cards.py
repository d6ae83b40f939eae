"""The results page's cards, written in Python for speed, are exactly what the results template's card
loop wrote: on real results pages (the bundled catalog and WebShop's small set, clicked and
unclicked cards, sponsored ones, price ranges) and on cards with hostile text."""

from __future__ import annotations

import pytest
from conftest import SMALL
from hypothesis import given, settings
from hypothesis import strategies as st
from jinja2 import Environment, select_autoescape

from shopsim.attr_text import attr_prose, attr_text
from shopsim.links import PageUrls
from shopsim.page import Clickable, PageState, ResultCard
from shopsim.simsite.html import _card_images
from shopsim.simsite.html_cards import result_cards
from shopsim.simsite.session import ShopSession
from shopsim.simsite.shop import Shop

#: The card loop as templates/results.html had it (WebShop's markup), the oracle for result_cards.
CARD_LOOP = (
    "{% for card in s.results %}{% set c = s.clickable(card.id) %}{% set img = card_images[card.id] %}\n"
    '        <div class="col-lg-12 mx-auto list-group-item">\n          <div class="col-lg-4">\n'
    '            <img src="{{ img.src }}" class="result-img" alt="{{ card.title|prose }}" width="96" height="96" '
    'decoding="async"{% if img.original %} data-original-src="{{ img.original|attr }}"{% endif %}>\n'
    '          </div>\n          <div class="col-lg-8">\n            <ul class="list-group shadow">\n'
    '                <div class="media align-items-lg-center flex-column flex-lg-row p-3">\n'
    '                  <div class="media-body order-2 order-lg-1 searched-product" data-asin="{{ card.id|attr }}">\n'
    "                    \n"
    '                    <h4 class="mt-0 font-weight-bold mb-2 product-asin"><a class="product-link" '
    'href="{{ urls.product(card.id) }}" data-asin="{{ card.id|attr }}"{% if c %} data-click-index="{{ order[c.arg] }}" '
    "data-clicked=\"{{ 'true' if c.clicked else 'false' }}\"{% endif %}{% if card.url %} "
    'data-url="{{ card.url|attr }}"{% endif %}>{{ card.id }}</a></h5>\n'
    '                    <h4 class="mt-0 font-weight-bold mb-2 product-title">{{ card.title }}</h5>\n'
    '                    <div class="d-flex align-items-center justify-content-between mt-1">\n'
    '                      <h5 class="font-weight-bold my-2 product-price" data-price="{{ card.price|tojson if '
    "card.price is not none else '' }}\"{% if card.sponsored %} data-sponsored=\"true\"{% endif %}>"
    "{{ card.price_text }}</h6>\n"
    "                    </div>\n<!--{% set info = card_info.get(card.id) %}\n"
    '                    <div class="d-flex align-items-center justify-content-between mt-1">\n'
    "                      <h5 class=\"font-weight-bold my-2 product-category\">{{ info.category if info else '' }}</h5>\n"
    "                    </div>\n"
    '                    <div class="d-flex align-items-center justify-content-between mt-1">\n'
    "                      <h5 class=\"font-weight-bold my-2 product-query\">{{ info.query if info else '' }}</h5>\n"
    "                    </div>\n"
    '                    <div class="d-flex align-items-center justify-content-between mt-1">\n'
    '                      <h5 class="font-weight-bold my-2 product-product_category">'
    "{{ info.product_category if info else '' }}</h5>\n"
    "                    </div>\n-->\n                  </div>\n                </div>\n            </ul>\n"
    "          </div>\n        </div>\n        {% endfor %}"
)
_ENV = Environment(autoescape=select_autoescape(default=True, default_for_string=True))
_ENV.filters.update(attr=attr_text, prose=attr_prose)  # as simsite.html's environment has them
_ORACLE = _ENV.from_string(CARD_LOOP)


def _both(state: PageState, catalog: dict | None) -> tuple[str, str]:
    urls = PageUrls(state)
    order = {c.arg: i for i, c in enumerate(state.clickables)}
    images = _card_images(state, catalog)
    info = {c.id: catalog[c.id] for c in state.results if c.id in catalog} if catalog is not None else {}
    want = _ORACLE.render(s=state, urls=urls, order=order, card_images=images, card_info=info)
    return str(result_cards(state, urls, order, images, info)), want


def _results_pages(shop: Shop, goals: range) -> list[PageState]:
    """Each goal's first and second results page, the second after a visit to one of the first's cards."""
    pages = []
    for g in goals:
        s = ShopSession(shop, shop.goal(g), f"fixed_{g}")
        s.step("search[" + " ".join((s.state.instruction or "").lower().split()[:5]) + "]")
        pages.append(s.state)
        if s.state.results:
            s.step(f"click[{s.state.results[-1].id.lower()}]")
            s.step("click[< prev]")
            pages.append(s.state)  # the visited card is marked clicked
            s.step("click[next >]")
            pages.append(s.state)
    return pages


def test_cards_match_the_template_on_real_results_pages(bundled_shop):
    pages = _results_pages(bundled_shop, range(0, 60, 3))
    assert any(c.clicked for p in pages for c in p.clickables) and len(pages) > 40
    for state in pages:
        got, want = _both(state, dict(bundled_shop.products))
        assert got == want
        assert _both(state, None)[0] == _both(state, None)[1]  # no catalog: generated images only


@pytest.mark.skipif(not (SMALL / "items_shuffle_1000.json").exists(), reason=f"no WebShop small set at {SMALL}")
def test_cards_match_the_template_on_webshop_small_set(small_shop):
    pages = _results_pages(small_shop, range(0, 400, 20))
    assert any(isinstance(c.price, list | tuple) for p in pages for c in p.results)  # price ranges shown
    for state in pages:
        got, want = _both(state, dict(small_shop.products))
        assert got == want


_TEXT = st.text(alphabet=st.characters(codec="utf-8"), max_size=30) | st.sampled_from(
    ["<script>x</script>", "a & b", "\"'", "{{7*7}}", "{0}", "%s", ""])


_ASIN = st.from_regex(r"B0[A-Z0-9]{8}", fullmatch=True) | st.sampled_from(["B0CARDMARK0", "a/b c", "x&y", "é"])


@settings(max_examples=150, deadline=None)
@given(cards=st.lists(st.tuples(_ASIN, _TEXT, _TEXT,
                                st.none() | st.floats(0, 1e6) | st.tuples(st.floats(0, 99), st.floats(100, 999)),
                                st.booleans(), st.none() | _TEXT, st.booleans()), min_size=1, max_size=5, unique_by=lambda c: c[0]),
       keywords=st.lists(_TEXT | st.just("B0CARDMARK0"), min_size=1, max_size=3),
       session=st.sampled_from(["abc", "fixed_3", "B0CARDMARK0"]))
def test_cards_match_the_template_on_hostile_text(cards, keywords, session):
    results = [ResultCard(id=asin, title=title, price=price, price_text=text, sponsored=sponsored, url=url)
               for asin, title, text, price, sponsored, url, _ in cards]
    clicks = [Clickable(arg=r.id.lower(), text=r.id, kind="product", clicked=clicked)
              for r, (*_, clicked) in zip(results, cards, strict=True) if clicked or r.sponsored]
    state = PageState(page_type="results", url=f"http://127.0.0.1/search_results/{session}/a/1", keywords=keywords,
                      page_num=2, results=results, clickables=clicks)
    got, want = _both(state, None)
    assert got == want

