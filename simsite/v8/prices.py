"""Budgets and selected-SKU prices: what a v8 purchase costs and what the shopper can pay.

The budget comes from the task (``price_upper``) or its text, never from the gold product's price.
The price is the chosen SKU's, not the listed range: a range says nothing about what one
configuration costs, so anything we cannot resolve is reported unverifiable (fail closed).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from shopsim.simsite.v8.records import V8Product, V8Task

__all__ = ["APPROX_FACTOR", "Budget", "PriceResolution", "parse_budget", "resolve_price", "task_budget"]

APPROX_FACTOR = 1.10
"""An approximate budget ("1000元左右", "about 50 dollars") allows this much more."""

_NUM = r"\d+(?:,\d{3})*(?:\.\d+)?"
_UNIT = r"(?:元|块钱|块|rmb|yuan|dollars?|usd|bucks|美元|人民币)"
_CUR = r"[$¥￥]"
_APPROX_AFTER = re.compile(r"^\s*(?:" + _UNIT + r")?\s*(?:左右|上下|以内左右)")
_APPROX_BEFORE = re.compile(r"(?:大约|大概|约|差不多|about|around|approximately|roughly|circa|approx\.?)\s*" + _CUR + r"?\s*$")
_RANGE = re.compile(
    r"(?:(?:价格|预算|价位|price[ds]?|budget|between|from|在)\s*\S{0,4}?\s*)?" + _CUR + r"?\s*(" + _NUM + r")\s*"
    + _UNIT + r"?\s*(?:到|至|-|~|～|—|–|to|and)\s*" + _CUR + r"?\s*(" + _NUM + r")\s*(" + _UNIT + r")?",
    re.IGNORECASE,
)
_SINGLE = re.compile(r"(" + _CUR + r")\s*(" + _NUM + r")|(" + _NUM + r")\s*(" + _UNIT + r")", re.IGNORECASE)
_CUE = re.compile(r"价格|预算|价位|元|price|budget|yuan|dollar|\$|¥|￥|under|below|less than|at most|up to", re.IGNORECASE)


@dataclass(frozen=True)
class Budget:
    """A budget upper bound and where it came from (``price_upper``, ``instruction_simple``, ...)."""

    limit: float
    source: str
    approximate: bool = False


def _num(text: str) -> float:
    return float(text.replace(",", ""))


def parse_budget(text: str) -> tuple[float, bool] | None:
    """The budget a text states: ``(upper bound, approximate?)``, or ``None`` when it states none.

    A range gives its upper end; an approximate amount (左右, 上下, 大约, about, around,
    approximately) is multiplied by :data:`APPROX_FACTOR`. Only numbers tied to a currency or a
    price word count, so "2-3 people" or "QC45" are never budgets.
    """
    if not text:
        return None
    s = unicodedata.normalize("NFKC", text)
    for m in _RANGE.finditer(s):
        has_cue = bool(m.group(3)) or bool(_CUE.search(s[max(0, m.start() - 8) : m.end()]))
        low, high = _num(m.group(1)), _num(m.group(2))
        if has_cue and high >= low:
            return _approx(s, m.start(), m.end(), high)
    for m in _SINGLE.finditer(s):
        value = _num(m.group(2) or m.group(3))
        return _approx(s, m.start(), m.end(), value)
    return None


def _approx(s: str, start: int, end: int, value: float) -> tuple[float, bool]:
    approx = bool(_APPROX_AFTER.match(s[end : end + 8]) or _APPROX_BEFORE.search(s[max(0, start - 14) : start]))
    return (round(value * APPROX_FACTOR, 6) if approx else value), approx


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
