"""The guard's tokenizer: a page's tags, comments and doctypes one at a time, as TOKEN_RE reads them.

Two implementations of one tokenisation (the HTML standard's): :class:`RegexTags` runs
:data:`~shopsim.translators.html_rules.TOKEN_RE` (sre is the fastest way for plain Python), and
:class:`Tags` jumps with ``str.find`` to the next ``<`` and closing quote and steps through
attribute names only: compiled by mypyc it reads a page two to three times faster than sre
(interpreted it is slower). :func:`tags` picks the faster for the build. Both give the same tokens
(``tests/translators/test_tag_lexer.py`` compares them on random markup and on every real page).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Final

from mypy_extensions import i64

from shopsim.translators.html_rules import TOKEN_RE

__all__ = ["COMPILED", "RegexTags", "Tags", "tags"]

#: Whether this module runs compiled (mypyc sets ``__file__`` to the extension's path).
COMPILED: Final = not __file__.endswith((".py", ".pyc"))

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


def _is_space(c: i64) -> bool:
    return c in (_SPACE, _LF, _TAB, _CR, _FF)


def _is_letter(c: i64) -> bool:
    return 97 <= c <= 122 or 65 <= c <= 90


def _comment_end(html: str, at: i64, size: i64) -> i64:
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


def _past_gt(html: str, at: i64, size: i64) -> i64:
    """Just after the next ``>`` from ``at``, else the page's end (doctypes, bogus comments)."""
    gt = html.find(">", at)
    return size if gt < 0 else gt + 1


def _attributes_end(html: str, i: i64, size: i64) -> i64:
    """Where a tag's attributes (from ``i``) end: at its ``>`` or the page's end.

    A quote opens a value only just after ``=`` (and spaces); anywhere else it is a plain character,
    so the attribute names are stepped through and only the quoted values are jumped over.
    """
    while i < size:
        c: i64 = ord(html[i])
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
        j: i64 = i
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
            close: i64 = html.find(html[j], j + 1)
            if close >= 0:
                i = close + 1  # an unclosed quote is no value: it starts the next attribute's name
        elif c != _GT:
            while i < size:
                c = ord(html[i])
                if _is_space(c) or c == _GT:
                    break
                i += 1
    return size


class Tags:
    """The tokens of a page from a position, found with ``str.find``; iterating gives this object again per token.

    At each token: ``name`` is the tag's name as the tokenizer folds it (ASCII
    letters to lower case) or ``""`` for a comment, doctype or bogus comment; ``closing`` is ``"/"``
    for an end tag, else ``""``; ``attrs`` the text between the name and the ``>``; ``end`` where
    the token ends.
    """

    def __init__(self, html: str, pos: int) -> None:
        self.html = html
        self.size: i64 = len(html)
        self.pos: i64 = pos
        self.closing, self.name, self.attrs, self.end = "", "", "", pos

    def __iter__(self) -> Iterator[Tags]:
        return self

    def __next__(self) -> Tags:
        if not self.next():
            raise StopIteration
        return self

    def next(self) -> bool:
        """Read the next token; False when there is none."""
        html: str = self.html
        size: i64 = self.size
        pos: i64 = self.pos
        while True:
            start: i64 = html.find("<", pos)
            if start < 0 or start + 1 >= size:
                return False
            c: i64 = ord(html[start + 1])
            if _is_letter(c) or (c == _SLASH and start + 2 < size and _is_letter(ord(html[start + 2]))):
                self.closing = "/" if c == _SLASH else ""
                first: i64 = start + 1 + len(self.closing)
                i: i64 = first
                folded = True
                while i < size:
                    c = ord(html[i])
                    if _is_space(c) or c in (_SLASH, _GT):
                        break
                    if 65 <= c <= 90:
                        folded = False
                    i += 1
                name = html[first:i]
                self.name = name if folded else _ascii_lower(name)
                end: i64 = _attributes_end(html, i, size)
                self.attrs = html[i:end]
                self.end = self.pos = end + 1 if end < size else size
                return True
            if c == _BANG and html.startswith("--", start + 2):
                pos = _comment_end(html, start + 4, size)
            elif c in (_BANG, _QUESTION, _SLASH):
                pos = _past_gt(html, start + 2, size)
            else:
                pos = start + 1  # '<' before anything else is text
                continue
            self.closing, self.name, self.attrs, self.end = "", "", "", pos
            self.pos = pos
            return True


class RegexTags(Tags):
    """The same tokens by TOKEN_RE: the reference, and the faster way for plain Python."""

    def __iter__(self) -> Iterator[Tags]:
        for m in TOKEN_RE.finditer(self.html, self.pos):  # a generator: cheaper than a call per tag
            closing, name, attrs = m.groups()
            if name is None:
                self.closing, self.name, self.attrs = "", "", ""
            else:  # most tags are written in lower case: one test, no copy
                self.closing, self.name, self.attrs = closing, name if name.islower() else _ascii_lower(name), attrs
            self.end = m.end()
            yield self


_ASCII_LOWER: Final = {c: c + 32 for c in range(ord("A"), ord("Z") + 1)}


def _ascii_lower(name: str) -> str:
    """A tag name as the tokenizer folds it: ASCII letters only ('Ä' stays, where str.lower would fold it)."""
    return name.lower() if name.isascii() else name.translate(_ASCII_LOWER)


def tags(html: str, pos: int) -> Tags:
    """The tokens of ``html`` from ``pos``, read the faster way for this build (both read alike)."""
    return Tags(html, pos) if COMPILED else RegexTags(html, pos)
