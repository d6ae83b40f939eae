"""The sim's pages survive a naive serialiser (``name="value"`` written without escaping, as BrowserGym's
DOM text does): re-parsed, every element keeps its attributes, and the translator reads the encoded
``data-*`` hooks back to the same PageState as the embedded JSON.

WebShop's own option hooks (a radio's ``name``, ``value`` and ``id``, its label's ``for``) hold the
catalog's text, as WebShop writes them and its clients read them, so an inch mark (``16"``) still
breaks them: those four are checked only where their text has no ``"``.
"""

from __future__ import annotations

import html

import pytest
from selectolax.lexbor import LexborHTMLParser, LexborNode

from shopsim.attr_text import attr_json, attr_text, read_attr_json, read_attr_text
from shopsim.page import PageState
from shopsim.render import render_rich
from shopsim.simsite.html import render_html
from shopsim.simsite.session import ShopSession
from shopsim.simsite.shop import Shop
from shopsim.translators.sim_pages import SimsiteTranslator

#: WebShop's markup hooks that carry catalog text verbatim (its clients read them): exempt when it holds '"'.
WEBSHOP_HOOKS = {("input", "name"), ("input", "value"), ("input", "id"), ("label", "for")}
RAW_TEXT = {"script", "style"}
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


def naive(node: LexborNode) -> str:
    """``node`` as HTML with attribute values written raw between double quotes (text escaped)."""
    if node.tag == "-text":
        parent = node.parent.tag if node.parent is not None else ""
        return node.text_content or "" if parent in RAW_TEXT else html.escape(node.text_content or "", quote=False)
    if node.tag in ("-comment", "!doctype") or node.tag is None or node.tag.startswith("-"):
        return ""
    attrs = "".join(f' {k}="{v}"' if v is not None else f" {k}" for k, v in node.attributes.items())
    inner = "".join(naive(c) for c in _children(node))
    return f"<{node.tag}{attrs}>" + ("" if node.tag in VOID else f"{inner}</{node.tag}>")


def _children(node: LexborNode) -> list[LexborNode]:
    out, child = [], node.child
    while child is not None:
        out.append(child)
        child = child.next
    return out


def _elements(tree: LexborHTMLParser) -> list[LexborNode]:
    return [n for n in tree.root.traverse() if n.tag and not n.tag.startswith("-") and n.tag != "!doctype"]


def _pages(shop: Shop, goals: range) -> list[PageState]:
    """Every page type of each goal's episode: search, results, item (and after an option), sub pages, done."""
    out = []
    for g in goals:
        s = ShopSession(shop, shop.goal(g), f"fixed_{g}")
        out.append(s.state)
        s.step("search[" + " ".join((s.state.instruction or "").lower().split()[:5]) + ' "quoted" & <b>]')
        out.append(s.state)
        if not s.state.results:
            continue
        card = next((c for c in s.state.results if shop.products[c.id].options), s.state.results[0])
        s.step(f"click[{card.id.lower()}]")
        out.append(s.state)
        for c in [c for c in s.state.clickables if c.kind == "option"][:2]:
            s.step(f"click[{c.arg}]")
        out.append(s.state)
        for sub in ("description", "features", "reviews", "attributes"):
            if s.state.clickable(sub) is not None:
                s.step(f"click[{sub}]")
                out.append(s.state)
                s.step("click[< prev]")
        s.step("click[buy now]")
        out.append(s.state)
    return out


def _hooks(s: PageState) -> tuple:
    """What the encoded ``data-*`` hooks carry (a sub page's markup names its product, not its options)."""
    product = (s.product.id, s.product.options if s.page_type == "item" else None,
               s.product.selected if s.page_type == "item" else None) if s.product else None
    return (s.url, s.query, s.keywords, s.results, s.clickables, product, s.purchase, s.reward_info)


def _round_trip(page: str) -> list[str]:
    """The attribute differences between a page and its naive serialisation, re-parsed."""
    before = LexborHTMLParser(page)
    after = LexborHTMLParser("<!DOCTYPE html>" + naive(before.root))
    a, b = _elements(before), _elements(after)
    if [n.tag for n in a] != [n.tag for n in b]:
        return ["the element structure changed"]
    diffs = []
    for x, y in zip(a, b, strict=True):
        want, got = dict(x.attributes), dict(y.attributes)
        for key in (want.keys() | got.keys()):
            exempt = (x.tag, key) in WEBSHOP_HOOKS and '"' in (want.get(key) or "")
            if not exempt and want.get(key) != got.get(key):
                diffs.append(f"<{x.tag} {key}>: {want.get(key)!r} became {got.get(key)!r}")
    return diffs


@pytest.mark.slow
@pytest.mark.parametrize("which", ["bundled", "small"])
def test_naive_serialisation_keeps_every_attribute(which, request):
    shop = request.getfixturevalue(f"{which}_shop")
    states = _pages(shop, range(0, 60, 3))
    pages = [render_html(s, shop.products) for s in states]
    assert {s.page_type for s in states} == {"search", "results", "item", "item_detail", "done"}
    assert any("%22" in p for p in pages)  # there were quotes to keep out (the keywords' JSON at least)
    tr = SimsiteTranslator()
    for state, page in zip(states, pages, strict=True):
        assert _round_trip(page) == [], state.url
        read = tr.parse_markup(LexborHTMLParser(page.replace('id="shopsim-state"', 'id="gone"')), state.url)
        assert _hooks(read) == _hooks(tr.parse(page)) == _hooks(state), state.url  # the hooks decode to the same values
        assert render_rich(read) == render_rich(state) and read.valid_actions() == state.valid_actions()


def test_the_small_catalog_really_has_quotes_in_option_values(small_shop):
    """Why the hooks are encoded: WebShop's own data holds inch marks in option values and titles."""
    values = [v for p in small_shop.products.values() for vs in p.options.values() for v in vs if '"' in v]
    assert len(values) > 50


@pytest.mark.parametrize("value", ['16" x 20"', "men's", "50% & <b>", "%22", "", "日本語 \"x\"", "a%2"])
def test_encoded_values_read_back_exactly(value):
    encoded = attr_text(value)
    assert not set(encoded) & set("\"'&<>") and read_attr_text(encoded) == value
    assert read_attr_json(attr_json([value, {"k": value}])) == [value, {"k": value}]


def test_pages_saved_before_the_encoding_still_read():
    """Raw JSON and raw text (what older pages hold) come back as they are."""
    assert read_attr_json('["red", "shoes"]') == ["red", "shoes"]
    assert read_attr_text('16" x 20"') == '16" x 20"' and read_attr_text(None) is None
