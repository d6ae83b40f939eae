"""Goals: WebShop's synthetic and human goal generators, seeded; explicit goal files; splits.

WebShop draws prices and price limits from Python's global ``random`` and never seeds it. We draw
them from one ``random.Random(seed)`` in exactly WebShop's order (product prices first, then one
``sample`` per goal product), so ``seed=0`` reproduces a WebShop run that called ``random.seed(0)``
right before building its env.
"""

from __future__ import annotations

import itertools
import math
import random
from collections import defaultdict
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from shopsim.errors import ConfigError, DataError, first_problem
from shopsim.page import trusted
from shopsim.simsite.datafiles import iter_jsonl, load_json, one_line, short_repr
from shopsim.simsite.models import Goal, Product
from shopsim.simsite.records import parse_number

__all__ = [
    "GOAL_SHUFFLE_SEED",
    "NO_PRICE_LIMIT",
    "PRICE_RANGE",
    "SPLITS",
    "generate_prices",
    "goal_dict",
    "goal_weight",
    "human_goal",
    "human_goals",
    "load_goal_file",
    "load_price_file",
    "option_combo",
    "option_combo_count",
    "parse_goal_spec",
    "price_limit",
    "price_text",
    "shuffle_goals",
    "synthetic_goal",
    "synthetic_goals",
]

PRICE_RANGE = [10.0 * i for i in range(1, 100)]
GOAL_SHUFFLE_SEED = 233
NO_PRICE_LIMIT = 1000000.0
#: WebShop's splits by goal index: test 0-499, eval 500-1499, train 1500+.
SPLITS: dict[str, tuple[int, int | None]] = {"test": (0, 500), "eval": (500, 1500), "train": (1500, None)}


def generate_prices(products: Sequence[Product], rng: random.Random) -> dict[str, float]:
    """One price per product: its single price, or a uniform draw inside its range."""
    prices: dict[str, float] = {}
    for p in products:
        prices[p.asin] = p.pricing[0] if len(p.pricing) == 1 else rng.uniform(*p.pricing[:2])
    return prices


def price_text(upper: float) -> str:
    """The instruction's price clause for a limit (none for :data:`NO_PRICE_LIMIT`)."""
    return "" if upper == NO_PRICE_LIMIT else f", and price lower than {upper:.2f} dollars"


def price_limit(price: float, rng: random.Random) -> tuple[float, str]:
    """Two of the first four multiples of 10 above the price, keep the larger; none when < 2 exist."""
    candidates = [p for p in PRICE_RANGE if p > price][:4]
    if len(candidates) < 2:
        return NO_PRICE_LIMIT, ""
    _, upper = sorted(rng.sample(candidates, 2))
    return upper, price_text(upper)


def option_combo_count(p: Product) -> int:
    """How many synthetic goals the product makes: one per combination of its option values."""
    return math.prod(len(values) for values in p.options.values())


def option_combo(p: Product, index: int) -> dict[str, str]:
    """Combination ``index`` in ``itertools.product`` order over the sorted option names."""
    names = sorted(p.options)
    values: list[str] = []
    for name in reversed(names):
        index, digit = divmod(index, len(p.options[name]))
        values.append(p.options[name][digit])
    return dict(zip(names, reversed(values), strict=True))


def goal_weight(attrs: list[str], counts: dict[str, int]) -> float:
    """A synthetic goal's draw weight: its attributes' mean inverse frequency over all goals."""
    return sum(1.0 / counts[a] for a in attrs) / len(attrs)


def _goal(p: Product, instruction: str, attributes: list[str], upper: float,
          goal_options: dict[str, str] | list[str], weight: float) -> Goal:
    """A goal for product ``p``: what both kinds of goal take from the product itself."""
    return Goal(asin=p.asin, category=p.category, query=p.query, name=p.title,
                product_category=p.product_category, instruction_text=instruction, attributes=attributes,
                price_upper=upper, goal_options=goal_options, weight=weight)


def synthetic_goal(p: Product, goal_options: dict[str, str], upper: float, weight: float) -> Goal:
    """One synthetic goal: the product's instruction, its option values and the price clause.

    Built without validating (:func:`~shopsim.page.trusted`): a catalog makes thousands of these
    on every open, and each value is a validated product's string, a fresh dict of its option
    strings or a float made here; ``tests/simsite/test_goals.py`` validates every one again.
    """
    option_text = ", and ".join(f"{k}: {v}" for k, v in goal_options.items())
    option_text = " with " + option_text if option_text else ""
    return trusted(Goal, asin=p.asin, category=p.category, query=p.query, name=p.title,
                   product_category=p.product_category,
                   instruction_text=f"{p.instruction_text}{option_text}{price_text(upper)}",
                   attributes=list(p.instruction_attributes or []), price_upper=float(upper),
                   goal_options=goal_options, weight=float(weight))


def synthetic_goals(products: Sequence[Product], prices: Mapping[str, float], rng: random.Random) -> list[Goal]:
    """WebShop's synthetic goals: one per combination of a product's option values."""
    drawn: list[tuple[Product, float]] = []
    counts: dict[str, int] = defaultdict(int)
    for p in products:
        if p.instruction_text is None:
            continue
        attrs = p.instruction_attributes or []
        if not attrs:
            raise DataError(f"product {p.asin}: has an instruction but no instruction_attributes")
        upper, _ = price_limit(prices[p.asin], rng)
        drawn.append((p, upper))
        n = option_combo_count(p)
        for a in attrs:
            counts[a] += n
    goals: list[Goal] = []
    for p, upper in drawn:
        if not option_combo_count(p):
            continue  # an option axis without values: no combinations, no goals (and no weight to draw)
        weight = goal_weight(p.instruction_attributes or [], counts)
        names = sorted(p.options)
        for combo in itertools.product(*(p.options[n] for n in names)):
            goals.append(synthetic_goal(p, dict(zip(names, combo, strict=True)), upper, weight))
    return goals


def human_goal(p: Product, rec: dict, upper: float) -> Goal:
    """One human goal from a product's human-written instruction record."""
    return _goal(p, str(rec.get("instruction", "")).strip(".") + price_text(upper),
                 rec.get("instruction_attributes") or [], upper, list(rec.get("instruction_options") or []), 1.0)


def human_goals(products: Sequence[Product], prices: Mapping[str, float], rng: random.Random) -> list[Goal]:
    """WebShop's human goals: one per human-written instruction with non-empty attributes."""
    goals: list[Goal] = []
    for p in products:
        for rec in p.human_instructions:
            if not rec.get("instruction_attributes"):
                continue
            upper, _ = price_limit(prices[p.asin], rng)
            goals.append(human_goal(p, rec, upper))
    return goals


def shuffle_goals(goals: list[Goal]) -> list[Goal]:
    """WebShop's fixed shuffle (``random.seed(233); random.shuffle(goals)``), without global state."""
    out = list(goals)
    random.Random(GOAL_SHUFFLE_SEED).shuffle(out)
    return out


def load_goal_file(path: str | Path) -> list[Goal]:
    """Load an explicit goal list from JSONL (fields as in WebShop's goal dicts), in file order.

    Fields are validated strictly (no ``"30"`` or ``true`` for a number, no number for a string),
    and ``price_upper`` and ``weight`` must be finite and not negative: a goal file is written by
    a program, so a loose value is a bug to report, not to coerce.
    """
    goals = []
    for n, rec in iter_jsonl(Path(path)):
        rec = {k: v for k, v in rec.items() if k in Goal.model_fields}
        try:
            goal = Goal.model_validate(rec, strict=True)
        except ValidationError as exc:
            where, msg = first_problem(exc)
            raise DataError(f"{path}: line {n}: field '{one_line(where)}': {msg}") from exc
        for field in ("price_upper", "weight"):
            value = getattr(goal, field)
            if not math.isfinite(value) or value < 0:
                raise DataError(f"{path}: line {n}: field '{field}': {value!r} is not a finite non-negative number")
        goals.append(goal)
    if not goals:
        raise DataError(f"{path}: no goals in this file (expected one JSON object per line)")
    return goals


def load_price_file(path: str | Path) -> dict[str, float]:
    """Load ``{asin: price}`` (the prices a run assigned), e.g. ``product_prices_seed0.json``.

    A price may be a number or a numeric string; it must be finite and not negative.
    """
    data = load_json(Path(path))
    if not isinstance(data, dict):
        raise DataError(f"{path}: expected an object mapping ASIN to price, got {type(data).__name__}")
    return {asin: parse_number(raw, f"{path}: record {short_repr(asin)}", "price", price=True)
            for asin, raw in data.items()}


def parse_goal_spec(spec: str, n_goals: int) -> list[int]:
    """``'0:500'``, ``'7'``, ``'1,5,9'``, ``'test'``/``'eval'``/``'train'`` -> goal indices (clipped)."""
    spec = spec.strip()
    if spec in SPLITS:
        lo, hi = SPLITS[spec]
        return list(range(lo, min(hi if hi is not None else n_goals, n_goals)))
    out: list[int] = []
    try:
        for part in spec.split(","):
            if ":" in part:
                a, b = part.split(":", 1)
                lo = int(a) if a.strip() else 0
                hi = int(b) if b.strip() else n_goals
                out.extend(range(lo, min(hi, n_goals)))
            else:
                out.append(int(part))
    except ValueError as exc:
        raise ConfigError(f"bad goal spec {spec!r}: use 'A:B', 'N', 'A,B,C' or test/eval/train") from exc
    bad = [i for i in out if not 0 <= i < n_goals]
    if bad:
        raise ConfigError(f"goal index {bad[0]} out of range: there are {n_goals} goals (0..{n_goals - 1})")
    return out


def goal_dict(goal: Goal) -> dict[str, Any]:
    """A goal in WebShop's dict shape and key order, as ``SimServer.goals`` and its session logs hold it
    (``price_upper`` is the int 1000000 when there is no limit).
    """
    options = dict(goal.goal_options) if isinstance(goal.goal_options, dict) else list(goal.goal_options)
    human = isinstance(goal.goal_options, list)
    return {
        "asin": goal.asin,
        "category": goal.category,
        "query": goal.query,
        "name": goal.name,
        "product_category": goal.product_category,
        "instruction_text": goal.instruction_text,
        "attributes": list(goal.attributes),
        "price_upper": int(goal.price_upper) if goal.price_upper == NO_PRICE_LIMIT else goal.price_upper,
        "goal_options": options,
        "weight": 1 if human and goal.weight == 1.0 else goal.weight,
    }
