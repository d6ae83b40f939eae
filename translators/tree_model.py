"""A linear-time model of the HTML tree builder: what a page would cost lexbor before it is parsed.

:class:`TreeModel` follows a page's tags (fed once, in order, by
:func:`shopsim.translators.guard.scan_markup`) as the HTML standard's tree construction would:
scopes, implied closes, tables, select, foreign content, the active formatting list; and it
estimates the parser's stack depth, element count, scan work and attributes, raising
:class:`~shopsim.translators.tree_stack.Refused` at the first limit crossed. The model errs
towards more work: an end tag closes only what the parser certainly closes, and an element the
parser may have dropped stays counted but can no longer be closed by name. This module holds the
tag rules; the stack, the formatting list and the limits are in :mod:`shopsim.translators.tree_stack`.
:mod:`shopsim.translators.guard` holds the measurements behind the limits and calls it once per page.
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
from shopsim.translators.tree_stack import OpenElements

__all__ = ["TreeModel", "attribute_bound"]


class TreeModel(OpenElements):
    """The part of the HTML tree builder that decides how deep, how large and how slow a parse is.

    The tag rules: which elements each start and end tag opens, closes, drops or re-creates, over
    the stack and formatting list of :class:`~shopsim.translators.tree_stack.OpenElements`.
    """

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
