"""Fuzzy matching with WebShop's semantics (thefuzz 0.19's ``token_set_ratio``).

WebShop scored attributes and options with thefuzz 0.19, whose ratio is difflib's
``SequenceMatcher`` ratio, rounded. Newer thefuzz releases wrap rapidfuzz, whose ratio is an Indel
distance and disagrees near the > 85 threshold; the golden rewards decide which counts, so this
module reproduces 0.19's behaviour exactly, with a cache because goals repeat the same pairs.
"""

from __future__ import annotations

import re
from difflib import SequenceMatcher
from functools import lru_cache

__all__ = ["full_process", "option_ratio", "ratio", "token_set_above", "token_set_ratio"]

_NON_WORD = re.compile(r"(?ui)\W")
_LATIN1_HIGH = {i: None for i in range(128, 256)}


def full_process(s: str) -> str:
    """The preprocessing of thefuzz 0.19: drop chars 128-255, non-word chars to spaces, lower, strip."""
    return _NON_WORD.sub(" ", s.translate(_LATIN1_HIGH)).lower().strip()


def ratio(s1: str, s2: str) -> int:
    """The difflib ratio x 100, rounded half to even like thefuzz 0.19 (equal strings score 100)."""
    if s1 == s2:
        return 100
    if not s1 or not s2:
        return 0
    return round(100 * SequenceMatcher(None, s1, s2).ratio())


def _token_set_pairs(s1: str, s2: str) -> tuple[tuple[str, str], ...]:
    """The three string pairs ``token_set_ratio`` compares (none when a side has no word)."""
    p1, p2 = full_process(s1), full_process(s2)
    if not p1 or not p2:
        return ()
    t1, t2 = set(p1.split()), set(p2.split())
    sect = " ".join(sorted(t1 & t2))
    c12 = (sect + " " + " ".join(sorted(t1 - t2))).strip()
    c21 = (sect + " " + " ".join(sorted(t2 - t1))).strip()
    sect = sect.strip()
    return (sect, c12), (sect, c21), (c12, c21)


@lru_cache(maxsize=200_000)
def token_set_ratio(s1: str, s2: str) -> int:
    """Best ratio among the sorted token intersection and each side's remainder."""
    pairs = _token_set_pairs(s1, s2)
    return max(ratio(a, b) for a, b in pairs) if pairs else 0


def _ratio_above(s1: str, s2: str, threshold: int) -> bool:
    """``ratio(s1, s2) > threshold``; difflib's cheap upper bounds (``real_quick_ratio`` >= ``quick_ratio``
    >= ``ratio``) settle most pairs without the matching blocks, and rounding keeps their order.
    """
    if s1 == s2 or not s1 or not s2:
        return ratio(s1, s2) > threshold
    m = SequenceMatcher(None, s1, s2)
    if round(100 * m.real_quick_ratio()) <= threshold or round(100 * m.quick_ratio()) <= threshold:
        return False
    return round(100 * m.ratio()) > threshold


@lru_cache(maxsize=200_000)
def token_set_above(s1: str, s2: str, threshold: int) -> bool:
    """``token_set_ratio(s1, s2) > threshold``, exactly, for a fraction of the cost where it is far below
    (the reward's attribute test asks only this, of every attribute of a product bought).
    """
    pairs = _token_set_pairs(s1, s2)
    if not pairs:  # a side with no word: the ratio is 0, which a negative threshold is below
        return threshold < 0
    return any(_ratio_above(a, b, threshold) for a, b in pairs)


@lru_cache(maxsize=200_000)
def option_ratio(chosen: str, wanted: str) -> int:
    """How well a chosen option value covers a wanted one, as WebShop's recorded rewards score it.

    The shared tokens against the chosen value's tokens: 'large' covers '3x-large' (100) but
    'x-large' does not cover 'large' (83) nor '3x-large' (83). This asymmetric rule reproduces
    2,971 of the 2,972 option scores in WebShop's golden outputs; the symmetric
    ``token_set_ratio`` reproduces fewer (see tests/simsite/test_golden.py and docs/compatibility.md).
    """
    p1, p2 = full_process(chosen), full_process(wanted)
    if not p1 or not p2:
        return 0
    t1, t2 = set(p1.split()), set(p2.split())
    sect = " ".join(sorted(t1 & t2))
    return ratio(sect, (sect + " " + " ".join(sorted(t1 - t2))).strip())
