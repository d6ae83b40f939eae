"""A store's ASINs both ways: document number to ASIN, and ASIN to document number.

Apart from :class:`~shopsim.simsite.store.data.StoreData` so that the store's index can hold it
without holding the store: a cycle between the two kept a dropped store (its descriptors, its
arrays and up to :data:`~shopsim.simsite.store.index.POSTINGS_CACHE_BYTES` of postings) alive until
the next cyclic collection, and for good after ``gc.freeze()``.
"""

from __future__ import annotations

import numpy as np

__all__ = ["AsinTable"]

_RECENT = 1 << 17
"""ASIN -> document answers kept (a few MB), so result filters and pages skip the binary search."""


class AsinTable:
    """The store's ``asins`` array (by document) and its sorted copy with each one's document."""

    def __init__(self, asins: np.ndarray, sorted_asins: np.ndarray, sorted_docs: np.ndarray):
        self._asins, self._sorted, self._sorted_docs = asins, sorted_asins, sorted_docs
        self._width = asins.dtype.itemsize
        self.count = len(asins)
        self._recent: dict[str, int] = {}

    def doc_of(self, asin: str) -> int | None:
        """The document number of ``asin`` (exact match), by binary search over the sorted ASINs.

        ASINs met recently (search results, pages) are answered from a bounded dictionary.
        """
        doc = self._recent.get(asin)
        if doc is not None:
            return doc
        key = asin.encode("utf-8", "surrogatepass")
        if len(key) > self._width or b"\0" in key or not key:
            return None
        i = int(np.searchsorted(self._sorted, key))
        if i < self.count and self._sorted[i] == key:
            doc = int(self._sorted_docs[i])
            self._remember(asin, doc)
            return doc
        return None

    def _remember(self, asin: str, doc: int) -> None:
        if len(self._recent) >= _RECENT:
            self._recent.clear()
        self._recent[asin] = doc

    def asin_at(self, doc: int) -> str:
        """The ASIN of document ``doc``."""
        asin = bytes(self._asins[doc]).decode("utf-8", "surrogatepass")
        self._remember(asin, doc)
        return asin

    def asins_at(self, docs: list[int]) -> list[str]:
        """The ASINs of documents ``docs`` (one gather for a page of results, not one per document)."""
        asins = [raw.decode("utf-8", "surrogatepass") for raw in self._asins[docs].tolist()]
        for asin, doc in zip(asins, docs, strict=True):
            self._remember(asin, doc)
        return asins
