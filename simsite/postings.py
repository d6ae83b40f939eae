"""The inverted index both BM25 engines share: postings per term, document lengths, top k by id."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

import numpy as np

__all__ = ["Postings", "Ranking", "Terms", "best_of", "id_ranks", "invert", "top_k"]

#: term -> (document numbers, term frequencies), both numpy arrays in document order.
Postings = dict[str, tuple[np.ndarray, np.ndarray]]

Terms = tuple[tuple[str, int], ...]
"""A query as an engine scores it: its analysed terms and their counts, in the order they first appear."""

Ranking = tuple[tuple[str, float], ...]
"""``(id, score)`` pairs, best first; a tuple, so that a remembered ranking cannot be changed by a caller."""


def invert(documents: Iterable[list[str]], n: int) -> tuple[Postings, np.ndarray]:
    """Postings and each document's length (in terms) for ``n`` analysed documents."""
    lists: dict[str, tuple[list[int], list[int]]] = {}
    lengths = np.zeros(n, dtype=np.int64)
    seen = 0
    for doc, terms in enumerate(documents):
        if doc >= n:
            raise ValueError(f"more documents than the {n} ids")
        seen += 1
        counts = Counter(terms)
        lengths[doc] = len(terms)
        for term, tf in counts.items():
            entry = lists.get(term)
            if entry is None:
                entry = lists[term] = ([], [])
            entry[0].append(doc)
            entry[1].append(tf)
    if seen != n:
        raise ValueError(f"{n} ids but {seen} documents")
    postings = {t: (np.asarray(d, dtype=np.int32), np.asarray(tf, dtype=np.int32)) for t, (d, tf) in lists.items()}
    return postings, lengths


def id_ranks(ids: Sequence[str]) -> np.ndarray:
    """Each document's position in id order, the tie-break of every engine."""
    order = sorted(range(len(ids)), key=ids.__getitem__)
    ranks = np.empty(len(ids), dtype=np.int64)
    ranks[order] = np.arange(len(ids))
    return ranks


def top_k(scores: np.ndarray, ranks: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """The ``k`` best documents with a non-zero score, by score then id: (documents, scores).

    When most documents score (a query with a common word reaches most of a 1.18M catalog) and
    the k-th best score is positive, only documents at or above it can be in the answer: they are
    found with one comparison instead of gathering every non-zero score first. Non-zero is
    tested on a boolean mask, several times faster than ``flatnonzero`` on floats.
    """
    n = len(scores)
    nonzero = scores != 0
    if k > 0 and n > 4 * k and np.count_nonzero(nonzero) > n // 2:
        kth = np.partition(scores, n - k)[n - k]
        if kth > 0:
            cand = np.flatnonzero(scores >= kth)
            order = np.lexsort((ranks[cand], -scores[cand]))[:k]
            return cand[order], scores[cand][order]
    cand = np.flatnonzero(nonzero)
    return best_of(cand, scores[cand], ranks, k)


def best_of(cand: np.ndarray, cand_scores: np.ndarray, ranks: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """The ``k`` best of the candidate documents with a non-zero score, by score then id."""
    if len(cand) and not cand_scores.all():
        keep = cand_scores != 0
        cand, cand_scores = cand[keep], cand_scores[keep]
    if len(cand) > k:
        kth = np.partition(cand_scores, len(cand) - k)[len(cand) - k]
        keep = cand_scores >= kth
        cand, cand_scores = cand[keep], cand_scores[keep]
    order = np.lexsort((ranks[cand], -cand_scores))[:k]
    return cand[order], cand_scores[order]
