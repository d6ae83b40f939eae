"""The str.find tokenizer reads every page exactly as TOKEN_RE does (issue 22: the compiled scan).

``find_tags`` replaces sre in the compiled build, so it must give the same tokens, spans included,
on any input: quotes after and away from '=', '=' runs, unterminated tags, comments and quotes,
``<`` before odd characters, uppercase and non-ASCII names, and every real page in ``../shared``.
Whichever build is loaded runs here; ``scripts/test`` runs this file again with ``SHOPSIM_PURE_SCAN=1``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import needs_shared
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_guard_fuzz import _real_pages

from shopsim.translators.documents import decode_html
from shopsim.translators.html_rules import TOKEN_RE
from shopsim.translators.tag_lexer import RegexTags, Tags

Token = tuple[str, str, str, int]


def reference(html: str, pos: int) -> list[Token]:
    """TOKEN_RE's tokens, as the scan reads them: names with ASCII letters folded, "" for no name."""
    fold = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
    return [(m[1] or "", (m[2] or "").translate(fold), m[3] or "", m.end()) for m in TOKEN_RE.finditer(html, pos)]


def find_tags(html: str, pos: int) -> list[Token]:
    return [(t.closing, t.name, t.attrs, t.end) for t in Tags(html, pos)]


def regex_tags(html: str, pos: int) -> list[Token]:
    return [(t.closing, t.name, t.attrs, t.end) for t in RegexTags(html, pos)]

#: Pieces of markup chosen to hit each branch of the tokenisation, and the seams between them.
PIECES = st.sampled_from([
    "<", ">", "/", "=", "==", '"', "'", " ", "\t", "\n", "\f", "\r", "\x0b", "-", "--", "!", "?", "<!--", "-->",
    "--!>", "<!-->", "<!--->", "<!---->", "<!", "<?", "</", "</ ", "<a", "<A", "<div", "</div", "<DIV", "<x-y",
    "<\u00e9", "<h\u00e9", "<a\u00df", "<\u4e2d", "\u4e2d\u6587", "\U0001f600", "<b\U0001f600", "class", "href",
    'a="x>y"', "a='x>y'", 'a=x"y', "a =\"v\"", "a= 'v'", "= \"q\"", '"=', "a==\"x\"", "a=\"unterminated",
    "a='", "/>", " / ", "<br/>", "<img src=x/>", "<p", "<script>", "</script>", "<!doctype html>", "x", "1", "<1",
    "< b", "<\u00c4", "<a\u00c4", "<X\u0130", "<Q\u00df", "<3", "&lt;",
])


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(PIECES, max_size=60).map("".join), st.integers(0, 5))
def test_find_tags_tokenises_random_markup_as_token_re(html: str, start: int) -> None:
    pos = min(start, len(html))
    assert find_tags(html, pos) == reference(html, pos) == regex_tags(html, pos)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from('<>/!?-="\' \tabA\u00e9\u4e2d'), max_size=80))
def test_find_tags_tokenises_any_string_of_markup_characters_as_token_re(html: str) -> None:
    assert find_tags(html, 0) == reference(html, 0) == regex_tags(html, 0)


@pytest.mark.parametrize(("html", "first"), [
    ('<a href="x>y" b=c>', ("", "a", ' href="x>y" b=c', 18)),
    ('<a x"y>z">', ("", "a", ' x"y', 7)),  # a quote away from '=' is a plain character
    ("<div class='unclosed>t", ("", "div", " class='unclosed", 21)),
    ("<!-- a -- b --!> c", ("", "", "", 16)),
    ("</ x>", ("", "", "", 5)),
    ("<DIV\u00e9 a=1", ("", "div\u00e9", " a=1", 9)),  # ASCII letters fold; '\u00e9' stays
])
def test_find_tags_edge_cases(html: str, first: tuple[object, ...]) -> None:
    assert find_tags(html, 0)[0] == first == reference(html, 0)[0] == regex_tags(html, 0)[0]


@needs_shared
@pytest.mark.parametrize("path", _real_pages(), ids=lambda p: p.stem[:50])
def test_find_tags_reads_every_real_page_as_token_re(path: Path) -> None:
    html = decode_html(path.read_bytes()).replace("\x00", "")
    assert find_tags(html, 0) == reference(html, 0) == regex_tags(html, 0)
