"""Budgets and selected-SKU prices: what a v8 purchase costs and what the shopper can pay.

The budget comes from the task (``price_upper``) or its text, never from the gold product's price.
The price is the chosen SKU's, not the listed range: a range says nothing about what one
configuration costs, so anything we cannot resolve is reported unverifiable (fail closed).
"""

from __future__ import annotations

from dataclasses import dataclass

from shopsim.budget import parse_budget
from shopsim.simsite.v8.records import V8Product, V8Task

__all__ = ["Budget", "PriceResolution", "resolve_price", "task_budget"]


@dataclass(frozen=True)
class Budget:
    """A declared budget and where it came from.

    ``source`` is ``annotation`` (``price_upper`` written by ``shopsim data annotate-budgets``),
    ``price_upper`` (any other valid ``price_upper``), ``regex`` (read from ``field``) or
    ``unparseable`` (``field`` states a budget whose amount cannot be read: ``limit`` is None and
    ``r_price`` fails closed, as for an unverifiable price).
    """

    limit: float | None
    source: str
    approximate: bool = False
    field: str | None = None
    phrase: str | None = None


def task_budget(task: V8Task) -> Budget | None:
    """``price_upper`` when valid, else parsed from ``instruction_simple``, else from ``instruction``.

    A budget phrase whose amount cannot be read is kept when neither text gives a number: the
    budget is declared, so "no budget" would score it as met.
    """
    if task.price_upper is not None:
        return Budget(task.price_upper, task.price_upper_source)
    unreadable: Budget | None = None
    for field, text in (("instruction_simple", task.instruction_simple), ("instruction", task.instruction)):
        found = parse_budget(text)
        if found is not None and found.parsed:
            return Budget(found.limit, "regex", found.approximate, field, found.phrase)
        if found is not None and unreadable is None:
            unreadable = Budget(None, "unparseable", False, field, found.phrase)
    return unreadable


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
