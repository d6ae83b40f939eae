"""Arrays the top-k search reuses from query to query, one set per thread.

A query at 1.18M products works on arrays of hundreds of thousands of entries; allocated and freed
on every query, they would come from fresh kernel pages each time (glibc maps big blocks and
returns a freed heap top). Kept per thread, since a server may search from several at once.
"""

from __future__ import annotations

import threading

import numpy as np

__all__ = ["buffer", "indices", "scratch"]


def indices(docs: np.ndarray) -> np.ndarray:
    """Document numbers as native indices (numpy would convert int32 on every fancy index)."""
    return docs.astype(np.intp, copy=False)


_local = threading.local()


def scratch(size: int, dtype: type[np.generic]) -> np.ndarray:
    """A zeroed array of at least ``size`` for this thread, reused across queries (a fresh one
    would cost its page faults on every query); the caller clears what it wrote.
    """
    key = np.dtype(dtype).name
    buf = getattr(_local, key, None)
    if buf is None or len(buf) < size:
        buf = np.zeros(max(size, 1024), dtype=dtype)
        setattr(_local, key, buf)
    return buf


def buffer(size: int, dtype: type[np.generic], role: str) -> np.ndarray:
    """This thread's array of exactly ``size`` for one role in a query, contents undefined.

    Arrays of a query's size, allocated and freed on every query, would come from fresh pages
    of the kernel each time (glibc maps big blocks and returns a freed heap top): measured,
    a thousand page faults a query at 1.18M products, most of the exhaustive path's time.
    """
    buffers: dict[tuple[str, str], np.ndarray] | None = getattr(_local, "buffers", None)
    if buffers is None:
        buffers = _local.buffers = {}
    key = (role, np.dtype(dtype).name)
    buf = buffers.get(key)
    if buf is None or len(buf) < size:
        buf = buffers[key] = np.empty(max(size, 1024), dtype=dtype)
    return buf[:size]
