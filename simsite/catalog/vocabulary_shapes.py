"""The record shapes of the synthetic catalog's word lists, and the helpers that build them.

Kept apart from the tables so that each table module (option pools, product types, category
text) and the :mod:`vocabulary` facade can share them without importing one another.
"""

from __future__ import annotations

from typing import NamedTuple

SEP = " › "
"""Separator of ``product_category`` levels, as on Amazon and in WebShop's data."""

CATEGORIES: tuple[str, ...] = ("beauty", "grocery", "fashion", "garden", "electronics")


class OptionPool(NamedTuple):
    """Values one option axis can take; ``ordered`` pools are sliced, not sampled."""

    axis: str
    values: tuple[str, ...]
    ordered: bool
    images: bool


class ProductType(NamedTuple):
    """One product type: a WebShop ``query`` with its category path and word lists."""

    category: str
    query: str
    path: str
    leaves: tuple[str, ...]
    nouns: tuple[str, ...]
    one: str
    many: str
    adj: tuple[str, ...]
    for_: tuple[str, ...]
    with_: tuple[str, ...]
    axes: tuple[str, ...]
    price: tuple[float, float]
    sizes: tuple[str, ...]


class CategoryText(NamedTuple):
    """Category-wide text pieces shared by all of its product types."""

    weight: float
    option_rate: float
    colors: tuple[str, ...]
    extras: tuple[str, ...]
    benefits: tuple[str, ...]
    bullets: tuple[str, ...]
    sentences: tuple[str, ...]
    good: tuple[str, ...]
    bad: tuple[str, ...]


def split(text: str) -> tuple[str, ...]:
    """The non-empty ``|``-separated parts of ``text``, in order: the tables are written compactly."""
    return tuple(s for s in text.split("|") if s)
