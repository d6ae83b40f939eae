"""Read catalogs in WebShop's own file formats with WebShop's ``load_products`` semantics.

Differences from WebShop are deliberate and documented: a malformed record raises
:class:`DataError` naming the file, the record and the field instead of a bare KeyError, and a
product missing from the attribute file gets ``DUMMY_ATTR`` in every mode.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from shopsim.errors import DataError
from shopsim.simsite.models import Product, ProductReview

__all__ = ["CatalogFiles", "find_catalog_files", "iter_jsonl", "load_json", "load_products", "parse_pricing"]

_PRICE_STRIP = re.compile(r"[^\d.]")


@dataclass(frozen=True)
class CatalogFiles:
    """Where a catalog's files are; only ``items`` is required."""

    items: Path
    attributes: Path | None = None
    human_instructions: Path | None = None
    reviews: Path | None = None


def find_catalog_files(data_dir: str | Path) -> CatalogFiles:
    """Find WebShop-format files in a folder (``items_shuffle*.json``, ``items_ins_v2*.json``, ...)."""
    root = Path(data_dir)
    if not root.is_dir():
        raise DataError(f"{root}: no such data folder (expected WebShop files such as items_shuffle_1000.json)")

    def pick(pattern: str) -> Path | None:
        found = sorted(root.glob(pattern))
        return found[0] if found else None

    # WebShop's file names first, then the names our generator writes.
    items = pick("items_shuffle*.json") or pick("shop_items*.json")
    if items is None:
        raise DataError(f"{root}: no items_shuffle*.json (or shop_items*.json) product file in this folder")
    return CatalogFiles(
        items=items,
        attributes=pick("items_ins_v2*.json") or pick("shop_attributes*.json"),
        human_instructions=pick("items_human_ins*.json") or pick("shop_human_instructions*.json"),
        reviews=pick("reviews*.json") or pick("shop_reviews*.json"),
    )


def load_json(path: Path) -> Any:
    """Load a JSON file, turning any read or syntax error into a DataError naming the file."""
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except OSError as exc:
        raise DataError(f"{path}: cannot read: {exc}") from exc
    except json.JSONDecodeError as exc:
        raise DataError(f"{path}: not valid JSON: {exc}") from exc


def parse_pricing(raw: Any, where: str) -> tuple[list[float], str]:
    """WebShop's price parsing: ``'$12.99'`` -> ``[12.99]``; ``'$1 - $2'`` -> ``[1.0, 2.0]``; empty -> 100.0."""
    if raw is None or not raw:
        return [100.0], "$100.0"
    if isinstance(raw, list):  # already parsed (a catalog written by load_products)
        values = [float(x) for x in raw]
    elif isinstance(raw, str):
        try:
            values = [float(Decimal(_PRICE_STRIP.sub("", part))) for part in raw.split("$")[1:]]
        except InvalidOperation as exc:
            raise DataError(f"{where}: field 'pricing': cannot parse price {raw!r}") from exc
    else:
        raise DataError(f"{where}: field 'pricing': expected a string like '$12.99', got {type(raw).__name__}")
    if not values:
        raise DataError(f"{where}: field 'pricing': no '$' amount in {raw!r}")
    if len(values) == 1:
        return values, f"${values[0]}"
    return values[:2], f"${values[0]} to ${values[1]}"


def _options(raw: Any, where: str) -> tuple[dict[str, list[str]], dict[str, str | None]]:
    options: dict[str, list[str]] = {}
    to_image: dict[str, str | None] = {}
    if not raw:
        return options, to_image
    if not isinstance(raw, dict):
        raise DataError(f"{where}: field 'customization_options': expected an object or '', got {type(raw).__name__}")
    for name, contents in raw.items():
        if contents is None:
            continue
        values: list[str] = []
        for i, content in enumerate(contents):
            if not isinstance(content, dict) or not isinstance(content.get("value"), str):
                raise DataError(f"{where}: field 'customization_options.{name}[{i}].value': expected a string")
            value = content["value"].strip().replace("/", " | ").lower()
            values.append(value)
            to_image[value] = content.get("image")
        options[name.lower()] = values
    return options, to_image


def _reviews(path: Path | None) -> tuple[dict[str, list[ProductReview]], dict[str, str]]:
    reviews: dict[str, list[ProductReview]] = {}
    ratings: dict[str, str] = {}
    if path is None:
        return reviews, ratings
    for i, rec in enumerate(load_json(path)):
        where = f"{path}: record {i}"
        try:
            asin = rec["asin"]
            items = []
            for r in rec.get("reviews", []):
                score = r.get("score", r.get("stars"))
                items.append(ProductReview(title=r.get("title", ""), score=score, body=r.get("body", r.get("review", ""))))
        except (KeyError, TypeError, ValidationError) as exc:
            raise DataError(f"{where}: malformed review record: {exc}") from exc
        reviews[asin] = items
        ratings[asin] = str(rec.get("average_rating", "N.A."))
    return reviews, ratings


def load_products(
    files: CatalogFiles,
    num_products: int | None = None,
    human_goals: bool = False,
) -> list[Product]:
    """Load and normalise products like WebShop's ``load_products`` (order kept, duplicates dropped)."""
    raw_products = load_json(files.items)
    if not isinstance(raw_products, list):
        raise DataError(f"{files.items}: expected a JSON list of products")
    if num_products is not None:
        raw_products = raw_products[:num_products]
    attributes: dict[str, Any] = load_json(files.attributes) if files.attributes else {}
    human: dict[str, Any] = load_json(files.human_instructions) if files.human_instructions else {}
    reviews, ratings = _reviews(files.reviews)

    products: list[Product] = []
    seen: set[str] = set()
    for i, p in enumerate(raw_products):
        where = f"{files.items}: record {i}"
        if not isinstance(p, dict):
            raise DataError(f"{where}: expected an object, got {type(p).__name__}")
        asin = p.get("asin")
        if not isinstance(asin, str):
            raise DataError(f"{where}: field 'asin': missing or not a string")
        if asin == "nan" or len(asin) > 10 or asin in seen:
            continue
        seen.add(asin)
        where = f"{files.items}: record {i} (asin {asin})"
        products.append(_product(p, asin, where, attributes, human, reviews, ratings, human_goals))
    return products


def _product(
    p: dict[str, Any],
    asin: str,
    where: str,
    attributes: dict[str, Any],
    human: dict[str, Any],
    reviews: dict[str, list[ProductReview]],
    ratings: dict[str, str],
    human_goals: bool,
) -> Product:
    for field in ("name", "query", "category", "product_category"):
        if not isinstance(p.get(field), str):
            raise DataError(f"{where}: field '{field}': missing or not a string")
    pricing, price_text = parse_pricing(p.get("pricing"), where)
    options, to_image = _options(p.get("customization_options"), where)
    bullets = p.get("small_description", [])
    bullets = bullets if isinstance(bullets, list) else [bullets]
    images = p.get("images") or [""]
    attr_rec = attributes.get(asin, {})
    attrs = attr_rec.get("attributes") if isinstance(attr_rec, dict) else None
    try:
        return Product(
            asin=asin,
            title=p["name"],
            description=p.get("full_description") or "",
            bullet_points=[str(b) for b in bullets],
            pricing=pricing,
            price_text=price_text,
            options=options,
            option_to_image=to_image,
            attributes=attrs if attrs is not None else ["DUMMY_ATTR"],
            category=p["category"],
            query=p["query"].lower().strip(),
            product_category=p["product_category"],
            main_image=images[0],
            images=list(images),
            rating=ratings.get(asin, "N.A."),
            reviews=reviews.get(asin, []),
            instruction_text=None if human_goals else attr_rec.get("instruction"),
            instruction_attributes=None if human_goals else attr_rec.get("instruction_attributes"),
            human_instructions=list(human.get(asin, [])) if human_goals else [],
        )
    except ValidationError as exc:
        err = exc.errors()[0]
        field = ".".join(str(x) for x in err["loc"])
        raise DataError(f"{where}: field '{field}': {err['msg']}") from exc


def iter_jsonl(path: Path) -> Iterable[tuple[int, dict[str, Any]]]:
    """Yield ``(line_number, record)`` from a JSONL file, with errors naming file and line."""
    try:
        with open(path, encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                if not line.strip():
                    continue
                try:
                    rec = json.loads(line)
                except json.JSONDecodeError as exc:
                    raise DataError(f"{path}: line {n}: not valid JSON: {exc}") from exc
                if not isinstance(rec, dict):
                    raise DataError(f"{path}: line {n}: expected an object")
                yield n, rec
    except OSError as exc:
        raise DataError(f"{path}: cannot read: {exc}") from exc
