"""A store's ``.npy`` arrays, read with ``pread`` into memory: never mapped, so never SIGBUS.

Reading a page of a mapping past the end of a file truncated since kills the process with SIGBUS.
Python cannot catch it: its handler only sets a flag and returns, the faulting load runs again and
faults again. Checking the file's size before each read (the ``MapGuard`` this replaces) left a
window between the check and the read. Copies close it: a truncation cannot reach bytes already in
this process's memory, and a ``pread`` of a truncated file returns fewer bytes, which is a
:class:`~shopsim.errors.DataError` naming the file, not a signal.

* :func:`load_array`: a whole array, read once on open (every array of the store but the postings:
  about 60 MB at 100k products, 0.4 s at 1.18M; the numbers are in docs/benchmarks.md);
* :class:`StoredArray`: the postings (``index/docs.npy``, ``index/denom.npy``, most of the store's
  arrays by size), read a term's slice at a time, as a query needs it;
* :func:`read_exact`: the one ``pread`` loop both use, and the blobs too.
"""

from __future__ import annotations

import math
import os
import tokenize
import weakref
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

import numpy as np

from shopsim.errors import DataError
from shopsim.simsite.datafiles import open_data_file

__all__ = ["StoredArray", "load_array", "read_exact"]

#: Bytes a full check reads of a :class:`StoredArray` at a time (bounded memory at any size).
CHUNK_BYTES = 64 << 20


def read_exact(fd: int, path: Path, size: int, offset: int) -> bytes:
    """``size`` bytes at ``offset``; a file now shorter than that is a DataError: it was truncated
    under the open store.
    """
    data = os.pread(fd, size, offset)
    while len(data) < size:  # a short read: the end of the file, or (rarely) a read cut short
        more = os.pread(fd, size - len(data), offset + len(data))
        if not more:
            raise DataError(f"{path}: truncated while the store is open (read {offset + len(data):,} bytes of "
                            f"{offset + size:,}); this request is refused; prepare the store again (a new store "
                            "is renamed into place, which open stores survive) and restart")
        data += more
    return data


def _read_header(f: BinaryIO, path: Path) -> tuple[tuple[int, ...], bool, np.dtype]:
    """An ``.npy`` header read from a checked descriptor: a damaged one is one DataError naming the file."""
    fmt = np.lib.format
    try:
        version = fmt.read_magic(f)
        read_header = {(1, 0): fmt.read_array_header_1_0, (2, 0): fmt.read_array_header_2_0}.get(version)
        if read_header is None:
            raise ValueError(f"npy format version {version} is not one np.save writes here")
        shape, fortran, dtype = read_header(f)
        if dtype.hasobject:
            raise ValueError("object arrays are not stored")
        if any(d < 0 for d in shape):  # numpy's header parser takes them; os.pread and len() do not
            raise ValueError(f"negative dimension in shape {shape}")
        return shape, fortran, dtype
    except (ValueError, SyntaxError, TypeError, OverflowError, EOFError, OSError, tokenize.TokenError) as exc:
        raise DataError(f"{path}: not a readable .npy array ({' '.join(str(exc).split())[:200]}); "
                        "prepare the store again") from exc


def _check_length(f: BinaryIO, path: Path, nbytes: int) -> None:
    if os.fstat(f.fileno()).st_size < f.tell() + nbytes:
        raise DataError(f"{path}: not a readable .npy array (shorter than its header says: {nbytes:,} bytes of "
                        "data); prepare the store again")


def load_array(path: Path) -> np.ndarray:
    """An ``.npy`` file's array, read into memory (``np.load`` without its parse errors: a FIFO is
    refused at once by :func:`open_data_file`, a damaged header or a short file is a DataError).
    """
    with open_data_file(path) as f:
        shape, fortran, dtype = _read_header(f, path)
        count = math.prod(shape)  # Python ints: a damaged header's (2**32, 2**32) must not wrap to 0 in int64
        _check_length(f, path, count * dtype.itemsize)
        raw = read_exact(f.fileno(), path, count * dtype.itemsize, f.tell())
    return np.frombuffer(raw, dtype=dtype, count=count).reshape(shape, order="F" if fortran else "C")


class StoredArray:
    """A one-dimensional ``.npy`` array left on disk and read by slices with ``pread``.

    The descriptor opened here is kept: a store replaced by a rename keeps being read from the
    files it was opened with.
    """

    def __init__(self, path: Path):
        self.path = path
        with open_data_file(path) as f:
            shape, _, self.dtype = _read_header(f, path)
            if len(shape) != 1:
                raise DataError(f"{path}: expected a one-dimensional array, found shape {shape}")
            self.size = int(shape[0])
            _check_length(f, path, self.size * self.dtype.itemsize)
            self._offset = f.tell()
            self._fd = os.dup(f.fileno())
        weakref.finalize(self, os.close, self._fd)

    def __len__(self) -> int:
        return self.size

    def read(self, start: int, stop: int) -> np.ndarray:
        """Values ``start:stop``, copied into memory."""
        count = max(stop - start, 0)
        raw = read_exact(self._fd, self.path, count * self.dtype.itemsize, self._offset + start * self.dtype.itemsize)
        return np.frombuffer(raw, dtype=self.dtype, count=count)

    def chunks(self) -> Iterator[np.ndarray]:
        """Every value, :data:`CHUNK_BYTES` at a time (a full check at any size, in bounded memory)."""
        step = max(CHUNK_BYTES // self.dtype.itemsize, 1)
        for start in range(0, self.size, step):
            yield self.read(start, min(start + step, self.size))
