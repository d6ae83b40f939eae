"""WebShop's ``web_agent_site.engine.goal``: goals and rewards over WebShop's product and goal dicts.

The rules are shopsim's (:mod:`shopsim.simsite.reward`, :mod:`shopsim.simsite.goals`), checked against
WebShop's recorded rewards and goals; this module only converts the dicts. Draws use the global
``random``, as WebShop's do, so ``random.seed(n)`` before ``get_goals`` gives WebShop's goals.
A goal without a price limit (``price_upper`` 1000000 or below 0) scores its price term as met
where WebShop would fail adding ``None``.
"""

from __future__ import annotations

import math
import random
from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

from shopsim.simsite import goals as sim_goals
from shopsim.simsite.goals import PRICE_RANGE, goal_dict
from shopsim.simsite.models import Goal, Product
from shopsim.simsite.nouns import default_extractor
from shopsim.simsite.reward import attribute_hits, combine, option_hits, type_match

__all__ = [
    "EXACT_MATCH_OPTS",
    "PRICE_RANGE",
    "get_attribute_reward",
    "get_goals",
    "get_human_goals",
    "get_option_reward",
    "get_reward",
    "get_synthetic_goals",
    "get_type_reward",
    "to_goal",
    "to_product",
]

#: Option axes WebShop matches exactly (kept for its callers; shopsim's option rule decides per value).
EXACT_MATCH_OPTS = ["size"]


def to_product(d: Mapping[str, Any]) -> Product:
    """A product dict (``load_products``' shape, or the few keys a reward reads) as shopsim's Product."""
    return Product(
        asin=str(d.get("asin", "")),
        title=d.get("Title", d.get("name", "")) or "",
        description=d.get("Description", d.get("full_description", "")) or "",
        bullet_points=list(d.get("BulletPoints", []) or []),
        pricing=list(d.get("pricing") or [100.0]),
        price_text=d.get("Price", ""),
        options={k: list(v) for k, v in (d.get("options") or {}).items()},
        option_to_image=dict(d.get("option_to_image") or {}),
        attributes=list(d.get("Attributes", []) or []),
        category=d.get("category", "") or "",
        query=d.get("query", "") or "",
        product_category=d.get("product_category", "") or "",
        main_image=d.get("MainImage", "") or "",
        rating=str(d.get("Rating", "N.A.")),
        instruction_text=d.get("instruction_text"),
        instruction_attributes=d.get("instruction_attributes"),
        human_instructions=list(d.get("instructions", []) or []),
    )


def to_goal(d: Mapping[str, Any]) -> Goal:
    """A goal dict (``get_goals``' shape, or the keys a reward reads) as shopsim's Goal."""
    options = d.get("goal_options", {})
    return Goal(
        asin=str(d.get("asin", "")),
        category=d.get("category", "") or "",
        query=d.get("query", "") or "",
        name=d.get("name", "") or "",
        product_category=d.get("product_category", "") or "",
        instruction_text=d.get("instruction_text", "") or "",
        attributes=list(d.get("attributes", [])),
        price_upper=float(d.get("price_upper", sim_goals.NO_PRICE_LIMIT)),
        goal_options=dict(options) if isinstance(options, Mapping) else list(options),
        weight=float(d.get("weight", 1.0)),
    )


def get_goals(all_products: Sequence[Mapping[str, Any]], product_prices: Mapping[str, float] | None,
              human_goals: bool = True) -> list[dict[str, Any]]:
    """Human goals (WebShop's default) or synthetic ones, unshuffled (``SimServer`` shuffles them)."""
    if human_goals:
        return get_human_goals(all_products, product_prices)
    return get_synthetic_goals(all_products, product_prices)


def _goal_dicts(make: Any, all_products: Sequence[Mapping[str, Any]],
                product_prices: Mapping[str, float] | None) -> list[dict[str, Any]]:
    products = [to_product(p) for p in all_products]
    # No prices (WebShop's None): no price limit and no draw, which an infinite price gives exactly.
    prices = product_prices if product_prices is not None else defaultdict(lambda: math.inf)
    return [goal_dict(g) for g in make(products, prices, random)]


def get_human_goals(all_products: Sequence[Mapping[str, Any]],
                    product_prices: Mapping[str, float] | None) -> list[dict[str, Any]]:
    """One goal per written instruction with attributes (``instructions`` key of each product)."""
    return _goal_dicts(sim_goals.human_goals, all_products, product_prices)


def get_synthetic_goals(all_products: Sequence[Mapping[str, Any]],
                        product_prices: Mapping[str, float] | None) -> list[dict[str, Any]]:
    """One goal per option combination of each product with an ``instruction_text``, weighted by attribute rarity."""
    return _goal_dicts(sim_goals.synthetic_goals, all_products, product_prices)


def _type_parts(purchased_product: Mapping[str, Any], goal: Mapping[str, Any]) -> tuple[float, bool, bool, float]:
    return type_match((purchased_product["query"], purchased_product["product_category"], purchased_product["name"]),
                      (goal["query"], goal["product_category"], goal["name"]), default_extractor())


def get_type_reward(purchased_product: Mapping[str, Any], goal: Mapping[str, Any]) -> dict[str, Any]:
    """``{r_type, query_match, category_match, title_score}`` from query, category path and the nouns of ``name``."""
    r_type, query_match, category_match, title_score = _type_parts(purchased_product, goal)
    return {"r_type": r_type, "query_match": query_match, "category_match": category_match,
            "title_score": title_score}


def _attribute_hits(purchased_product: Mapping[str, Any], goal: Mapping[str, Any]) -> int:
    bullets = purchased_product.get("BulletPoints", [])
    return attribute_hits(list(goal["attributes"]), list(purchased_product.get("Attributes", [])),
                          (purchased_product.get("Title", ""), list(bullets), purchased_product.get("Description", "")))


def get_attribute_reward(purchased_product: Mapping[str, Any], goal: Mapping[str, Any]) -> tuple[float, int]:
    """``(share of goal attributes matched, count)``: fuzzy against ``Attributes``, else written in
    ``Title``, ``BulletPoints`` or ``Description``."""
    hits = _attribute_hits(purchased_product, goal)
    return hits / len(goal["attributes"]), hits


def get_option_reward(*args: Any) -> tuple[float | None, int]:
    """``(share of goal options matched or None without goal options, count)``.

    Both of WebShop's signatures: ``(purchased_options, goal_options)`` (lists, as its unit tests call
    it) and ``(purchased_product, goal_options, purchased_options)`` (a dict of chosen options).
    """
    if len(args) == 2:
        chosen, goal_options = args
    elif len(args) == 3:
        _, goal_options, chosen = args
    else:
        raise TypeError("get_option_reward(purchased_options, goal_options) or "
                        "get_option_reward(purchased_product, goal_options, purchased_options)")
    hits = option_hits(list(goal_options), dict(chosen) if isinstance(chosen, Mapping) else list(chosen))
    return (hits / len(goal_options) if goal_options else None), hits


def get_reward(purchased_product: Mapping[str, Any], goal: Mapping[str, Any], price: float,
               options: Mapping[str, str], **kwargs: Any) -> float | tuple[float, dict[str, Any]]:
    """The total reward; with ``verbose=True`` also WebShop's breakdown dict."""
    goal_options = goal["goal_options"]
    values = list(goal_options.values()) if isinstance(goal_options, Mapping) else list(goal_options)
    upper = goal["price_upper"]
    breakdown = combine(
        _type_parts(purchased_product, goal),
        _attribute_hits(purchased_product, goal),
        option_hits(values, dict(options)),
        (len(goal["attributes"]), len(goal_options)),
        price_ok=(price <= upper) if upper > 0 else None,
        noun_source=default_extractor().source,
        asins=(str(purchased_product.get("asin", "")), str(goal.get("asin", ""))),
    )
    if kwargs.get("verbose", False):
        return breakdown.reward, breakdown.webshop_info()
    return breakdown.reward
