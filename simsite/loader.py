"""Read catalogs in WebShop's own file formats with WebShop's ``load_products`` semantics.

Differences from WebShop are deliberate and documented:

- a malformed file or record raises :class:`DataError` naming the file, the record and the field
  (never a bare KeyError, TypeError or UnicodeDecodeError), so the CLI can print one line;
- impossible values that WebShop would mangle silently are errors: a negative price (WebShop's
  ``[^\\d.]`` strip turns ``$-5.00`` into 5.0), a non-finite price, a non-string ASIN;
- duplicate ASINs keep WebShop's rule (the first record wins) and are counted in one
  :class:`DataWarning`;
- a JSON ``null`` in an optional field means the field is absent, and a product missing from the
  attribute file gets ``DUMMY_ATTR`` in every mode.
"""

from __future__ import annotations

import json
import math
import re
import warnings
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from shopsim.errors import DataError
from shopsim.simsite.models import Product, ProductReview

__all__ = [
    "AttributeRecord",
    "CatalogFiles",
    "DataWarning",
    "attribute_record",
    "check_instruction",
    "find_catalog_files",
    "first_records",
    "human_records",
    "iter_jsonl",
    "json_kind",
    "load_json",
    "load_products",
    "load_side_files",
    "make_product",
    "one_line",
    "parse_number",
    "parse_pricing",
    "product_fields",
    "product_records",
    "record_asin",
    "review_asin",
    "review_entry",
    "review_records",
    "short_repr",
    "warn_duplicates",
]

_PRICE_STRIP = re.compile(r"[^\d.]")
_MINUS = ("-", "\u2212")
_JSON_KINDS: dict[type, str] = {type(None): "null", bool: "a boolean", int: "a number", float: "a number",
                                str: "a string", list: "a list", dict: "an object"}


class DataWarning(UserWarning):
    """A data file has records that WebShop's rules skip; loading goes on (the CLI prints one line)."""


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


def json_kind(value: Any) -> str:
    """What a value is, in JSON's words, for error messages."""
    return _JSON_KINDS.get(type(value), type(value).__name__)


_kind = json_kind


def short_repr(value: Any) -> str:
    """``repr(value)`` cut to one readable length, so a huge bad value cannot flood an error line."""
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def one_line(name: str) -> str:
    """A name from the data (an ASIN, an option name) fit for a one-line message: quoted when it
    holds a line break or other control character, cut when it is long."""
    return name if name.isprintable() and len(name) <= 80 else short_repr(name)


def load_json(path: Path) -> Any:
    """Load a JSON file; any read, encoding or syntax error becomes a DataError naming the file.

    The bytes are decoded here, not by a text stream, so a non-UTF-8 file is reported with the
    absolute offset of its first bad byte.
    """
    try:
        raw = Path(path).read_bytes()
    except OSError as exc:
        raise DataError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise DataError(f"{path}: not UTF-8 text: byte 0x{raw[exc.start]:02x} at offset {exc.start}") from exc
    del raw
    if not text.strip():
        raise DataError(f"{path}: empty file (expected JSON)")
    try:
        return json.loads(text)
    except (ValueError, RecursionError) as exc:  # JSONDecodeError, an over-long integer, deep nesting
        raise DataError(f"{path}: not valid JSON: {exc}") from exc


def _load_object(path: Path | None, what: str) -> dict[str, Any]:
    """A per-ASIN file (attributes, human instructions): a JSON object, or {} when there is no file."""
    if path is None:
        return {}
    data = load_json(path)
    if not isinstance(data, dict):
        raise DataError(f"{path}: expected a JSON object mapping ASIN to {what}, got {_kind(data)}")
    return data


def _objects(raw: Any, where: str, what: str, item: str) -> list[dict[str, Any]]:
    """``raw`` when it is a list of objects; otherwise a DataError naming the list or the bad item.

    ``item`` names item ``k`` after ``where`` (``": record {}"``, ``"[{}]"``).
    """
    if not isinstance(raw, list):
        raise DataError(f"{where}: expected {what}, got {_kind(raw)}")
    for k, x in enumerate(raw):
        if not isinstance(x, dict):
            raise DataError(f"{where}{item.format(k)}: expected an object, got {_kind(x)}")
    return raw


def _str_list(raw: Any, where: str, field: str) -> list[str]:
    """``raw`` when it is a list of strings; otherwise a DataError naming the field or the bad item."""
    if not isinstance(raw, list):
        raise DataError(f"{where}: field '{field}': expected a list of strings, got {_kind(raw)}")
    for k, x in enumerate(raw):
        if not isinstance(x, str):
            raise DataError(f"{where}: field '{field}[{k}]': expected a string, got {_kind(x)}")
    return raw


def _opt_str(rec: dict[str, Any], field: str, where: str) -> str | None:
    """An optional string field: None when absent or null."""
    value = rec.get(field)
    if value is not None and not isinstance(value, str):
        raise DataError(f"{where}: field '{field}': expected a string, got {_kind(value)}")
    return value


def parse_number(raw: Any, where: str, field: str, *, price: bool = False) -> float:
    """A JSON number or numeric string that is finite, and not negative when it is a ``price``.

    ``true``, NaN, infinities and integers past float range would pass ``float()`` or break it;
    here each is a DataError naming the field.
    """
    if isinstance(raw, bool) or not isinstance(raw, (int, float, str)):
        raise DataError(f"{where}: field '{field}': expected a number, got {_kind(raw)}")
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
        raise DataError(f"{where}: field 'pricing': expected a string like '$12.99', got {_kind(raw)}")
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
        raise DataError(f"{where}: field 'customization_options': expected an object or '', got {_kind(raw)}")
    null_axes: list[str] = []
    for name, contents in raw.items():
        if contents is None:
            null_axes.append(name)
            continue
        field = f"customization_options.{one_line(name)}"
        if not isinstance(contents, list):
            raise DataError(f"{where}: field '{field}': expected a list of options, got {_kind(contents)}")
        values: list[str] = []
        for i, content in enumerate(contents):
            if not isinstance(content, dict) or not isinstance(content.get("value"), str):
                raise DataError(f"{where}: field '{field}[{i}].value': expected a string")
            image = content.get("image")
            if image is not None and not isinstance(image, str):
                raise DataError(f"{where}: field '{field}[{i}].image': expected a string, got {_kind(image)}")
            value = content["value"].strip().replace("/", " | ").lower()
            values.append(value)
            to_image[value] = image
        options[name.lower()] = values
    return options, to_image, tuple(null_axes)


def _review(r: Any, where: str) -> ProductReview:
    """One review, read with WebShop's alternative keys (``stars`` for ``score``, ``review`` for ``body``)."""
    if not isinstance(r, dict):
        raise DataError(f"{where}: expected an object, got {_kind(r)}")
    field = "score" if "score" in r else "stars"
    body_field = "body" if "body" in r else "review"
    score = r.get(field)
    return ProductReview(
        title=_opt_str(r, "title", where) or "",
        score=None if score is None else parse_number(score, where, field),
        body=_opt_str(r, body_field, where) or "",
    )


def review_asin(rec: dict[str, Any], i: int, path: Path) -> str:
    """The ASIN of review record ``i`` (checked first, so errors name it)."""
    asin = rec.get("asin")
    if not isinstance(asin, str):
        raise DataError(f"{path}: record {i}: field 'asin': expected a string, got {_kind(asin)}")
    return asin


def review_entry(rec: dict[str, Any], i: int, asin: str, path: Path) -> tuple[list[ProductReview], str]:
    """One review record's reviews and average rating (as text), checked."""
    where = f"{path}: record {i} (asin {one_line(asin)})"
    items = rec.get("reviews")
    if items is None:
        items = []
    if not isinstance(items, list):
        raise DataError(f"{where}: field 'reviews': expected a list, got {_kind(items)}")
    rating = rec.get("average_rating", "N.A.")
    if isinstance(rating, bool) or not isinstance(rating, (str, int, float, type(None))):
        raise DataError(f"{where}: field 'average_rating': expected a number or a string, got {_kind(rating)}")
    return [_review(r, f"{where}: reviews[{j}]") for j, r in enumerate(items)], str(rating)


def review_records(raw: Any, path: Path) -> list[dict[str, Any]]:
    """The review file's records, checked to be a list of objects."""
    return _objects(raw, str(path), "a JSON list of review records", ": record {}")


def _reviews(path: Path | None) -> tuple[dict[str, list[ProductReview]], dict[str, str]]:
    """Reviews and average ratings per ASIN; a later record for the same ASIN wins, as in WebShop."""
    reviews: dict[str, list[ProductReview]] = {}
    ratings: dict[str, str] = {}
    if path is None:
        return reviews, ratings
    for i, rec in enumerate(review_records(load_json(path), path)):
        asin = review_asin(rec, i, path)
        reviews[asin], ratings[asin] = review_entry(rec, i, asin, path)
    return reviews, ratings


def warn_duplicates(path: Path, skipped: list[str]) -> None:
    """One warning for all duplicate-ASIN records skipped (WebShop drops them without a word)."""
    distinct = list(dict.fromkeys(skipped))
    shown = ", ".join(one_line(a) for a in distinct[:5])
    if len(distinct) > 5:
        shown += f" and {len(distinct) - 5} more"
    n = len(skipped)
    warnings.warn(f"{path}: {n} duplicate ASIN{'' if n == 1 else 's'} skipped (first wins): {shown}",
                  DataWarning, stacklevel=3)


def load_side_files(files: CatalogFiles) -> tuple[dict[str, Any], dict[str, Any]]:
    """The attribute and human-instruction files (``{}`` for a file the folder lacks)."""
    return (_load_object(files.attributes, "attributes and instructions"),
            _load_object(files.human_instructions, "human instructions"))


def product_records(raw: Any, path: Path) -> list[dict[str, Any]]:
    """The product file's records, checked to be a list of objects."""
    return _objects(raw, str(path), "a JSON list of products", ": record {}")


def load_products(
    files: CatalogFiles,
    num_products: int | None = None,
    human_goals: bool = False,
) -> list[Product]:
    """Load and normalise products like WebShop's ``load_products``.

    File order is kept; records with ASIN ``'nan'`` or longer than 10 characters are skipped, and
    of several records with one ASIN the first wins (the others are counted in a DataWarning).
    """
    raw_products = product_records(load_json(files.items), files.items)
    if num_products is not None:
        raw_products = raw_products[:num_products]
    attributes, human = load_side_files(files)
    reviews, ratings = _reviews(files.reviews)

    products: list[Product] = []
    duplicates: list[str] = []
    for i, asin, p in first_records(enumerate(raw_products), files.items, duplicates):
        attr = attribute_record(attributes, asin, files.attributes)
        if not human_goals:
            check_instruction(attr, asin, files.attributes)
        instructions = human_records(human, asin, files.human_instructions) if human_goals else []
        where = f"{files.items}: record {i} (asin {one_line(asin)})"
        fields = product_fields(p, asin, where, attr, instructions, reviews.get(asin, []),
                                ratings.get(asin, "N.A."), human_goals)
        products.append(make_product(fields, where))
    if duplicates:
        warn_duplicates(files.items, duplicates)
    if not products:
        raise DataError(f"{files.items}: no products (the list is empty or every record was skipped)")
    return products


def first_records(records: Iterable[tuple[int, dict[str, Any]]], path: Path,
                  duplicates: list[str]) -> Iterator[tuple[int, str, dict[str, Any]]]:
    """WebShop's numbering of products: ``(index, asin, record)`` for each record kept. A record
    :func:`record_asin` skips is left out; of several records with one ASIN the first is kept and
    the others' ASINs are added to ``duplicates``."""
    seen: set[str] = set()
    for i, p in records:
        asin = record_asin(p, i, path)
        if asin is None:
            continue
        if asin in seen:
            duplicates.append(asin)
            continue
        seen.add(asin)
        yield i, asin, p


def record_asin(p: dict[str, Any], i: int, path: Path) -> str | None:
    """Record ``i``'s ASIN, or None when WebShop's rule skips it (``'nan'``, longer than 10 characters)."""
    asin = p.get("asin")
    if not isinstance(asin, str):
        raise DataError(f"{path}: record {i}: field 'asin': expected a string, got {_kind(asin)}")
    if asin == "nan" or len(asin) > 10:
        return None
    return asin


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
        raise DataError(f"{where}: expected an object, got {_kind(rec)}")
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
    for j, rec in enumerate(_objects(recs, where, "a list of instructions", "[{}]")):
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
            got = "missing" if field not in p else f"expected a string, got {_kind(value)}"
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


def iter_jsonl(path: Path) -> Iterable[tuple[int, dict[str, Any]]]:
    """Yield ``(line_number, record)`` from a JSONL file, with errors naming file and line.

    Lines are read as bytes and decoded one by one, so a non-UTF-8 byte is reported by line.
    """
    try:
        with open(path, "rb") as f:
            for n, raw in enumerate(f, 1):
                try:
                    line = raw.decode("utf-8")
                except UnicodeDecodeError as exc:
                    raise DataError(f"{path}: line {n}: not UTF-8 text: byte 0x{raw[exc.start]:02x} "
                                    f"at column {exc.start + 1}") from exc
                if not line.strip():
                    continue
                try:
                    rec = json.loads(line)
                except (ValueError, RecursionError) as exc:
                    raise DataError(f"{path}: line {n}: not valid JSON: {exc}") from exc
                if not isinstance(rec, dict):
                    raise DataError(f"{path}: line {n}: expected an object, got {_kind(rec)}")
                yield n, rec
    except OSError as exc:
        raise DataError(f"{path}: cannot read: {exc.strerror or exc}") from exc
