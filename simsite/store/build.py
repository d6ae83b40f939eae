"""The per-product half of ``prepare``: normalise, serialise and analyse a chunk of records.

A pure function of its job (plus the file paths, for error messages), so chunks run in worker
processes in any order and give the same bytes. Normalisation is the loader's own
(:func:`~shopsim.simsite.loader.product_fields` and the record checks), so a stored product is the
product ``Shop.load(DIR)`` builds; analysis is Lucene's (:func:`analyze_token` over
:func:`standard_tokens`), counted per distinct token, which is the multiset ``analyze`` gives.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pydantic_core

from shopsim.simsite.loader import (
    CatalogFiles,
    attribute_record,
    check_instruction,
    human_records,
    one_line,
    product_fields,
    review_entry,
)
from shopsim.simsite.lucene.analysis import analyze_token
from shopsim.simsite.lucene.tokenizer import standard_tokens
from shopsim.simsite.models import ProductReview
from shopsim.simsite.search import document_text

__all__ = ["Chunk", "ChunkResult", "Record", "build_chunk", "set_files"]

#: One product record and what the side files say about it:
#: (record index, ASIN, raw record, attribute entry, human entries, (review index, review record)).
Record = tuple[int, str, dict[str, Any], Any, Any, tuple[int, dict[str, Any]] | None]
#: (first document number, records).
Chunk = tuple[int, list[Record]]

_FILES: CatalogFiles | None = None
_TERMS: dict[str, str | None] = {}


def set_files(files: CatalogFiles) -> None:
    """Name the catalog files in this process (error messages name them); a pool initializer."""
    global _FILES
    _FILES = files


@dataclass
class ChunkResult:
    """Everything ``prepare`` keeps of a chunk's products, in document order."""

    first_doc: int
    products: bytes
    product_sizes: list[int]
    human: bytes
    human_sizes: list[int]
    price_lo: list[float]
    price_hi: list[float]
    is_range: list[bool]
    terms: list[str]
    """The chunk's own vocabulary; ``term_ids`` index it."""
    term_ids: np.ndarray
    docs: np.ndarray
    tfs: np.ndarray
    lengths: list[int]
    instructions: list[tuple[int, int, tuple[str, ...]]] = field(default_factory=list)
    """(document, option combinations, instruction attributes) of each product with an instruction."""
    human_goals: list[tuple[int, int]] = field(default_factory=list)
    """(document, record) of each human instruction with attributes."""


def _review_dict(obj: Any) -> Any:
    if isinstance(obj, ProductReview):
        return obj.model_dump()
    raise TypeError(f"cannot serialise {type(obj).__name__}")


def encode(value: Any) -> bytes:
    """Compact UTF-8 JSON (pydantic-core's serialiser, 4x the standard library's speed here).

    A string with a lone surrogate cannot be UTF-8: such a value is written with ASCII escapes.
    """
    try:
        return pydantic_core.to_json(value)
    except pydantic_core.PydanticSerializationError:
        return json.dumps(value, separators=(",", ":"), default=_review_dict).encode("ascii")


def term_counts(text: str) -> tuple[dict[str, int], int]:
    """Lucene's terms of ``text`` with their counts, and the document length (terms indexed)."""
    cache = _TERMS
    if len(cache) > 1 << 20:
        cache.clear()
    counts: dict[str, int] = {}
    length = 0
    for token, n in Counter(standard_tokens(text)).items():
        term = cache.get(token, "")
        if term == "":
            term = cache[token] = analyze_token(token)
        if term is None:
            continue
        length += n
        counts[term] = counts.get(term, 0) + n
    return counts, length


def build_chunk(chunk: Chunk) -> ChunkResult:
    """Normalise, serialise and analyse one chunk (see the module docstring)."""
    files = _FILES
    if files is None:
        raise RuntimeError("set_files() was not called in this process")
    first_doc, records = chunk
    out = ChunkResult(first_doc, b"", [], b"", [], [], [], [], [], np.empty(0, np.int32), np.empty(0, np.int32),
                      np.empty(0, np.int32), [])
    blobs: list[bytes] = []
    human_blobs: list[bytes] = []
    terms: list[str] = []
    tfs: list[int] = []
    per_doc: list[int] = []
    for offset, (i, asin, raw, attr_raw, human_raw, review) in enumerate(records):
        doc = first_doc + offset
        where = f"{files.items}: record {i} (asin {one_line(asin)})"
        attr = attribute_record({asin: attr_raw} if attr_raw is not None else {}, asin, files.attributes)
        check_instruction(attr, asin, files.attributes)
        humans = human_records({asin: human_raw} if human_raw is not None else {}, asin, files.human_instructions)
        reviews: list[ProductReview] = []
        rating = "N.A."
        if review is not None and files.reviews is not None:
            reviews, rating = review_entry(review[1], review[0], asin, files.reviews)
        fields = product_fields(raw, asin, where, attr, [], reviews, rating, human_goals=False)
        blob = encode(fields)
        blobs.append(blob)
        out.product_sizes.append(len(blob))
        hblob = encode(humans) if humans else b""
        human_blobs.append(hblob)
        out.human_sizes.append(len(hblob))
        pricing = fields["pricing"]
        out.price_lo.append(pricing[0])
        out.price_hi.append(pricing[1] if len(pricing) > 1 else pricing[0])
        out.is_range.append(len(pricing) > 1)
        if attr.instruction is not None:
            combos = 1
            for values in fields["options"].values():
                combos *= len(values)
            out.instructions.append((doc, combos, tuple(attr.instruction_attributes or ())))
        out.human_goals.extend((doc, j) for j, rec in enumerate(humans) if rec.get("instruction_attributes"))
        counts, length = term_counts(
            document_text(fields["title"], fields["description"], fields["bullet_points"], fields["options"]))
        out.lengths.append(length)
        terms.extend(counts)
        tfs.extend(counts.values())
        per_doc.append(len(counts))
    out.products = b"".join(blobs)
    out.human = b"".join(human_blobs)
    vocab: dict[str, int] = {}
    out.term_ids = np.array([vocab.setdefault(t, len(vocab)) for t in terms], dtype=np.int32)
    out.terms = list(vocab)
    out.docs = np.repeat(np.arange(first_doc, first_doc + len(records), dtype=np.int32), per_doc)
    out.tfs = np.array(tfs, dtype=np.int32)
    return out


