"""A store's blob file (``products.bin``, ``human.bin``, ``nouns.bin``), read with ``pread``, not mapped.

Records are read at random: through a mapping, each read maps the page cache's whole folio around
it (hundreds of KB on current kernels), and a few thousand pages would put most of a 1.9 GB
``products.bin`` in the process's RSS. ``pread`` copies only the record; the page cache is still
shared by every process reading the store. A record cut short by a truncated file is a DataError
(:func:`~shopsim.simsite.store.arrays.read_exact`), never a short record parsed as JSON.
"""

from __future__ import annotations

import os
import weakref
from pathlib import Path

from shopsim.simsite.datafiles import open_data_fd
from shopsim.simsite.store.arrays import read_exact

__all__ = ["Blob"]


class Blob:
    """One blob file, open for ``read(start, end)``."""

    def __init__(self, path: Path):
        # a raw descriptor, closed when the blob is collected (a file object would warn then)
        self._fd = open_data_fd(path)
        self._path = path
        weakref.finalize(self, os.close, self._fd)

    def read(self, start: int, end: int) -> bytes:
        """The bytes ``start:end`` of the file."""
        return read_exact(self._fd, self._path, end - start, start) if end > start else b""
