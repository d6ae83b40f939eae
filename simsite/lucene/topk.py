"""Lucene's top k by the cheaper of two exact algorithms, chosen per query by a measured rule.

**Exhaustive.** Every posting of every query term is summed per document in one ``bincount``
over the terms' postings laid end to end (its loop adds in input order, so each document's sum
takes its terms in the query's order: Lucene's sum). A handful of numpy calls however many terms
the query has: what a small catalog wants. Where the postings are few next to the catalog (under
a third of it), a stable sort first brings each document's postings together, so the sums cover
the reached documents only instead of a catalog-wide array.

**MaxScore** (Turtle and Flood, 1995) skips documents that provably cannot be in the answer, here
over whole arrays:

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

Its answer equals :func:`score_hits_all`'s exactly, ties included: every comparison with θ has a
margin wider than the rounding of a float, so a dropped document scores strictly below the k-th.
It costs some sixty numpy calls whatever the query, and reads only the rare terms' postings in
full: what queries reaching millions of postings want.

**The rule** (:func:`exhaustive_pays`): exhaustive when the query's terms have at most
``_EXHAUSTIVE_MAX`` (200,000) postings in all, MaxScore above. Measured with
``benchmarks/search_topk.py --calibrate --clock cpu`` (both algorithms forced on every query,
medians of 5, alternating; goal instructions, product queries and random mixes of 2-30 words of
the instructions) on WebShop's 1,000 products and seeded catalogs of 100,000 and 1,180,000, CPU
milliseconds p50:

======== ======================== ============ ========= ===================
products postings                 exhaustive   MaxScore  exhaustive faster
======== ======================== ============ ========= ===================
1k       all (< 10,000)           0.10         0.90      448 of 448
100k     all (< 250,000)          1.3          3.6       446 of 446
100k     100,000-150,000          1.8          5.0       96 of 96
1.18M    < 100,000                2.0          3.0       51 of 52
1.18M    100,000-200,000          3.9          5.2       48 of 63
1.18M    200,000-300,000          7.1          6.6       20 of 44
1.18M    300,000-1M, real queries 11.3         8.7       4 of 60
1.18M    > 1M, instructions       18.8         14.8      11 of 118
======== ======================== ============ ========= ===================

The count of postings decides: the crossover sits near 200,000 at 1.18M, the smaller catalogs'
queries never reach it (every one is faster exhaustive), and the number of terms does not move it
for real queries. So every goal instruction is exhaustive at 1k and 100k, and nearly all take
MaxScore at 1.18M. Random word mixes are the exception the rule leaves alone: their rare words
share no document, θ stays low and MaxScore prunes little (1.18M, over 1M postings: 22 ms
exhaustive, 52 MaxScore); no measure known before the search tells them from instructions.

Per posting a term may carry its qtf=1 term score precomputed (:class:`TermPostings`'s
``scores``): an exhaustive query then sums stored floats, and MaxScore gathers them, instead of
dividing. A term repeated in the query is one clause boosted by its count: its scores are
computed from the denominators, as before.

A common term of a large catalog (:func:`dense_pays`: 500,000 documents or more, the term in one
of 16) may also carry every document's score (``dense``, 0.0 where it is absent): MaxScore's
lookups of it at the seed, the probe, the pruned candidates and the survivors are then one gather
each. Measured at 1.18M products (CPU, 300 goal instructions, same process, rankings identical):
``score_hits`` p50/p95 5.5/10.6 ms without, 3.9/8.1 ms with; the common terms are where MaxScore
spends its lookups, and a binary search into half a million postings misses the cache at each step.
"""

from __future__ import annotations

import math
from typing import Literal, NamedTuple, overload

import numpy as np

from shopsim.simsite.lucene.scratch import buffer, indices, scratch
from shopsim.simsite.postings import best_of, top_k

__all__ = ["Algorithm", "Hit", "TermPostings", "candidates", "dense_pays", "exhaustive_pays", "score_hits", "score_hits_all",
           "term_postings"]

Algorithm = Literal["auto", "exhaustive", "maxscore"]


class TermPostings(NamedTuple):
    """A term's postings and what every query of it needs, computed once."""

    docs: np.ndarray
    """Document numbers, ascending (int32)."""
    denom: np.ndarray
    """Each posting's ``1 + tf * factor`` (float32): the term score's denominator."""
    idf: np.float32
    """The term's idf (float32, Lucene's)."""
    max_denom: np.float32
    """The largest denominator: it gives the term's best score (MaxScore's bound)."""
    scores: np.ndarray | None = None
    """Each posting's term score for a clause of weight ``idf`` (``idf - idf / denom``), when kept."""
    dense: np.ndarray | None = None
    """Every document's qtf=1 term score, 0.0 where the term is absent (float32, one per document),
    when kept: a common term of a large catalog, whose scores MaxScore looks up at its candidates
    (one gather instead of a binary search, or a scatter and a clear, per lookup)."""


Hit = tuple[TermPostings, int]
"""A query term's postings and its count in the query."""


def term_postings(docs: np.ndarray, denom: np.ndarray, idf: np.float32, keep_scores: bool = True,
                  dense_over: int = 0) -> TermPostings:
    """A term's :class:`TermPostings`: its bound, its qtf=1 term scores when ``keep_scores``, and
    the scores of all ``dense_over`` documents when that is not 0 (a store asks :func:`dense_pays`).
    """
    max_denom = np.float32(denom.max()) if len(denom) else np.float32(1.0)
    dense = None
    if dense_over:
        dense = np.zeros(dense_over, dtype=np.float32)
        dense[indices(docs)] = _term_score(denom, idf)
        dense.flags.writeable = False  # kept and shared by every query of the term
    return TermPostings(docs, denom, idf, max_denom, _term_score(denom, idf) if keep_scores else None, dense)


def dense_pays(postings: int, doc_count: int) -> bool:
    """Whether a term's scores are worth keeping for every document (:attr:`TermPostings.dense`):
    a catalog where MaxScore runs and a term in at least one document of ``_DENSE_TERM_FROM``.
    """
    return doc_count >= _DENSE_TERM_MIN_DOCS and postings * _DENSE_TERM_FROM >= doc_count


class _Term(NamedTuple):
    """A query clause: the term's postings, its weight ``qtf * idf`` and its best score."""

    docs: np.ndarray
    denom: np.ndarray
    w: np.float32
    scores: np.ndarray | None
    bound: float
    dense: np.ndarray | None = None


_MARGIN = 1e-6
"""Relative slack in every comparison with θ; a float's rounding is 6e-8, a double sum's far less."""

_SEED = 500
"""Documents per seed term scored in full for the first θ (the term's highest term scores)."""

_SEED_TERMS = 3
"""The rarest terms whose best documents make the seed (the answer's documents hold rare terms)."""

_PROBE = 256
"""Candidates with the best essential sums scored in full to raise θ before the skipped terms."""

_DENSE_FROM = 3
"""Postings longer than ``doc_count / 3`` in all are summed in a dense array, not merged by a sort
(measured: at 100k documents the two meet near a fifth of the catalog, at 1.18M near a third)."""

_DENSE_TERM_FROM = 16
"""A term in at least one document of 16 keeps a dense score array (4 bytes a document): measured at
1.18M products, MaxScore's lookups of such terms are most of a long query's time."""

_DENSE_TERM_MIN_DOCS = 500_000
"""Smaller catalogs never keep dense scores: their queries are scored exhaustively (the rule below)."""

_EXHAUSTIVE_MAX = 200_000
"""Queries with at most this many postings in all are scored exhaustively (the module's rule)."""

_EMPTY = (np.empty(0, dtype=np.int64), np.empty(0, dtype=np.float32))
for _array in _EMPTY:
    _array.flags.writeable = False  # shared by every empty answer


def exhaustive_pays(postings: int) -> bool:
    """Whether scoring every posting beats MaxScore for a query whose terms have ``postings`` in all
    (the rule in the module docstring: the catalog's size and the number of terms did not move it).
    """
    return postings <= _EXHAUSTIVE_MAX


def score_hits(hits: list[Hit], doc_count: int, id_rank: np.ndarray, k: int,
               algorithm: Algorithm = "auto") -> tuple[np.ndarray, np.ndarray]:
    """Lucene's scores of the best ``k`` documents the hits reach, by score then id: (documents, scores).

    ``algorithm`` forces one of the two (tests compare both with :func:`score_hits_all`).
    """
    if not hits or k <= 0:
        return _EMPTY
    if len(hits) == 1:  # one term: its own scores are the documents' (a float plus 0.0 in double)
        return best_of(hits[0][0].docs, _clause_scores(*hits[0]), id_rank, k)
    if algorithm == "exhaustive" or (
            algorithm == "auto" and exhaustive_pays(sum(len(p.docs) for p, _ in hits))):
        return _exhaustive(hits, doc_count, id_rank, k)
    terms = _terms(hits)
    cand = _candidates(terms, doc_count, k)
    return best_of(cand, _scores(cand, terms), id_rank, k)


def candidates(hits: list[Hit], doc_count: int, k: int) -> np.ndarray:
    """The documents MaxScore scores in full (what pruning leaves), ascending."""
    return _candidates(_terms(hits), doc_count, k) if hits and k > 0 else np.empty(0, dtype=np.int64)


def score_hits_all(hits: list[Hit], doc_count: int, id_rank: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """The reference: every reached document scored into one dense array (what Lucene's sum is)."""
    if not hits or k <= 0:
        return _EMPTY
    scores = np.zeros(doc_count, dtype=np.float64)
    for p, qtf in hits:
        scores[p.docs] += _term_score(p.denom, np.float32(qtf) * p.idf)  # float terms, summed in double
    cast = scores.astype(np.float32)
    cand = np.flatnonzero(cast)
    return best_of(cand, cast[cand], id_rank, k)


def _terms(hits: list[Hit]) -> list[_Term]:
    out = []
    for p, qtf in hits:
        w = p.idf if qtf == 1 else np.float32(qtf) * p.idf  # float32(1) * idf is idf
        bound = float(_term_score(p.max_denom, w)) if len(p.docs) else 0.0
        out.append(_Term(p.docs, p.denom, w, p.scores if qtf == 1 else None, bound, p.dense if qtf == 1 else None))
    return out


@overload
def _term_score(denom: np.ndarray, w: np.float32) -> np.ndarray: ...
@overload
def _term_score(denom: np.float32, w: np.float32) -> np.floating: ...
def _term_score(denom: np.ndarray | np.float32, w: np.float32) -> np.ndarray | np.floating:
    """Lucene 8's BM25 term score in float: ``w - w / (1 + tf * factor)``."""
    return w - w / denom


def _full(term: _Term) -> np.ndarray:
    """The term's score of each of its documents (kept ones, or computed)."""
    return term.scores if term.scores is not None else _term_score(term.denom, term.w)


def _clause_scores(p: TermPostings, qtf: int) -> np.ndarray:
    """The term scores of a clause of weight ``qtf * idf`` for every document of the term."""
    if qtf == 1 and p.scores is not None:
        return p.scores
    return _term_score(p.denom, p.idf if qtf == 1 else np.float32(qtf) * p.idf)


def _exhaustive(hits: list[Hit], doc_count: int, id_rank: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Every posting summed per document (``bincount`` adds in input order: the query's term order)."""
    docs = [p.docs for p, _ in hits]
    weights = [_clause_scores(p, qtf) for p, qtf in hits]
    total = sum(len(d) for d in docs)
    if total * _DENSE_FROM > doc_count:  # laid end to end in reused buffers, as bincount wants them
        at = np.concatenate(docs, out=buffer(total, np.intp, "docs"), casting="same_kind")
        w = np.concatenate(weights, out=buffer(total, np.float64, "weights"), casting="same_kind")
        return top_k(np.bincount(at, w, doc_count).astype(np.float32), id_rank, k)
    cand, sums = _merged_sums(docs, weights)  # few postings in a large catalog: the reached documents only
    return best_of(cand, sums.astype(np.float32), id_rank, k)


def _merged_sums(docs: list[np.ndarray], weights: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """The documents of ascending lists (ascending, once each) and the double sums of their weights,
    added in the lists' order: a stable sort keeps each document's postings in that order, and
    ``bincount`` adds in input order (``add.reduceat`` need not: numpy sums float runs pairwise).
    """
    total = sum(len(x) for x in docs)
    if not total:
        return np.empty(0, dtype=np.int32), np.zeros(0, dtype=np.float64)
    d = np.concatenate(docs, out=buffer(total, np.int32, "docs"), casting="same_kind")
    order = d.argsort(kind="stable")  # a merge of sorted runs
    d = np.take(d, order, out=buffer(total, np.int32, "sorted docs"), mode="clip")  # clip: unbuffered
    w = np.concatenate(weights, out=buffer(total, np.float64, "weights"), casting="same_kind")
    w = np.take(w, order, out=buffer(total, np.float64, "sorted weights"), mode="clip")
    first = buffer(total, np.bool_, "first")
    first[0] = True
    np.not_equal(d[1:], d[:-1], out=first[1:])
    cand = d[first]
    slot = np.cumsum(first, out=buffer(total, np.intp, "slots"))
    slot -= 1
    return cand, np.bincount(slot, w, len(cand))


def _kth(values: np.ndarray, k: int) -> float:
    return float(np.partition(values, len(values) - k)[len(values) - k]) if len(values) >= k else 0.0


def _candidates(terms: list[_Term], doc_count: int, k: int) -> np.ndarray:
    """The documents that can reach the top ``k``, ascending (steps 1-3 of the module docstring)."""
    if len(terms) == 1:
        return terms[0].docs
    bounds = [t.bound for t in terms]
    theta = _kth(_scores(_seed(terms, doc_count, k), terms), k) * (1 - _MARGIN)
    skipped = _skipped(bounds, theta)
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


def _skipped(bounds: list[float], theta: float) -> list[int]:
    """The terms, weakest first, whose best scores together stay below θ (step 2)."""
    skipped: list[int] = []
    total = 0.0
    for i in sorted(range(len(bounds)), key=bounds.__getitem__):
        total += bounds[i]
        if total * (1 + _MARGIN) >= theta:
            break
        skipped.append(i)
    return skipped


def _seed(terms: list[_Term], doc_count: int, k: int) -> np.ndarray:
    """At least ``k`` documents likely to score well: the rarest terms' best ones, ascending."""
    picked: list[np.ndarray] = []
    count = 0
    for term in sorted(terms, key=lambda t: len(t.docs)):
        docs = term.docs
        if len(docs) > _SEED:
            docs = np.sort(docs[np.argpartition(term.denom, len(docs) - _SEED)[-_SEED:]])
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
        cand, partial = terms[0].docs, _full(terms[0]).astype(np.float64)
    elif sum(len(t.docs) for t in terms) * _DENSE_FROM > doc_count:
        acc, mark = scratch(doc_count, np.float64), scratch(doc_count, np.bool_)
        try:
            for term in terms:
                at = indices(term.docs)
                acc[at] += _full(term)
                mark[at] = True
            cand = np.flatnonzero(mark[:doc_count])  # a byte per document: faster to scan than the sums
            partial = acc[cand]
        finally:
            for term in terms:
                at = indices(term.docs)
                acc[at] = 0.0
                mark[at] = False
    else:
        cand, partial = _merged_sums([t.docs for t in terms], [_full(t) for t in terms])
    keep = partial >= floor
    return cand[keep], partial[keep]


def _at(cand: np.ndarray, term: _Term) -> np.ndarray:
    """The term's score of each candidate (0 where the candidate lacks the term), as floats.

    A term with kept dense scores is one gather. Otherwise two sorted lists are joined by binary
    search when one is much shorter than the other, and through a dense scratch array (written,
    read, cleared) when both are long.
    """
    docs, denom, w, scores, _, dense = term
    if dense is not None:
        return dense[indices(cand)]
    if not len(cand) or not len(docs):
        return np.zeros(len(cand), dtype=np.float32)
    short, long = sorted((len(cand), len(docs)))
    if short * math.log2(long) > 2 * (short + long):
        buf = scratch(int(max(cand[-1], docs[-1])) + 1, np.float32)
        at = indices(docs)
        try:
            buf[at] = _full(term)
            return buf[cand]
        finally:
            buf[at] = 0.0
    out = np.zeros(len(cand), dtype=np.float32)
    # the shorter list takes the longer one's type: a search across types converts the longer one
    if len(docs) <= len(cand):  # find the term's documents among the candidates
        pos = np.minimum(np.searchsorted(cand, docs.astype(cand.dtype, copy=False)), len(cand) - 1)
        found = cand[pos] == docs
        out[pos[found]] = scores[found] if scores is not None else _term_score(denom[found], w)
    else:  # find the candidates among the term's documents
        pos = np.minimum(np.searchsorted(docs, cand.astype(docs.dtype, copy=False)), len(docs) - 1)
        found = docs[pos] == cand
        hit = pos[found]
        out[found] = scores[hit] if scores is not None else _term_score(denom[hit], w)
    return out


def _scores(cand: np.ndarray, terms: list[_Term]) -> np.ndarray:
    """Every query term's score of each candidate, summed in the query's order in double, as float."""
    acc = np.zeros(len(cand), dtype=np.float64)
    for term in terms:
        acc += _at(cand, term)
    return acc.astype(np.float32)
