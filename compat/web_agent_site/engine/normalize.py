"""WebShop's ``web_agent_site.engine.normalize``: colour and size normalisation of option values.

``normalize_color`` is the reward's own (:func:`shopsim.simsite.reward.normalize_color`);
``normalize_color_size`` maps a ``{(asin, color, size): price}`` table to colour words and size
patterns, as WebShop's analysis scripts use it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from shopsim.simsite.reward import COLOR_WORDS, normalize_color

__all__ = ["COLOR_SET", "SIZE_PATTERNS", "SIZE_SET", "normalize_color", "normalize_color_size"]

COLOR_SET = COLOR_WORDS
#: Size words, tried before the patterns (each becomes a pattern of its own).
SIZE_SET = ["xx-large", "3x-large", "4x-large", "5x-large", "x-large", "x-small", "medium", "large", "small",
            "queen", "twin", "full", "king", "one size", "pack"]
_SHAPES = [r"(.*)neck(.*)sleeve", r"(.*) women \| (.*) men", r"(.*)w x(.*)l", r"(.*)w by (.*)l", r"(.*)w x(.*)h",
           r"(.*)wide", r"(.*)x-wide", r"(.*)narrow", r"(.*)petite", r"(.*)inch", r"(.*)plus", r"(.*)mm",
           r"women(.*)", r"(.*)x(.*)", r"(.*)ft", r"(.*)feet", r"(.*)meter", r"(.*)yards", r"(.*)\*(.*)",
           r"(.*)\-(.*)", r'(\d+)"$', r"(\d+)f$", r"(\d+)m$", r"(\d+)cm$", r"(\d+)g$"]
#: In the order they are tried; a size maps to the first pattern that matches (its ``.pattern``).
SIZE_PATTERNS = [re.compile(s) for s in [*SIZE_SET, *_SHAPES]]


def _size_class(size: str) -> str:
    for pattern in SIZE_PATTERNS:
        if pattern.search(size) is not None:
            return pattern.pattern
    return "numeric_size" if size.replace(".", "", 1).isdigit() else "not_matched"


def normalize_color_size(product_prices: Mapping[tuple[Any, str, str], Any]) -> tuple[dict[str, str], dict[str, str]]:
    """``({color: colour word | 'not_matched'}, {size: pattern | 'numeric_size' | 'not_matched'})``.

    Keys are lower-cased; both maps also hold ``'N.A.' -> 'not_matched'``.
    """
    colors = {color.lower() for (_, color, _), _ in product_prices.items()}
    sizes = {size.lower() for (_, _, size), _ in product_prices.items()}
    color_mapping = {"N.A.": "not_matched"}
    for c in colors:
        color_mapping[c] = next((base for base in COLOR_SET if base in c), "not_matched")
    size_mapping = {"N.A.": "not_matched"}
    for s in sizes:
        size_mapping[s] = _size_class(s)
    return color_mapping, size_mapping
