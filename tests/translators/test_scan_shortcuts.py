"""The translator's cheaper scans give what the plain ones give (issue 22, parse time, third pass).

``dom.marked`` answers a list of ``[attr*="x"]`` selectors from one cheaper superset selector,
``dom.MarkScan`` skips the marks whose anchor a page lacks, and ``prices.currency_of`` reads marks
with a regex whose branches open with their first character. Each is checked against the plain
form (lexbor's own selector list, ``str.count``) on our own markup, on random text and on every
saved real page, and the currency marks on the word-boundary cases the rewrite touched.
"""

from __future__ import annotations

import pytest
from conftest import REAL_PAGES, needs_shared
from hypothesis import given, settings
from hypothesis import strategies as st
from selectolax.lexbor import LexborHTMLParser

from shopsim.translators import marketplaces
from shopsim.translators.dom import MarkScan, ascii_lowered, marked
from shopsim.translators.page_kind import PageOrder
from shopsim.translators.prices import currency_of, parse_price
from shopsim.translators.registry import read_page_file

#: A pager's marks, as (attribute, substring), and a selector that finds every element they match.
PAGER_MARKS = (("class", "paginat"), ("class", "Paginat"), ("class", "pager"), ("aria-label", "aginat"),
               ("aria-label", "aginación"), ("data-test", "paginat"), ("data-testid", "paginat"))
PAGER_LIST = ", ".join(f'[{name}*="{part}"]' for name, part in PAGER_MARKS)
PAGER_CANDIDATES = '[class*="ag"], [aria-label*="agina"], [data-test*="paginat"], [data-testid*="paginat"]'

GRID = """<!doctype html><html><body>
<nav class="pager paginator" aria-label="Paginación" data-test="paginate" id="both">
<a class="Pagination__link pager-next" id="two">2</a><b aria-label="aginación" id="one">x</b>
<i class="image tag" id="none">y</i><span class="PAGINATION" id="upper">z</span></nav>
<ul class="pagination"><li class="page-item pager" id="li"><a href="?page=3" data-testid="paginationNext">3</a></li></ul>
</body></html>"""


def _ids(nodes: list) -> list[int]:
    return [n.mem_id for n in nodes]


@pytest.mark.parametrize("limit", [1, 3, 40])
def test_marked_gives_lexbors_own_answer_in_order_and_once_per_mark(limit: int) -> None:
    body = LexborHTMLParser(GRID).body
    plain = body.css(PAGER_LIST)
    assert [n.id for n in plain][:6] == ["both"] * 4 + ["two"] * 2  # a node once per mark it matches
    assert "upper" not in {n.id for n in plain} and "none" not in {n.id for n in plain}  # case counts
    assert _ids(marked(body, PAGER_MARKS, PAGER_CANDIDATES, limit)) == _ids(plain[:limit])


#: A breadcrumb container's marks, and one class scan for 'read' in place of two.
CRUMB_MARKS = (("class", "readcrumb"), ("id", "readcrumb"), ("aria-label", "readcrumb"), ("class", "read-crumb"),
               ("data-testid", "readcrumb"))
CRUMB_CANDIDATES = '[class*="read"], [id*="readcrumb"], [aria-label*="readcrumb"], [data-testid*="readcrumb"]'


@needs_shared
@pytest.mark.parametrize(("marks", "candidates"), [(PAGER_MARKS, PAGER_CANDIDATES), (CRUMB_MARKS, CRUMB_CANDIDATES)],
                         ids=["pager", "breadcrumb"])
def test_marked_gives_lexbors_own_answer_on_every_real_page(marks: tuple[tuple[str, str], ...], candidates: str) -> None:
    plain = ", ".join(f'[{name}*="{part}"]' for name, part in marks)
    pages = sorted(REAL_PAGES.glob("*/*/*.html"))
    assert pages
    for path in pages:
        body = LexborHTMLParser(read_page_file(path)).body
        if body is not None:
            assert _ids(marked(body, marks, candidates, 1000)) == _ids(body.css(plain)), path.name


MARKS = ("item.taobao.com", "s.taobao.com", "taobao.com/item", "g_page_config", "jd.com", "//www.jd.com", "aa")
ANCHORS = ("taobao.com", "jd.com", "a")


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from([*MARKS, "taobao", "jd.co", "item.", ".com", "x", " ", "ａ", "İ"]), max_size=30))
def test_mark_scan_counts_as_str_count_does(pieces: list[str]) -> None:
    text = "".join(pieces)
    scan = MarkScan(text, ANCHORS)
    assert scan.count(MARKS) == sum(text.count(m) for m in MARKS)
    for mark in MARKS:
        assert scan.any((mark,)) == (mark in text)


@needs_shared
def test_mark_scan_counts_as_str_count_does_on_every_real_page() -> None:
    marks = ("amazon.com", "media-amazon", "ebay.com", "ebayimg", "cdn.shopify.com", ".myshopify.com", "jd.com",
             "360buyimg.com", "item.rakuten.co.jp/", '"@type":"product"', "schema.org/product")
    anchors = ("amazon", "ebay", "hopify", "jd.com", "360buyimg", "rakuten", '"@type"', "schema.org/")
    for path in sorted(REAL_PAGES.glob("*/*/*.html")):
        head = read_page_file(path)[:300_000].lower()
        scan = MarkScan(head, anchors)
        assert scan.count(marks) == sum(head.count(m) for m in marks), path.name
        assert [scan.any((m,)) for m in marks] == [m in head for m in marks], path.name


ASCII_MARK = st.text(alphabet="\"@:/.- abcdefghijlmnopqrstuvwxyzABCDEFGHIJLMNOPQRSTUVWXYZ", min_size=1, max_size=6).filter(
    lambda m: not m.lower().endswith("i"))


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet="aAiIkKtTpP\"@: İ\u212aΣσßﬁÅ\u0307é漢", max_size=40), ASCII_MARK)
def test_ascii_lowered_finds_marks_as_str_lower_does(text: str, mark: str) -> None:
    assert (mark in ascii_lowered(text)) == (mark in text.lower())
    assert ("kelvin" in ascii_lowered(text + "\u212aelvin")) is False  # why marks must not hold a 'k'


@pytest.mark.parametrize(("text", "currency"), [
    ("USD5", "USD"), ("5 USD", "USD"), ("aUSD 5", None), ("5 USDx", None), ("AC$5", "USD"), ("C$5", "CAD"),
    ("NT$ 100", "TWD"), ("Rs.500", "INR"), ("xRs 5", None), ("100円", "JPY"), ("x円", None), ("€ 136,00", "EUR"),
    ("Originalpreis: 119,95 € ab 89,95 €", "EUR"), ("kr 5", "SEK"), ("5kr.", "SEK"), ("RMB 99", "CNY"),
    ("руб 5", "RUB"), ("4.8", None), ("", None),
])
def test_currency_marks_keep_their_word_boundaries(text: str, currency: str | None) -> None:
    assert currency_of(text) == currency


def test_a_range_keeps_its_marks_between_the_numbers() -> None:
    assert parse_price("US $10.99 - US $15.99").value == (10.99, 15.99)
    assert parse_price("3,858 円 ～ 13,507 円").value == (3858.0, 13507.0)


def test_page_order_says_what_comes_first_as_a_walk_does() -> None:
    body = LexborHTMLParser(GRID).body
    nodes = list(body.traverse())
    for then_at, then in enumerate(nodes):
        order = PageOrder(body, then)
        assert order.met
        assert [order.before(n) for n in nodes] == [at < then_at or at == then_at for at in range(len(nodes))]


def _mids_plain(html: str, end: int) -> list[tuple[int, str]]:
    return sorted((m.start(), m.group(1)) for _, rx in marketplaces._MID_RES for m in rx.finditer(html, 0, end))


def _mids_found(html: str, end: int) -> list[tuple[int, str]]:
    return sorted(f for literal, rx in marketplaces._MID_RES for f in marketplaces._matches(html, literal, rx, end))


@settings(max_examples=400, deadline=None, derandomize=True)
@given(st.lists(st.sampled_from(["ue_mid", "=", " ", "'", '"', "ATVPDKIKX0DER", "A1", '"marketplaceId"', ":", "x"]),
                max_size=30), st.integers(0, 4))
def test_marketplace_ids_found_by_find_are_the_regex_matches(parts: list[str], cut: int) -> None:
    html = "".join(parts)
    end = max(0, len(html) - cut)
    assert _mids_found(html, end) == _mids_plain(html, end)


@needs_shared
def test_marketplace_ids_on_real_pages() -> None:
    for path in sorted(REAL_PAGES.glob("*/*/*.html")):
        html = read_page_file(path)
        end = min(len(html), 2_000_000)
        assert _mids_found(html, end) == _mids_plain(html, end), path.name
