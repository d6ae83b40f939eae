"""Lucene 8's BM25 (k1=0.9, b=0.4) with its arithmetic: WebShop's Pyserini ranking, without Java.

What makes Lucene's scores Lucene's, each reproduced here:

- **Document lengths are stored in one byte** (``SmallFloat.intToByte4``): lengths below 24 are
  exact, longer ones keep four significant bits, rounded down. The average length is exact
  (total terms / documents), cast to a float.
- **Single-precision floats** everywhere Lucene uses them: ``idf`` (computed in double, then
  cast), the per-length factor ``1 / (k1 * (1 - b + b * len / avgdl))`` and a term's score
  ``w - w / (1 + tf * factor)`` with ``w = boost * idf`` (Lucene 8 dropped BM25's ``k1 + 1``
  numerator) are float operations, each rounded; a document's score is the double sum of its
  terms' scores, cast to float.
- **Query terms** are analysed like documents and counted; a term repeated n times is one clause
  boosted n times (Anserini's bag-of-words query).
- **Ties** go to the smaller document id string, i.e. the ASIN (Anserini sorts hits by score,
  then by the ``id`` field).

Per posting we keep ``1 + tf * factor`` (a float) and the term score of a once-used query term
(``idf - idf / denom``: 4 bytes a posting, which an in-memory catalog affords), so a query costs
only its terms' postings, and of those only the ones that can reach the top k (:mod:`.topk`).
:func:`anserini_scores` gives the scores as Pyserini reports them (rounded to four decimals).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence

import numpy as np

from shopsim.simsite.lucene.analysis import analyze, query_terms
from shopsim.simsite.lucene.topk import Hit, TermPostings, score_hits, term_postings
from shopsim.simsite.postings import Ranking, Terms, id_ranks, invert

__all__ = ["LuceneBM25", "LuceneRanker", "anserini_scores", "byte4_to_int", "int_to_byte4", "length_factors",
           "lucene_idf"]

_NUM_FREE_VALUES = 24  # 255 - longToInt4(Integer.MAX_VALUE)


def _long_to_int4(i: int) -> int:
    bits = i.bit_length()
    if bits < 4:
        return i
    shift = bits - 4
    return ((i >> shift) & 0x07) | ((shift + 1) << 3)


def _int4_to_long(i: int) -> int:
    bits, shift = i & 0x07, (i >> 3) - 1
    return bits if shift == -1 else (bits | 0x08) << shift


def int_to_byte4(length: int) -> int:
    """Lucene's one-byte encoding of a document length (``SmallFloat.intToByte4``)."""
    if length < _NUM_FREE_VALUES:
        return length
    return _NUM_FREE_VALUES + _long_to_int4(length - _NUM_FREE_VALUES)


def byte4_to_int(b: int) -> int:
    """The length a stored byte stands for (``SmallFloat.byte4ToInt``)."""
    return b if b < _NUM_FREE_VALUES else _NUM_FREE_VALUES + _int4_to_long(b - _NUM_FREE_VALUES)


_LENGTH_TABLE = np.array([byte4_to_int(i) for i in range(256)], dtype=np.float32)


class LuceneRanker:
    """A query's path through either Lucene index (in memory or a store's): analysed terms, their
    postings, the top k (:func:`~shopsim.simsite.lucene.topk.score_hits`), then ids.
    """

    doc_count: int
    _id_rank: np.ndarray

    def term_hits(self, terms: Terms) -> list[Hit]:
        """The postings of the analysed terms the index has, with their counts in the query."""
        raise NotImplementedError

    def ids_of(self, docs: list[int]) -> list[str]:
        """The ids of document numbers."""
        raise NotImplementedError

    def hits(self, query: str) -> list[Hit]:
        """:meth:`term_hits` of the query's analysed terms."""
        return self.term_hits(query_terms(query))

    def ranked(self, terms: Terms, k: int) -> Ranking:
        """Top ``k`` ``(id, score)`` pairs for analysed query terms, best first."""
        docs, best = score_hits(self.term_hits(terms), self.doc_count, self._id_rank, k)
        return tuple(zip(self.ids_of(docs.tolist()), best.tolist(), strict=True))

    def scored(self, query: str, k: int) -> list[tuple[str, float]]:
        """Top ``k`` ``(id, score)`` pairs, best first; only documents sharing a term appear."""
        return list(self.ranked(query_terms(query), k))

    def search(self, query: str, k: int) -> list[str]:
        """Top ``k`` ids, best first."""
        return [doc_id for doc_id, _ in self.ranked(query_terms(query), k)]


class LuceneBM25(LuceneRanker):
    """An in-memory inverted index that scores and orders hits exactly as WebShop's Lucene index."""

    def __init__(self, ids: Sequence[str], documents: Iterable[str], k1: float = 0.9, b: float = 0.4):
        self.ids = list(ids)
        n = len(self.ids)
        postings, lengths = invert((analyze(text) for text in documents), n)
        f32 = np.float32
        self.k1, self.b = f32(k1), f32(b)
        self.doc_count = n
        factor, self.avgdl = length_factors(lengths, k1, b)
        built: dict[str, TermPostings] = {}
        for term, (d, tfs) in postings.items():
            built[term] = term_postings(d, f32(1.0) + tfs.astype(f32) * factor[d], self._idf(len(d)))
        self._postings: Mapping[str, TermPostings] = built
        self._id_rank = id_ranks(self.ids)

    @classmethod
    def from_postings(cls, ids: Sequence[str], postings: Mapping[str, TermPostings], avgdl: np.float32,
                      k1: float = 0.9, b: float = 0.4) -> LuceneBM25:
        """The index over postings built before (a saved index's): nothing is analysed again."""
        index = cls.__new__(cls)
        index.ids = list(ids)
        index.k1, index.b = np.float32(k1), np.float32(b)
        index.doc_count = len(index.ids)
        index.avgdl = avgdl
        index._postings = postings
        index._id_rank = id_ranks(index.ids)
        return index

    @property
    def postings(self) -> Mapping[str, TermPostings]:
        """Every term's postings, in the order the terms first appear in the documents (read-only use)."""
        return self._postings

    def _idf(self, doc_freq: int) -> np.float32:
        return lucene_idf(self.doc_count, doc_freq)

    def term_hits(self, terms: Terms) -> list[Hit]:
        """The postings of the analysed terms the index has, with their counts in the query."""
        postings = self._postings
        return [(postings[t], qtf) for t, qtf in terms if t in postings]

    def ids_of(self, docs: list[int]) -> list[str]:
        """The ids of document numbers."""
        ids = self.ids
        return [ids[d] for d in docs]


def lucene_idf(doc_count: int, doc_freq: int) -> np.float32:
    """Lucene's BM25 idf, computed in double and stored as a float."""
    return np.float32(math.log(1 + (doc_count - doc_freq + 0.5) / (doc_freq + 0.5)))


def length_factors(lengths: np.ndarray, k1: float = 0.9, b: float = 0.4) -> tuple[np.ndarray, np.float32]:
    """Each document's ``1 / (k1 * (1 - b + b * len / avgdl))`` as Lucene computes it, and ``avgdl``.

    Lengths go through Lucene's one-byte norm (:func:`int_to_byte4`) first; the arithmetic is
    single precision, like Lucene's cached per-norm table.
    """
    n = len(lengths)
    distinct, inverse = np.unique(np.asarray(lengths, dtype=np.int64), return_inverse=True)
    norms = np.array([int_to_byte4(int(x)) for x in distinct], dtype=np.uint8)[inverse]
    f32 = np.float32
    k1_, b_ = f32(k1), f32(b)
    avgdl = f32(int(np.sum(lengths, dtype=np.int64)) / n) if n else f32(1.0)
    cache = f32(1.0) / (k1_ * ((f32(1.0) - b_) + b_ * _LENGTH_TABLE / avgdl))
    return cache[norms], avgdl


def anserini_scores(scores: Sequence[float]) -> list[float]:
    """Scores as Pyserini returns them, from Lucene's, best first (Anserini's tie adjuster).

    Anserini rounds every score to four decimals and lowers each member of a run of equal
    scores by one millionth more than the one before, so that the order survives the rounding.
    """
    out: list[float] = []
    dup = 0
    for score in scores:
        rounded = math.floor(score * 1e4 + 0.5) / 1e4
        if out and out[-1] - rounded <= 1e-4:
            dup += 1
            rounded -= 1e-6 * dup
        else:
            dup = 0
        out.append(float(np.float32(rounded)))
    return out
