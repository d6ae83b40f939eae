"""WebShop's reward (``get_reward``) plus ShopSimulator's strict and success scores.

r_loose (the paper's total) = r_type x (attribute hits + option hits + price ok) / (|att| + |opt| + 1).
r_strict = r_type x r_att x r_option x r_price (a missing component counts as 1).
r_success = 1 when all four components are 1.
Fixed here: a goal without a price limit no longer crashes (WebShop adds ``None``); its price term
counts as met, and the breakdown says ``price_limited: False``.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from pydantic import BaseModel, ConfigDict

from shopsim.page import trusted
from shopsim.simsite.fuzzy import option_ratio, token_set_above
from shopsim.simsite.models import Goal, Product
from shopsim.simsite.nouns import NounExtractor, default_extractor

__all__ = [
    "COLOR_WORDS", "RewardBreakdown", "attribute_hits", "combine", "lowered_attribute_hits", "lowered_texts", "normalize_color",
    "option_hits", "score_purchase", "type_match",
]

# Colour words an option value is reduced to before matching (first one contained wins).
COLOR_WORDS = ["alabaster", "apricot", "aqua", "ash", "asphalt", "azure", "banana", "beige", "black", "blue", "blush", "bordeaux", "bronze", "brown", "burgundy", "camel", "camo", "caramel", "champagne", "charcoal", "cheetah", "chestnut", "chocolate", "christmas", "coffee", "cognac", "copper", "coral", "cranberry", "cream", "crystal", "dark", "denim", "eggplant", "elephant", "espresso", "fuchsia", "gold", "granite", "grape", "graphite", "grass", "gray", "green", "grey", "heather", "indigo", "ivory", "ivy", "khaki", "lavender", "lemon", "leopard", "light", "lilac", "lime", "magenta", "maroon", "mauve", "merlot", "midnight", "mint", "mocha", "multicolor", "mushroom", "mustard", "natural", "navy", "nude", "olive", "orange", "peach", "pewter", "pink", "plum", "purple", "rainbow", "red", "rose", "royal", "rust", "sand", "sapphire", "seashell", "silver", "skull", "slate", "steel", "stone", "stonewash", "sunflower", "tan", "taupe", "teal", "tiger", "turquoise", "violet", "walnut", "wheat", "white", "wine", "yellow"]


@lru_cache(maxsize=65_536)
def normalize_color(value: str) -> str:
    """Reduce an option value to the first colour word it contains, else leave it (remembered: a purchase
    normalises each chosen value, and scanning the hundred colour words cost more than the rest of the option test).
    """
    for color in COLOR_WORDS:
        if color in value:
            return color
    return value


class RewardBreakdown(BaseModel):
    """Everything ``get_reward(verbose=True)`` reports, plus r_loose / r_strict / r_success."""

    model_config = ConfigDict(frozen=True)

    reward: float
    r_loose: float
    r_strict: float
    r_success: float
    r_type: float
    r_att: float
    w_att: float
    query_match: bool
    category_match: bool
    title_score: float
    r_option: float | None
    w_option: float | None
    r_price: bool | None
    w_price: float | None
    price_limited: bool
    noun_source: str
    purchased_asin: str
    target_asin_match: bool

    def webshop_info(self) -> dict[str, Any]:
        """The breakdown with WebShop's keys only (``r_option``/``r_price`` omitted when None)."""
        keys = ["r_type", "r_att", "w_att", "query_match", "category_match", "title_score"]
        info = {k: getattr(self, k) for k in keys}
        if self.r_option is not None:
            info["r_option"], info["w_option"] = self.r_option, self.w_option
        if self.r_price is not None:
            info["r_price"], info["w_price"] = self.r_price, self.w_price
        return info


def type_match(
    bought: tuple[str, str, str], wanted: tuple[str, str, str], nouns: NounExtractor
) -> tuple[float, bool, bool, float]:
    """WebShop's type reward from ``(query, product_category, title)`` of the bought product and
    ``(query, product_category, name)`` of the goal: ``(r_type, query_match, category_match, title_score)``.

    Plain values, so WebShop's dict API (``web_agent_site.engine.goal``) shares this one rule.
    """
    query_match = bought[0] == wanted[0]
    category_match = len({x.strip() for x in bought[1].split("›")} & {x.strip() for x in wanted[1].split("›")}) >= 2
    bought_nouns = set(nouns.nouns(bought[2]))
    wanted_nouns = nouns.nouns(wanted[2])
    title_score = 0.2 if not wanted_nouns else len(bought_nouns & set(wanted_nouns)) / len(wanted_nouns)
    r_type = 1.0
    if not (query_match or category_match or title_score > 0.2):
        r_type = 0.5
    if title_score < 0.1:
        r_type = 0.1
    if title_score == 0.0:
        r_type = 0.0
    return r_type, query_match, category_match, title_score


def _type_reward(product: Product, goal: Goal, nouns: NounExtractor) -> tuple[float, bool, bool, float]:
    return type_match((product.query, product.product_category, product.title),
                      (goal.query, goal.product_category, goal.name), nouns)


def attribute_hits(goal_attrs: list[str], product_attrs: list[str], texts: tuple[str, list[str], str]) -> int:
    """Goal attributes the product has: a fuzzy match (> 85) of one of its attributes, or the
    attribute written in its ``texts`` (title, bullet points, description).
    """
    return lowered_attribute_hits(goal_attrs, product_attrs, lowered_texts(texts))


def lowered_texts(texts: tuple[str, list[str], str]) -> tuple[str, str, str]:
    """``(title, bullet points, description)`` as :func:`attribute_hits` searches them: lower-cased, bullets
    joined by spaces (a session keeps them per product: lower-casing a description is most of a purchase's cost).
    """
    return texts[0].lower(), " ".join(texts[1]).lower(), texts[2].lower()


def lowered_attribute_hits(goal_attrs: list[str], product_attrs: list[str], lowered: tuple[str, str, str]) -> int:
    """:func:`attribute_hits` over texts :func:`lowered_texts` has prepared."""
    title, bullets, description = lowered
    hits = 0
    for g_attr in goal_attrs:  # the substring tests first: they decide most attributes, for a fraction of the cost
        if (g_attr in title or g_attr in bullets or g_attr in description
                or any(token_set_above(p_attr, g_attr, 85) for p_attr in product_attrs)):
            hits += 1
    return hits


def option_hits(goal_values: list[str], chosen: dict[str, str] | list[str]) -> int:
    """Chosen values (colour-normalised) that match a goal value (as written); see ``option_ratio``."""
    hits = 0
    for value in chosen.values() if isinstance(chosen, dict) else chosen:
        value = normalize_color(value)
        if any(option_ratio(value, g) > 85 for g in goal_values):
            hits += 1
    return hits


def score_purchase(
    product: Product,
    goal: Goal,
    price: float,
    options: dict[str, str],
    nouns: NounExtractor | None = None,
    lowered: tuple[str, str, str] | None = None,
) -> RewardBreakdown:
    """Score buying ``product`` at ``price`` with ``options`` chosen, against ``goal`` (``lowered``: the
    product's :func:`lowered_texts`, when the caller keeps them).
    """
    nouns = nouns or default_extractor()
    if lowered is None:
        lowered = lowered_texts((product.title, product.bullet_points, product.description))
    return combine(
        _type_reward(product, goal, nouns),
        lowered_attribute_hits(goal.attributes, product.attributes, lowered),
        option_hits(goal.option_values, options),
        (len(goal.attributes), len(goal.goal_options)),
        price_ok=(price <= goal.price_upper) if goal.price_upper > 0 else None,
        noun_source=nouns.source,
        asins=(product.asin, goal.asin),
    )


def combine(
    type_parts: tuple[float, bool, bool, float],
    att_hits: int,
    opt_hits: int,
    sizes: tuple[int, int],
    *,
    price_ok: bool | None,
    noun_source: str,
    asins: tuple[str, str],
) -> RewardBreakdown:
    """The breakdown from its parts: :func:`type_match`'s four values, the attribute and option hits,
    the goal's ``(attribute count, option count)``, whether the price is within the limit (None: no limit).
    """
    r_type, query_match, category_match, title_score = type_parts
    n_att, n_opt = sizes
    denom = n_att + n_opt + 1
    r_att = att_hits / n_att if n_att else 1.0
    r_option = opt_hits / n_opt if n_opt else None
    r_loose = (att_hits + opt_hits + (1 if price_ok is None else int(price_ok))) / denom * r_type
    comps = [r_type, r_att, 1.0 if r_option is None else min(r_option, 1.0), 1.0 if price_ok in (None, True) else 0.0]
    # every value is already the exact type its field holds (the coercions below make sure of it), so the
    # breakdown is built without validation: one purchase used to validate 18 fields (tests/simsite/test_reward.py)
    return trusted(
        RewardBreakdown,
        reward=r_loose,
        r_loose=r_loose,
        r_strict=float(comps[0] * comps[1] * comps[2] * comps[3]),
        r_success=1.0 if all(c == 1.0 for c in comps) else 0.0,
        r_type=float(r_type),
        r_att=float(r_att),
        w_att=n_att / denom,
        query_match=bool(query_match),
        category_match=bool(category_match),
        title_score=float(title_score),
        r_option=None if r_option is None else float(r_option),
        w_option=n_opt / denom if r_option is not None else None,
        r_price=None if price_ok is None else bool(price_ok),
        w_price=1 / denom if price_ok is not None else None,
        price_limited=price_ok is not None,
        noun_source=str(noun_source),
        purchased_asin=str(asins[0]),
        target_asin_match=asins[0] == asins[1],
    )
