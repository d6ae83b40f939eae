"""Deterministic, seeded generator of a ShopSimulator v8 catalog (products with their tasks).

Writes one JSON array of products in ShopSimulator's format (``asin``, ``title``, ``shop_name``,
optional ``brand``/``model``, ``category``, ``pricing``, ``customization_options``, ``attribute``,
``full_description``, ``small_description``, optional ``user_persona``, ``instructions``), about two
thirds Chinese and one third English, with standard and persona tasks. The word lists are
:mod:`vocabulary` (Chinese) and :mod:`vocabulary_en` (English); products are built by
:mod:`v8_products`, task text by :mod:`v8_tasks`, personas by :mod:`v8_personas`; this module
assigns tasks and personas and writes the catalog.

Pricing follows the v8 contract's cases: most products have one price-changing option axis (its
values carry different prices; ``pricing`` is their [min, max]), some add an axis without prices or
with equal prices, some have no options and one listed price, some have options at one price, a few
list a price range with no option prices (unverifiable) and about 3% have two price-changing axes
(excluded at preparation; they never get a task).

Determinism: one ``random.Random(seed)`` stream drawn in product order, no set or hash-order
iteration, ``json.dumps(ensure_ascii=False)`` and gzip with ``mtime=0``. Nothing depends on the
number of products, so a catalog of N products is the first N products of a larger one.

Usage::

    python -m shopsim.simsite.v8.catalog.generator --products 2000 --seed 0 --out FILE.json.gz
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import sys
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from shopsim.simsite.v8.catalog import default_v8_catalog
from shopsim.simsite.v8.catalog.personas import PersonaContext, make_persona
from shopsim.simsite.v8.catalog.products import (
    GROUPS,
    TYPES,
    TYPES_BY_LANG,
    Built,
    State,
    as_number,
    build_product,
    has_digit,
    pick,
    price_axes,
    sample,
)
from shopsim.simsite.v8.catalog.tasks import budget_phrase, task_text

__all__ = ["DEFAULT_PRODUCTS", "catalog_counts", "dumps_v8", "generate_v8", "iter_v8", "main", "write_v8"]

DEFAULT_PRODUCTS = 2000
ZH_SHARE = 2 / 3
TASK_RATE = 0.52
"""Share of task-eligible products that get a task (about one in nine of those get two)."""
TWO_TASK_RATE = 0.06
PERSONA_RATE = 0.45
PERSONA_REUSE = 0.25
"""Chance a persona task reuses an earlier persona (same user) built for the same product type."""
PRODUCT_PERSONA_RATE = 0.15
"""Chance a product's persona tasks share one persona stored on the product instead of on each task."""
TASK_MODES = ("single", "none", "flat")
"""Pricing cases whose products can get tasks (the gold configuration has a verifiable price)."""

Product = dict[str, Any]


# ---------------------------------------------------------------------------- tasks


def _in_stock(entries: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    return [e for e in entries if e.get("availability") not in ("缺货", "Out of Stock")] or list(entries)


def _task(state: State, b: Built, persona: bool) -> tuple[Product, float]:
    """One task on ``b`` and its budget; the budget is at least the chosen configuration's price."""
    rng = state.rng
    options: dict[str, str] = {}
    axes = b.product["customization_options"]
    price = b.listed
    for n, (axis, entries) in enumerate(axes.items()):
        if not all(not has_digit(e["value"]) for e in entries):
            continue
        if (b.mode == "single" and n == 0) or rng.random() < 0.5:
            chosen = pick(rng, _in_stock(entries))
            options[axis] = chosen["value"]
            if b.mode == "single" and n == 0:
                price = chosen["price"]
    assert price is not None
    values = [v.lower() for v in options.values()]
    usable = [c for c in b.candidates if not any(c.lower() in v or v in c.lower() for v in values)] or list(b.candidates)
    k = min(len(usable), (1, 2, 2, 3)[int(rng.random() * 4)])
    in_title = [c for c in b.title_feats if c in usable]
    first = pick(rng, in_title) if in_title else usable[0]
    attrs = [first]
    for c in sample(rng, [c for c in usable if c != first], len(usable)):
        if len(attrs) < k and not any(c.lower() in a.lower() or a.lower() in c.lower() for a in attrs):
            attrs.append(c)
    budget = budget_phrase(rng, price, b.t.lang, b.yuan, persona)
    assert budget.limit >= price, (budget, price)
    text = task_text(rng, b.t, attrs, b.kinds, options, budget.phrase, persona)
    state.task_id += 1 + int(rng.random() * 3)
    task: Product = {
        "task_id": state.task_id, "instruction": text.instruction, "instruction_simple": text.simple,
        "attributes": attrs, "instruction_options": options,
        "price_upper": as_number(budget.limit) if persona else None,
        "task_mode": "persona" if persona else "standard",
    }
    return task, budget.limit


def _persona(state: State, b: Built, task: Product, budget: float) -> dict[str, Any]:
    rng = state.rng
    index = TYPES.index(b.t)
    pool = state.personas.setdefault(index, [])
    if pool and rng.random() < PERSONA_REUSE:
        return pick(rng, pool)
    lang = b.t.lang
    others = [i for i in TYPES_BY_LANG[lang] if i != index]
    other = TYPES[pick(rng, others)]
    nodes = b.product["category"]
    nodes = tuple(nodes.split(" > ")) if isinstance(nodes, str) else tuple(nodes)
    ctx = PersonaContext(
        t=b.t, nodes=nodes, brand=b.brand, task_attrs=tuple(task["attributes"]), features=b.features,
        materials=b.materials, sizes=b.sizes, scene=b.scene, budget=budget, other=other,
        other_brands=tuple(x for x in state.brands[(lang, b.t.group)] if x != b.brand),
        group_tags=GROUPS[lang][b.t.group].tags)
    persona = make_persona(rng, state.user(), ctx)
    pool.append(persona)
    return persona


def _tasks(state: State, b: Built) -> None:
    rng = state.rng
    product = b.product
    u = rng.random()
    n = 0 if b.mode not in TASK_MODES or u >= TASK_RATE else 2 if u < TWO_TASK_RATE else 1
    shared = rng.random() < PRODUCT_PERSONA_RATE
    tasks = []
    for _ in range(n):
        persona = rng.random() < PERSONA_RATE
        task, budget = _task(state, b, persona)
        if persona:
            if not shared:
                task["user_persona"] = _persona(state, b, task, budget)
            elif "user_persona" not in product:
                product["user_persona"] = _persona(state, b, task, budget)
        tasks.append(task)
    product["instructions"] = tasks


# ---------------------------------------------------------------------------- catalog


def iter_v8(n_products: int, seed: int = 0) -> Iterator[Product]:
    """Yield ``n_products`` products with their tasks; a pure function of ``seed`` and the index."""
    if n_products < 0 or seed < 0:
        raise ValueError("n_products and seed must be >= 0")
    state = State(seed)
    for _ in range(n_products):
        b = build_product(state, "zh" if state.rng.random() < ZH_SHARE else "en")
        _tasks(state, b)
        yield b.product


def generate_v8(n_products: int, seed: int = 0) -> list[Product]:
    """The catalog as a list of product dicts in ShopSimulator's format."""
    return list(iter_v8(n_products, seed))


def _encode(product: Product) -> str:
    return json.dumps(product, ensure_ascii=False, separators=(",", ":"))


def dumps_v8(products: Iterable[Product]) -> str:
    """The catalog's JSON text: an array with one product per line."""
    return "[\n" + ",\n".join(_encode(p) for p in products) + "\n]\n"


def write_v8(path: str | os.PathLike[str], n_products: int = DEFAULT_PRODUCTS, seed: int = 0) -> dict[str, Any]:
    """Write the catalog to ``path`` (``.json`` or ``.json.gz``, gzip with ``mtime=0``) and return its counts."""
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".tmp")
    counts = Counter[str]()
    try:
        with open(tmp, "wb") as raw:
            stream = gzip.GzipFile(filename="", mode="wb", fileobj=raw, compresslevel=9, mtime=0) \
                if out.name.endswith(".gz") else raw
            stream.write(b"[\n")
            for n, product in enumerate(iter_v8(n_products, seed)):
                stream.write(((",\n" if n else "") + _encode(product)).encode("utf-8"))
                counts.update(_product_counts(product))
            stream.write(b"\n]\n")
            if stream is not raw:
                stream.close()
        os.replace(tmp, out)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return {**_finish(counts), "seed": seed, "bytes": out.stat().st_size}


def _product_counts(product: Product) -> Counter[str]:
    c = Counter[str]()
    c["products"] += 1
    c["zh" if product["asin"].isdigit() else "en"] += 1
    axes = price_axes(product)
    pricing = product["pricing"]
    has_option_price = any(e.get("price") is not None for v in product["customization_options"].values() for e in v)
    c["two_price_axes"] += len(axes) >= 2
    c["unverifiable_range"] += not axes and not has_option_price and len(pricing) == 2 and pricing[0] != pricing[1]
    c["no_options"] += not product["customization_options"]
    c["product_personas"] += "user_persona" in product
    for task in product["instructions"]:
        c["tasks"] += 1
        c[task["task_mode"]] += 1
        persona = task.get("user_persona") or (product.get("user_persona") if task["task_mode"] == "persona" else None)
        if persona is not None:
            c["user:" + str(persona.get("用户ID") or persona.get("user_id"))] += 1
    return c


def _finish(counts: Counter[str]) -> dict[str, Any]:
    users = {k: v for k, v in counts.items() if k.startswith("user:")}
    keys = ("products", "zh", "en", "tasks", "persona", "standard", "two_price_axes", "unverifiable_range",
            "no_options", "product_personas")
    return {**{k: counts[k] for k in keys}, "persona_users": len(users),
            "reused_persona_users": sum(1 for v in users.values() if v > 1)}


def catalog_counts(products: Iterable[Product]) -> dict[str, Any]:
    """Products, languages, tasks by mode, excluded two-price-axis and unverifiable products, personas."""
    total = Counter[str]()
    for product in products:
        total.update(_product_counts(product))
    return _finish(total)


def main(argv: Sequence[str] | None = None) -> int:
    """CLI entry point: write a catalog and print its counts as JSON."""
    parser = argparse.ArgumentParser(prog="python -m shopsim.simsite.v8.catalog.generator",
                                     description="Generate a seeded ShopSimulator v8 catalog (products and tasks).")
    parser.add_argument("--products", type=int, default=DEFAULT_PRODUCTS, help=f"number of products (default {DEFAULT_PRODUCTS})")
    parser.add_argument("--seed", type=int, default=0, help="random seed, >= 0 (default 0)")
    parser.add_argument("--out", type=Path, default=None,
                        help="output file ending in .json or .json.gz (default: the bundled catalog)")
    args = parser.parse_args(argv)
    if args.products < 0 or args.seed < 0:
        parser.error("--products and --seed must be >= 0")
    out = args.out or default_v8_catalog()
    if not out.name.endswith((".json", ".json.gz")):
        parser.error("--out must end in .json or .json.gz")
    counts = write_v8(out, args.products, args.seed)
    print(json.dumps({"out": str(out), **counts}, indent=2, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
