"""The item page's option radios, written in Python for speed, are exactly what item.html's two loops
wrote: on real item pages (the bundled catalog and WebShop's small set, before and after options are
clicked) and on products with hostile option names and values."""

from __future__ import annotations

from typing import Any

import pytest
from conftest import SMALL
from hypothesis import given, settings
from hypothesis import strategies as st
from jinja2 import Environment, select_autoescape

from shopsim.attr_text import attr_text
from shopsim.links import PageUrls
from shopsim.page import Clickable, PageState, ProductView
from shopsim.simsite.html_options import option_radios
from shopsim.simsite.images import option_image_url
from shopsim.simsite.session import ShopSession
from shopsim.simsite.shop import Shop

#: The loops as templates/item.html had them (WebShop's markup), the oracle for option_radios.
OPTION_LOOP = (
    "{% for opt in options %}{% set a = loop.index0 %}\n"
    '            <div class="row top-buffer">\n'
    "              <h4>{{ opt.axis }}</h4>\n"
    '              <div class="radio-toolbar" data-axis="{{ opt.axis|attr }}">\n'
    "                {% for v in opt['values'] %}\n"
    "                  {% set rid = 'radio_' ~ opt.axis ~ loop.index0 %}\n"
    "                  {# one radio per value: WebShop's id, name and value; our hooks in data-* #}\n"
    "                  {# the label's text is the value alone (the swatch image adds no text) #}\n"
    '                  <input type="radio" id="{{ rid }}" name="{{ opt.axis }}" value="{{ v.value }}" '
    'data-url="{{ v.url }}" data-axis="{{ opt.axis|attr }}" data-value="{{ v.value|attr }}"{% if v.arg is not none %} '
    'data-arg="{{ v.arg|attr }}" data-click-index="{{ v.index }}" data-clicked="{{ \'true\' if v.clicked else '
    "'false' }}\"{% endif %}{% if v.checked %} checked{% endif %}>\n"
    '                  <label for="{{ rid }}" id="option-label-{{ a }}-{{ loop.index0 }}" '
    'aria-labelledby="option-label-{{ a }}-{{ loop.index0 }}"><img class="swatch" src="{{ v.image }}" alt="" width="24" '
    'height="24">{{ v.value }}</label>\n'
    "                {% endfor %}\n"
    "              </div>\n"
    "            </div>\n"
    "          {% endfor %}"
)
_ENV = Environment(autoescape=select_autoescape(default=True, default_for_string=True))
_ENV.filters["attr"] = attr_text  # our data-* values hold no quote (shopsim.attr_text)
_ORACLE = _ENV.from_string(OPTION_LOOP)


def _rows(state: PageState, urls: PageUrls, order: dict[str, int]) -> list[dict[str, Any]]:
    """The rows html.py built for those loops: each value's link one by one (``urls.with_option``)."""
    if state.product is None or state.page_type != "item":
        return []
    opt_click = {(c.axis, c.text): c for c in state.clickables if c.kind == "option"}
    options = []
    for a, (axis, values) in enumerate(state.product.options.items()):
        rows = []
        for i, v in enumerate(values):
            c = opt_click.get((axis, v))
            rows.append({"value": v, "url": urls.with_option(axis, v), "checked": state.product.selected.get(axis) == v,
                         "arg": c.arg if c else None, "index": order.get(c.arg) if c else None,
                         "clicked": bool(c and c.clicked), "image": option_image_url(state.product.id, a, i)})
        options.append({"axis": axis, "values": rows})
    return options


def _both(state: PageState) -> tuple[str, str]:
    urls = PageUrls(state)
    order = {c.arg: i for i, c in enumerate(state.clickables)}
    return str(option_radios(state, urls, order)), _ORACLE.render(options=_rows(state, urls, order))


def _item_pages(shop: Shop, goals: range) -> list[PageState]:
    """Each goal's first result's item page, then the same page after each option axis is clicked."""
    pages = []
    for g in goals:
        s = ShopSession(shop, shop.goal(g), f"fixed_{g}")
        s.step("search[" + " ".join((s.state.instruction or "").lower().split()[:5]) + "]")
        if not s.state.results:
            continue
        s.step(f"click[{s.state.results[0].id.lower()}]")
        pages.append(s.state)
        for c in [c for c in s.state.clickables if c.kind == "option"][::3]:
            s.step(f"click[{c.arg}]")
            pages.append(s.state)
    return pages


def test_radios_match_the_template_on_real_item_pages(bundled_shop):
    pages = _item_pages(bundled_shop, range(0, 60, 3))
    assert any(p.product and any(p.product.selected.values()) for p in pages) and len(pages) > 30
    for state in pages:
        got, want = _both(state)
        assert got == want


@pytest.mark.skipif(not (SMALL / "items_shuffle_1000.json").exists(), reason=f"no WebShop small set at {SMALL}")
def test_radios_match_the_template_on_webshop_small_set(small_shop):
    pages = _item_pages(small_shop, range(0, 400, 20))
    assert sum(len(p.product.options) for p in pages if p.product) > 20
    for state in pages:
        got, want = _both(state)
        assert got == want


def test_pages_without_a_product_have_no_radios(bundled_shop):
    s = ShopSession(bundled_shop, bundled_shop.goal(0), "fixed_0")
    assert _both(s.state) == ("", "")


_TEXT = st.text(alphabet=st.characters(codec="utf-8"), min_size=1, max_size=20) | st.sampled_from(
    ["<script>x</script>", "a & b", "\"'", "{{7*7}}", "{0}", "%s", "a/b c", "x:y,z"])


@settings(max_examples=150, deadline=None)
@given(options=st.dictionaries(_TEXT, st.lists(_TEXT, min_size=1, max_size=4, unique=True), min_size=1, max_size=3),
       keywords=st.lists(_TEXT, min_size=1, max_size=3), pick=st.integers(0, 50), clicked=st.booleans(),
       session=st.sampled_from(["abc", "fixed_3"]))
def test_radios_match_the_template_on_hostile_text(options, keywords, pick, clicked, session):
    axes = list(options)
    axis = axes[pick % len(axes)]
    value = options[axis][pick % len(options[axis])]
    view = ProductView(id="B0HOSTILE0", title="t", options=options, selected={axis: value})
    clicks = [Clickable(arg=f"{a}:{v}".lower(), text=v, kind="option", axis=a, clicked=clicked and a == axis)
              for a, values in options.items() for v in values[::2]]
    state = PageState(page_type="item", url=f"http://127.0.0.1/item_page/{session}/B0HOSTILE0/a/1/{{}}",
                      keywords=keywords, page_num=1, product=view, clickables=clicks)
    got, want = _both(state)
    assert got == want


@settings(max_examples=100, deadline=None)
@given(values=st.lists(_TEXT, min_size=2, max_size=2))
def test_a_fragment_fills_as_str_format_does(values):
    from shopsim.simsite.html_text import Fragment

    fmt = "<a href='{x}'>{y}</a>{x}{{literal}}"
    assert Fragment(fmt).fill(x=values[0], y=values[1]) == fmt.format(x=values[0], y=values[1])
    with pytest.raises(ValueError, match="plain"):
        Fragment("{x!r}")
