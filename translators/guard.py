"""Bounded work on hostile pages: refuse markup that would make the HTML parser slow or huge.

lexbor (selectolax) builds the tree as browsers do, and some shapes cost it far more than their
size. Measured on a 2-core machine (selectolax 1.0.2), parse time alone:

- 10,000 nested ``<div>`` 0.4-1.2 s, 20,000 4.9 s, 40,000 31 s; 100,000 (1.1 MB) and 1,000,000
  (11 MB) do not finish in minutes: each block start tag scans the stack of open elements.
  Nested ``<ul><li>``, ``<span><div></span>``, ``<select><div>`` and ``<optgroup><option>`` grow
  the same way; nested ``<span>``, ``<b>``, ``<table>`` or ``<svg><g>`` stay linear.
- 1,000 nested divs holding 200,000 sibling ``<div>``: 5.7 s (depth x breadth, not depth alone).
- 10,000 distinct unclosed ``<b id=N>`` 2.6 s, 40,000 44 s (the active formatting list is scanned
  per tag); one ``<div>`` with 40,000 attributes 16 s; 200,000 elements of 21 attributes 3.4 s.
- 1,000 distinct unclosed ``<b>`` then ``<div>x</div>`` x 5,000: 70 KB of markup re-creates the
  formatting elements per text run: 5,000,000 nodes, 4.8-7 s (and gigabytes).
- 40,000 ``<option>`` in one ``<select>``: 5 s. 1,000,000 flat ``<div>x</div>`` (12 MB): 2.9 s, 680 MB.

Real pages are nothing like that: the 49 recorded Amazon/eBay/other pages in the shared fixtures
hold at most 22,000 ``<``, 10,500 elements, nesting depth 45, and parse in under 60 ms.

:func:`markup_refusal` therefore reads the page's tags once, in linear time, with a small model
of the HTML tree builder (scopes, implied closes, tables, select, foreign content, the active
formatting list) and estimates the parser's stack depth, element count, scan work and attributes.
The model errs towards more work: an end tag closes only what the parser certainly closes, and an
element the parser may have dropped stays counted but can no longer be closed by name. A page over
any limit is refused with a reason before lexbor sees it, so whatever its shape a page is parsed or
refused within about two seconds. The limits (below) are 4 to 150 times what real pages use. The
price is the scan itself, a Python loop over the tags: 4 to 6 times lexbor's parse of a real page
(about 20 ms of CPU for a 1.5 MB page here), once per page (the last few verdicts are kept).
"""

from __future__ import annotations

import errno
import os
import re
import stat
import threading
from bisect import bisect_right
from pathlib import Path

__all__ = [
    "MAX_ATTRIBUTE_WORK",
    "MAX_DEPTH",
    "MAX_ELEMENTS",
    "MAX_FORMATTING",
    "MAX_HTML_CHARS",
    "MAX_PAGE_BYTES",
    "MAX_PARSE_WORK",
    "MAX_TAG_MARKS",
    "file_kind",
    "markup_refusal",
    "read_regular_file",
]

#: Pages above this many bytes are not read (real pages stay under 4 MB): memory stays bounded.
MAX_PAGE_BYTES = 20_000_000
#: Decoded pages above this many characters are not parsed.
MAX_HTML_CHARS = 20_000_000
#: At most this many ``<`` (real pages: 22,000); bounds the scan itself to about a second.
MAX_TAG_MARKS = 300_000
#: At most this many elements, implied and re-created ones included (real pages: 10,500);
#: about 0.6 s of parsing and 150 MB.
MAX_ELEMENTS = 200_000
#: Nesting depth of open elements; browsers (Blink) stop nesting at 512 too. Real pages: 45.
MAX_DEPTH = 512
#: Unclosed formatting elements (``<b>``, ``<a>``, ``<font>``...) in one scope; real pages: < 20.
MAX_FORMATTING = 200
#: Parser scan steps summed over tags (stack searched per block tag, formatting list per
#: formatting tag, earlier options and optgroups per option); lexbor does about 40 million a second.
#: Real pages: under 150,000.
MAX_PARSE_WORK = 20_000_000
#: Attributes, estimated from their text (at most one per two characters) plus n * n / 64 for an
#: element with n of them (lexbor checks each new name against the others). Real pages: 700,000.
MAX_ATTRIBUTE_WORK = 3_000_000

# ---- the HTML standard's element categories (https://html.spec.whatwg.org/#parsing-main-inbody) ----
def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_VOID = _words("area base basefont bgsound br embed frame image img input keygen link meta param source "
               "track wbr")
_RAW_TEXT = frozenset(["script", "style", "textarea", "title", "xmp", "iframe", "noembed", "noframes"])
_FORMATTING = _words("a b big code em font i nobr s small strike strong tt u")
_MARKERS = frozenset(["applet", "marquee", "object", "template", "td", "th", "caption"])
_HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")
_CLOSES_P = _words("address article aside blockquote center details dialog dir div dl fieldset figcaption "
                   "figure footer header hgroup main menu nav ol p search section summary ul pre listing "
                   "form plaintext hr xmp li dd dt") | frozenset(_HEADINGS)
# block start tags whose only effect is to close an open <p> (li, dd, dt, headings need more)
_BLOCKS = _CLOSES_P - {"li", "dd", "dt", "hr", "plaintext", "xmp", "form", *_HEADINGS}
_SPECIAL = _words("address applet area article aside base basefont bgsound blockquote body br button "
                  "caption center col colgroup dd details dir div dl dt embed fieldset figcaption figure "
                  "footer form frame frameset head header hgroup hr html iframe img input keygen li link "
                  "listing main marquee menu meta nav noembed noframes noscript object ol p param "
                  "plaintext pre script search section select source style summary table tbody td "
                  "template textarea tfoot th thead title tr track ul wbr xmp") | frozenset(_HEADINGS)
_SCOPE = frozenset(["applet", "caption", "html", "table", "td", "th", "marquee", "object", "template"])
_TABLE_PARTS = frozenset(["caption", "colgroup", "col", "tbody", "thead", "tfoot", "tr", "td", "th"])
_TABLE_SCOPED = _words("table tbody thead tfoot tr td th caption colgroup template")
_HEAD = _words("base basefont bgsound link meta title noframes style script noscript template head")
_BREAKOUT = _words("b big blockquote body br center code dd div dl dt em embed h1 h2 h3 h4 h5 h6 head hr "
                   "i img li listing menu meta nobr ol p pre ruby s small span strong strike sub sup "
                   "table tt u ul var")
# start tags that only open an element: no scope search, no list to update
_PLAIN = _words("span label abbr bdi bdo cite data dfn kbd mark q samp sub sup time var ins del picture "
                "canvas audio video map output progress meter slot")

HTML, SVG, MATH, MAYBE = 0, 1, 2, 3  # how an element's children are parsed (MAYBE: HTML or MathML)
_SVG_HTML = frozenset(["foreignobject", "desc", "title"])  # SVG elements whose children are HTML
_MATH_HTML = frozenset(["mi", "mo", "mn", "ms", "mtext"])  # MathML elements whose children are HTML

# kinds of stack entries that end a scope search, each with its own stack of indexes
_B_SPECIAL, _B_SCOPE, _B_BUTTON, _B_LIST, _B_TABLE, _B_LI_STOP, _B_FOREIGN = range(7)


def _html_bits(name: str) -> tuple[int, ...]:
    bits = []
    if name in _SPECIAL:
        bits.append(_B_SPECIAL)
        if name not in ("address", "div", "p"):
            bits.append(_B_LI_STOP)
    if name in _SCOPE:
        bits += [_B_SCOPE, _B_BUTTON, _B_LIST]
    if name == "button":
        bits.append(_B_BUTTON)
    if name in ("ol", "ul"):
        bits.append(_B_LIST)
    if name in ("html", "table", "template"):
        bits.append(_B_TABLE)
    return tuple(bits)


_BITS = {name: _html_bits(name) for name in _SPECIAL | _SCOPE}
_INTEGRATION_BITS = (_B_SPECIAL, _B_LI_STOP, _B_SCOPE, _B_BUTTON, _B_LIST, _B_FOREIGN)
_FOREIGN_BITS = (_B_FOREIGN,)  # SVG and MathML elements: named '~name', so HTML end tags never match them
_DEAD = ""  # the name of an entry the parser may have dropped: counted, never closed by name

_ATTRS = (  # the attributes of a tag, tokenised as the HTML standard does (a quote opens a value only after '=')
    r"""(?:[\t\n\f\r /]++|[^\t\n\f\r />][^\t\n\f\r />=]*+"""
    r"""(?:[\t\n\f\r ]*+=[\t\n\f\r ]*+(?:"[^"]*+"|'[^']*+'|[^\t\n\f\r >"'][^\t\n\f\r >]*+)?+)?+)*+""")
_TOKEN_RE = re.compile(  # every branch matches whatever follows its start, so each '<' is looked at once
    r"<(?:!--(?:>|->|(?:[^-]++|-(?!-!?>))*+(?:--!?>|\Z))"  # comment
    r"|[!?][^>]*+>?|/(?![A-Za-z])[^>]*+>?"  # doctype, bogus comment
    r"|(/?)([A-Za-z][^\t\n\f\r />]*+)(" + _ATTRS + r")(?:>|\Z))"  # start or end tag
    r"(?=([^<]?))")  # text after it
_ATTR_NAME_RE = re.compile(  # attribute names, for the few tags whose meaning depends on them
    r"""[\t\n\f\r /]*+([^\t\n\f\r />][^\t\n\f\r />=]*+)"""
    r"""(?:[\t\n\f\r ]*+=[\t\n\f\r ]*+(?:"[^"]*+"|'[^']*+'|[^\t\n\f\r >"'][^\t\n\f\r >]*+)?+)?+""")
_UNQUOTED_END = re.compile(r"""=[\t\n\f\r ]*+[^\t\n\f\r "'>][^\t\n\f\r >]*+\Z""")  # '/>' ending a bare value
_RAW_END = {name: re.compile(rf"</{name}[\t\n\f\r />]", re.IGNORECASE) for name in _RAW_TEXT}


class _Refused(Exception):
    """Raised inside the scan with the reason a page is refused."""


class _Fmt:
    """An entry of the list of active formatting elements (compared by identity, as the parser does)."""

    __slots__ = ("key", "name", "open")

    def __init__(self, name: str, key: str) -> None:
        self.name, self.key, self.open = name, key, True


_MARKER = _Fmt("", "")  # a scope marker in the formatting list


class _Model:
    """The part of the HTML tree builder that decides how deep, how large and how slow a parse is.

    ``stack`` holds ``(name, kinds, children_namespace, formatting_entry)`` per open element;
    ``where[name]`` the stack indexes of each open name and ``marks[kind]`` those of each kind of
    element that ends a scope search, so every scope question is answered in constant time.
    """

    def __init__(self) -> None:
        self.stack: list[tuple[str, tuple[int, ...], int, _Fmt | None]] = []
        self.where: dict[str, list[int]] = {_DEAD: []}
        self.marks: list[list[int]] = [[] for _ in range(7)]
        self.afe: list[_Fmt] = []
        self.afe_base = 0  # index just after the last marker
        self.in_head = True  # before the body: what opens here is closed when the body starts
        self.col_templates: set[int] = set()  # templates after a <col>: they ignore every tag but a few
        self.elements = 3  # html, head, body
        self.work = 0
        self.attr_work = 0
        self.options = self.optgroups = 0
        self.deepest = 0  # the most elements open at once

    # ---- stack --------------------------------------------------------------------------------
    def push(self, name: str, ctx: int, bits: tuple[int, ...], fmt: _Fmt | None = None) -> None:
        index = len(self.stack)
        if index >= MAX_DEPTH:
            raise _Refused(f"page too deeply nested: depth > {MAX_DEPTH}")
        self.elements += 1
        if self.elements > MAX_ELEMENTS:
            raise _Refused(f"page too large: more than {MAX_ELEMENTS:,} elements")
        self.work += index
        if index >= self.deepest:
            self.deepest = index + 1
        if self.in_head and ctx == HTML and fmt is None:
            name = _DEAD  # head content: closed when the body starts, whatever its end tags say
        self.stack.append((name, bits, ctx, fmt))
        at = self.where.get(name)
        if at is None:
            self.where[name] = [index]
        else:
            at.append(index)
        for b in bits:
            self.marks[b].append(index)

    def pop_to(self, index: int) -> None:
        """Pop the entry at ``index`` and everything above it."""
        stack, where, marks = self.stack, self.where, self.marks
        while len(stack) > index:
            name, bits, _, fmt = stack.pop()
            where[name].pop()
            for b in bits:
                marks[b].pop()
            if fmt is not None:
                fmt.open = False
        if self.col_templates:
            self.col_templates = {i for i in self.col_templates if i < index}

    def kill(self, start: int, end: int | None = None) -> None:
        """Entries ``start`` to ``end`` (the top) may be gone from the parser's stack: keep counting them,
        never close them by name (closing one would close what the parser keeps open above it)."""
        stack, where = self.stack, self.where
        end = len(stack) if end is None else end
        self.work += end - start
        changed = False
        for i in range(max(start, 0), end):
            name, bits, ctx, _ = stack[i]
            if name != _DEAD:
                where[name].remove(i)
                stack[i] = (_DEAD, bits, ctx, None)
                changed = True
        if changed:
            where[_DEAD] = [i for i, entry in enumerate(stack) if entry[0] == _DEAD]

    def last(self, name: str) -> int:
        """Stack index of the topmost open ``name`` (-1 when none)."""
        at = self.where.get(name)
        return at[-1] if at else -1

    def within(self, i: int, bit: int) -> bool:
        """Whether stack entry ``i`` is reached from the top before any other entry of kind ``bit``."""
        at = self.marks[bit]
        return i >= 0 and (not at or i >= at[-1])

    def close_if_in(self, name: str, bit: int) -> bool:
        """Pop ``name`` and above when it is open within the scope ``bit`` bounds."""
        i = self.last(name)
        if self.within(i, bit):
            self.pop_to(i)
            return True
        return False

    def body(self) -> None:
        """The body starts: what is open in the head is closed (counted, no longer closable)."""
        self.in_head = False
        self.kill(0)

    # ---- active formatting elements -------------------------------------------------------------
    def reconstruct(self) -> None:
        """Re-open the formatting elements closed under them (the step that can multiply nodes)."""
        afe = self.afe
        if self.stack and self.stack[-1][2] != HTML:  # text in SVG/MathML re-opens nothing
            return
        i = len(afe)
        while i > self.afe_base and not afe[i - 1].open:
            i -= 1
        self.work += len(afe) - i
        for fmt in afe[i:]:
            fmt.open = True
            self.push(fmt.name, HTML, (), fmt)

    def add_formatting(self, name: str, key: str) -> _Fmt:
        live = self.afe[self.afe_base:]
        self.work += len(live)
        same = [f for f in live if f.key == key]
        if len(same) >= 3:  # "Noah's Ark": at most three identical entries
            self.drop(same[0])
        elif len(live) >= MAX_FORMATTING:
            raise _Refused(f"page has too many unclosed formatting elements: more than {MAX_FORMATTING}")
        fmt = _Fmt(name, key)
        self.afe.append(fmt)
        return fmt

    def drop(self, fmt: _Fmt) -> None:
        """Remove ``fmt`` from the formatting list (it is after the last marker)."""
        afe = self.afe
        for i in range(len(afe) - 1, self.afe_base - 1, -1):
            if afe[i] is fmt:
                del afe[i]
                return

    def find_formatting(self, name: str) -> _Fmt | None:
        afe = self.afe
        for i in range(len(afe) - 1, self.afe_base - 1, -1):
            if afe[i].name == name:
                return afe[i]
        return None

    def open_index(self, fmt: _Fmt) -> int:
        """Stack index of a formatting entry's element (-1 when it is not open)."""
        if fmt.open:
            for i in reversed(self.where.get(fmt.name, ())):
                if self.stack[i][3] is fmt:
                    return i
        return -1

    def marker(self) -> None:
        self.afe.append(_MARKER)
        self.afe_base = len(self.afe)

    def clear_to_marker(self) -> None:
        afe = self.afe
        while afe:
            if afe.pop() is _MARKER:
                break
        self.afe_base = next((i + 1 for i in range(len(afe) - 1, -1, -1) if afe[i] is _MARKER), 0)

    def adopt(self, fmt: _Fmt) -> None:
        """The adoption agency for an open formatting element: closed, or the tree rearranged."""
        i = self.open_index(fmt)
        if self.within(i, _B_SPECIAL):
            self.pop_to(i)
        elif i >= 0:  # a special element above it: it and what lies between leave the stack, clones come
            self.elements += 32
            self.kill(i, next(j for j in self.marks[_B_SPECIAL] if j > i))
        self.drop(fmt)

    # ---- tags --------------------------------------------------------------------------------
    def start(self, name: str, attrs: str, self_closing: bool) -> bool:
        """Apply a start tag; True when it opens raw text (script, style...) in HTML."""
        stack = self.stack
        ctx = stack[-1][2] if stack else HTML
        if ctx != HTML:
            breakout = name in _BREAKOUT or (name == "font" and not {"color", "face", "size"}.isdisjoint(
                a.lower() for a in _ATTR_NAME_RE.findall(attrs)))
            if breakout and ctx != MAYBE:
                while stack and stack[-1][2] in (SVG, MATH):
                    self.pop_to(len(stack) - 1)
                ctx = stack[-1][2] if stack else HTML
            if ctx != HTML:
                self.foreign(name, ctx, self_closing)
                return False
        if name in ("mglyph", "malignmark") and stack and stack[-1][0][1:] in _MATH_HTML and (
                stack[-1][0][0] == "~"):  # MathML even inside <mi>
            self.foreign(name, MATH, self_closing)
            return False
        if self.in_head and name not in _HEAD and name != "html":
            self.body()
        if name in ("html", "body", "head"):
            if name == "body" and self.in_head:
                self.body()
            return False
        if name in _CLOSES_P:
            self.work += len(stack)
            self.close_if_in("p", _B_BUTTON)
            if name in _HEADINGS and stack and stack[-1][0] in _HEADINGS:
                self.pop_to(len(stack) - 1)
            elif name == "li":
                self.close_if_in("li", _B_LI_STOP)
            elif name in ("dd", "dt"):
                i = max(self.last("dd"), self.last("dt"))
                if self.within(i, _B_LI_STOP):
                    self.pop_to(i)
            if name == "hr":
                self.elements += 1
                return False
            self.push(name, HTML, _BITS.get(name, ()))
            return name in ("plaintext", "xmp")
        if name in _TABLE_PARTS or name == "table":
            self.table_start(name)
            return False
        if name in _VOID:
            if name in ("input", "keygen") and self.within(self.last("select"), _B_SCOPE):
                self.pop_to(self.last("select"))
            self.reconstruct()
            self.elements += 1
            return False
        if name in _RAW_TEXT:
            self.elements += 1
            return True
        if name in ("svg", "math"):
            self.reconstruct()
            if self_closing:
                self.elements += 1
            else:
                self.push("~" + name, SVG if name == "svg" else MATH, _FOREIGN_BITS)
            return False
        if name in ("option", "optgroup"):
            if stack and stack[-1][0] == "option":
                self.pop_to(len(stack) - 1)
            if name == "optgroup" and stack and stack[-1][0] == "optgroup":
                self.pop_to(len(stack) - 1)
            if name == "optgroup":  # lexbor compares each optgroup with the earlier ones, anywhere
                self.optgroups += 1
                self.work += self.optgroups
            elif self.where.get("select"):  # and each option with its select's earlier ones
                self.options += 1
                self.work += self.options
        elif name == "select":
            self.options = 0
            if self.close_if_in("select", _B_SCOPE):
                return False  # a select inside a select closes it and is dropped
        elif name == "button":
            self.close_if_in(name, _B_SCOPE)
        elif name in ("rb", "rtc", "rp", "rt") and self.within(self.last("ruby"), _B_SCOPE):
            closing = ("rb", "rp", "rt", "rtc") if name in ("rb", "rtc") else ("rb", "rp", "rt")
            while stack and stack[-1][0] in closing:
                self.pop_to(len(stack) - 1)
        elif name in ("a", "nobr"):
            fmt = self.find_formatting(name)
            if fmt is not None:
                self.adopt(fmt)
        elif name == "frameset":
            self.push(_DEAD, HTML, _BITS["frame"])  # replaces the body, or is ignored: never closed by name
            return False
        self.reconstruct()
        if name in _FORMATTING:
            self.push(name, HTML, (), self.add_formatting(name, name + attrs))
        else:
            self.push(name, HTML, _BITS.get(name, ()))
            if name in _MARKERS:
                self.marker()
        return False

    def foreign(self, name: str, ctx: int, self_closing: bool) -> None:
        """A start tag inside SVG or MathML (``MAYBE``: perhaps HTML; then it is never self-closing)."""
        if self_closing and ctx != MAYBE:
            self.elements += 1
        elif name == "svg":
            self.push("~svg", SVG, _FOREIGN_BITS)
        elif (ctx == SVG and name in _SVG_HTML) or (ctx == MATH and name in _MATH_HTML):
            self.push("~" + name, HTML, _INTEGRATION_BITS)
        elif ctx == MATH and name == "annotation-xml":
            self.push("~" + name, MAYBE, _INTEGRATION_BITS)
        else:  # MAYBE: perhaps an HTML element, so not marked foreign
            self.push("~" + name, MATH if name == "math" else ctx, () if ctx == MAYBE else _FOREIGN_BITS)

    def table_start(self, name: str) -> None:
        """Table parts close open cells, rows and sections of their table; implied tbody/tr are added."""
        tables = self.marks[_B_TABLE]
        t = tables[-1] if tables else -1
        if t < 0 or self.stack[t][0] != "table":  # no table: ignored, except in a template
            if name == "col" and 0 <= t == len(self.stack) - 1 and self.stack[t][1] is _BITS["template"]:
                self.col_templates.add(t)  # the template now takes only <col>, <template>, </template>
                self.elements += 1
                return
            if name == "table" or (t >= 0 and name != "col"):
                if name == "table":
                    self.work += len(self.stack)
                    p = self.last("p")
                    if self.within(p, _B_BUTTON):  # closed unless in quirks mode
                        self.kill(p)
                self.push(name, HTML, _BITS.get(name, ()))
                if name in _MARKERS:
                    self.marker()
            return
        cell = max(self.last("td"), self.last("th"))
        if name == "table":
            if cell <= t:  # a table directly in a table ends it
                self.pop_to(t)
            self.work += len(self.stack)
            self.push(name, HTML, _BITS[name])
            return
        if cell > t:
            self.pop_to(cell)
            self.clear_to_marker()
        if name in ("td", "th", "tr"):
            row = self.last("tr")
            if row > t:
                self.pop_to(row + 1 if name != "tr" else row)
            if name == "tr" or row <= t:
                section = max(self.last("tbody"), self.last("thead"), self.last("tfoot"))
                if section > t:
                    self.pop_to(section + 1)
                else:
                    self.pop_to(t + 1)
                    self.push("tbody", HTML, _BITS["tbody"])
                if name != "tr":
                    self.push("tr", HTML, _BITS["tr"])
        else:
            self.pop_to(t + 1)
        if name == "col":
            self.elements += 2
            return
        self.push(name, HTML, _BITS.get(name, ()))
        if name in _MARKERS:
            self.marker()

    def end(self, name: str) -> None:
        """Apply an end tag: close only what the parser certainly closes."""
        stack = self.stack
        if stack and stack[-1][2] != HTML:  # in SVG/MathML: closes a foreign element above any HTML one
            i = self.last("~" + name)
            foreign = self.marks[_B_FOREIGN]
            if stack[-1][2] != MAYBE and i >= 0 and len(foreign) - bisect_right(foreign, i) == len(stack) - 1 - i:
                self.pop_to(i)
            return
        self.work += len(stack)
        if name == "p":
            if not self.close_if_in("p", _B_BUTTON):
                self.elements += 1
        elif name == "li":
            self.close_if_in("li", _B_LIST)
        elif name in _HEADINGS:
            i = max(self.last(h) for h in _HEADINGS)
            if self.within(i, _B_SCOPE):
                self.pop_to(i)
        elif name == "br":
            self.reconstruct()
            self.elements += 1
        elif name == "form":  # the form leaves the stack, what is above it stays
            i = self.last("form")
            if self.within(i, _B_SCOPE):
                self.kill(i, i + 1)
        elif name in ("body", "html", "head", "frameset"):
            return
        elif name in _FORMATTING and (fmt := self.find_formatting(name)) is not None:
            if self.within(self.open_index(fmt), _B_SCOPE) or not fmt.open:
                self.adopt(fmt)
        elif name == "colgroup":
            return  # closed only as the current element (handled before)
        elif name in _TABLE_SCOPED:
            if self.close_if_in(name, _B_TABLE) and name in _MARKERS:
                self.clear_to_marker()
        elif name in _SPECIAL:
            if self.close_if_in(name, _B_SCOPE) and name in _MARKERS:
                self.clear_to_marker()
        elif self.within(self.last(name), _B_SPECIAL):
            self.pop_to(self.last(name))


def _attributes(attrs: str) -> int:
    """An upper bound on the attributes of one tag: one per word, '/', and quoted value."""
    return len(attrs.split()) + attrs.count("/") + (attrs.count('"') + attrs.count("'")) // 2


def markup_refusal(html: str) -> str | None:
    """Why parsing ``html`` would cost too much time or memory (see the module doc), or None.

    Linear in the page's size; the verdicts of the last few pages are kept, since a page is often
    read twice (site detection, then its translator).
    """
    if len(html) > MAX_HTML_CHARS:
        return f"page too large ({len(html):,} characters; the limit is {MAX_HTML_CHARS:,})"
    marks = html.count("<")
    if marks > MAX_TAG_MARKS:
        return f"page too large: {marks:,} tags or '<' (the limit is {MAX_TAG_MARKS:,})"
    key = (hash(html), len(html))  # no page is kept: 8 verdicts, not 8 pages of up to 20 MB
    with _verdicts_lock:
        if key in _verdicts:
            return _verdicts[key]
    verdict = _scan(html, _Model())
    with _verdicts_lock:
        if len(_verdicts) >= 8:
            del _verdicts[next(iter(_verdicts))]
        _verdicts[key] = verdict
    return verdict


_verdicts: dict[tuple[int, int], str | None] = {}
_verdicts_lock = threading.Lock()


def _scan(html: str, model: _Model) -> str | None:
    """Feed every tag of ``html`` to ``model``; the first limit crossed, or None.

    The common cases (an end tag closing the current element; a plain inline or block start tag
    with no formatting element to re-open; a void element) are handled inline, the rest by the
    model's methods.
    """
    stack, where, afe, marks = model.stack, model.where, model.afe, model.marks
    pos: int | None = 0
    try:
        while pos is not None:
            restart = None
            for m in _TOKEN_RE.finditer(html, pos):
                closing, name, attrs, text = m.groups()
                if name is None:  # a comment or doctype
                    if text and afe and not afe[-1].open:
                        model.reconstruct()
                    continue
                name = name.lower()
                if model.col_templates and len(stack) - 1 in model.col_templates:
                    if closing and name == "template":
                        model.pop_to(len(stack) - 1)
                        model.clear_to_marker()
                    elif not closing and name == "template":
                        model.start(name, attrs, False)
                    elif not closing and name == "col":
                        model.elements += 1
                    continue
                if stack and stack[-1][0] == "colgroup" and name not in ("col", "template", "colgroup"):
                    model.pop_to(len(stack) - 1)  # a column group ends at anything but <col>
                if closing:
                    top = stack[-1] if stack else None
                    if top is not None and (top[0] == name or (top[0][:1] == "~" and top[0][1:] == name)) and (
                            name not in _MARKERS and name != "form"):
                        stack.pop()
                        where[top[0]].pop()
                        for b in top[1]:
                            marks[b].pop()
                        fmt = top[3]
                        if fmt is not None:
                            fmt.open = False
                            if afe and afe[-1] is fmt:
                                afe.pop()
                            else:
                                model.drop(fmt)
                    else:
                        model.end(name)
                else:
                    if attrs:  # at most one attribute per two characters; counted when that is many
                        n = len(attrs) // 2 + 1
                        if n > 128:
                            n = _attributes(attrs)
                            model.attr_work += n * n // 64
                        model.attr_work += n
                        if model.attr_work > MAX_ATTRIBUTE_WORK:
                            return f"page has too many attributes (up to {n:,} in one <{name[:20]}>)"
                    ctx = stack[-1][2] if stack else HTML
                    if ctx == HTML and not model.in_head and (name in _BLOCKS or (
                            name in _PLAIN and (not afe or afe[-1].open))):
                        index = len(stack)
                        if name in _BLOCKS:  # a block closes an open <p>: one search of the stack
                            model.work += index
                            if where.get("p"):
                                model.close_if_in("p", _B_BUTTON)
                                index = len(stack)
                            bits = _BITS[name]
                        else:
                            bits = ()
                        if index >= MAX_DEPTH:
                            return f"page too deeply nested: depth > {MAX_DEPTH}"
                        model.elements += 1
                        if model.elements > MAX_ELEMENTS:
                            return f"page too large: more than {MAX_ELEMENTS:,} elements"
                        if index >= model.deepest:
                            model.deepest = index + 1
                        stack.append((name, bits, HTML, None))
                        at = where.get(name)
                        if at is None:
                            where[name] = [index]
                        else:
                            at.append(index)
                        for b in bits:
                            marks[b].append(index)
                    elif ctx == HTML and not model.in_head and name in _VOID and name not in ("input", "keygen"):
                        if afe and not afe[-1].open:
                            model.reconstruct()
                        model.elements += 1
                        if model.elements > MAX_ELEMENTS:
                            return f"page too large: more than {MAX_ELEMENTS:,} elements"
                    elif model.start(name, attrs, attrs.endswith("/") and not _UNQUOTED_END.search(attrs)):
                        if name == "plaintext":
                            return None
                        found = _RAW_END[name].search(html, m.end())
                        restart = found.start() if found else None
                        break
                    if model.work > MAX_PARSE_WORK:
                        return (f"page too costly to parse: parser work > {MAX_PARSE_WORK:,} (nesting times "
                                f"size, or long selects or formatting lists; depth {len(stack)})")
                if text and afe and not afe[-1].open:  # text re-opens formatting elements closed under it
                    model.reconstruct()
            else:
                return None
            pos = restart
    except _Refused as exc:
        return str(exc)
    return None


# ---- files ----------------------------------------------------------------------------------------
def file_kind(mode: int) -> str:
    """A file type in words ('a folder', 'a FIFO'...) for messages."""
    for test, word in ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISSOCK, "a socket"), (stat.S_ISLNK, "a symbolic link")):
        if test(mode):
            return word
    return "not a regular file"


def read_regular_file(path: str | Path, limit: int = MAX_PAGE_BYTES) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes; OSError (with ``strerror``) otherwise.

    A FIFO, device or folder is refused before it is opened, and again after (``fstat`` of the
    descriptor, opened non-blocking), so a file swapped in between can neither block the caller nor
    feed it endless bytes.
    """
    try:
        st = os.stat(path)
    except ValueError as exc:  # a NUL in the path
        raise OSError(errno.EINVAL, str(exc), str(path)) from exc
    if not stat.S_ISREG(st.st_mode):
        raise OSError(errno.EINVAL, f"{file_kind(st.st_mode)}, not a regular file", str(path))
    if st.st_size > limit:
        raise OSError(errno.EFBIG, f"too large ({st.st_size:,} bytes; the limit is {limit:,})", str(path))
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_BINARY", 0)
    fd = os.open(path, flags)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise OSError(errno.EINVAL, f"{file_kind(st.st_mode)}, not a regular file", str(path))
        chunks, size = [], 0
        while chunk := os.read(fd, min(1 << 20, limit + 1 - size)):
            chunks.append(chunk)
            size += len(chunk)
            if size > limit:
                raise OSError(errno.EFBIG, f"too large (over {limit:,} bytes)", str(path))
    finally:
        os.close(fd)
    return b"".join(chunks)
