"""v8 product search (``shopsimulator-multifield-bm25-v3``): multi-field BM25 with FTS5's semantics.

Each product becomes eight columns (:data:`FTS_COLUMNS`); the first, ``asin``, is stored but never
indexed and carries an explicit weight 0.0, so the weights map by declared position (the v2 bug
passed seven weights and shifted every one by a column). Scores are exactly SQLite FTS5's
``bm25()``: a phrase's frequency in a row is the weighted sum of its occurrences over the columns,
``D`` is the row's total token count, ``avgdl`` the mean over rows, k1=1.2, b=0.75, and
``idf = ln((N-n+0.5)/(n+0.5))`` floored at 1e-6. Query tokens are OR-ed (a product matching any
token is a candidate), duplicates dropped; ties go to the smaller ASIN, explicitly.

Two engines with one interface: :class:`BM25Engine`, a numpy inverted index with precomputed
per-posting scores (the default: it is measured faster, see ``benchmarks/v8_search.py``), and
:class:`Fts5Engine` over stdlib ``sqlite3`` FTS5 (the seed's engine, kept as the reference). Both
are fed the same pre-tokenized text (:mod:`.tokens`), so they return the same ranking and scores.
Persistence (:func:`save_index`, :func:`load_index`) writes an ``index_manifest.json`` that the
loader checks against the code and the catalog, refusing a stale index.
"""

from __future__ import annotations

import hashlib
import io
import json
import math
import os
import sqlite3
import threading
import zipfile
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal, Protocol, cast

import numpy as np

from shopsim.errors import ConfigError, DataError
from shopsim.simsite.datafiles import open_data_fd, read_data_file
from shopsim.simsite.v8.records import V8Product
from shopsim.text import TOKENIZER_VERSION, tokenize

__all__ = [
    "BM25_B",
    "BM25_COLUMN_WEIGHTS",
    "BM25_K1",
    "DEFAULT_ENGINE",
    "FTS_COLUMNS",
    "MANIFEST_NAME",
    "MAX_QUERY_CHARS",
    "PAGE_SIZE",
    "RESULTS_N",
    "SEARCH_VERSION",
    "BM25Engine",
    "EngineKind",
    "Fts5Engine",
    "V8SearchEngine",
    "catalog_sha256",
    "load_index",
    "make_engine",
    "product_columns",
    "query_tokens",
    "save_index",
]

SEARCH_VERSION = "shopsimulator-multifield-bm25-v3"
FTS_COLUMNS = ("asin", "title", "brand", "category", "model", "attributes", "options", "bullets")
#: By declared position, ``asin`` explicitly 0.0. title 3.0 is the contract's; the rest are ours:
#: brand and model 2.0 (short, exact identifiers a shopper types), category 1.5 (names the kind of
#: product but is shared by many), attributes and options 1.0 (specific but long and repetitive),
#: bullets 0.5 (marketing prose, the noisiest). FTS5 adds a column's weight per occurrence and then
#: saturates (k1), so weights act as occurrence multipliers. Multiples of 0.25 keep ``w·tf`` exact,
#: so both engines' sums agree bit for bit. Checked, not tuned, with search-eval on a generate_v8
#: catalog (6,000 products, 3,371 tasks): alternatives moved Recall@20 by under 2 points either way.
BM25_COLUMN_WEIGHTS = (0.0, 3.0, 2.0, 1.5, 2.0, 1.0, 1.0, 0.5)
BM25_K1 = 1.2
BM25_B = 0.75
RESULTS_N = 150
PAGE_SIZE = 20
#: Longer queries are cut here (a bound on per-query cost; instructions are far shorter).
MAX_QUERY_CHARS = 1000
MANIFEST_NAME = "index_manifest.json"
EngineKind = Literal["default", "fts5", "numpy"]
#: Chosen by measurement (benchmarks/v8_search.py, 22,726 products, 2 cores): numpy p50 0.6 ms /
#: p95 1.2 ms per query against FTS5's 124 / 294 ms (FTS5 scores and sorts every OR match).
DEFAULT_ENGINE: Literal["fts5", "numpy"] = "numpy"
_FILES = {"fts5": "search_index.fts5.sqlite", "numpy": "search_index.npz"}
#: The most bytes a saved v8 index may hold (real ones: a few MB).
MAX_INDEX_BYTES = 1 << 32
_IDF_FLOOR = 1e-6


class V8SearchEngine(Protocol):
    """What the v8 shop needs from a search engine."""

    kind: str
    asins: list[str]
    catalog_sha256: str

    def search(self, query: str, n: int = RESULTS_N) -> list[tuple[str, float]]:
        """Up to ``n`` ``(asin, score)`` pairs, best first, ties by ASIN ascending."""
        ...

    def save(self, path: Path) -> None:
        """Write the index file that :func:`load_index` reads back."""
        ...


# ---- documents -----------------------------------------------------------------------------------
def product_columns(p: V8Product) -> tuple[str, ...]:
    """The eight column texts of a product, in :data:`FTS_COLUMNS` order.

    Parts are joined by newlines so no CJK bigram spans two values. ``options`` holds only what an
    agent can see and click (axis names and values): prices, images, stock and variant ids are
    crawl metadata, and never matched by search (the price module checks prices).
    """
    attributes = [f"{k}\n{v}" for k, v in p.attributes.items()] + list(p.attribute_list)
    options = [f"{axis}\n" + "\n".join(o.value for o in opts) for axis, opts in p.options.items()]
    return (p.asin, p.title, p.brand, "\n".join(p.category), p.model, "\n".join(attributes),
            "\n".join(options), "\n".join(p.bullets))


def catalog_sha256(products: Sequence[V8Product]) -> str:
    """SHA-256 of the canonical documents (every column text of every product, in order)."""
    docs = [product_columns(p) for p in products]
    blob = json.dumps(docs, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def query_tokens(query: str) -> list[str]:
    """The query's distinct tokens in first-seen order (FTS5 would count a repeated phrase twice)."""
    return list(dict.fromkeys(tokenize(query[:MAX_QUERY_CHARS])))


def _tokenized(products: Sequence[V8Product]) -> list[list[list[str]]]:
    """Per product, per indexed column (``asin`` excluded), its tokens."""
    return [[tokenize(text) for text in product_columns(p)[1:]] for p in products]


# ---- numpy engine --------------------------------------------------------------------------------
class BM25Engine:
    """Inverted index in numpy (CSR by term) whose postings hold each row's final BM25 term score.

    A query costs only its terms' postings: one scatter-add per term into a score vector, then a
    partial sort. ``idf`` uses ``math.log`` (the C library's, like SQLite) and the arithmetic
    follows FTS5's expression order, so scores match :class:`Fts5Engine`'s exactly.
    """

    kind = "numpy"

    def __init__(self, asins: Sequence[str], vocab: Sequence[str], indptr: np.ndarray, docs: np.ndarray,
                 freqs: np.ndarray, lengths: np.ndarray, catalog_sha: str):
        self.asins = list(asins)
        self.catalog_sha256 = catalog_sha
        self.vocab = list(vocab)
        self._term = {t: i for i, t in enumerate(self.vocab)}
        self.indptr, self.freqs, self.lengths = indptr, freqs, lengths
        self.docs = docs.astype(np.intp)  # bincount's index type: no cast per query
        n = len(self.asins)
        total = float(lengths.sum())
        avgdl = total / n if total else 1.0  # no tokens at all: no postings either
        norm = BM25_K1 * ((1.0 - BM25_B) + (BM25_B * lengths.astype(np.float64)) / avgdl)
        df = np.diff(indptr)
        idf = np.array([_idf(n, int(k)) for k in df], dtype=np.float64)
        self._contrib = np.repeat(idf, df) * ((freqs * (BM25_K1 + 1.0)) / (freqs + norm[docs]))
        self._asin_rank = np.empty(n, dtype=np.int64)
        self._asin_rank[sorted(range(n), key=self.asins.__getitem__)] = np.arange(n)

    @classmethod
    def build(cls, products: Sequence[V8Product]) -> BM25Engine:
        """Index ``products`` with :data:`BM25_COLUMN_WEIGHTS` (token ids in C, grouping in numpy)."""
        weights = np.asarray(BM25_COLUMN_WEIGHTS[1:], dtype=np.float64)
        vocab: defaultdict[str, int] = defaultdict()
        vocab.default_factory = vocab.__len__  # an unseen token gets the next id
        ids: list[int] = []
        sizes: list[int] = []  # tokens per (product, column), row-major
        for columns in _tokenized(products):
            for toks in columns:
                ids += map(vocab.__getitem__, toks)
                sizes.append(len(toks))
        n = len(products)
        size = np.asarray(sizes, dtype=np.int64)
        doc = np.repeat(np.repeat(np.arange(n, dtype=np.int64), len(weights)), size)
        # One entry per occurrence, its column's weight; FTS5 sums them per (term, row).
        w = np.repeat(np.tile(weights, n), size)
        key = np.asarray(ids, dtype=np.int64) * max(n, 1) + doc
        order = np.argsort(key, kind="stable")
        key = key[order]
        starts = np.flatnonzero(np.r_[True, key[1:] != key[:-1]]) if len(key) else np.zeros(0, np.int64)
        freqs = np.add.reduceat(w[order], starts) if len(key) else np.zeros(0, np.float64)
        term, docs = np.divmod(key[starts], max(n, 1))
        indptr = np.zeros(len(vocab) + 1, dtype=np.int64)
        np.cumsum(np.bincount(term, minlength=len(vocab)), out=indptr[1:])
        return cls([p.asin for p in products], list(vocab), indptr, docs, freqs,
                   size.reshape(n, len(weights)).sum(axis=1), catalog_sha256(products))

    def search(self, query: str, n: int = RESULTS_N) -> list[tuple[str, float]]:
        """Top ``n`` by score (only products sharing a token), ties by ASIN ascending."""
        ids = [i for i in (self._term.get(t) for t in query_tokens(query)) if i is not None]
        if not ids or n <= 0:
            return []
        # bincount adds in array order, i.e. term by term in query order, as FTS5 sums its phrases
        # (so the sums match bit for bit); one C pass, and a fresh array per call (thread-safe).
        spans = [slice(self.indptr[i], self.indptr[i + 1]) for i in ids]
        scores = np.bincount(np.concatenate([self.docs[s] for s in spans]),
                             weights=np.concatenate([self._contrib[s] for s in spans]), minlength=len(self.asins))
        cand = np.flatnonzero(scores)  # every posting score is > 0 (idf >= 1e-6)
        cand_scores = scores[cand]
        if len(cand) > n:
            kth = np.partition(cand_scores, len(cand) - n)[len(cand) - n]
            keep = cand_scores >= kth
            cand, cand_scores = cand[keep], cand_scores[keep]
        order = np.lexsort((self._asin_rank[cand], -cand_scores))[:n]
        # .tolist(): Python ints and floats in one C pass (numpy scalars cost a conversion each)
        return [(self.asins[i], s) for i, s in zip(cand[order].tolist(), cand_scores[order].tolist(), strict=True)]

    def save(self, path: Path) -> None:
        """Write the raw index (weighted frequencies, row lengths) as one ``.npz`` (no pickles)."""
        vocab = np.frombuffer("\n".join(self.vocab).encode("utf-8"), dtype=np.uint8)
        with path.open("wb") as fh:
            np.savez(fh, vocab=vocab, indptr=self.indptr, docs=self.docs.astype(np.int32), freqs=self.freqs,
                     lengths=self.lengths)

    @classmethod
    def load(cls, path: Path, products: Sequence[V8Product], catalog_sha: str, raw: bytes | None = None) -> BM25Engine:
        """Read an index written by :meth:`save` for these products (``raw``: its bytes, already read)."""
        if raw is None:
            raw = read_data_file(path, MAX_INDEX_BYTES)
        try:
            with np.load(io.BytesIO(raw), allow_pickle=False) as z:
                blob = z["vocab"].tobytes().decode("utf-8")
                indptr, docs, freqs, lengths = z["indptr"], z["docs"], z["freqs"], z["lengths"]
        except (OSError, KeyError, ValueError, EOFError, zipfile.BadZipFile) as exc:  # UnicodeDecodeError too
            raise DataError(f"{path}: unreadable search index: {exc}; rebuild with shopsim data prepare") from exc
        vocab = blob.split("\n") if blob else []
        problem = _index_problem(vocab, indptr, docs, freqs, lengths, len(products))
        if problem:
            raise DataError(f"{path}: search index {problem}; rebuild with shopsim data prepare")
        return cls([p.asin for p in products], vocab, indptr, docs, freqs, lengths, catalog_sha)


def _index_problem(vocab: list[str], indptr: np.ndarray, docs: np.ndarray, freqs: np.ndarray, lengths: np.ndarray,
                   n: int) -> str | None:
    """What is wrong with saved index arrays for ``n`` products (None when they fit): wrong shapes
    or kinds, a decreasing ``indptr``, document numbers out of range, non-finite or non-positive
    frequencies, or a posting in a document of length zero.
    """
    arrays = {"indptr": indptr, "docs": docs, "freqs": freqs, "lengths": lengths}
    for name, a in arrays.items():
        if a.ndim != 1 or a.dtype.kind not in "iuf":
            return f"array {name} is not a 1-d numeric array"
    if len(lengths) != n or len(indptr) != len(vocab) + 1 or len(freqs) != len(docs):
        return "arrays do not fit the catalog (sizes differ)"
    if int(indptr[0]) != 0 or int(indptr[-1]) != len(docs) or bool(np.any(np.diff(indptr) < 0)):
        return "array indptr is not a non-decreasing run from 0 to the number of postings"
    if len(docs) and (int(docs.min()) < 0 or int(docs.max()) >= n):
        return "array docs holds document numbers outside the catalog"
    if not bool(np.all(np.isfinite(freqs))) or bool(np.any(freqs <= 0)):
        return "array freqs holds NaN, infinite, zero or negative frequencies"
    if not bool(np.all(np.isfinite(lengths))) or bool(np.any(lengths < 0)) or bool(np.any(lengths[docs] <= 0)):
        return "array lengths holds NaN, negative lengths, or zero for a product with postings"
    return None


def _idf(n_rows: int, n_hit: int) -> float:
    """FTS5's IDF: the Robertson/Sparck Jones form, floored at 1e-6 for terms in half the rows."""
    idf = math.log((n_rows - n_hit + 0.5) / (n_hit + 0.5))
    return idf if idf > 0.0 else _IDF_FLOOR


# ---- SQLite FTS5 engine --------------------------------------------------------------------------
class Fts5Engine:
    """SQLite FTS5 with ``bm25()``, as the seed. Text is pre-tokenized and space-joined; FTS5's
    ``ascii`` tokenizer then only splits on spaces (every non-ASCII character is a token character
    and nothing is folded beyond ASCII case), so both engines see the same tokens.
    """

    kind = "fts5"

    def __init__(self, conn: sqlite3.Connection, asins: Sequence[str], catalog_sha: str):
        self._conn = conn
        self._lock = threading.Lock()  # one connection, shared by server threads
        self.asins = list(asins)
        self.catalog_sha256 = catalog_sha
        weights = ", ".join(repr(float(w)) for w in BM25_COLUMN_WEIGHTS)
        self._sql = (f"SELECT asin, bm25(docs, {weights}) AS s FROM docs WHERE docs MATCH ? "
                     "ORDER BY s, asin LIMIT ?")

    @classmethod
    def build(cls, products: Sequence[V8Product]) -> Fts5Engine:
        """Index ``products`` into an in-memory FTS5 table."""
        conn = sqlite3.connect(":memory:", check_same_thread=False)
        cols = ", ".join(f"{c} UNINDEXED" if c == "asin" else c for c in FTS_COLUMNS)
        conn.execute(f"CREATE VIRTUAL TABLE docs USING fts5({cols}, tokenize='ascii')")
        rows = ((p.asin, *(" ".join(t) for t in toks)) for p, toks in zip(products, _tokenized(products), strict=True))
        conn.executemany(f"INSERT INTO docs VALUES ({', '.join('?' * len(FTS_COLUMNS))})", rows)
        conn.execute("INSERT INTO docs(docs) VALUES ('optimize')")  # one b-tree segment: faster queries
        conn.commit()
        return cls(conn, [p.asin for p in products], catalog_sha256(products))

    def search(self, query: str, n: int = RESULTS_N) -> list[tuple[str, float]]:
        """Top ``n`` by ``bm25()`` (negated: higher is better), ties by ASIN ascending."""
        toks = query_tokens(query)
        if not toks or n <= 0:
            return []
        match = " OR ".join('"' + t.replace('"', '""') + '"' for t in toks)
        with self._lock:
            rows = self._conn.execute(self._sql, (match, n)).fetchall()
        return [(asin, -score) for asin, score in rows]

    def save(self, path: Path) -> None:
        """Copy the database into a file."""
        path.unlink(missing_ok=True)
        dst = sqlite3.connect(path)
        try:
            with self._lock:
                self._conn.backup(dst)
        finally:
            dst.close()

    @classmethod
    def load(cls, path: Path, products: Sequence[V8Product], catalog_sha: str) -> Fts5Engine:
        """Read a saved database into memory (queries never touch the file again)."""
        os.close(open_data_fd(path))  # a regular file (SQLite would block on a FIFO)
        conn = sqlite3.connect(":memory:", check_same_thread=False)
        try:
            src = sqlite3.connect(path.resolve().as_uri() + "?mode=ro", uri=True)
            try:
                src.backup(conn)
            finally:
                src.close()
            (rows,) = conn.execute("SELECT count(*) FROM docs").fetchone()
        except sqlite3.Error as exc:
            raise DataError(f"{path}: unreadable search index: {exc}; rebuild with shopsim data prepare") from exc
        if rows != len(products):
            raise DataError(f"{path}: search index has {rows} rows, the catalog {len(products)} products; "
                            "rebuild with shopsim data prepare")
        return cls(conn, [p.asin for p in products], catalog_sha)


# ---- factory and persistence ---------------------------------------------------------------------
def make_engine(products: Sequence[V8Product], kind: str = "default") -> V8SearchEngine:
    """Build the engine ``kind`` (``default`` is :data:`DEFAULT_ENGINE`) over ``products``."""
    resolved = DEFAULT_ENGINE if kind == "default" else kind
    if resolved == "numpy":
        return BM25Engine.build(products)
    if resolved == "fts5":
        return Fts5Engine.build(products)
    raise ConfigError(f"unknown search engine {kind!r}: use default, fts5 or numpy")


def _manifest(engine: V8SearchEngine) -> dict[str, Any]:
    return {"search_version": SEARCH_VERSION, "engine": engine.kind, "fts_columns": list(FTS_COLUMNS),
            "bm25_column_weights": list(BM25_COLUMN_WEIGHTS), "bm25_k1": BM25_K1, "bm25_b": BM25_B,
            "tokenizer": TOKENIZER_VERSION, "catalog_sha256": engine.catalog_sha256,
            "products": len(engine.asins), "index_file": _FILES[engine.kind]}


def _index_sha256(path: Path) -> str:
    return hashlib.sha256(read_data_file(path, MAX_INDEX_BYTES)).hexdigest()


def save_index(engine_or_products: V8SearchEngine | Sequence[V8Product], directory: str | Path,
               kind: str = "default") -> Path:
    """Write the index and its manifest (last, so a half-written index has none); returns the manifest."""
    if isinstance(engine_or_products, (BM25Engine, Fts5Engine)):
        engine: V8SearchEngine = engine_or_products
    else:
        # BM25Engine and Fts5Engine are the only engines (make_engine), so this is the products
        engine = make_engine(list(cast(Sequence[V8Product], engine_or_products)), kind)
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    manifest = out / MANIFEST_NAME
    manifest.unlink(missing_ok=True)
    final = out / _FILES[engine.kind]
    tmp = final.with_name(final.name + ".tmp")  # written beside and renamed: never rewritten in place
    tmp.unlink(missing_ok=True)
    engine.save(tmp)
    tmp.replace(final)
    saved = _manifest(engine) | {"index_sha256": _index_sha256(final)}
    tmp = out / (MANIFEST_NAME + ".tmp")
    tmp.write_text(json.dumps(saved, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    tmp.replace(manifest)
    return manifest


def load_index(directory: str | Path, products: Sequence[V8Product]) -> V8SearchEngine:
    """Load a saved index for ``products``; a manifest that differs from the code or catalog is refused."""
    d = Path(directory)
    path = d / MANIFEST_NAME
    if not path.exists() and not path.is_symlink():
        raise DataError(f"{path}: no search index manifest; build one with shopsim data prepare")
    raw = read_data_file(path, 1 << 24)
    try:
        saved = json.loads(raw)
    except (ValueError, RecursionError) as exc:
        raise DataError(f"{path}: unreadable search index manifest ({exc}); rebuild with shopsim data prepare") from exc
    if not isinstance(saved, dict):
        raise DataError(f"{path}: search index manifest is not an object; rebuild with shopsim data prepare")
    kind = saved.get("engine")
    if kind not in _FILES:
        raise DataError(f"stale index: {path}: unknown engine {kind!r}; rebuild with shopsim data prepare")
    current = {"search_version": SEARCH_VERSION, "fts_columns": list(FTS_COLUMNS),
               "bm25_column_weights": list(BM25_COLUMN_WEIGHTS), "bm25_k1": BM25_K1, "bm25_b": BM25_B,
               "tokenizer": TOKENIZER_VERSION, "products": len(products)}
    for key, want in current.items():
        if saved.get(key) != want:
            raise DataError(f"stale index: {path}: {key} is {saved.get(key)!r}, the current is {want!r}; "
                            "rebuild with shopsim data prepare")
    sha = catalog_sha256(products)
    if saved.get("catalog_sha256") != sha:
        raise DataError(f"stale index: {path}: catalog_sha256 {str(saved.get('catalog_sha256'))[:12]}… does not "
                        f"match the catalog's {sha[:12]}…; rebuild with shopsim data prepare")
    index_path = d / _FILES[kind]
    raw = read_data_file(index_path, MAX_INDEX_BYTES)
    if saved.get("index_sha256") != hashlib.sha256(raw).hexdigest():
        raise DataError(f"{index_path}: not the index {path} describes (index_sha256 differs: swapped, altered, or "
                        "written by an older shopsim); rebuild with shopsim data prepare")
    if kind == "numpy":
        return BM25Engine.load(index_path, products, sha, raw)  # the bytes just checked, not a second read
    return Fts5Engine.load(index_path, products, sha)
