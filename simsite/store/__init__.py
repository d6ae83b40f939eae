"""A prepared on-disk store of a WebShop-format catalog: written once, opened lazily in milliseconds.

``shopsim data prepare --data DIR --out STORE`` (:func:`prepare_store`) writes it;
``Shop.load(STORE)`` and every ``--data STORE`` open it (:func:`~.data.store_shop`);
``shopsim data verify STORE`` (:func:`verify_store`) checks every file's SHA-256 and recorded setting.

Why memory-mapped arrays and blobs, not SQLite. ``benchmarks/scale.py --sqlite`` copies a store
into SQLite (``WITHOUT ROWID`` tables keyed by ASIN and by term) and times the same reads; at
100k generated products on this 2-core machine a random product lookup (ASIN -> JSON bytes)
took 13 us from the store against 72 us from SQLite, one term's postings 34 us against 84 us
(``np.frombuffer`` over the BLOB), and writing the products into SQLite 10.8 s and 499 MB (one
transaction) against a fraction of a second (the whole store is 208 MB). Besides:

- **The index must be numpy arrays to score.** Lucene's arithmetic runs over per-term arrays of
  document numbers and float32 factors; ``np.load(mmap_mode="r")`` gives them with no copy and no
  parse, while a SQLite BLOB is copied into each process on every read.
- **Mapped pages are shared.** Every process that opens the store (``eval --workers``, Ray actors
  on one host) reads the same page-cache pages; SQLite reads through each connection's private
  cache, and a connection must not cross ``fork``.
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
