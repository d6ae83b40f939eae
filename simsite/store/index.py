"""The Lucene index of a store: postings read from disk as queries need them, scored by the in-memory arithmetic.

Layout (``index/``): ``terms.bin`` (every term's UTF-8, in code point order) with
``terms_offsets.npy``; per term its slice ``term_starts.npy[t]:term_starts.npy[t + 1]`` of
``docs.npy`` (int32 document numbers, ascending) and ``denom.npy`` (float32 ``1 + tf * factor``,
exactly what :class:`~shopsim.simsite.lucene.LuceneBM25` keeps per posting), and ``idf.npy``
(float32). The vocabulary files are read into memory on open (tens of MB at 1.18M products) and a
term is found by binary search over them, with no dictionary built; a query reads only its terms'
postings, with ``pread`` (:mod:`.arrays`: never a mapping, so a file truncated under the open store
fails that query with a DataError instead of killing the process with SIGBUS), and every process
that opens the store shares the file's pages through the OS page cache. Scores, order and ties go
through :func:`~shopsim.simsite.lucene.topk.score_hits`, the in-memory engine's own code.

A term's postings and bound (its largest denominator) are kept once read, up to
:data:`POSTINGS_CACHE_BYTES` a process, with every document's score for the common terms of a large
catalog (:func:`~shopsim.simsite.lucene.topk.dense_pays`: 4.7 MB a term at 1.18M products; the
budget was raised from 256 to 512 MB for them: at 256 the 300 instructions of the search benchmark
re-read half their terms from disk on a second pass). Per-posting term scores (``idf - idf / denom``,
which the in-memory index keeps) are not stored: measured at 1.18M products (CPU time, 150 goal instructions) they cut searches by 1 to 6% (MaxScore
reads the common terms' postings only at its candidates), for 4 more bytes a posting (+50% on the
index, +170 MB on disk); scores are computed from the denominators per query, as before.
"""

from __future__ import annotations

import operator
import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from shopsim.errors import DataError
from shopsim.simsite.datafiles import read_data_file
from shopsim.simsite.lucene.bm25 import LuceneRanker, length_factors, lucene_idf
from shopsim.simsite.lucene.topk import Hit, TermPostings, dense_pays, term_postings
from shopsim.simsite.postings import Terms
from shopsim.simsite.store.arrays import StoredArray, load_array
from shopsim.simsite.store.memo import Memo

__all__ = ["INDEX_FILES", "POSTINGS_CACHE_BYTES", "StoreIndex", "build_postings"]

#: Bytes of read postings each open index keeps (the common terms' stay; see :class:`_PostingsCache`).
POSTINGS_CACHE_BYTES = 512 << 20

INDEX_FILES = ("index/terms.bin", "index/terms_offsets.npy", "index/term_starts.npy", "index/idf.npy",
               "index/docs.npy", "index/denom.npy")


class _Ids(Protocol):
    """Where document numbers become ASINs (the store's ASIN arrays)."""

    count: int

    def asins_at(self, docs: list[int]) -> list[str]: ...


def _open_index(root: str) -> StoreIndex:
    """The index of the store at ``root``, opened (and checked) again: an unpickled index whose store was dropped."""
    from shopsim.simsite.store.data import StoreData  # the store module imports this one

    return StoreData.open(root).index


def build_postings(
    vocab: dict[str, int], term_ids: np.ndarray, docs: np.ndarray, tfs: np.ndarray, lengths: np.ndarray,
) -> dict[str, np.ndarray | bytes]:
    """The index files' contents from raw postings (``term_ids`` index ``vocab``'s insertion order).

    Postings arrive in document order, each (term, document) pair once; a stable sort by term
    keeps each term's documents ascending. When they fit in 63 bits, each posting is packed into
    one int64 (term rank, document, frequency, from the high bits down): the keys are unique, so
    numpy's unstable (SIMD) sort gives that same order, about ten times faster than a stable
    argsort and its gathers.
    """
    terms = sorted(vocab)
    rank = np.empty(len(vocab), dtype=np.int64)
    rank[[vocab[t] for t in terms]] = np.arange(len(terms), dtype=np.int64)
    key = rank[term_ids]
    del rank
    counts = np.bincount(key, minlength=len(terms)).astype(np.int64)
    doc_bits = max(len(lengths) - 1, 1).bit_length()
    tf_bits = max(int(tfs.max()) if len(tfs) else 1, 1).bit_length()
    packable = not len(docs) or (int(docs.min()) >= 0 and int(docs.max()) < len(lengths) and int(tfs.min()) >= 0)
    if packable and max(len(terms) - 1, 1).bit_length() + doc_bits + tf_bits <= 63:
        key <<= doc_bits
        key |= docs
        key <<= tf_bits
        key |= tfs
        key.sort()
        tfs_sorted = (key & ((1 << tf_bits) - 1)).astype(tfs.dtype)
        key >>= tf_bits
        key &= (1 << doc_bits) - 1
        docs_sorted = key.astype(np.int32)
    else:
        order = np.argsort(key, kind="stable")
        docs_sorted, tfs_sorted = docs[order], tfs[order]
        del order
    del key
    factor, _ = length_factors(lengths)
    denom = np.float32(1.0) + tfs_sorted.astype(np.float32) * factor[docs_sorted]
    del tfs_sorted
    n = len(lengths)
    idf = np.array([lucene_idf(n, int(df)) for df in counts], dtype=np.float32)
    starts = np.zeros(len(terms) + 1, dtype=np.int64)
    np.cumsum(counts, out=starts[1:])
    encoded = [t.encode("utf-8", "surrogatepass") for t in terms]
    offsets = np.zeros(len(terms) + 1, dtype=np.int64)
    np.cumsum([len(e) for e in encoded], out=offsets[1:])
    return {
        "index/terms.bin": b"".join(encoded),
        "index/terms_offsets.npy": offsets,
        "index/term_starts.npy": starts,
        "index/idf.npy": idf,
        "index/docs.npy": docs_sorted.astype(np.int32, copy=False),
        "index/denom.npy": denom.astype(np.float32, copy=False),
    }


class _PostingsCache:
    """Terms' postings read from disk, the most recently used kept up to a byte budget.

    Read postings are copies (:mod:`.arrays`: never a mapping), so the cache is bounded by their
    bytes, not by their count: a common term's postings are megabytes at 1.18M products.
    """

    def __init__(self, budget: int):
        self.budget, self.bytes = budget, 0
        self._kept: OrderedDict[int, TermPostings] = OrderedDict()
        self._lock = threading.Lock()  # a server may search from several threads

    def get(self, t: int, load: Callable[[int], TermPostings]) -> TermPostings:
        """Term ``t``'s postings, kept or ``load``ed (outside the lock: a read may take milliseconds)."""
        with self._lock:
            got = self._kept.get(t)
            if got is not None:
                self._kept.move_to_end(t)
                return got
        got = load(t)
        size = _nbytes(got)
        with self._lock:
            if size <= self.budget and t not in self._kept:
                self._kept[t] = got
                self.bytes += size
                while self.bytes > self.budget:
                    _, old = self._kept.popitem(last=False)
                    self.bytes -= _nbytes(old)
        return got


def _nbytes(p: TermPostings) -> int:
    """What a term's kept postings hold: documents, denominators and dense scores when kept."""
    return p.docs.nbytes + p.denom.nbytes + (p.dense.nbytes if p.dense is not None else 0)


class StoreIndex(LuceneRanker):
    """WebShop's Lucene ranking over a store's postings on disk (the ``lucene`` engine's results)."""

    def __init__(self, root: Path, ids: _Ids, id_rank: np.ndarray, store: object):
        self._terms = read_data_file(root / "index/terms.bin")
        self._term_offsets = load_array(root / "index/terms_offsets.npy")
        self._starts = load_array(root / "index/term_starts.npy")
        self._idf = load_array(root / "index/idf.npy")
        self._docs = StoredArray(root / "index/docs.npy")
        self._denom = StoredArray(root / "index/denom.npy")
        self._ids = ids
        self._store = weakref.ref(store)  # not the store itself: it holds this index
        self._root = root
        self._id_rank = id_rank
        self.doc_count = ids.count
        self.term_count = len(self._idf)
        self.posting_count = len(self._docs)
        self._term_numbers: Memo[str, int | None] = Memo(1 << 16)
        self.postings_cache = _PostingsCache(POSTINGS_CACHE_BYTES)

    def __reduce__(self) -> tuple[Any, tuple[Any]]:
        # the index of the unpickled store (which pickles by path, and once when the same pickle
        # holds its products too), not copies of its postings; by path when the store was dropped
        store = self._store()
        if store is None:
            return _open_index, (str(self._root),)
        return operator.attrgetter("index"), (store,)

    def problem(self) -> str | None:
        """What no index written by :func:`build_postings` holds (None when nothing): the full check's
        part for the index (it reads every posting).
        """
        starts = self._starts
        if len(starts) != self.term_count + 1 or len(self._term_offsets) != self.term_count + 1 \
                or len(self._denom) != self.posting_count:
            return "index arrays of different lengths"
        if self.term_count and (int(starts[0]) != 0 or int(starts[-1]) != self.posting_count
                                or bool(np.any(np.diff(starts) < 0))):
            return "index/term_starts.npy is not a non-decreasing run from 0 to the number of postings"
        if any(int(d.min()) < 0 or int(d.max()) >= self.doc_count for d in self._docs.chunks()):
            return "index/docs.npy holds document numbers outside the catalog"
        if not bool(np.all(np.isfinite(self._idf))) or not all(bool(np.all(d >= 1)) for d in self._denom.chunks()):
            return "index/idf.npy or index/denom.npy holds NaN, infinite or out-of-range values"
        return None

    def _term(self, i: int) -> bytes:
        return self._terms[int(self._term_offsets[i]) : int(self._term_offsets[i + 1])]

    def term_index(self, term: str) -> int | None:
        """The term's number in the vocabulary; None when no document has it (recent answers kept)."""
        return self._term_numbers.get(term, self._term_index)

    def _term_index(self, term: str) -> int | None:
        """The term's number in the vocabulary, by binary search; None when no document has it."""
        key = term.encode("utf-8", "surrogatepass")
        lo, hi = 0, self.term_count
        while lo < hi:
            mid = (lo + hi) // 2
            if self._term(mid) < key:
                lo = mid + 1
            else:
                hi = mid
        return lo if lo < self.term_count and self._term(lo) == key else None

    def _term_postings(self, t: int) -> TermPostings:
        """Term ``t``'s postings, read from disk, and its bound."""
        a, b = int(self._starts[t]), int(self._starts[t + 1])
        docs = self._docs.read(a, b)
        if len(docs) and (int(docs[0]) < 0 or int(docs[-1]) >= self.doc_count):  # ascending: the ends say it
            raise DataError(f"{self._root / 'index/docs.npy'}: term {t} lists documents outside the catalog "
                            "(a damaged store; `shopsim data verify` checks every file)")
        dense_over = self.doc_count if dense_pays(b - a, self.doc_count) else 0
        return term_postings(docs, self._denom.read(a, b), self._idf[t], keep_scores=False, dense_over=dense_over)

    def term_postings(self, t: int) -> TermPostings:
        """Term ``t``'s postings and bound (kept while the cache's budget allows)."""
        return self.postings_cache.get(t, self._term_postings)

    def term_hits(self, terms: Terms) -> list[Hit]:
        """The postings of the analysed terms the index has, with their counts in the query."""
        hits: list[Hit] = []
        for term, qtf in terms:
            t = self.term_index(term)
            if t is not None:
                hits.append((self.term_postings(t), qtf))
        return hits

    def ids_of(self, docs: list[int]) -> list[str]:
        """The ASINs of document numbers."""
        return self._ids.asins_at(docs)
