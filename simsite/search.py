"""Search engines over WebShop's search documents, all returning ASINs best first.

``BM25Index`` is the default: an inverted index in numpy with Lucene's BM25 (k1=0.9, b=0.4, as
WebShop's Pyserini index), whose per-posting weights are precomputed, so a query costs only its
terms' postings. Ties are broken by ASIN, explicitly. ``RankBM25Engine`` wraps the card's
rank-bm25 for comparison (it scores every document per query). ``FixedResults`` replays recorded
rankings, e.g. WebShop's own, for compatibility tests.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Protocol

import numpy as np

from shopsim.simsite.models import Product

__all__ = [
    "MAX_QUERY_CHARS",
    "SEARCH_RETURN_N",
    "BM25Index",
    "FixedResults",
    "RankBM25Engine",
    "SearchEngine",
    "product_document",
    "stem",
    "tokenize",
]

SEARCH_RETURN_N = 50
MAX_QUERY_CHARS = 1000
_TOKEN = re.compile(r"[a-z0-9]+")
# Lucene's English stop set, which Pyserini's default analyzer drops.
_STOP = frozenset(
    ["a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in", "into", "is", "it", "no", "not", "of", "on", "or", "such", "that", "the", "their", "then", "there", "these", "they", "this", "to", "was", "will", "with"]
)


class SearchEngine(Protocol):
    """Anything that ranks products for a query."""

    def search(self, query: str, k: int = SEARCH_RETURN_N) -> list[str]:
        """Return up to ``k`` ASINs, best first, deterministically."""
        ...


def stem(word: str) -> str:
    """A light plural stemmer (Harman's S-stemmer): shoes -> shoe, batteries -> battery."""
    if len(word) > 3 and word.endswith("ies") and not word.endswith(("eies", "aies")):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("es") and not word.endswith(("aes", "ees", "oes", "ses")):
        return word[:-1]
    if len(word) > 2 and word.endswith("s") and not word.endswith(("us", "ss")):
        return word[:-1]
    return word


_STEM_CACHE: dict[str, str] = {}


def tokenize(text: str) -> list[str]:
    """Lower-case alphanumeric tokens, stop words dropped, plurals folded."""
    cache = _STEM_CACHE
    out = []
    for tok in _TOKEN.findall(text.lower()):
        if tok in _STOP:
            continue
        folded = cache.get(tok)
        if folded is None:
            folded = cache[tok] = stem(tok)
        out.append(folded)
    return out


def product_document(p: Product) -> str:
    """WebShop's search document: title, description, first bullet and option text, lower-cased."""
    option_text = ", and ".join(f"{name}: {', '.join(values)}" for name, values in p.options.items())
    first_bullet = p.bullet_points[0] if p.bullet_points else ""
    return " ".join([p.title, p.description, first_bullet, option_text]).lower()


class BM25Index:
    """Lucene-style BM25 over an in-memory inverted index; deterministic with ASIN tie-break."""

    def __init__(self, asins: Sequence[str], documents: Iterable[str], k1: float = 0.9, b: float = 0.4):
        self.asins = list(asins)
        self.k1, self.b = k1, b
        n = len(self.asins)
        postings: dict[str, tuple[list[int], list[int]]] = {}
        lengths = np.zeros(n, dtype=np.float64)
        for doc_id, text in enumerate(documents):
            counts = Counter(tokenize(text))
            lengths[doc_id] = sum(counts.values())
            for term, tf in counts.items():
                entry = postings.get(term)
                if entry is None:
                    entry = postings[term] = ([], [])
                entry[0].append(doc_id)
                entry[1].append(tf)
        avgdl = float(lengths.mean()) if n else 1.0
        norm = k1 * (1.0 - b + b * lengths / max(avgdl, 1e-9))
        self._postings: dict[str, tuple[np.ndarray, np.ndarray, float]] = {}
        for term, (docs, tfs) in postings.items():
            d = np.asarray(docs, dtype=np.int32)
            tf = np.asarray(tfs, dtype=np.float64)
            idf = math.log(1.0 + (n - len(docs) + 0.5) / (len(docs) + 0.5))
            self._postings[term] = (d, tf / (tf + norm[d]), idf)
        order = sorted(range(n), key=self.asins.__getitem__)
        self._asin_rank = np.empty(n, dtype=np.int64)
        self._asin_rank[order] = np.arange(n)

    @classmethod
    def from_products(cls, products: Sequence[Product], **kw: float) -> BM25Index:
        """Index products by WebShop's search document."""
        return cls([p.asin for p in products], (product_document(p) for p in products), **kw)

    def search(self, query: str, k: int = SEARCH_RETURN_N) -> list[str]:
        """Top ``k`` ASINs by BM25 score, ties by ASIN; only documents sharing a term are returned."""
        terms = Counter(tokenize(query[:MAX_QUERY_CHARS]))
        hits = [(self._postings[t], qtf) for t, qtf in terms.items() if t in self._postings]
        if not hits or k <= 0:
            return []
        scores = np.zeros(len(self.asins), dtype=np.float64)  # per query: safe across threads
        for (docs, weights, idf), qtf in hits:
            scores[docs] += (idf * qtf) * weights
        cand = np.flatnonzero(scores)
        cand_scores = scores[cand]
        if len(cand) > k:
            kth = np.partition(cand_scores, len(cand) - k)[len(cand) - k]
            keep = cand_scores >= kth
            cand, cand_scores = cand[keep], cand_scores[keep]
        order = np.lexsort((self._asin_rank[cand], -cand_scores))[:k]
        return [self.asins[i] for i in cand[order]]


class RankBM25Engine:
    """The card's rank-bm25 (BM25Okapi) on the same tokens, for comparison; O(N) per query."""

    def __init__(self, products: Sequence[Product]):
        from rank_bm25 import BM25Okapi

        self.asins = [p.asin for p in products]
        self._bm25 = BM25Okapi([tokenize(product_document(p)) for p in products])

    def search(self, query: str, k: int = SEARCH_RETURN_N) -> list[str]:
        """Top ``k`` by BM25Okapi score (positive scores only), ties by ASIN."""
        scores = self._bm25.get_scores(tokenize(query[:MAX_QUERY_CHARS]))
        ranked = sorted((-s, a) for s, a in zip(scores, self.asins, strict=True) if s > 0)
        return [a for _, a in ranked[:k]]


class FixedResults:
    """Recorded rankings keyed by query; unknown queries fall back to ``fallback`` (or nothing)."""

    def __init__(self, rankings: Mapping[str, Sequence[str]], fallback: SearchEngine | None = None):
        self.rankings = {q: list(r) for q, r in rankings.items()}
        self.fallback = fallback

    def search(self, query: str, k: int = SEARCH_RETURN_N) -> list[str]:
        """The recorded ranking for ``query``, else the fallback's."""
        if query in self.rankings:
            return self.rankings[query][:k]
        return self.fallback.search(query, k) if self.fallback else []
