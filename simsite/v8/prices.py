"""Budgets and selected-SKU prices: what a v8 purchase costs and what the shopper can pay.

The budget comes from the task (``price_upper``) or its text, never from the gold product's price.
The price is the chosen SKU's, not the listed range: a range says nothing about what one
configuration costs, so anything we cannot resolve is reported unverifiable (fail closed).
"""

from __future__ import annotations

from dataclasses import dataclass

from shopsim.simsite.v8.records import V8Product, V8Task
from shopsim.text import parse_budget

__all__ = ["Budget", "PriceResolution", "resolve_price", "task_budget"]


@dataclass(frozen=True)
class Budget:
    """A budget upper bound and where it came from (``price_upper``, ``instruction_simple``, ...)."""

    limit: float
    source: str
    approximate: bool = False


def task_budget(task: V8Task) -> Budget | None:
    """``price_upper`` when valid, else parsed from ``instruction_simple``, else from ``instruction``."""
    if task.price_upper is not None:
        return Budget(task.price_upper, "price_upper")
    for source, text in (("instruction_simple", task.instruction_simple), ("instruction", task.instruction)):
        if text and (found := parse_budget(text)) is not None:
            return Budget(found[0], source, found[1])
    return None


@dataclass(frozen=True)
class PriceResolution:
    """The chosen configuration's price; ``price`` is ``None`` while (or when) it cannot be known."""

    price: float | None
    verifiable: bool
    reason: str


def resolve_price(product: V8Product, selected: dict[str, str]) -> PriceResolution:
    """The selected SKU's price under the contract's rules.

    No price-changing axis: the one option price or the one listed price (a listed range with no
    option prices is unverifiable). One price-changing axis: the price of the value chosen on it.
    Two or more: unverifiable (no SKU price table can be recovered).
    """
    axes = product.price_axes
    if len(axes) >= 2:
        return PriceResolution(None, False, f"{len(axes)} price-changing axes ({', '.join(axes)})")
    if len(axes) == 1:
        axis = axes[0]
        chosen = selected.get(axis)
        if chosen is None:
            return PriceResolution(None, False, f"choose {axis} to fix the price")
        for o in product.options[axis]:
            if o.value == chosen:
                if o.price is None:
                    return PriceResolution(None, False, f"{axis}={chosen} has no recorded price")
                return PriceResolution(o.price, True, f"price of {axis}={chosen}")
        return PriceResolution(None, False, f"{chosen!r} is not a value of {axis}")
    option_prices = {o.price for opts in product.options.values() for o in opts if o.price is not None}
    if len(option_prices) == 1:
        return PriceResolution(option_prices.pop(), True, "the one option price")
    listed = set(product.pricing)
    if len(listed) == 1:
        return PriceResolution(listed.pop(), True, "the one listed price")
    if not listed:
        return PriceResolution(None, False, "no price is listed")
    return PriceResolution(None, False, "a listed price range with no option prices")
