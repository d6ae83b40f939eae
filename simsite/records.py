"""Checking and normalising the records of WebShop's files, one record at a time.

Products, attribute entries, human instructions and reviews come out with WebShop's normalisation
and every field checked, so a bad record is a :class:`~shopsim.errors.DataError` naming the file,
the record and the field. The loader and the prepared store's build share these checks.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from shopsim.errors import DataError
from shopsim.simsite.datafiles import json_kind, object_list, one_line, short_repr
from shopsim.simsite.models import Product, ProductReview

__all__ = [
    "AttributeRecord",
    "attribute_record",
    "check_instruction",
    "human_records",
    "make_product",
    "parse_number",
    "parse_pricing",
    "product_fields",
    "product_records",
    "record_asin",
    "review_asin",
    "review_entry",
    "review_records",
]

_PRICE_STRIP = re.compile(r"[^\d.]")
_MINUS = ("-", "\u2212")


def product_records(raw: Any, path: Path) -> list[dict[str, Any]]:
    """The product file's records, checked to be a list of objects."""
    return object_list(raw, str(path), "a JSON list of products", ": record {}")


def record_asin(p: dict[str, Any], i: int, path: Path) -> str | None:
    """Record ``i``'s ASIN, or None when WebShop's rule skips it (``'nan'``, longer than 10 characters)."""
    asin = p.get("asin")
    if not isinstance(asin, str):
        raise DataError(f"{path}: record {i}: field 'asin': expected a string, got {json_kind(asin)}")
    if asin == "nan" or len(asin) > 10:
        return None
    return asin


def _str_list(raw: Any, where: str, field: str) -> list[str]:
    """``raw`` when it is a list of strings; otherwise a DataError naming the field or the bad item."""
    if not isinstance(raw, list):
        raise DataError(f"{where}: field '{field}': expected a list of strings, got {json_kind(raw)}")
    for k, x in enumerate(raw):
        if not isinstance(x, str):
            raise DataError(f"{where}: field '{field}[{k}]': expected a string, got {json_kind(x)}")
    return raw


def _opt_str(rec: dict[str, Any], field: str, where: str) -> str | None:
    """An optional string field: None when absent or null."""
    value = rec.get(field)
    if value is not None and not isinstance(value, str):
        raise DataError(f"{where}: field '{field}': expected a string, got {json_kind(value)}")
    return value


def parse_number(raw: Any, where: str, field: str, *, price: bool = False) -> float:
    """A JSON number or numeric string that is finite, and not negative when it is a ``price``.

    ``true``, NaN, infinities and integers past float range would pass ``float()`` or break it;
    here each is a DataError naming the field.
    """
    if isinstance(raw, bool) or not isinstance(raw, (int, float, str)):
        raise DataError(f"{where}: field '{field}': expected a number, got {json_kind(raw)}")
    try:
        value = float(raw)
    except (ValueError, OverflowError) as exc:
        raise DataError(f"{where}: field '{field}': {short_repr(raw)} is not a number") from exc
    if not math.isfinite(value) or (price and value < 0):
        what = "a finite non-negative price" if price else "a finite number"
        raise DataError(f"{where}: field '{field}': {short_repr(raw)} is not {what}")
    return value


def parse_pricing(raw: Any, where: str) -> tuple[list[float], str]:
    """WebShop's price parsing: ``'$12.99'`` -> ``[12.99]``; ``'$1 - $2'`` -> ``[1.0, 2.0]``; empty -> 100.0.

    WebShop keeps only digits and dots of each ``$`` amount; a minus sign before an amount would
    silently flip the price positive there, so it is an error here, as is an amount too large
    for a float.
    """
    if raw is None or not raw:
        return [100.0], "$100.0"
    if isinstance(raw, list):  # already parsed (a catalog written by load_products)
        values = [parse_number(x, where, f"pricing[{k}]", price=True) for k, x in enumerate(raw)]
    elif isinstance(raw, str):
        parts = raw.split("$")
        if parts[0].rstrip().endswith(_MINUS) or any(part.lstrip().startswith(_MINUS) for part in parts[1:]):
            raise DataError(f"{where}: field 'pricing': negative price {short_repr(raw)}")
        try:
            values = [float(Decimal(_PRICE_STRIP.sub("", part))) for part in parts[1:]]
        except InvalidOperation as exc:
            raise DataError(f"{where}: field 'pricing': cannot parse price {short_repr(raw)}") from exc
        if not all(math.isfinite(v) for v in values):
            raise DataError(f"{where}: field 'pricing': {short_repr(raw)} is too large for a price")
    else:
        raise DataError(f"{where}: field 'pricing': expected a string like '$12.99', got {json_kind(raw)}")
    if not values:
        raise DataError(f"{where}: field 'pricing': no '$' amount in {short_repr(raw)}")
    if len(values) == 1:
        return values, f"${values[0]}"
    return values[:2], f"${values[0]} to ${values[1]}"


def _options(raw: Any, where: str) -> tuple[dict[str, list[str]], dict[str, str | None], tuple[str, ...]]:
    """WebShop's option normalisation: lower-cased names and values, ``/`` shown as ``' | '``.

    Also returns the axes listed without values, which WebShop skips.
    """
    options: dict[str, list[str]] = {}
    to_image: dict[str, str | None] = {}
    if not raw:  # WebShop's real files write '' for "no options"
        return options, to_image, ()
    if not isinstance(raw, dict):
        raise DataError(f"{where}: field 'customization_options': expected an object or '', got {json_kind(raw)}")
    null_axes: list[str] = []
    for name, contents in raw.items():
        if contents is None:
            null_axes.append(name)
            continue
        field = f"customization_options.{one_line(name)}"
        if not isinstance(contents, list):
            raise DataError(f"{where}: field '{field}': expected a list of options, got {json_kind(contents)}")
        values: list[str] = []
        for i, content in enumerate(contents):
            if not isinstance(content, dict) or not isinstance(content.get("value"), str):
                raise DataError(f"{where}: field '{field}[{i}].value': expected a string")
            image = content.get("image")
            if image is not None and not isinstance(image, str):
                raise DataError(f"{where}: field '{field}[{i}].image': expected a string, got {json_kind(image)}")
            value = content["value"].strip().replace("/", " | ").lower()
            values.append(value)
            to_image[value] = image
        options[name.lower()] = values
    return options, to_image, tuple(null_axes)


@dataclass(frozen=True)
class AttributeRecord:
    """A product's entry in the attribute file (``items_ins_v2``), checked."""

    attributes: list[str] | None = None
    instruction: str | None = None
    instruction_attributes: list[str] | None = None


def attribute_record(attributes: dict[str, Any], asin: str, path: Path | None) -> AttributeRecord:
    """The product's attribute-file entry; absent or null reads as no entry (``DUMMY_ATTR``, no goal)."""
    rec = attributes.get(asin)
    if rec is None:
        return AttributeRecord()
    where = f"{path}: record {one_line(asin)}"
    if not isinstance(rec, dict):
        raise DataError(f"{where}: expected an object, got {json_kind(rec)}")
    attrs = rec.get("attributes")
    instruction_attributes = rec.get("instruction_attributes")
    return AttributeRecord(
        attributes=None if attrs is None else _str_list(attrs, where, "attributes"),
        instruction=_opt_str(rec, "instruction", where),
        instruction_attributes=None if instruction_attributes is None
        else _str_list(instruction_attributes, where, "instruction_attributes"),
    )


def check_instruction(attr: AttributeRecord, asin: str, path: Path | None) -> None:
    """Synthetic goals weigh a goal's attributes by their count: WebShop fails when there are none."""
    if attr.instruction is not None and not attr.instruction_attributes:
        raise DataError(f"{path}: record {one_line(asin)}: field 'instruction_attributes': "
                        "missing or empty, but the record has an instruction")


def human_records(human: dict[str, Any], asin: str, path: Path | None) -> list[dict[str, Any]]:
    """A product's human-written instructions, checked for the fields human goals read."""
    recs = human.get(asin)
    if recs is None:
        return []
    where = f"{path}: record {one_line(asin)}"
    for j, rec in enumerate(object_list(recs, where, "a list of instructions", "[{}]")):
        at = f"{where}[{j}]"
        _opt_str(rec, "instruction", at)
        for field in ("instruction_attributes", "instruction_options"):
            if rec.get(field) is not None:
                _str_list(rec[field], at, field)
    return list(recs)


def product_fields(
    p: dict[str, Any],
    asin: str,
    where: str,
    attr: AttributeRecord,
    human_instructions: list[dict[str, Any]],
    reviews: list[ProductReview],
    rating: str,
    human_goals: bool,
) -> dict[str, Any]:
    """A record's :class:`Product` fields after WebShop's normalisation, every one checked.

    The prepared store serialises these fields without building the model (the checks leave
    nothing for pydantic to change); :func:`make_product` builds it.
    """
    for field in ("name", "query", "category", "product_category"):
        value = p.get(field)
        if not isinstance(value, str):
            got = "missing" if field not in p else f"expected a string, got {json_kind(value)}"
            raise DataError(f"{where}: field '{field}': {got}")
    pricing, price_text = parse_pricing(p.get("pricing"), where)
    options, to_image, null_axes = _options(p.get("customization_options"), where)
    bullets = p.get("small_description")
    if bullets is None:
        bullets = []
    elif isinstance(bullets, str):  # WebShop's files hold a few bare strings; it wraps them
        bullets = [bullets]
    else:
        _str_list(bullets, where, "small_description")
    images = p.get("images")
    if images is not None:
        _str_list(images, where, "images")
    images = images or [""]
    return {
        "asin": asin,
        "title": p["name"],
        "description": _opt_str(p, "full_description", where) or "",
        "bullet_points": list(bullets),
        "pricing": pricing,
        "price_text": price_text,
        "options": options,
        "option_to_image": to_image,
        "null_option_axes": null_axes,
        "attributes": attr.attributes if attr.attributes is not None else ["DUMMY_ATTR"],
        "category": p["category"],
        "query": p["query"].lower().strip(),
        "product_category": p["product_category"],
        "main_image": images[0],
        "images": list(images),
        "rating": rating,
        "reviews": reviews,
        "instruction_text": None if human_goals else attr.instruction,
        "instruction_attributes": None if human_goals else attr.instruction_attributes,
        "human_instructions": human_instructions,
    }


def make_product(fields: dict[str, Any], where: str) -> Product:
    """The :class:`Product` of :func:`product_fields`' output."""
    try:
        return Product(**fields)
    except ValidationError as exc:  # a safety net: the checks above should leave nothing for it
        err = exc.errors()[0]
        field = ".".join(str(x) for x in err["loc"])
        raise DataError(f"{where}: field '{field}': {err['msg']}") from exc


def review_records(raw: Any, path: Path) -> list[dict[str, Any]]:
    """The review file's records, checked to be a list of objects."""
    return object_list(raw, str(path), "a JSON list of review records", ": record {}")


def review_asin(rec: dict[str, Any], i: int, path: Path) -> str:
    """The ASIN of review record ``i`` (checked first, so errors name it)."""
    asin = rec.get("asin")
    if not isinstance(asin, str):
        raise DataError(f"{path}: record {i}: field 'asin': expected a string, got {json_kind(asin)}")
    return asin


def _review(r: Any, where: str) -> ProductReview:
    """One review, read with WebShop's alternative keys (``stars`` for ``score``, ``review`` for ``body``)."""
    if not isinstance(r, dict):
        raise DataError(f"{where}: expected an object, got {json_kind(r)}")
    field = "score" if "score" in r else "stars"
    body_field = "body" if "body" in r else "review"
    score = r.get(field)
    return ProductReview(
        title=_opt_str(r, "title", where) or "",
        score=None if score is None else parse_number(score, where, field),
        body=_opt_str(r, body_field, where) or "",
    )


def review_entry(rec: dict[str, Any], i: int, asin: str, path: Path) -> tuple[list[ProductReview], str]:
    """One review record's reviews and average rating (as text), checked."""
    where = f"{path}: record {i} (asin {one_line(asin)})"
    items = rec.get("reviews")
    if items is None:
        items = []
    if not isinstance(items, list):
        raise DataError(f"{where}: field 'reviews': expected a list, got {json_kind(items)}")
    rating = rec.get("average_rating", "N.A.")
    if isinstance(rating, bool) or not isinstance(rating, (str, int, float, type(None))):
        raise DataError(f"{where}: field 'average_rating': expected a number or a string, got {json_kind(rating)}")
    return [_review(r, f"{where}: reviews[{j}]") for j, r in enumerate(items)], str(rating)
