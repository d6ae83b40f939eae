"""A linear-time model of the HTML tree builder: what a page would cost lexbor before it is parsed.

:class:`TreeModel` follows a page's tags (fed once, in order, by
:func:`shopsim.translators.guard.scan_markup`) as the HTML standard's tree construction would:
scopes, implied closes, tables, select, foreign content, the active formatting list; and it
estimates the parser's stack depth, element count, scan work and attributes, raising
:class:`Refused` at the first limit crossed. The model errs towards more work: an end tag closes only what the parser
certainly closes, and an element the parser may have dropped stays counted but can no longer be
closed by name. :mod:`shopsim.translators.guard` holds the measurements behind the limits and
calls it once per page.
"""

from __future__ import annotations

from bisect import bisect_right

from shopsim.translators.html_rules import (
    ATTR_NAME_RE,
    B_BUTTON,
    B_FOREIGN,
    B_LI_STOP,
    B_LIST,
    B_SCOPE,
    B_SPECIAL,
    B_TABLE,
    BITS,
    BREAKOUT,
    CLOSES_P,
    DEAD,
    FOREIGN_BITS,
    FORMATTING,
    HEAD,
    HEADINGS,
    HTML,
    INTEGRATION_BITS,
    MARKERS,
    MATH,
    MATH_HTML,
    MAYBE,
    RAW_TEXT,
    SPECIAL,
    SVG,
    SVG_HTML,
    TABLE_PARTS,
    TABLE_SCOPED,
    VOID,
)

__all__ = ["MAX_ATTRIBUTE_WORK", "MAX_DEPTH", "MAX_ELEMENTS", "MAX_FORMATTING", "MAX_PARSE_WORK", "Refused", "TreeModel", "attribute_bound"]

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

class Refused(Exception):
    """Raised inside the scan with the reason a page is refused."""


class _Fmt:
    """An entry of the list of active formatting elements (compared by identity, as the parser does)."""

    __slots__ = ("key", "name", "open")

    def __init__(self, name: str, key: str) -> None:
        self.name, self.key, self.open = name, key, True


_MARKER = _Fmt("", "")  # a scope marker in the formatting list


class TreeModel:
    """The part of the HTML tree builder that decides how deep, how large and how slow a parse is.

    ``stack`` holds ``(name, kinds, children_namespace, formatting_entry)`` per open element;
    ``where[name]`` the stack indexes of each open name and ``marks[kind]`` those of each kind of
    element that ends a scope search, so every scope question is answered in constant time.
    """

    def __init__(self) -> None:
        self.stack: list[tuple[str, tuple[int, ...], int, _Fmt | None]] = []
        self.where: dict[str, list[int]] = {DEAD: []}
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
            raise Refused(f"page too deeply nested: depth > {MAX_DEPTH}")
        self.elements += 1
        if self.elements > MAX_ELEMENTS:
            raise Refused(f"page too large: more than {MAX_ELEMENTS:,} elements")
        self.work += index
        if index >= self.deepest:
            self.deepest = index + 1
        if self.in_head and ctx == HTML and fmt is None:
            name = DEAD  # head content: closed when the body starts, whatever its end tags say
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
            if name != DEAD:
                where[name].remove(i)
                stack[i] = (DEAD, bits, ctx, None)
                changed = True
        if changed:
            where[DEAD] = [i for i, entry in enumerate(stack) if entry[0] == DEAD]

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
            raise Refused(f"page has too many unclosed formatting elements: more than {MAX_FORMATTING}")
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
        if self.within(i, B_SPECIAL):
            self.pop_to(i)
        elif i >= 0:  # a special element above it: it and what lies between leave the stack, clones come
            self.elements += 32
            self.kill(i, next(j for j in self.marks[B_SPECIAL] if j > i))
        self.drop(fmt)

    # ---- tags --------------------------------------------------------------------------------
    def start(self, name: str, attrs: str, self_closing: bool) -> bool:
        """Apply a start tag; True when it opens raw text (script, style...) in HTML."""
        stack = self.stack
        ctx = stack[-1][2] if stack else HTML
        if ctx != HTML:
            breakout = name in BREAKOUT or (name == "font" and not {"color", "face", "size"}.isdisjoint(
                a.lower() for a in ATTR_NAME_RE.findall(attrs)))
            if breakout and ctx != MAYBE:
                while stack and stack[-1][2] in (SVG, MATH):
                    self.pop_to(len(stack) - 1)
                ctx = stack[-1][2] if stack else HTML
            if ctx != HTML:
                self.foreign(name, ctx, self_closing)
                return False
        if name in ("mglyph", "malignmark") and stack and stack[-1][0][1:] in MATH_HTML and (
                stack[-1][0][0] == "~"):  # MathML even inside <mi>
            self.foreign(name, MATH, self_closing)
            return False
        if self.in_head and name not in HEAD and name != "html":
            self.body()
        if name in ("html", "body", "head"):
            if name == "body" and self.in_head:
                self.body()
            return False
        if name in CLOSES_P:
            self.work += len(stack)
            self.close_if_in("p", B_BUTTON)
            if name in HEADINGS and stack and stack[-1][0] in HEADINGS:
                self.pop_to(len(stack) - 1)
            elif name == "li":
                self.close_if_in("li", B_LI_STOP)
            elif name in ("dd", "dt"):
                i = max(self.last("dd"), self.last("dt"))
                if self.within(i, B_LI_STOP):
                    self.pop_to(i)
            if name == "hr":
                self.elements += 1
                return False
            self.push(name, HTML, BITS.get(name, ()))
            return name in ("plaintext", "xmp")
        if name in TABLE_PARTS or name == "table":
            self.table_start(name)
            return False
        if name in VOID:
            if name in ("input", "keygen") and self.within(self.last("select"), B_SCOPE):
                self.pop_to(self.last("select"))
            self.reconstruct()
            self.elements += 1
            return False
        if name in RAW_TEXT:
            self.elements += 1
            return True
        if name in ("svg", "math"):
            self.reconstruct()
            if self_closing:
                self.elements += 1
            else:
                self.push("~" + name, SVG if name == "svg" else MATH, FOREIGN_BITS)
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
            if self.close_if_in("select", B_SCOPE):
                return False  # a select inside a select closes it and is dropped
        elif name == "button":
            self.close_if_in(name, B_SCOPE)
        elif name in ("rb", "rtc", "rp", "rt") and self.within(self.last("ruby"), B_SCOPE):
            closing = ("rb", "rp", "rt", "rtc") if name in ("rb", "rtc") else ("rb", "rp", "rt")
            while stack and stack[-1][0] in closing:
                self.pop_to(len(stack) - 1)
        elif name in ("a", "nobr"):
            fmt = self.find_formatting(name)
            if fmt is not None:
                self.adopt(fmt)
        elif name == "frameset":
            self.push(DEAD, HTML, BITS["frame"])  # replaces the body, or is ignored: never closed by name
            return False
        self.reconstruct()
        if name in FORMATTING:
            self.push(name, HTML, (), self.add_formatting(name, name + attrs))
        else:
            self.push(name, HTML, BITS.get(name, ()))
            if name in MARKERS:
                self.marker()
        return False

    def foreign(self, name: str, ctx: int, self_closing: bool) -> None:
        """A start tag inside SVG or MathML (``MAYBE``: perhaps HTML; then it is never self-closing)."""
        if self_closing and ctx != MAYBE:
            self.elements += 1
        elif name == "svg":
            self.push("~svg", SVG, FOREIGN_BITS)
        elif (ctx == SVG and name in SVG_HTML) or (ctx == MATH and name in MATH_HTML):
            self.push("~" + name, HTML, INTEGRATION_BITS)
        elif ctx == MATH and name == "annotation-xml":
            self.push("~" + name, MAYBE, INTEGRATION_BITS)
        else:  # MAYBE: perhaps an HTML element, so not marked foreign
            self.push("~" + name, MATH if name == "math" else ctx, () if ctx == MAYBE else FOREIGN_BITS)

    def table_start(self, name: str) -> None:
        """Table parts close open cells, rows and sections of their table; implied tbody/tr are added."""
        tables = self.marks[B_TABLE]
        t = tables[-1] if tables else -1
        if t < 0 or self.stack[t][0] != "table":  # no table: ignored, except in a template
            if name == "col" and 0 <= t == len(self.stack) - 1 and self.stack[t][1] is BITS["template"]:
                self.col_templates.add(t)  # the template now takes only <col>, <template>, </template>
                self.elements += 1
                return
            if name == "table" or (t >= 0 and name != "col"):
                if name == "table":
                    self.work += len(self.stack)
                    p = self.last("p")
                    if self.within(p, B_BUTTON):  # closed unless in quirks mode
                        self.kill(p)
                self.push(name, HTML, BITS.get(name, ()))
                if name in MARKERS:
                    self.marker()
            return
        cell = max(self.last("td"), self.last("th"))
        if name == "table":
            if cell <= t:  # a table directly in a table ends it
                self.pop_to(t)
            self.work += len(self.stack)
            self.push(name, HTML, BITS[name])
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
                    self.push("tbody", HTML, BITS["tbody"])
                if name != "tr":
                    self.push("tr", HTML, BITS["tr"])
        else:
            self.pop_to(t + 1)
        if name == "col":
            self.elements += 2
            return
        self.push(name, HTML, BITS.get(name, ()))
        if name in MARKERS:
            self.marker()

    def end(self, name: str) -> None:
        """Apply an end tag: close only what the parser certainly closes."""
        stack = self.stack
        if stack and stack[-1][2] != HTML:  # in SVG/MathML: closes a foreign element above any HTML one
            i = self.last("~" + name)
            foreign = self.marks[B_FOREIGN]
            if stack[-1][2] != MAYBE and i >= 0 and len(foreign) - bisect_right(foreign, i) == len(stack) - 1 - i:
                self.pop_to(i)
            return
        self.work += len(stack)
        if name == "p":
            if not self.close_if_in("p", B_BUTTON):
                self.elements += 1
        elif name == "li":
            self.close_if_in("li", B_LIST)
        elif name in HEADINGS:
            i = max(self.last(h) for h in HEADINGS)
            if self.within(i, B_SCOPE):
                self.pop_to(i)
        elif name == "br":
            self.reconstruct()
            self.elements += 1
        elif name == "form":  # the form leaves the stack, what is above it stays
            i = self.last("form")
            if self.within(i, B_SCOPE):
                self.kill(i, i + 1)
        elif name in ("body", "html", "head", "frameset"):
            return
        elif name in FORMATTING and (fmt := self.find_formatting(name)) is not None:
            if self.within(self.open_index(fmt), B_SCOPE) or not fmt.open:
                self.adopt(fmt)
        elif name == "colgroup":
            return  # closed only as the current element (handled before)
        elif name in TABLE_SCOPED:
            if self.close_if_in(name, B_TABLE) and name in MARKERS:
                self.clear_to_marker()
        elif name in SPECIAL:
            if self.close_if_in(name, B_SCOPE) and name in MARKERS:
                self.clear_to_marker()
        elif self.within(self.last(name), B_SPECIAL):
            self.pop_to(self.last(name))


def attribute_bound(attrs: str) -> int:
    """An upper bound on the attributes of one tag: one per word, '/', and quoted value."""
    return len(attrs.split()) + attrs.count("/") + (attrs.count('"') + attrs.count("'")) // 2
