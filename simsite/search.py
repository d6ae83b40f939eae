"""Search engines over WebShop's search documents, all returning ASINs best first.

``lucene`` (the default, :class:`~shopsim.simsite.lucene.LuceneBM25`) returns WebShop's own
rankings and scores: Anserini's English analysis and Lucene 8's BM25 arithmetic, without Java.
``bm25`` (:class:`BM25Index`) is a simpler BM25 (a plural stemmer, exact lengths, doubles) kept
as a named alternative: it ranks differently from WebShop. ``rank-bm25`` wraps the card's
rank-bm25 for comparison (it scores every document per query). ``FixedResults`` replays recorded
rankings, e.g. WebShop's own, for compatibility tests. Every engine breaks ties by ASIN.

``lucene`` and ``bm25`` remember their last rankings (:class:`RankingCache`): agents send the
same goal instructions episode after episode, and a repeated query then costs a dictionary lookup.
"""

from __future__ import annotations

import math
import re
import threading
from collections import Counter, OrderedDict
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol, TypeVar

import numpy as np

from shopsim.errors import ConfigError, did_you_mean
from shopsim.simsite.lucene.analysis import ENGLISH_STOP_WORDS, query_terms
from shopsim.simsite.models import Product
from shopsim.simsite.postings import Ranking, Terms, id_ranks, invert, top_k
from shopsim.text import stem

__all__ = [
    "DEFAULT_CACHE_SIZE",
    "ENGINES",
    "MAX_QUERY_CHARS",
    "SEARCH_RETURN_N",
    "BM25Index",
    "FixedResults",
    "LuceneEngine",
    "LuceneIndex",
    "RankBM25Engine",
    "RankingCache",
    "ScoredEngine",
    "SearchEngine",
    "document_text",
    "make_engine",
    "product_document",
    "tokenize",
]

SEARCH_RETURN_N = 50
MAX_QUERY_CHARS = 1000
_TOKEN = re.compile(r"[a-z0-9]+")
_STOP = ENGLISH_STOP_WORDS  # Lucene's English stop set, which Pyserini's default analyzer drops

DEFAULT_CACHE_SIZE = 4096
"""Rankings an engine remembers (about 4 to 8 kB each at k=50): every instruction of thousands of goals."""

_V = TypeVar("_V")


class SearchEngine(Protocol):
    """Anything that ranks products for a query."""

    def search(self, query: str, k: int = SEARCH_RETURN_N) -> list[str]:
        """Return up to ``k`` ASINs, best first, deterministically."""
        ...


class ScoredEngine(SearchEngine, Protocol):
    """An engine that also reports its scores (``shopsim search`` needs them)."""

    def scored(self, query: str, k: int = SEARCH_RETURN_N) -> list[tuple[str, float]]:
        """Up to ``k`` ``(asin, score)`` pairs, best first."""
        ...


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
    return document_text(p.title, p.description, p.bullet_points, p.options)


def document_text(title: str, description: str, bullet_points: Sequence[str], options: Mapping[str, Sequence[str]]) -> str:
    """:func:`product_document` from the fields themselves (a prepared store indexes before building models)."""
    option_text = ", and ".join(f"{name}: {', '.join(values)}" for name, values in options.items())
    first_bullet = bullet_points[0] if bullet_points else ""
    return " ".join([title, description, first_bullet, option_text]).lower()


class RankingCache:
    """The last rankings an engine computed, by analysed query and ``k``; safe across threads.

    Two bounded maps, least recently used dropped first: query text to its analysed terms (the
    tokenizer costs more than a lookup), and ``(terms, k)`` to the ranking. Queries that analyse
    alike share a ranking, and scoring is deterministic, so a hit is what scoring would return.
    Rankings are tuples of tuples: no caller can change what the next one is handed. ``size``
    0 disables it (every query analysed and scored); a pickled cache arrives empty.
    """

    def __init__(self, size: int = DEFAULT_CACHE_SIZE):
        self._lock = threading.Lock()
        self._terms: OrderedDict[str, Terms] = OrderedDict()
        self._rankings: OrderedDict[tuple[Terms, int], Ranking] = OrderedDict()
        self.size = max(0, size)
        self.hits = self.misses = 0

    def ranking(self, query: str, k: int, analyse: Callable[[str], Terms],
                rank: Callable[[Terms, int], Ranking]) -> Ranking:
        """The ranking of ``query``: remembered, or ``rank(analyse(query), k)`` (then remembered)."""
        if not self.size:
            return rank(analyse(query), k)
        terms = self._get(self._terms, query)
        if terms is None:
            terms = self._put(self._terms, query, analyse(query))
        found = self._get(self._rankings, (terms, k), count=True)
        return found if found is not None else self._put(self._rankings, (terms, k), rank(terms, k))

    def _get(self, entries: OrderedDict[Any, _V], key: Hashable, count: bool = False) -> _V | None:
        with self._lock:
            found = entries.get(key)
            if found is not None:
                entries.move_to_end(key)
            if count:
                self.hits += found is not None
                self.misses += found is None
            return found

    def _put(self, entries: OrderedDict[Any, _V], key: Hashable, value: _V) -> _V:
        with self._lock:
            entries[key] = value
            while len(entries) > self.size:
                entries.popitem(last=False)
        return value

    def resize(self, size: int) -> None:
        """Keep at most ``size`` rankings from now on (0: none, the cache is off)."""
        with self._lock:
            self.size = max(0, size)
            for entries in (self._terms, self._rankings):
                while len(entries) > self.size:
                    entries.popitem(last=False)

    def clear(self) -> None:
        """Forget every ranking (the size stays)."""
        with self._lock:
            self._terms.clear()
            self._rankings.clear()

    def __len__(self) -> int:
        return len(self._rankings)

    def __reduce__(self) -> tuple[type[RankingCache], tuple[int]]:
        return RankingCache, (self.size,)  # an empty cache of the same size (a lock does not pickle)


def _bm25_terms(query: str) -> Terms:
    return tuple(Counter(tokenize(query)).items())


class BM25Index:
    """Lucene-style BM25 over an in-memory inverted index; deterministic with ASIN tie-break."""

    def __init__(self, asins: Sequence[str], documents: Iterable[str], k1: float = 0.9, b: float = 0.4,
                 cache_size: int = DEFAULT_CACHE_SIZE):
        self.asins = list(asins)
        self.k1, self.b = k1, b
        n = len(self.asins)
        postings, lengths = invert((tokenize(text) for text in documents), n)
        avgdl = float(lengths.mean()) if n else 1.0
        norm = k1 * (1.0 - b + b * lengths / max(avgdl, 1e-9))
        self._postings: dict[str, tuple[np.ndarray, np.ndarray, float]] = {}
        for term, (d, tfs) in postings.items():
            tf = tfs.astype(np.float64)
            idf = math.log(1.0 + (n - len(d) + 0.5) / (len(d) + 0.5))
            self._postings[term] = (d, tf / (tf + norm[d]), idf)
        self._asin_rank = id_ranks(self.asins)
        self.cache = RankingCache(cache_size)

    @classmethod
    def from_products(cls, products: Sequence[Product], k1: float = 0.9, b: float = 0.4,
                      cache_size: int = DEFAULT_CACHE_SIZE) -> BM25Index:
        """Index products by WebShop's search document."""
        return cls([p.asin for p in products], (product_document(p) for p in products), k1, b, cache_size)

    def search(self, query: str, k: int = SEARCH_RETURN_N) -> list[str]:
        """Top ``k`` ASINs by BM25 score, ties by ASIN; only documents sharing a term are returned."""
        return [asin for asin, _ in self.cache.ranking(query[:MAX_QUERY_CHARS], k, _bm25_terms, self._ranked)]

    def scored(self, query: str, k: int = SEARCH_RETURN_N) -> list[tuple[str, float]]:
        """Top ``k`` ``(asin, score)`` pairs."""
        return list(self.cache.ranking(query[:MAX_QUERY_CHARS], k, _bm25_terms, self._ranked))

    def _ranked(self, terms: Terms, k: int) -> Ranking:
        hits = [(self._postings[t], qtf) for t, qtf in terms if t in self._postings]
        if not hits or k <= 0:
            return ()
        scores = np.zeros(len(self.asins), dtype=np.float64)  # per query: safe across threads
        for (docs, weights, idf), qtf in hits:
            scores[docs] += (idf * qtf) * weights
        docs, best = top_k(scores, self._asin_rank, k)
        return tuple((self.asins[d], s) for d, s in zip(docs.tolist(), best.tolist(), strict=True))


class RankBM25Engine:
    """The card's rank-bm25 (BM25Okapi) on the same tokens, for comparison; O(N) per query."""

    def __init__(self, products: Sequence[Product]):
        from rank_bm25 import BM25Okapi

        self.asins = [p.asin for p in products]
        self._bm25 = BM25Okapi([tokenize(product_document(p)) for p in products])

    def search(self, query: str, k: int = SEARCH_RETURN_N) -> list[str]:
        """Top ``k`` by BM25Okapi score (positive scores only), ties by ASIN."""
        return [asin for asin, _ in self.scored(query, k)]

    def scored(self, query: str, k: int = SEARCH_RETURN_N) -> list[tuple[str, float]]:
        """Top ``k`` ``(asin, score)`` pairs."""
        scores = self._bm25.get_scores(tokenize(query[:MAX_QUERY_CHARS]))
        ranked = sorted((-s, a) for s, a in zip(scores, self.asins, strict=True) if s > 0)
        return [(a, float(-s)) for s, a in ranked[:k]]


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


class LuceneIndex(Protocol):
    """What :class:`LuceneEngine` needs of an index: the in-memory one or a prepared store's."""

    def ranked(self, terms: Terms, k: int) -> Ranking:
        """The top ``k`` ``(asin, score)`` pairs for analysed query terms and their counts."""
        ...


class LuceneEngine:
    """WebShop's Pyserini ranking (see :mod:`shopsim.simsite.lucene`) over WebShop's documents."""

    index: LuceneIndex
    cache: RankingCache

    def __init__(self, products: Sequence[Product], cache_size: int = DEFAULT_CACHE_SIZE, saved_in: Path | None = None):
        """Index ``products``; with ``saved_in`` (the data's folder) the built index is saved and read back
        on later opens (:mod:`shopsim.simsite.saved_index`), else it is built every time.
        """
        from shopsim.simsite.lucene import LuceneBM25

        ids, documents = [p.asin for p in products], [product_document(p) for p in products]
        if saved_in is None:
            self.index = LuceneBM25(ids, documents)
        else:
            from shopsim.simsite.saved_index import lucene_index

            self.index = lucene_index(ids, documents, saved_in)[0]
        self.cache = RankingCache(cache_size)

    @classmethod
    def from_index(cls, index: LuceneIndex, cache_size: int = DEFAULT_CACHE_SIZE) -> LuceneEngine:
        """The engine over an index built elsewhere (a prepared store's mapped postings)."""
        engine = cls.__new__(cls)
        engine.index = index
        engine.cache = RankingCache(cache_size)
        return engine

    def search(self, query: str, k: int = SEARCH_RETURN_N) -> list[str]:
        """WebShop's top ``k`` ASINs for ``query`` (lower-cased, as WebShop's env sends it)."""
        return [asin for asin, _ in self.cache.ranking(query[:MAX_QUERY_CHARS], k, query_terms, self.index.ranked)]

    def scored(self, query: str, k: int = SEARCH_RETURN_N) -> list[tuple[str, float]]:
        """Top ``k`` ``(asin, Lucene score)`` pairs."""
        return list(self.cache.ranking(query[:MAX_QUERY_CHARS], k, query_terms, self.index.ranked))


#: The WebShop profile's engines by name; ``lucene`` is the default.
ENGINES: dict[str, Callable[[Sequence[Product]], ScoredEngine]] = {
    "lucene": LuceneEngine,
    "bm25": BM25Index.from_products,
    "rank-bm25": RankBM25Engine,
}


def make_engine(products: Sequence[Product], kind: str = "lucene", saved_in: Path | None = None) -> ScoredEngine:
    """The engine named ``kind`` (``lucene``, ``bm25`` or ``rank-bm25``) over ``products``; the ``lucene``
    engine saves its index in (or beside) ``saved_in``, the data's folder, when given.
    """
    if kind not in ENGINES:
        raise ConfigError(f"unknown search engine {kind!r}: use one of {', '.join(ENGINES)}.{did_you_mean(kind, list(ENGINES))}")
    if kind == "lucene" and saved_in is not None:
        return LuceneEngine(products, saved_in=saved_in)
    return ENGINES[kind](products)
