"""The guard's tokenizer: each tag of a page as ``(closing, name, attributes, end)``, as TOKEN_RE reads it.

Two implementations of one tokenisation (the HTML standard's, for tags, comments and doctypes):
:func:`regex_tags` runs :data:`~shopsim.translators.html_rules.TOKEN_RE` (sre is the fastest way
for plain Python), and :func:`find_tags` jumps with ``str.find`` to the next ``<``, ``>`` and
closing quote and steps through attribute names only; compiled by mypyc it reads a page about
three times faster than sre, interpreted it is slower. :data:`tags` is the one the build makes fast.
Both give the same tokens (``tests/translators/test_tag_lexer.py`` compares them on random markup
and on every real page).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Final

from shopsim.translators.html_rules import TOKEN_RE

__all__ = ["COMPILED", "Token", "find_tags", "regex_tags", "tags"]

#: ``(closing, name, attributes, end)``: ``closing`` is ``"/"`` or ``""`` (None with the name and
#: attributes for a comment, doctype or bogus comment); ``end`` is where the token ends.
Token = tuple[str | None, str | None, str | None, int]

#: Whether this module runs compiled (mypyc sets ``__file__`` to the extension's path).
COMPILED: Final = not __file__.endswith(".py")

# Character codes (Final: mypyc compiles them in as constants, not module look-ups).
_TAB: Final = 9
_LF: Final = 10
_FF: Final = 12
_CR: Final = 13
_SPACE: Final = 32
_BANG: Final = 33
_QUOTE: Final = 34
_APOS: Final = 39
_SLASH: Final = 47
_EQ: Final = 61
_GT: Final = 62
_QUESTION: Final = 63


def regex_tags(html: str, pos: int) -> Iterator[Token]:
    """The tokens of ``html`` from ``pos``, by TOKEN_RE: the reference, and the faster one uncompiled."""
    for m in TOKEN_RE.finditer(html, pos):
        closing, name, attrs = m.groups()
        yield closing, name, attrs, m.end()


def _is_space(c: int) -> bool:
    return c in (_SPACE, _LF, _TAB, _CR, _FF)


def _is_letter(c: int) -> bool:
    return 97 <= c <= 122 or 65 <= c <= 90


def _comment_end(html: str, at: int, size: int) -> int:
    """The end of a comment whose ``<!--`` ends at ``at``: after ``-->`` or ``--!>``, else the page's end."""
    if at < size and ord(html[at]) == _GT:
        return at + 1  # <!-->
    if html.startswith("->", at):
        return at + 2  # <!--->
    end = html.find("--", at)
    while end >= 0:
        if html.startswith(">", end + 2):
            return end + 3
        if html.startswith("!>", end + 2):
            return end + 4
        end = html.find("--", end + 1)
    return size


def _past_gt(html: str, at: int, size: int) -> int:
    """Just after the next ``>`` from ``at``, else the page's end (doctypes, bogus comments)."""
    gt = html.find(">", at)
    return size if gt < 0 else gt + 1


def _attributes_end(html: str, i: int, size: int) -> int:
    """Where a tag's attributes (from ``i``) end: at its ``>`` or the page's end.

    A quote opens a value only just after ``=`` (and spaces); anywhere else it is a plain character,
    so the attribute names are stepped through and only the quoted values are jumped over.
    """
    while i < size:
        c = ord(html[i])
        if _is_space(c) or c == _SLASH:
            i += 1
            continue
        if c == _GT:
            return i
        i += 1  # an attribute name: its first character may be anything but a space, '/' or '>'
        while i < size:
            c = ord(html[i])
            if _is_space(c) or c in (_SLASH, _GT, _EQ):
                break
            i += 1
        j = i
        while j < size and _is_space(ord(html[j])):
            j += 1
        if j >= size or ord(html[j]) != _EQ:
            continue
        j += 1
        while j < size and _is_space(ord(html[j])):
            j += 1
        i = j
        if j >= size:
            break
        c = ord(html[j])
        if c in (_QUOTE, _APOS):
            close = html.find(html[j], j + 1)
            if close >= 0:
                i = close + 1  # an unclosed quote is no value: it starts the next attribute's name
        elif c != _GT:
            while i < size:
                c = ord(html[i])
                if _is_space(c) or c == _GT:
                    break
                i += 1
    return size


def find_tags(html: str, pos: int) -> Iterator[Token]:
    """The tokens of ``html`` from ``pos``, found with ``str.find``: as :func:`regex_tags` gives them."""
    size = len(html)
    while True:
        start = html.find("<", pos)
        if start < 0 or start + 1 >= size:
            return
        c = ord(html[start + 1])
        if _is_letter(c) or (c == _SLASH and start + 2 < size and _is_letter(ord(html[start + 2]))):
            closing = "/" if c == _SLASH else ""
            i = first = start + 1 + len(closing)
            while i < size:
                c = ord(html[i])
                if _is_space(c) or c in (_SLASH, _GT):
                    break
                i += 1
            end = _attributes_end(html, i, size)
            yield closing, html[first:i], html[i:end], (end + 1 if end < size else size)
            pos = end + 1
        elif c == _BANG and html.startswith("--", start + 2):
            pos = _comment_end(html, start + 4, size)
            yield None, None, None, pos
        elif c in (_BANG, _QUESTION, _SLASH):
            pos = _past_gt(html, start + 2, size)
            yield None, None, None, pos
        else:
            pos = start + 1  # '<' before anything else is text


#: The faster tokenizer for this build (both give the same tokens).
tags = find_tags if COMPILED else regex_tags
