"""The tree builder's stack of open elements and list of active formatting elements, with the limits.

:class:`OpenElements` answers, in constant time, the scope questions that the tag rules of
:class:`shopsim.translators.tree_model.TreeModel` ask, and counts the parser's depth, elements
and scan work as elements open, close, are dropped or re-created, raising :class:`Refused` at
the first limit crossed. Kept apart from the tag rules, which only decide what to open and close.
"""

from __future__ import annotations

from typing import Final

from shopsim.translators.html_rules import B_SPECIAL, DEAD, HTML

__all__ = ["MAX_ATTRIBUTE_WORK", "MAX_DEPTH", "MAX_ELEMENTS", "MAX_FORMATTING", "MAX_PARSE_WORK", "Formatting", "OpenElements",
           "Refused"]

#: At most this many elements, implied and re-created ones included (real pages: 10,500);
#: about 0.6 s of parsing and 150 MB.
MAX_ELEMENTS: Final = 200_000
#: Nesting depth of open elements; browsers (Blink) stop nesting at 512 too. Real pages: 45.
MAX_DEPTH: Final = 512
#: Unclosed formatting elements (``<b>``, ``<a>``, ``<font>``...) in one scope; real pages: < 20.
MAX_FORMATTING: Final = 200

#: Parser scan steps summed over tags (stack searched per block tag, formatting list per
#: formatting tag, earlier options and optgroups per option); lexbor does about 40 million a second.
#: Real pages: under 150,000.
MAX_PARSE_WORK: Final = 20_000_000
#: Attributes, estimated from their text (at most one per two characters) plus n * n / 64 for an
#: element with n of them (lexbor checks each new name against the others). Real pages: 700,000.
MAX_ATTRIBUTE_WORK: Final = 3_000_000


class Refused(Exception):
    """Raised inside the scan with the reason a page is refused."""


class Formatting:
    """An entry of the list of active formatting elements (compared by identity, as the parser does)."""

    __slots__ = ("key", "name", "open")

    def __init__(self, name: str, key: str) -> None:
        self.name, self.key, self.open = name, key, True


_MARKER: Final = Formatting("", "")  # a scope marker in the formatting list


class OpenElements:
    """The open elements and active formatting elements of one page, and what they cost the parser.

    ``stack`` holds ``(name, kinds, children_namespace, formatting_entry)`` per open element;
    ``where[name]`` the stack indexes of each open name and ``marks[kind]`` those of each kind of
    element that ends a scope search, so every scope question is answered in constant time.
    """

    def __init__(self) -> None:
        self.stack: list[tuple[str, tuple[int, ...], int, Formatting | None]] = []
        self.where: dict[str, list[int]] = {DEAD: []}
        self.marks: list[list[int]] = [[] for _ in range(7)]
        self.afe: list[Formatting] = []
        self.afe_base = 0  # index just after the last marker
        self.in_head = True  # before the body: what opens here is closed when the body starts
        self.col_templates: set[int] = set()  # templates after a <col>: they ignore every tag but a few
        self.elements = 3  # html, head, body
        self.work = 0
        self.attr_work = 0
        self.options = self.optgroups = 0
        self.deepest = 0  # the most elements open at once

    # ---- stack --------------------------------------------------------------------------------
    def push(self, name: str, ctx: int, bits: tuple[int, ...], fmt: Formatting | None = None) -> None:
        """Open element ``name``, counting depth, elements and scan work; raises Refused at a limit."""
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
        never close them by name (closing one would close what the parser keeps open above it).
        """
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

    def add_formatting(self, name: str, key: str) -> Formatting:
        """Add a formatting entry (at most three alike after the marker); raises Refused past the limit."""
        live = self.afe[self.afe_base:]
        self.work += len(live)
        same = [f for f in live if f.key == key]
        if len(same) >= 3:  # "Noah's Ark": at most three identical entries
            self.drop(same[0])
        elif len(live) >= MAX_FORMATTING:
            raise Refused(f"page has too many unclosed formatting elements: more than {MAX_FORMATTING}")
        fmt = Formatting(name, key)
        self.afe.append(fmt)
        return fmt

    def drop(self, fmt: Formatting) -> None:
        """Remove ``fmt`` from the formatting list (it is after the last marker)."""
        afe = self.afe
        for i in range(len(afe) - 1, self.afe_base - 1, -1):
            if afe[i] is fmt:
                del afe[i]
                return

    def find_formatting(self, name: str) -> Formatting | None:
        """The last formatting entry named ``name`` after the last marker, or None."""
        afe = self.afe
        for i in range(len(afe) - 1, self.afe_base - 1, -1):
            if afe[i].name == name:
                return afe[i]
        return None

    def open_index(self, fmt: Formatting) -> int:
        """Stack index of a formatting entry's element (-1 when it is not open)."""
        if fmt.open:
            for i in reversed(self.where.get(fmt.name, ())):
                if self.stack[i][3] is fmt:
                    return i
        return -1

    def marker(self) -> None:
        """Push a scope marker: entries before it are out of reach until it is cleared."""
        self.afe.append(_MARKER)
        self.afe_base = len(self.afe)

    def clear_to_marker(self) -> None:
        """Pop formatting entries up to and including the last marker (its scope element closed)."""
        afe = self.afe
        while afe:
            if afe.pop() is _MARKER:
                break
        self.afe_base = next((i + 1 for i in range(len(afe) - 1, -1, -1) if afe[i] is _MARKER), 0)

    def adopt(self, fmt: Formatting) -> None:
        """The adoption agency for an open formatting element: closed, or the tree rearranged."""
        i = self.open_index(fmt)
        if self.within(i, B_SPECIAL):
            self.pop_to(i)
        elif i >= 0:  # a special element above it: it and what lies between leave the stack, clones come
            self.elements += 32
            self.kill(i, next(j for j in self.marks[B_SPECIAL] if j > i))
        self.drop(fmt)
