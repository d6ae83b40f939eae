"""DOM text helpers for real pages: collapsed text, attributes, cheap selectors, landmark scans.

Real pages are large (0.5-3 MB) and come from many markup eras, so everything here works on
small subtrees or with plain ``str.find`` gates; one full-document CSS scan costs ~1 ms.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from selectolax.lexbor import LexborHTMLParser, LexborNode

__all__ = ["MAX_RESULT_CARDS", "MarkScan", "ancestors", "ascii_lowered", "attr", "collapse", "first", "id_index",
           "landmarks", "marked", "select_all", "small_int", "text_of"]

_SMALL_INT = re.compile(r"[0-9]{1,9}")


def small_int(text: str) -> int | None:
    """A page number or amount written as ASCII digits (at most nine): '²' or 5,000 nines are no number."""
    return int(text) if _SMALL_INT.fullmatch(text) else None


_SKIP_TAGS = frozenset({"script", "style", "noscript", "template", "svg", "-comment"})
#: Result cards read from one page (real pages show at most about 70): a page of 100,000 cards is
#: read in bounded time, its first cards only.
MAX_RESULT_CARDS = 1_000


class MarkScan:
    """Counts of marks (hosts, script names) in a page's text, where few of them are there at all.

    Each count is a scan of the text (~70 µs for 200,000 characters); the page is first scanned once for
    each ``anchor`` (a piece several marks share, 'taobao' of 'item.taobao.com' and 's.taobao.com'), and
    a mark holding an anchor the text lacks is not looked for: its count is 0 all the same.
    """

    def __init__(self, text: str, anchors: Iterable[str]) -> None:
        self.text = text
        self._absent = tuple(a for a in anchors if a not in text)

    def _possible(self, mark: str) -> bool:
        return not any(a in mark for a in self._absent)

    def count(self, marks: Iterable[str]) -> int:
        """``sum(text.count(m) for m in marks)``."""
        return sum(self.text.count(m) for m in marks if self._possible(m))

    def any(self, marks: Iterable[str]) -> bool:
        """``any(m in text for m in marks)``."""
        return any(m in self.text for m in marks if self._possible(m))


def ascii_lowered(text: str) -> str:
    """``text`` with its ASCII letters lower-cased and every other character spelled as its UTF-8 bytes
    (each one above U+007F), for finding ASCII marks where ``text.lower()`` would be searched.

    For a mark of ASCII characters without 'k' that does not end in 'i', ``mark in ascii_lowered(text)``
    exactly when ``mark in text.lower()``: the only other characters ``str.lower`` turns into ASCII
    letters are the Kelvin sign ('k') and 'İ' ('i' and a combining dot). A fifth of ``str.lower``'s
    time on a page of wide characters, and its result is one byte a character, quicker to search.
    """
    return text.encode("utf-8", "surrogatepass").lower().decode("latin-1")


def collapse(text: str | None) -> str:
    """Collapse whitespace (NBSP included) to single spaces, trimmed.

    Text and attribute values from the parser are already entity-decoded; decoding again would
    turn a literal '&amp;' shown on the page into '&'.
    """
    if not text:
        return ""
    return " ".join(text.split())


def text_of(node: LexborNode | None, skip_classes: Iterable[str] = (), sep: str = "") -> str:
    """Visible text of ``node``: scripts/styles and elements with any ``skip_classes`` left out."""
    if node is None:
        return ""
    skip = frozenset(skip_classes)
    parts: list[str] = []
    _walk(node, skip, parts)
    return collapse(sep.join(parts))


def _walk(node: LexborNode, skip: frozenset[str], parts: list[str]) -> None:
    """Text of ``node``'s subtree in document order; a loop, not recursion, so depth costs no stack."""
    pending = [node.iter(include_text=True)]
    while pending:
        child = next(pending[-1], None)
        if child is None:
            pending.pop()
            continue
        tag = child.tag
        if tag == "-text":
            parts.append(child.text_content or "")
        elif tag not in _SKIP_TAGS:
            if skip:
                cls = child.attributes.get("class")
                if cls and not skip.isdisjoint(cls.split()):
                    continue
            if tag == "br":
                parts.append(" ")
            pending.append(child.iter(include_text=True))


def attr(node: LexborNode | None, name: str) -> str:
    """Attribute value or '' (selectolax gives None for valueless attributes)."""
    if node is None:
        return ""
    try:
        return node.attrs.get(name) or ""  # one attribute, not the dict of them all (``node.attributes``)
    except TypeError:  # not an element (the document, text): selectolax has no ``attrs`` for it
        return node.attributes.get(name) or ""


def ancestors(node: LexborNode, levels: int) -> list[LexborNode]:
    """``node``'s parent, grandparent... up to ``levels`` of them (a loop: depth costs no stack)."""
    out: list[LexborNode] = []
    parent = node.parent
    while parent is not None and len(out) < levels:
        out.append(parent)
        parent = parent.parent
    return out


def first(root: LexborNode | LexborHTMLParser | None, *selectors: str) -> LexborNode | None:
    """First node matching the first selector that matches anything (selectors tried in order)."""
    if root is None:
        return None
    for sel in selectors:
        node = root.css_first(sel)
        if node is not None:
            return node
    return None


def select_all(root: LexborNode, selector: str) -> list[LexborNode]:
    """``root.css(selector)`` without repeats: lexbor returns a node once per matching list item."""
    seen: set[int] = set()
    out = []
    for node in root.css(selector):
        if node.mem_id not in seen:
            seen.add(node.mem_id)
            out.append(node)
    return out


def marked(root: LexborNode, marks: tuple[tuple[str, str], ...], candidates: str, limit: int) -> list[LexborNode]:
    """``root.css('[a*="x"], [b*="y"], ...')[:limit]`` for ``marks`` ((attribute, substring) pairs), as lexbor
    gives it (document order, a node once per mark it matches), read from ``candidates``: a selector list
    matching every node a mark matches and more, checked here in Python.

    Lexbor's ``[class*=...]`` costs about 1 ms on a large page, whatever the substring; one
    ``[class*="ag"]`` finds 'paginat', 'Paginat' and 'pager' alike, where three such scans cost three.
    """
    out: list[LexborNode] = []
    last = -1
    for node in root.css(candidates):
        if node.mem_id == last:  # a node comes once per candidate selector it matches, in a row
            continue
        last = node.mem_id
        attrs = node.attributes
        out.extend([node] * sum(1 for name, part in marks if part in (attrs.get(name) or "")))
        if len(out) >= limit:
            break
    return out[:limit]


def id_index(root: LexborNode) -> dict[str, LexborNode]:
    """Every element id under ``root`` -> its first element, from one scan (ids are exact-case)."""
    out: dict[str, LexborNode] = {}
    for node in root.css("[id]"):
        nid = node.id
        if nid and nid not in out:
            out[nid] = node
    return out


_SIMPLE_RE = re.compile(r"""([a-z0-9]+)?((?:[#.][\w\-]+)*)((?:\[[\w\-]+(?:="[^"]*")?\])*)$""")


def _simple(sel: str) -> tuple[str | None, str | None, frozenset[str], tuple[tuple[str, str | None], ...]]:
    """Split a simple selector 'tag#id.cls[attr="v"]' into parts (no combinators allowed)."""
    m = _SIMPLE_RE.match(sel.strip())
    if m is None:
        raise ValueError(f"landmark selectors must be simple, got {sel!r}")
    tag, marks, attrs = m.groups()
    ids = re.findall(r"#([\w\-]+)", marks)
    classes = frozenset(re.findall(r"\.([\w\-]+)", marks))
    pairs = tuple((k, v) for k, v in re.findall(r'\[([\w\-]+)(?:="([^"]*)")?\]', attrs))
    return tag, (ids[0] if ids else None), classes, tuple((k, v or None) for k, v in pairs)


def landmarks(root: LexborNode, selectors: dict[str, str]) -> dict[str, LexborNode]:
    """First node (document order) for each named selector list, from ONE scan of ``root``.

    Each value is a comma list of simple selectors (tag, #id, .class, [attr], [attr="v"]);
    matching the scan's nodes back to names is done in Python, which is far cheaper than
    one CSS scan per selector on a 1-3 MB page.
    """
    specs = [(name, _simple(part)) for name, sel in selectors.items() for part in sel.split(",")]
    found: dict[str, LexborNode] = {}
    for node in root.css(", ".join(selectors.values())):
        attrs = node.attributes
        classes = set((attrs.get("class") or "").split())
        for name, (tag, nid, cls, pairs) in specs:
            if name in found or (tag and node.tag != tag) or (nid and attrs.get("id") != nid):
                continue
            if cls <= classes and all(k in attrs and (v is None or attrs.get(k) == v) for k, v in pairs):
                found[name] = node
        if len(found) == len(selectors):
            break
    return found
