"""The built Lucene index of a catalog, saved once and loaded on later opens.

Why: analysing a catalog's documents (tokenizer, Porter stemmer) is most of the time it takes to
open a shop: about a second for WebShop's 1,000 products, far longer than an RL rollout's first
episodes. :func:`lucene_index` builds the index the first time, saves its postings, and on later
opens reads them back with numpy in milliseconds; rankings and scores are the same floats.

The file, ``shopsim-index-<key[:16]>.npz``, is an uncompressed numpy archive (read with
``allow_pickle=False``: no object in it is ever unpickled) holding every term's UTF-8 and offsets,
each term's slice of the postings, and per posting its document, denominator and term score (what
:class:`~shopsim.simsite.lucene.bm25.LuceneBM25` keeps), with each term's idf and bound. ``key``
is the SHA-256 of the format, the analyser's version (the source of the Lucene modules, the
``regex`` package's version and Python's Unicode tables), BM25's parameters, the ids and the
documents, so a file for other documents or another analyser is never read as this one's. A file
that fails any check (unreadable, damaged, another key, arrays that do not fit together) is
ignored and written again. It lives where :mod:`.user_cache` says: beside the items file when that
folder is writable, else under ``index/`` in the user cache.
"""

from __future__ import annotations

import hashlib
import sys
import unicodedata
import zipfile
from collections.abc import Iterator, Mapping, Sequence
from functools import cache
from itertools import pairwise
from pathlib import Path

import numpy as np
from numpy.lib.npyio import NpzFile

from shopsim.errors import DataError
from shopsim.simsite.datafiles import open_data_file
from shopsim.simsite.lucene.bm25 import LuceneBM25
from shopsim.simsite.lucene.topk import TermPostings
from shopsim.simsite.user_cache import cache_dir, places, texts_key, write_atomic

__all__ = ["FORMAT", "analyzer_version", "find_index", "index_key", "lucene_index", "read_index", "saved_name",
           "write_index"]

FORMAT = "shopsim-lucene-index-1"

#: The modules whose code decides the index's terms and numbers.
_SOURCES = ("lucene.analysis", "lucene.porter", "lucene.tokenizer", "lucene.bm25", "lucene.topk", "postings")

#: Each array of the file and its dtype (a file with another dtype is not ours).
_ARRAYS = {"format": np.uint8, "key": np.uint8, "terms": np.uint8, "term_offsets": np.int64, "starts": np.int64,
           "idf": np.float32, "max_denom": np.float32, "docs": np.int32, "denom": np.float32, "scores": np.float32,
           "params": np.float32}


@cache
def analyzer_version() -> str:
    """A digest of what makes the terms: the Lucene modules' source, ``regex``'s version, the Unicode tables."""
    h = hashlib.sha256(f"{unicodedata.unidata_version}\n".encode())
    h.update(str(getattr(sys.modules.get("regex"), "__version__", "")).encode())
    here = Path(__file__).resolve().parent
    for name in _SOURCES:
        h.update((here / (name.replace(".", "/") + ".py")).read_bytes())
    return h.hexdigest()


def index_key(ids: Sequence[str], documents: Sequence[str], k1: float = 0.9, b: float = 0.4) -> str:
    """SHA-256 of the format, the analyser's version, BM25's parameters, the ids and the documents, in order."""
    return texts_key(f"{FORMAT}\n{analyzer_version()}\n{k1!r} {b!r}\n{len(ids)}\n", (*ids, *documents))


def saved_name(key: str) -> str:
    """The file name of the index with this key."""
    return f"shopsim-index-{key[:16]}.npz"


def _arrays(index: LuceneBM25, key: str) -> dict[str, np.ndarray]:
    """The file's arrays for ``index``."""
    postings = list(index.postings.items())
    encoded = [t.encode("utf-8", "surrogatepass") for t, _ in postings]
    lists = [p for _, p in postings]
    counts = [len(p.docs) for p in lists]

    def joined(name: str, dtype: type) -> np.ndarray:
        parts = [getattr(p, name) for p in lists]
        return np.concatenate(parts).astype(dtype, copy=False) if parts else np.empty(0, dtype=dtype)

    return {
        "format": np.frombuffer(FORMAT.encode(), dtype=np.uint8), "key": np.frombuffer(key.encode(), dtype=np.uint8),
        "terms": np.frombuffer(b"".join(encoded), dtype=np.uint8),
        "term_offsets": np.cumsum([0, *map(len, encoded)], dtype=np.int64),
        "starts": np.cumsum([0, *counts], dtype=np.int64),
        "idf": np.array([p.idf for p in lists], dtype=np.float32),
        "max_denom": np.array([p.max_denom for p in lists], dtype=np.float32),
        "docs": joined("docs", np.int32), "denom": joined("denom", np.float32),
        "scores": joined("scores", np.float32),
        "params": np.array([index.avgdl, index.k1, index.b], dtype=np.float32),
    }


def write_index(folder: Path, key: str, index: LuceneBM25) -> Path:
    """Write ``index`` into ``folder`` atomically (a temporary file renamed into place); returns its path."""
    arrays = _arrays(index, key)
    return write_atomic(folder, saved_name(key), lambda f: np.savez(f, allow_pickle=False, **arrays))


def _load(path: Path) -> dict[str, np.ndarray] | None:
    """Every array of the file, checked for name, dtype and shape; None when the file is not a saved index."""
    try:
        with open_data_file(path) as f:  # a FIFO planted in the cache is refused, not waited on
            archive = np.load(f, allow_pickle=False)
            if not isinstance(archive, NpzFile):
                return None  # one bare array
            with archive:
                if sorted(archive.files) != sorted(_ARRAYS):
                    return None
                arrays = {name: archive[name] for name in _ARRAYS}
    except (DataError, OSError, ValueError, EOFError, KeyError, zipfile.BadZipFile):  # missing, unreadable, damaged
        return None
    if any(a.dtype != _ARRAYS[name] or a.ndim != 1 for name, a in arrays.items()):
        return None
    return arrays


def _fits(a: dict[str, np.ndarray], key: str, doc_count: int) -> bool:
    """Whether the arrays are this key's index over ``doc_count`` documents and fit together."""
    starts, offsets, n = a["starts"], a["term_offsets"], len(a["idf"])
    postings = len(a["docs"])
    return (a["format"].tobytes() == FORMAT.encode() and a["key"].tobytes() == key.encode()
            and len(a["params"]) == 3 and len(a["max_denom"]) == n and len(starts) == n + 1 == len(offsets)
            and len(a["denom"]) == postings == len(a["scores"]) and int(starts[0]) == 0 == int(offsets[0])
            and int(starts[-1]) == postings and int(offsets[-1]) == len(a["terms"])
            and bool(np.all(np.diff(starts) > 0)) and bool(np.all(np.diff(offsets) > 0))
            and (not postings or (int(a["docs"].min()) >= 0 and int(a["docs"].max()) < doc_count)))


class _SavedPostings(Mapping[str, TermPostings]):
    """A saved index's postings by term, each term's :class:`TermPostings` made on first use: a
    catalog has some 12,000 terms and a run searches a few hundred of them.
    """

    def __init__(self, terms: list[str], arrays: dict[str, np.ndarray]):
        self._number = dict(zip(terms, range(len(terms)), strict=True))
        self._starts: list[int] = arrays["starts"].tolist()
        self._idf, self._bound = arrays["idf"], arrays["max_denom"]
        self._docs, self._denom, self._scores = arrays["docs"], arrays["denom"], arrays["scores"]
        self._made: dict[str, TermPostings] = {}

    def __getitem__(self, term: str) -> TermPostings:
        made = self._made.get(term)
        if made is None:
            t = self._number[term]
            lo, hi = self._starts[t], self._starts[t + 1]
            made = self._made[term] = TermPostings(self._docs[lo:hi], self._denom[lo:hi], self._idf[t], self._bound[t],
                                                   self._scores[lo:hi])
        return made

    def __contains__(self, term: object) -> bool:
        return term in self._number

    def __iter__(self) -> Iterator[str]:
        return iter(self._number)

    def __len__(self) -> int:
        return len(self._number)


def read_index(path: Path, key: str, ids: Sequence[str]) -> LuceneBM25 | None:
    """The index saved at ``path`` when the file is exactly the index for ``key`` over ``ids``, else None."""
    a = _load(path)
    if a is None or not _fits(a, key, len(ids)):
        return None
    blob, offsets = a["terms"].tobytes(), a["term_offsets"].tolist()
    spans = pairwise(offsets)
    if blob.isascii():  # byte offsets are character offsets: one decode, then slices
        text = blob.decode("ascii")
        terms = [text[lo:hi] for lo, hi in spans]
    else:
        try:
            terms = [blob[lo:hi].decode("utf-8", "surrogatepass") for lo, hi in spans]
        except UnicodeDecodeError:
            return None
    postings = _SavedPostings(terms, a)
    if len(postings) != len(terms):  # a term twice
        return None
    avgdl, k1, b = a["params"]
    return LuceneBM25.from_postings(ids, postings, avgdl, float(k1), float(b))


def find_index(folder: Path, key: str, ids: Sequence[str]) -> tuple[Path, LuceneBM25] | None:
    """The index for ``key`` saved beside the data or in the user cache, with its path; None when neither holds it."""
    for place in (folder, cache_dir() / "index"):
        index = read_index(place / saved_name(key), key, ids)
        if index is not None:
            return place / saved_name(key), index
    return None


def lucene_index(ids: Sequence[str], documents: Sequence[str], folder: Path) -> tuple[LuceneBM25, Path | None]:
    """The Lucene index of the documents of the data in ``folder``: read back when saved, else built and saved.

    Returns the index and the file read or written (None when no place took the file: the index is
    then built on every open, as before).
    """
    key = index_key(ids, documents)
    found = find_index(folder, key, ids)
    if found is not None:
        return found[1], found[0]
    index = LuceneBM25(ids, documents)
    for place in places(folder, "index"):
        try:
            return index, write_index(place, key, index)
        except OSError:
            continue
    return index, None
