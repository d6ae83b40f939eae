"""``token_set_above`` answers ``token_set_ratio(a, b) > t`` exactly, using difflib's upper bounds first.

Checked on arbitrary strings (hypothesis) at every threshold that matters, and on the bundled catalog's
product attributes against its goals' attributes (the pairs the reward asks about).
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from shopsim.simsite.fuzzy import token_set_above, token_set_ratio
from shopsim.simsite.shop import Shop

WORDS = st.text(alphabet="abcdeéx -1", max_size=24)


@settings(max_examples=400, deadline=None, derandomize=True)
@given(WORDS, WORDS, st.integers(min_value=-1, max_value=100))
def test_above_is_the_ratio_compared(a: str, b: str, threshold: int) -> None:
    assert token_set_above(a, b, threshold) == (token_set_ratio(a, b) > threshold)


def test_above_agrees_on_the_catalogs_attribute_pairs(bundled_shop: Shop) -> None:
    wanted = sorted({a for g in bundled_shop.goals for a in g.attributes})[:60]
    have = sorted({a for p in bundled_shop.product_list for a in p.attributes})[:60]
    pairs = [(p, g) for p in have for g in wanted]
    assert len(pairs) >= 100
    for threshold in (50, 85):
        assert [token_set_above(p, g, threshold) for p, g in pairs] == \
            [token_set_ratio(p, g) > threshold for p, g in pairs]
