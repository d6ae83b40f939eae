"""The Lucene index of a store: postings as memory-mapped arrays, scored by the in-memory arithmetic.

Layout (``index/``): ``terms.bin`` (every term's UTF-8, in code point order) with
``terms_offsets.npy``; per term its slice ``term_starts.npy[t]:term_starts.npy[t + 1]`` of
``docs.npy`` (int32 document numbers, ascending) and ``denom.npy`` (float32 ``1 + tf * factor``,
exactly what :class:`~shopsim.simsite.lucene.LuceneBM25` keeps per posting), and ``idf.npy``
(float32). A term is found by binary search over the mapped vocabulary, so opening reads nothing
and builds no dictionary; a query touches only its terms' postings, and every process that opens
the store shares those pages through the OS page cache. Scores, order and ties go through
:func:`~shopsim.simsite.lucene.topk.score_hits`, the in-memory engine's own code.

A term's bound (its largest denominator) is read once per process and remembered with its
postings. Its term scores (``idf - idf / denom``, which the in-memory index keeps) are not stored:
measured at 1.18M products (CPU time, 150 goal instructions) they cut searches by 1 to 6% (MaxScore
reads the common terms' postings only at its candidates), for 4 more bytes a posting (+50% on the
index, +170 MB on disk); scores are computed from the denominators per query, as before.
"""

from __future__ import annotations

import mmap
import operator
import os
import tokenize
import weakref
from functools import lru_cache
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from shopsim.errors import DataError
from shopsim.simsite.datafiles import open_data_file
from shopsim.simsite.lucene.bm25 import LuceneRanker, length_factors, lucene_idf
from shopsim.simsite.lucene.topk import Hit, TermPostings, term_postings
from shopsim.simsite.postings import Terms

__all__ = ["INDEX_FILES", "MapGuard", "StoreIndex", "build_postings"]

INDEX_FILES = ("index/terms.bin", "index/terms_offsets.npy", "index/term_starts.npy", "index/idf.npy",
               "index/docs.npy", "index/denom.npy")


class _Ids(Protocol):
    """Where document numbers become ASINs (the store's ASIN arrays)."""

    count: int

    def asin_at(self, doc: int) -> str: ...


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


class MapGuard:
    """A store's mapped files, checked (:meth:`check`) before a request reads their pages.

    Reading a page of a mapping past the end of a file truncated since kills the process with
    SIGBUS, which Python cannot catch; so each mapped file keeps a descriptor, and :meth:`check`
    compares its size now (``fstat``, about a microsecond a file) with its size when mapped. A
    file replaced by a rename (how ``data prepare`` replaces a store) keeps the old inode mapped
    and never trips it. A truncation between the check and the read still can: it narrows the
    window to one request.
    """

    def __init__(self) -> None:
        self._files: list[tuple[int, int, Path]] = []
        weakref.finalize(self, _close_all, self._files)

    def keep(self, path: Path, fd: int) -> None:
        """Watch ``fd`` (a duplicate is kept: the caller closes its own)."""
        self._files.append((os.dup(fd), os.fstat(fd).st_size, path))

    def check(self) -> None:
        """A DataError naming the first mapped file that is now shorter than when it was mapped."""
        for fd, size, path in self._files:
            now = os.fstat(fd).st_size
            if now < size:
                raise DataError(f"{path}: truncated while the store is open ({now} bytes, mapped at {size}); "
                                "this request is refused; prepare the store again (a new store is renamed into "
                                "place, which open stores survive) and restart")


def _close_all(files: list[tuple[int, int, Path]]) -> None:
    for fd, _, _ in files:
        os.close(fd)


def load_mapped(path: Path, guard: MapGuard | None = None) -> np.ndarray:
    """An ``.npy`` file mapped read-only, as a plain ndarray view (``np.memmap`` slices and
    arithmetic carry subclass overhead that shows in a query's many small operations).

    The header is read here (what ``np.load(mmap_mode="r")`` does) from a descriptor that
    :func:`open_data_file` checked, so a FIFO is refused at once and a damaged header or a short
    file is one DataError naming the file, not numpy's parse errors.
    """
    fmt = np.lib.format
    with open_data_file(path) as f:
        try:
            version = fmt.read_magic(f)
            read_header = {(1, 0): fmt.read_array_header_1_0, (2, 0): fmt.read_array_header_2_0}.get(version)
            if read_header is None:
                raise ValueError(f"npy format version {version} is not one np.save writes here")
            shape, fortran, dtype = read_header(f)
            if dtype.hasobject:
                raise ValueError("object arrays are not stored")
            array = np.memmap(f, dtype=dtype, mode="r", shape=shape, order="F" if fortran else "C",
                              offset=f.tell())
            if guard is not None:
                guard.keep(path, f.fileno())
        except (ValueError, SyntaxError, TypeError, OverflowError, EOFError, OSError, tokenize.TokenError) as exc:
            raise DataError(f"{path}: not a readable .npy array ({' '.join(str(exc).split())[:200]}); "
                            "prepare the store again") from exc
    return array.view(np.ndarray)


def map_bytes(path: Path, guard: MapGuard) -> bytes | mmap.mmap:
    """A read-only map of a file (an empty file maps to ``b""``, which ``mmap`` cannot map)."""
    with open_data_file(path) as f:
        if f.seek(0, 2) == 0:
            return b""
        guard.keep(path, f.fileno())
        return mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)


class StoreIndex(LuceneRanker):
    """WebShop's Lucene ranking over a store's mapped postings (the ``lucene`` engine's results)."""

    def __init__(self, root: Path, ids: _Ids, id_rank: np.ndarray, guard: MapGuard):
        self.guard = guard
        self._terms = map_bytes(root / "index/terms.bin", guard)
        self._term_offsets = load_mapped(root / "index/terms_offsets.npy", guard)
        self._starts = load_mapped(root / "index/term_starts.npy", guard)
        self._idf = load_mapped(root / "index/idf.npy", guard)
        self._docs = load_mapped(root / "index/docs.npy", guard)
        self._denom = load_mapped(root / "index/denom.npy", guard)
        self._ids = ids
        self._id_rank = id_rank
        self.doc_count = ids.count
        self.term_count = len(self._idf)
        self.posting_count = len(self._docs)
        self.term_index = lru_cache(maxsize=1 << 16)(self._term_index)
        self.term_postings = lru_cache(maxsize=1 << 16)(self._term_postings)

    def __reduce__(self) -> tuple[Any, tuple[Any]]:
        # the index of the unpickled store (which pickles by path), not copies of its postings
        return operator.attrgetter("index"), (self._ids,)

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
        if self.posting_count and (int(self._docs.min()) < 0 or int(self._docs.max()) >= self.doc_count):
            return "index/docs.npy holds document numbers outside the catalog"
        if not bool(np.all(np.isfinite(self._idf))) or not bool(np.all(self._denom >= 1)):
            return "index/idf.npy or index/denom.npy holds NaN, infinite or out-of-range values"
        return None

    def _term(self, i: int) -> bytes:
        return self._terms[int(self._term_offsets[i]) : int(self._term_offsets[i + 1])]

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
        """Term ``t``'s mapped postings and its bound (read once per process, then remembered)."""
        a, b = int(self._starts[t]), int(self._starts[t + 1])
        return term_postings(self._docs[a:b], self._denom[a:b], self._idf[t], keep_scores=False)

    def term_hits(self, terms: Terms) -> list[Hit]:
        """The postings of the analysed terms the index has, with their counts in the query."""
        self.guard.check()  # once per search: scoring and the results' ASINs read mapped pages
        hits: list[Hit] = []
        for term, qtf in terms:
            t = self.term_index(term)
            if t is not None:
                hits.append((self.term_postings(t), qtf))
        return hits

    def ids_of(self, docs: list[int]) -> list[str]:
        """The ASINs of document numbers."""
        asin = self._ids.asin_at
        return [asin(d) for d in docs]
