"""WebShop's URL scheme, built and parsed in one place.

WebShop encodes options as JSON in item-page URLs and as a Python repr in sub-page and done URLs;
both forms are produced here exactly as WebShop does (clients match on them) and both are parsed
(safely: JSON or ``ast.literal_eval`` of a size-limited literal, never ``eval``).
"""

from __future__ import annotations

import ast
import json
from urllib.parse import unquote, unquote_plus

from shopsim.errors import ActionError

__all__ = [
    "DEFAULT_BASE_URL",
    "MAX_SEGMENT_CHARS",
    "done_url",
    "index_url",
    "item_url",
    "parse_keywords",
    "parse_options",
    "results_url",
    "sub_page_url",
]

DEFAULT_BASE_URL = "http://127.0.0.1:3000"
MAX_SEGMENT_CHARS = 2000


def index_url(base: str, session: str) -> str:
    """The search page of a session."""
    return f"{base}/{session}"


def results_url(base: str, session: str, keywords: list[str], page: int) -> str:
    """A results page; keywords joined with '+' and not percent-encoded, as WebShop does."""
    return f"{base}/search_results/{session}/{'+'.join(keywords)}/{page}"


def item_url(base: str, session: str, asin: str, keywords: list[str], page: int, options: dict[str, str]) -> str:
    """An item page; options as JSON (``json.dumps``)."""
    return f"{base}/item_page/{session}/{asin}/{'+'.join(keywords)}/{page}/{json.dumps(options)}"


def sub_page_url(
    base: str, session: str, asin: str, keywords: list[str], page: int, sub_page: str, options: dict[str, str]
) -> str:
    """An item sub-page; options as a Python dict repr, as WebShop does."""
    return f"{base}/item_sub_page/{session}/{asin}/{'+'.join(keywords)}/{page}/{sub_page}/{options}"


def done_url(base: str, session: str, asin: str, options: dict[str, str]) -> str:
    """The done page; options as a Python dict repr."""
    return f"{base}/done/{session}/{asin}/{options}"


def parse_keywords(segment: str) -> list[str]:
    """Keywords from a URL segment: a Python list repr, '+'-joined words, or plain text."""
    text = unquote(segment)
    if len(text) > MAX_SEGMENT_CHARS:
        raise ActionError(f"keywords segment is {len(text)} characters; the limit is {MAX_SEGMENT_CHARS}")
    if text.startswith("["):
        try:
            value = ast.literal_eval(text)
        except (ValueError, SyntaxError, MemoryError, RecursionError) as exc:
            raise ActionError(f"keywords segment {text[:80]!r} is not a valid list literal") from exc
        if not isinstance(value, list) or not all(isinstance(x, str) for x in value):
            raise ActionError("keywords list must hold only strings")
        return value
    return unquote_plus(segment).split(" ") if "+" in segment else text.split(" ")


def parse_options(segment: str) -> dict[str, str]:
    """Options from a URL segment: JSON or a Python dict literal of strings."""
    text = unquote(segment)
    if len(text) > MAX_SEGMENT_CHARS:
        raise ActionError(f"options segment is {len(text)} characters; the limit is {MAX_SEGMENT_CHARS}")
    if text.strip() in ("", "{}", "None"):
        return {}
    value: object
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        try:
            value = ast.literal_eval(text)
        except (ValueError, SyntaxError, MemoryError, RecursionError) as exc:
            raise ActionError(f"options segment {text[:80]!r} is neither JSON nor a dict literal") from exc
    if not isinstance(value, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
        raise ActionError("options must map option names to option values (strings)")
    return value
