"""A bounded memo that holds no reference to its owner, so a dropped store is freed at once.

``functools.lru_cache`` over a bound method (``self.at = lru_cache(...)(self._load)``) makes a
cycle: the object holds the cache, the cache the bound method, the method the object. A store
dropped by its user then kept its file descriptors and its read arrays until the next cyclic
collection, and for good once ``gc.freeze()`` (``load_shop``'s default) had frozen it. Here the owner
passes its loader on each call instead, and nothing points back at it.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Generic, TypeVar

__all__ = ["Memo"]

K = TypeVar("K")
V = TypeVar("V")


class Memo(Generic[K, V]):
    """The values of the last ``size`` keys asked, least recently used first out (thread-safe)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._kept: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: K, load: Callable[[K], V]) -> V:
        """The value kept for ``key``, else ``load(key)``, kept (a load runs outside the lock)."""
        with self._lock:
            if key in self._kept:
                self._kept.move_to_end(key)
                return self._kept[key]
        value = load(key)
        with self._lock:
            self._kept[key] = value
            if len(self._kept) > self.size:
                self._kept.popitem(last=False)
        return value

    def __len__(self) -> int:
        return len(self._kept)
