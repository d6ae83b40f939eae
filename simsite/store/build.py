"""The per-product half of ``prepare``: normalise, serialise and analyse a chunk of records.

A pure function of its job (plus the file paths, for error messages), so chunks run in worker
processes in any order and give the same bytes. Records may arrive as their JSON text (a worker
decodes it again: cheaper than pickling the decoded objects across). Normalisation is the loader's
own (:func:`~shopsim.simsite.records.product_fields` and the record checks), so a stored product is
the product ``Shop.load(DIR)`` builds; analysis is Lucene's (:func:`analyze_token` over
:func:`standard_tokens`). Tokens never cross ASCII whitespace, so a document's terms are the terms
of its space-separated pieces, one after another; a piece's terms are computed once per process
and cached, and counting is done for the whole chunk at once with numpy.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from itertools import chain
from typing import Any

import numpy as np
import pydantic_core

from shopsim.simsite.datafiles import CatalogFiles, one_line
from shopsim.simsite.lucene.analysis import analyze_token
from shopsim.simsite.lucene.tokenizer import standard_tokens
from shopsim.simsite.models import ProductReview
from shopsim.simsite.records import (
    attribute_record,
    check_instruction,
    human_records,
    product_fields,
    review_entry,
)
from shopsim.simsite.search import document_text

__all__ = ["Chunk", "ChunkResult", "Record", "build_chunk", "set_files", "term_counts"]

#: One product record and what the side files say about it: (record index, ASIN, raw record or
#: its JSON text, attribute entry, human entries, (review index, review record or its JSON text)).
Record = tuple[int, str, dict[str, Any] | str, Any, Any, tuple[int, dict[str, Any] | str] | None]
#: (first document number, records).
Chunk = tuple[int, list[Record]]

_FILES: CatalogFiles | None = None
_VOCAB: dict[str, int] = {}
_TERMS: list[str] = []
"""This process's numbering of terms (``_TERMS[_VOCAB[term]] == term``); chunk results name the terms."""
_PIECES: dict[str, tuple[int, ...]] = {}
"""A space-separated piece of document text -> its terms' numbers, cleared when it outgrows _PIECES_MAX."""
_PIECES_MAX = 1 << 19


def set_files(files: CatalogFiles) -> None:
    """Name the catalog files in this process (error messages name them); a pool initializer."""
    global _FILES
    _FILES = files


@dataclass
class ChunkResult:
    """Everything ``prepare`` keeps of a chunk's products, in document order (arrays pickle cheaply)."""

    first_doc: int
    products: bytes
    product_sizes: np.ndarray
    human: bytes
    human_sizes: np.ndarray
    price_lo: np.ndarray
    price_hi: np.ndarray
    is_range: np.ndarray
    terms: list[str]
    """The chunk's own vocabulary; ``term_ids`` index it."""
    term_ids: np.ndarray
    docs: np.ndarray
    """Postings' documents, ascending (a document's terms in any order)."""
    tfs: np.ndarray
    lengths: np.ndarray
    titles: list[str]
    """For the noun tags of the type reward (:mod:`.tags`), tagged in one batch at the end."""
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


def _piece_terms(piece: str) -> tuple[int, ...]:
    """The terms of one piece of text (numbered in this process), cached."""
    ids: list[int] = []
    for token in standard_tokens(piece):
        term = analyze_token(token)
        if term is None:
            continue
        t = _VOCAB.get(term)
        if t is None:
            t = _VOCAB[term] = len(_TERMS)
            _TERMS.append(term)
        ids.append(t)
    out = _PIECES[piece] = tuple(ids)
    return out


def _add_terms(text: str, ids: list[int]) -> int:
    """Append the numbers of ``text``'s terms (Lucene's, in order) to ``ids``; returns how many."""
    pieces = text.split(" ")
    n = len(ids)
    try:  # the usual case, every piece seen before: no Python-level loop
        ids.extend(chain.from_iterable(map(_PIECES.__getitem__, pieces)))
    except KeyError:
        del ids[n:]
        get = _PIECES.get
        for piece in pieces:
            known = get(piece)
            ids.extend(known if known is not None else _piece_terms(piece))
    return len(ids) - n


def term_counts(text: str) -> tuple[dict[str, int], int]:
    """Lucene's terms of ``text`` with their counts, and the document length (terms indexed), the way
    :func:`build_chunk` finds them (what the tests hold against :func:`~shopsim.simsite.lucene.analysis.analyze`).
    """
    ids: list[int] = []
    length = _add_terms(text, ids)
    counts: dict[str, int] = {}
    for t in ids:
        counts[_TERMS[t]] = counts.get(_TERMS[t], 0) + 1
    return counts, length


def _postings(ids: list[int], lengths: list[int], first_doc: int
              ) -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray]:
    """(chunk vocabulary, term ids, documents, term frequencies) of the chunk's documents' terms."""
    width = max(len(_TERMS), 1)
    doc = np.repeat(np.arange(len(lengths), dtype=np.int64), lengths)
    keys, tfs = np.unique(doc * width + np.array(ids, dtype=np.int64), return_counts=True)
    used, term_ids = np.unique(keys % width, return_inverse=True)
    docs = (keys // width + first_doc).astype(np.int32)
    return [_TERMS[t] for t in used.tolist()], term_ids.astype(np.int32), docs, tfs.astype(np.int32)


def build_chunk(chunk: Chunk) -> ChunkResult:
    """Normalise, serialise and analyse one chunk (see the module docstring)."""
    files = _FILES
    if files is None:
        raise RuntimeError("set_files() was not called in this process")
    if len(_PIECES) > _PIECES_MAX:  # a bound on memory for huge vocabularies
        _PIECES.clear()
    first_doc, records = chunk
    n = len(records)
    blobs: list[bytes] = []
    human_blobs: list[bytes] = []
    lo: list[float] = []
    hi: list[float] = []
    ranged: list[bool] = []
    instructions: list[tuple[int, int, tuple[str, ...]]] = []
    human_goals: list[tuple[int, int]] = []
    ids: list[int] = []
    lengths: list[int] = []
    titles: list[str] = []
    loads = json.loads
    for offset, (i, asin, raw, attr_raw, human_raw, review) in enumerate(records):
        doc = first_doc + offset
        if isinstance(raw, str):
            raw = loads(raw)
        where = f"{files.items}: record {i} (asin {one_line(asin)})"
        attr = attribute_record({asin: attr_raw} if attr_raw is not None else {}, asin, files.attributes)
        check_instruction(attr, asin, files.attributes)
        humans = human_records({asin: human_raw} if human_raw is not None else {}, asin, files.human_instructions)
        reviews: list[ProductReview] = []
        rating = "N.A."
        if review is not None and files.reviews is not None:
            rec = loads(review[1]) if isinstance(review[1], str) else review[1]
            reviews, rating = review_entry(rec, review[0], asin, files.reviews)
        fields = product_fields(raw, asin, where, attr, [], reviews, rating, human_goals=False)
        blobs.append(encode(fields))
        titles.append(fields["title"])
        human_blobs.append(encode(humans) if humans else b"")
        pricing = fields["pricing"]
        lo.append(pricing[0])
        hi.append(pricing[1] if len(pricing) > 1 else pricing[0])
        ranged.append(len(pricing) > 1)
        if attr.instruction is not None:
            combos = 1
            for values in fields["options"].values():
                combos *= len(values)
            instructions.append((doc, combos, tuple(attr.instruction_attributes or ())))
        human_goals.extend((doc, j) for j, rec in enumerate(humans) if rec.get("instruction_attributes"))
        lengths.append(_add_terms(
            document_text(fields["title"], fields["description"], fields["bullet_points"], fields["options"]), ids))
    terms, term_ids, docs, tfs = _postings(ids, lengths, first_doc)
    return ChunkResult(
        first_doc=first_doc, products=b"".join(blobs), product_sizes=np.fromiter(map(len, blobs), np.int64, n),
        human=b"".join(human_blobs), human_sizes=np.fromiter(map(len, human_blobs), np.int64, n),
        price_lo=np.array(lo, dtype=np.float64), price_hi=np.array(hi, dtype=np.float64),
        is_range=np.array(ranged, dtype=np.bool_),
        terms=terms, term_ids=term_ids, docs=docs, tfs=tfs, lengths=np.array(lengths, dtype=np.int64),
        titles=titles, instructions=instructions, human_goals=human_goals)
