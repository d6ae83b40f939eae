"""Attribute values that survive naive serialisers: no quote, ``&``, ``<`` or ``>`` in what a page's DOM holds.

Tools that print a page's DOM as text often write ``name="value"`` without escaping the value
(BrowserGym's DOM observation does, from a DOM snapshot): a ``"`` inside a value ends it early and
the rest of the tag turns into junk attributes. Our ``data-*`` hooks hold JSON (``data-keywords``,
``data-options``, ``data-reward-info``) and catalog or user text (``data-query``, ``data-value``), so
the sim's pages write them through :func:`attr_text` / :func:`attr_json`, which percent-encode the six
characters ``% " ' & < >`` and nothing else (``16" x 20"`` becomes ``16%22 x 20%22``), and every reader
decodes them with :func:`read_attr_text` / :func:`read_attr_json`. URLs in ``data-url`` and
``data-original-src`` too: a PageState's URLs show keywords unencoded (``.../"quoted"+&+<b>/1``), and the
encoding is exact for any text. Pages saved before the encoding hold raw values; a raw value still
containing a quote is returned as it is. Alt text is prose for people: :func:`attr_prose` turns its
ASCII quotes into typographic ones.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import unquote

__all__ = ["attr_json", "attr_prose", "attr_text", "read_attr_json", "read_attr_text"]

#: ``%`` first, so the codes written after it stay as they are. One ``in`` and a rare ``replace`` per
#: character: ``str.translate`` with a dict table took five times as long on a product title.
_CODES = (("%", "%25"), ('"', "%22"), ("'", "%27"), ("&", "%26"), ("<", "%3C"), (">", "%3E"))


def attr_text(text: object) -> str:
    """``text`` as an attribute value holding none of ``" ' & < >`` (percent-encoded, ``%`` too)."""
    s = str(text)
    for char, code in _CODES:
        if char in s:
            s = s.replace(char, code)
    return s


def attr_json(value: Any) -> str:
    """``value`` as JSON, then :func:`attr_text` (JSON's own quotes become ``%22``)."""
    return attr_text(json.dumps(value))


def attr_prose(text: str) -> str:
    """Alt text without ASCII quotes: ``12" frame`` reads ``12″ frame`` (inch and foot marks are most
    of the catalog's quotes), ``men's`` reads ``men’s``.
    """
    if '"' in text:
        text = text.replace('"', "\u2033")
    return text.replace("'", "\u2019") if "'" in text else text


def read_attr_text(raw: str | None) -> str | None:
    """What :func:`attr_text` encoded (``None`` stays ``None``; a raw value with a quote is taken as it is)."""
    if raw is None or "%" not in raw or '"' in raw:
        return raw
    return unquote(raw)


def read_attr_json(raw: str | None) -> Any:
    """The value :func:`attr_json` wrote (``None`` for a missing or empty attribute)."""
    text = read_attr_text(raw)
    return json.loads(text) if text else None
