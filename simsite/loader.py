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

The file discovery and reading live in :mod:`shopsim.simsite.datafiles`, the per-record checks in
:mod:`shopsim.simsite.records`; import their names from there.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from shopsim.errors import DataError
from shopsim.simsite.datafiles import (
    CatalogFiles,
    load_json,
    load_side_files,
    one_line,
)
from shopsim.simsite.models import Product, ProductReview
from shopsim.simsite.records import (
    attribute_record,
    check_instruction,
    human_records,
    make_product,
    product_fields,
    product_records,
    record_asin,
    review_asin,
    review_entry,
    review_records,
)

__all__ = [
    "DataWarning",
    "first_records",
    "load_products",
    "warn_duplicates",
]


class DataWarning(UserWarning):
    """A data file has records that WebShop's rules skip; loading goes on (the CLI prints one line)."""


def warn_duplicates(path: Path, skipped: list[str]) -> None:
    """One warning for all duplicate-ASIN records skipped (WebShop drops them without a word)."""
    distinct = list(dict.fromkeys(skipped))
    shown = ", ".join(one_line(a) for a in distinct[:5])
    if len(distinct) > 5:
        shown += f" and {len(distinct) - 5} more"
    n = len(skipped)
    warnings.warn(f"{path}: {n} duplicate ASIN{'' if n == 1 else 's'} skipped (first wins): {shown}",
                  DataWarning, stacklevel=3)


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
    the others' ASINs are added to ``duplicates``.
    """
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
