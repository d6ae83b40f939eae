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
element the parser may have dropped stays counted but can no longer be closed by name. Its depth is
not exact where the adoption agency re-parents misnested formatting elements or foreign content
breaks out: lexbor's tree can end up to 1.6 times deeper than the model's stack (fuzzed in
``tests/translators/test_guard_fuzz.py``), well inside the limits' margin. A page over
any limit is refused with a reason before lexbor sees it, so whatever its shape a page is parsed or
refused within about two seconds. The limits (below) are 4 to 150 times what real pages use. The
price is the scan itself, once per page (the last few verdicts are kept): compiled by mypyc
(:mod:`.scan_build`) about 1.5 times lexbor's parse of a real page (p50 / p95 3.9 / 10.8 ms over the
66 saved pages); as plain Python, the fallback, 3 to 8 times (13 / 35 ms).
"""

from __future__ import annotations

import threading
from typing import Final

from shopsim.translators.html_rules import (
    B_BUTTON,
    B_LI_STOP,
    BITS,
    BLOCKS,
    FORMATTING,
    HTML,
    MARKERS,
    PLAIN,
    RAW_END,
    UNQUOTED_END,
    VOID,
)
from shopsim.translators.tag_lexer import tags
from shopsim.translators.tree_model import TreeModel, attribute_bound
from shopsim.translators.tree_stack import (
    MAX_ATTRIBUTE_WORK,
    MAX_DEPTH,
    MAX_ELEMENTS,
    MAX_PARSE_WORK,
    Formatting,
    Refused,
)

__all__ = [
    "MAX_HTML_CHARS",
    "MAX_PAGE_BYTES",
    "MAX_TAG_MARKS",
    "forget_verdicts",
    "markup_refusal",
]

#: Pages above this many bytes are not read (real pages stay under 4 MB): memory stays bounded.
MAX_PAGE_BYTES: Final = 20_000_000
#: Decoded pages above this many characters are not parsed.
MAX_HTML_CHARS: Final = 20_000_000
#: At most this many ``<`` (real pages: 22,000); bounds the scan itself to about a second.
MAX_TAG_MARKS: Final = 300_000


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
    try:
        verdict = scan_markup(html)
    except Exception as exc:  # a gap in the model must never become a traceback: refuse, with why
        verdict = f"markup the parser model cannot follow ({type(exc).__name__}: {str(exc)[:80]})"
    with _verdicts_lock:
        if len(_verdicts) >= 8:
            del _verdicts[next(iter(_verdicts))]
        _verdicts[key] = verdict
    return verdict


_verdicts: dict[tuple[int, int], str | None] = {}
_verdicts_lock = threading.Lock()


def forget_verdicts() -> None:
    """Drop the kept verdicts, so the next page is scanned afresh (what a first read of a page costs)."""
    with _verdicts_lock:
        _verdicts.clear()
#: Start tags the scan handles itself in the common case (in the body, in HTML): a block that at most
#: closes an open <p>, an inline element that only opens, a void element, a formatting element.
_BLOCK: Final = 1
_PLAIN: Final = 2
_VOID: Final = 3
_FORMAT: Final = 4
_LI: Final = 5
_INPUT: Final = 6
_INLINE: Final = {**{n: _VOID for n in VOID - {"input", "keygen"}}, **{n: _PLAIN for n in PLAIN}, **{n: _BLOCK for n in BLOCKS}}
#: ... and start tags the scan takes from the model's own rules, step for step (``shortcuts``): most
#: formatting elements, list items and inputs of a real page.
_SHORTCUTS: Final = {**_INLINE, **{n: _FORMAT for n in FORMATTING}, "input": _INPUT, "keygen": _INPUT, "li": _LI}


def scan_markup(html: str, model: TreeModel | None = None, shortcuts: bool = True) -> str | None:
    """Feed every tag of ``html`` to ``model``; the first limit crossed, or None.

    The common cases (an end tag closing the current element; a plain inline, block, void or
    formatting start tag with no formatting element to re-open or compare) are handled inline, the
    rest by the model's methods: a Python call per tag is most of the scan's cost. ``shortcuts=False``
    sends formatting, ``<li>`` and ``<input>`` start tags to the model's methods instead, which must
    come to the same counts (tests/translators/test_guard_fuzz.py compares them).
    """
    model = model if model is not None else TreeModel()
    fast = _SHORTCUTS if shortcuts else _INLINE
    stack, where, afe, marks = model.stack, model.where, model.afe, model.marks
    size = len(html)
    attr_work = model.attr_work  # only the scan counts attributes: a local, written back at the end
    pos: int | None = 0
    try:
        while pos is not None:
            restart = None
            for token in tags(html, pos):
                closing, name, attrs, end = token.closing, token.name, token.attrs, token.end
                if not name:  # a comment or doctype; text after it re-opens closed formatting elements
                    if afe and not afe[-1].open and end < size and html[end] != "<":
                        model.reconstruct()
                    continue
                if model.col_templates and len(stack) - 1 in model.col_templates:
                    _col_template_tag(model, closing, name, attrs)
                    continue
                if stack and stack[-1][0] == "colgroup" and name not in ("col", "template", "colgroup"):
                    model.pop_to(len(stack) - 1)  # a column group ends at anything but <col>
                if closing:
                    top = stack[-1] if stack else None
                    if top is not None and (top[0] == name or (top[0][:1] == "~" and top[0][1:] == name)) and (
                            name not in MARKERS and name != "form"):
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
                            n = attribute_bound(attrs)
                            attr_work += n * n // 64
                        attr_work += n
                        if attr_work > MAX_ATTRIBUTE_WORK:
                            return f"page has too many attributes (up to {n:,} in one <{name[:20]}>)"
                    kind = fast.get(name, 0) if not model.in_head and (not stack or stack[-1][2] == HTML) else 0
                    if kind == _INPUT and not where.get("select"):
                        kind = _VOID  # an input closes an open <select>; else it is any void element
                    if kind == _FORMAT and len(afe) != model.afe_base and not _plain_formatting(model, name):
                        kind = 0
                    if kind in (_BLOCK, _LI, _FORMAT) or (kind == _PLAIN and (not afe or afe[-1].open)):
                        index = len(stack)
                        bits: tuple[int, ...] = ()
                        fmt = None
                        if kind in (_BLOCK, _LI):  # a block closes an open <p>: one search of the stack
                            model.work += index
                            if where.get("p"):
                                model.close_if_in("p", B_BUTTON)
                            index = len(stack)
                            if kind == _LI:  # an <li> closes an open <li>, then opens as the model's push does
                                if where.get("li"):
                                    model.close_if_in("li", B_LI_STOP)
                                    index = len(stack)
                                model.work += index
                            bits = BITS.get(name, ())  # dialog, search...: close a <p>, not special
                        elif kind == _FORMAT:  # a formatting element: its entry (compared with the open ones) and a push
                            model.work += len(afe) - model.afe_base
                            fmt = Formatting(name, name + attrs)
                            afe.append(fmt)
                        if index >= MAX_DEPTH:
                            return f"page too deeply nested: depth > {MAX_DEPTH}"
                        model.elements += 1
                        if model.elements > MAX_ELEMENTS:
                            return f"page too large: more than {MAX_ELEMENTS:,} elements"
                        if fmt is not None:
                            model.work += index
                        if index >= model.deepest:
                            model.deepest = index + 1
                        stack.append((name, bits, HTML, fmt))
                        at = where.get(name)
                        if at is None:
                            where[name] = [index]
                        else:
                            at.append(index)
                        for b in bits:
                            marks[b].append(index)
                    elif kind == _VOID:
                        if afe and not afe[-1].open:
                            model.reconstruct()
                        model.elements += 1
                        if model.elements > MAX_ELEMENTS:
                            return f"page too large: more than {MAX_ELEMENTS:,} elements"
                    elif model.start(name, attrs, attrs.endswith("/") and not UNQUOTED_END.search(attrs)):
                        if name == "plaintext":
                            return None
                        found = RAW_END[name].search(html, end)
                        restart = found.start() if found else None
                        break
                    if model.work > MAX_PARSE_WORK:
                        return (f"page too costly to parse: parser work > {MAX_PARSE_WORK:,} (nesting times "
                                f"size, or long selects or formatting lists; depth {len(stack)})")
                if afe and not afe[-1].open and end < size and html[end] != "<":
                    model.reconstruct()  # text re-opens formatting elements closed under it
            else:
                return None
            pos = restart
    except Refused as exc:
        return str(exc)
    finally:
        model.attr_work = attr_work
    return None


def _plain_formatting(model: TreeModel, name: str) -> bool:
    """Whether a formatting start tag needs no model step: nothing to re-open, no entry of its name
    (to adopt, or to count as one of three alike) among the few open ones after the last marker.
    """
    afe, base = model.afe, model.afe_base
    if len(afe) == base:
        return True
    return afe[-1].open and len(afe) - base < 8 and all(f.name != name for f in afe[base:])


def _col_template_tag(model: TreeModel, closing: str, name: str, attrs: str) -> None:
    """A tag in a <template> that took a <col>: it now follows only <col> and <template> tags."""
    if closing and name == "template":
        model.pop_to(len(model.stack) - 1)
        model.clear_to_marker()
    elif not closing and name == "template":
        model.start(name, attrs, False)
    elif not closing and name == "col":
        model.elements += 1


