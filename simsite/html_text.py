"""What the hand-written page fragments (:mod:`.html_cards`, :mod:`.html_options`) share: Jinja's
escaping of a value, and format strings filled without ``str.format``.

Why: those fragments replace template loops on the pages HTTP agents load most, so each has to
write exactly what the template wrote (autoescape's five entities) at a fraction of its cost.
``str.format`` parses its whole format string on every call (11-16 us for a 1.7 KB result card on
this machine); a :class:`Fragment` splits it once, and filling it is a list copy and one join
(about 1.6 us).
"""

from __future__ import annotations

import re
from functools import lru_cache
from string import Formatter

__all__ = ["Fragment", "escape_text"]

_SPECIAL = re.compile("[&<>'\"]")


@lru_cache(maxsize=1 << 15, typed=True)
def escape_text(value: object) -> str:
    """``markupsafe.escape`` for the plain values a page fragment holds (str, int, None), without building a
    Markup; most values have nothing to escape, and one search finds that. Remembered (by type too:
    ``True`` is not ``1``): a catalog's titles, prices and image URLs come back on page after page.
    """
    text = str(value)
    if _SPECIAL.search(text) is None:
        return text
    return text.replace("&", "&amp;").replace(">", "&gt;").replace("<", "&lt;").replace("'", "&#39;").replace(
        '"', "&#34;")


class Fragment:
    """A format string of plain ``{name}`` fields, split once into its text and its fields.

    ``Fragment(fmt).fill(**values)`` equals ``fmt.format(**values)`` for string values; a field may
    appear more than once. Format specs and conversions (``{x:>3}``, ``{x!r}``) are refused.
    """

    def __init__(self, fmt: str):
        self._pieces: list[str] = []
        self._slots: list[tuple[int, str]] = []
        for text, name, spec, conversion in Formatter().parse(fmt):
            self._pieces.append(text)
            if name is not None:
                if spec or conversion:
                    raise ValueError(f"field {name!r}: a Fragment takes plain {{name}} fields only")
                self._slots.append((len(self._pieces), name))
                self._pieces.append("")

    def fill(self, **values: str) -> str:
        """The text with each field replaced by its value."""
        out = self._pieces.copy()
        for at, name in self._slots:
            out[at] = values[name]
        return "".join(out)
