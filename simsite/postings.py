"""The inverted index both BM25 engines share: postings per term, document lengths, top k by id."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

import numpy as np

__all__ = ["Postings", "id_ranks", "invert", "top_k"]

#: term -> (document numbers, term frequencies), both numpy arrays in document order.
Postings = dict[str, tuple[np.ndarray, np.ndarray]]


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
    """The ``k`` best documents with a non-zero score, by score then id: (documents, scores)."""
    cand = np.flatnonzero(scores)
    cand_scores = scores[cand]
    if len(cand) > k:
        kth = np.partition(cand_scores, len(cand) - k)[len(cand) - k]
        keep = cand_scores >= kth
        cand, cand_scores = cand[keep], cand_scores[keep]
    order = np.lexsort((ranks[cand], -cand_scores))[:k]
    return cand[order], cand_scores[order]
