"""Lucene's top k without scoring every document a query reaches (MaxScore, exact).

A query with common words ("size", "color", "price" in every goal instruction) reaches most of a
1.18M catalog; scoring all of those documents costs tens of milliseconds. MaxScore (Turtle and
Flood, 1995) skips documents that provably cannot be in the answer, here over whole arrays:

1. **A threshold θ**, a lower bound of the answer's k-th score: the k-th best full score of a
   seed (the rarest terms' best documents), raised later by the k-th best partial score of the
   candidates (a partial sum of a document's term scores is a lower bound of its score).
2. **Essential terms.** A term's best possible score is ``w - w / max(1 + tf * factor)`` (the
   term score grows with its denominator). Terms are taken from the weakest up while their best
   scores sum to less than θ; a document holding only those terms scores below θ, so only
   documents holding an essential term are candidates.
3. **Pruning.** The candidates' essential scores are summed; the skipped terms are looked up
   from the strongest down, and after each a candidate whose sum plus the best the remaining
   terms could add falls below θ is dropped.
4. **Scores.** The few survivors are scored in full (every query term, in the query's order,
   summed in double and cast to float, as :func:`score_hits_all` does) and ranked by score, then id.

The answer equals :func:`score_hits_all`'s exactly, ties included: every comparison with θ has a
margin wider than the rounding of a float, so a dropped document scores strictly below the k-th.
"""

from __future__ import annotations

import math
import threading
from typing import overload

import numpy as np

from shopsim.simsite.postings import best_of

__all__ = ["Hit", "candidates", "score_hits", "score_hits_all"]

Hit = tuple[tuple[np.ndarray, np.ndarray, np.float32], int]
"""A query term's postings ``(documents, 1 + tf * factor, idf)`` and its count in the query."""

_Term = tuple[np.ndarray, np.ndarray, np.float32]  # documents (ascending), denominators, weight

_MARGIN = 1e-6
"""Relative slack in every comparison with θ; a float's rounding is 6e-8, a double sum's far less."""

_SEED = 500
"""Documents per seed term scored in full for the first θ (the term's highest term scores)."""

_SEED_TERMS = 3
"""The rarest terms whose best documents make the seed (the answer's documents hold rare terms)."""

_PROBE = 256
"""Candidates with the best essential sums scored in full to raise θ before the skipped terms."""

_DENSE_FROM = 32
"""Postings longer than ``doc_count / 32`` in all are summed in a dense array, not merged."""


def score_hits(hits: list[Hit], doc_count: int, id_rank: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Lucene's scores of the best ``k`` documents the hits reach, by score then id: (documents, scores)."""
    if not hits or k <= 0:
        return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.float32)
    terms = _terms(hits)
    if len(terms) == 1:  # one term: its own scores are the documents' (a float plus 0.0 in double)
        docs, denom, w = terms[0]
        return best_of(docs, _term_score(denom, w), id_rank, k)
    cand = _candidates(terms, doc_count, k)
    return best_of(cand, _scores(cand, terms), id_rank, k)


def candidates(hits: list[Hit], doc_count: int, k: int) -> np.ndarray:
    """The documents :func:`score_hits` scores in full (what pruning leaves), ascending."""
    return _candidates(_terms(hits), doc_count, k) if hits and k > 0 else np.empty(0, dtype=np.int64)


def score_hits_all(hits: list[Hit], doc_count: int, id_rank: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """The reference: every reached document scored into one dense array (what Lucene's sum is)."""
    if not hits or k <= 0:
        return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.float32)
    scores = np.zeros(doc_count, dtype=np.float64)
    for (docs, denom, idf), qtf in hits:
        scores[docs] += _term_score(denom, np.float32(qtf) * idf)  # float terms, summed in double
    cast = scores.astype(np.float32)
    cand = np.flatnonzero(cast)
    return best_of(cand, cast[cand], id_rank, k)


def _terms(hits: list[Hit]) -> list[_Term]:
    return [(docs, denom, np.float32(qtf) * idf) for (docs, denom, idf), qtf in hits]


@overload
def _term_score(denom: np.ndarray, w: np.float32) -> np.ndarray: ...
@overload
def _term_score(denom: np.float32, w: np.float32) -> np.floating: ...
def _term_score(denom: np.ndarray | np.float32, w: np.float32) -> np.ndarray | np.floating:
    """Lucene 8's BM25 term score in float: ``w - w / (1 + tf * factor)``."""
    return w - w / denom


def _kth(values: np.ndarray, k: int) -> float:
    return float(np.partition(values, len(values) - k)[len(values) - k]) if len(values) >= k else 0.0


def _candidates(terms: list[_Term], doc_count: int, k: int) -> np.ndarray:
    """The documents that can reach the top ``k``, ascending (steps 1-3 of the module docstring)."""
    if len(terms) == 1:
        return terms[0][0]
    bounds = [float(_term_score(denom.max(), w)) if len(docs) else 0.0 for docs, denom, w in terms]
    seed = _seed(terms, doc_count, k)
    theta = _kth(_scores(seed, terms), k) * (1 - _MARGIN)
    skipped: list[int] = []
    total = 0.0
    for i in sorted(range(len(terms)), key=bounds.__getitem__):
        total += bounds[i]
        if total * (1 + _MARGIN) >= theta:
            break
        skipped.append(i)
    rest = sum(bounds[i] for i in skipped)
    cand, partial = _essential_sums([t for i, t in enumerate(terms) if i not in skipped], doc_count,
                                    theta / (1 + _MARGIN) - rest)
    if skipped and len(cand) > _PROBE:  # the best partial sums, scored in full: θ near the answer's
        probe = np.sort(cand[np.argpartition(partial, len(cand) - _PROBE)[-_PROBE:]])
        theta = max(theta, _kth(_scores(probe, terms), k) * (1 - _MARGIN))
    theta = max(theta, _kth(partial, k) * (1 - _MARGIN))
    skipped.sort(key=bounds.__getitem__, reverse=True)
    for j, i in enumerate(skipped):
        keep = (partial + sum(bounds[x] for x in skipped[j:])) * (1 + _MARGIN) >= theta
        cand, partial = cand[keep], partial[keep]
        partial += _at(cand, terms[i])
        theta = max(theta, _kth(partial, k) * (1 - _MARGIN))
    return cand[partial * (1 + _MARGIN) >= theta]


def _seed(terms: list[_Term], doc_count: int, k: int) -> np.ndarray:
    """At least ``k`` documents likely to score well: the rarest terms' best ones, ascending."""
    picked: list[np.ndarray] = []
    count = 0
    for docs, denom, _ in sorted(terms, key=lambda t: len(t[0])):
        if len(docs) > _SEED:
            docs = np.sort(docs[np.argpartition(denom, len(docs) - _SEED)[-_SEED:]])
        picked.append(docs)
        count += len(docs)
        if count >= 2 * k and len(picked) >= _SEED_TERMS:
            break
    return picked[0] if len(picked) == 1 else _union(picked, doc_count)


def _union(lists: list[np.ndarray], doc_count: int) -> np.ndarray:
    """The ascending union of ascending document lists."""
    if sum(len(x) for x in lists) * _DENSE_FROM > doc_count:
        mark = np.zeros(doc_count, dtype=np.bool_)
        for docs in lists:
            mark[docs] = True
        return np.flatnonzero(mark)
    return np.unique(np.concatenate(lists))


def _essential_sums(terms: list[_Term], doc_count: int, floor: float) -> tuple[np.ndarray, np.ndarray]:
    """The documents holding one of ``terms`` whose sum of those terms' scores is at least
    ``floor`` (ascending; below it even the skipped terms' best cannot lift them), and the sums.
    """
    if len(terms) == 1:
        docs, denom, w = terms[0]
        cand, partial = docs, _term_score(denom, w).astype(np.float64)
    elif sum(len(t[0]) for t in terms) * _DENSE_FROM > doc_count:
        acc, mark = _scratch(doc_count, np.float64), _scratch(doc_count, np.bool_)
        try:
            for docs, denom, w in terms:
                at = _indices(docs)
                acc[at] += _term_score(denom, w)
                mark[at] = True
            cand = np.flatnonzero(mark[:doc_count])  # a byte per document: faster to scan than the sums
            partial = acc[cand]
        finally:
            for docs, _, _ in terms:
                at = _indices(docs)
                acc[at] = 0.0
                mark[at] = False
    else:
        cand = np.unique(np.concatenate([t[0] for t in terms]))
        partial = np.zeros(len(cand), dtype=np.float64)
        for term in terms:
            partial += _at(cand, term)
    keep = partial >= floor
    return cand[keep], partial[keep]


def _at(cand: np.ndarray, term: _Term) -> np.ndarray:
    """The term's score of each candidate (0 where the candidate lacks the term), as floats.

    Two sorted lists are joined by binary search when one is much shorter than the other, and
    through a dense scratch array (written, read, cleared) when both are long.
    """
    docs, denom, w = term
    if not len(cand) or not len(docs):
        return np.zeros(len(cand), dtype=np.float32)
    short, long = sorted((len(cand), len(docs)))
    if short * math.log2(long) > 2 * (short + long):
        buf = _scratch(int(max(cand[-1], docs[-1])) + 1, np.float32)
        at = _indices(docs)
        try:
            buf[at] = _term_score(denom, w)
            return buf[cand]
        finally:
            buf[at] = 0.0
    out = np.zeros(len(cand), dtype=np.float32)
    # the shorter list takes the longer one's type: a search across types converts the longer one
    if len(docs) <= len(cand):  # find the term's documents among the candidates
        pos = np.minimum(np.searchsorted(cand, docs.astype(cand.dtype, copy=False)), len(cand) - 1)
        found = cand[pos] == docs
        out[pos[found]] = _term_score(denom[found], w)
    else:  # find the candidates among the term's documents
        pos = np.minimum(np.searchsorted(docs, cand.astype(docs.dtype, copy=False)), len(docs) - 1)
        found = docs[pos] == cand
        out[found] = _term_score(denom[pos[found]], w)
    return out


def _indices(docs: np.ndarray) -> np.ndarray:
    """Document numbers as native indices (numpy would convert int32 on every fancy index)."""
    return docs.astype(np.intp, copy=False)


_local = threading.local()


def _scratch(size: int, dtype: type[np.generic]) -> np.ndarray:
    """A zeroed array of at least ``size`` for this thread, reused across queries (a fresh one
    would cost its page faults on every query); the caller clears what it wrote.
    """
    key = np.dtype(dtype).name
    buf = getattr(_local, key, None)
    if buf is None or len(buf) < size:
        buf = np.zeros(max(size, 1024), dtype=dtype)
        setattr(_local, key, buf)
    return buf


def _scores(cand: np.ndarray, terms: list[_Term]) -> np.ndarray:
    """Every query term's score of each candidate, summed in the query's order in double, as float."""
    acc = np.zeros(len(cand), dtype=np.float64)
    for term in terms:
        acc += _at(cand, term)
    return acc.astype(np.float32)
