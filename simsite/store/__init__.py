"""A prepared on-disk store of a WebShop-format catalog: written once, opened lazily in milliseconds.

``shopsim data prepare --data DIR --out STORE`` (:func:`prepare_store`) writes it;
``Shop.load(STORE)`` and every ``--data STORE`` open it (:func:`~.data.store_shop`);
``shopsim data verify STORE`` (:func:`verify_store`) checks every file's SHA-256 and recorded setting.

Why plain arrays and blobs read with ``pread``, not SQLite. ``benchmarks/scale.py --sqlite`` copies a store
into SQLite (``WITHOUT ROWID`` tables keyed by ASIN and by term) and times the same reads; at
100k generated products on this 2-core machine a random product lookup (ASIN -> JSON bytes)
took 13 us from the store against 72 us from SQLite, one term's postings 34 us against 84 us
(``np.frombuffer`` over the BLOB), and writing the products into SQLite 10.8 s and 499 MB (one
transaction) against a fraction of a second (the whole store is 208 MB). Besides:

- **The index must be numpy arrays to score.** Lucene's arithmetic runs over per-term arrays of
  document numbers and float32 factors; a term's slice of ``docs.npy`` and ``denom.npy`` is one
  ``pread`` each into an array, with no parse.
- **Nothing is mapped** (since issue 24, :mod:`.arrays`): a mapped file truncated under an open
  store killed the process with SIGBUS. The small arrays are read into memory on open, the
  postings and blobs a slice at a time; a truncated file fails that read with a DataError. Every
  process that opens the store still reads the same page-cache pages.
- **Writing is sequential.** ``prepare`` streams the blobs and ``np.save``s the arrays, hashing as
  it writes, so the manifest's checksums cost no second read.

Parsing a product (pydantic, about 0.1 ms unloaded) dominates either way, so products are
materialised only when a page shows them, and recent ones are kept in a small LRU.

So the whole store is plain files: ``products.bin``/``human.bin`` with ``*_offsets.npy``, ASIN
arrays (by document and sorted), prices and price ranges, goal arrays, the index under
``index/``, and ``store.json`` + ``stamp.json`` (see :mod:`.manifest` for the integrity scheme).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from shopsim.simsite.store.manifest import STORE_FORMAT, is_store

if TYPE_CHECKING:  # imported lazily at run time, by __getattr__ below
    from shopsim.simsite.store.data import verify_store
    from shopsim.simsite.store.prepare import prepare_store

__all__ = ["STORE_FORMAT", "is_store", "prepare_store", "verify_store"]


def __getattr__(name: str) -> object:
    if name == "prepare_store":  # the writer pulls in the loader and the pool: only when asked
        from shopsim.simsite.store.prepare import prepare_store

        return prepare_store
    if name == "verify_store":  # the full check opens the arrays (numpy): only when asked
        from shopsim.simsite.store.data import verify_store

        return verify_store
    raise AttributeError(name)
