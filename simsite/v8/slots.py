"""Environment slots as leases, with a fair queue when every slot is taken.

ShopSimulator treats exhausted slots as back-pressure, not failure: a reset waits (first come,
first served) until a slot is released or its idle lease expires, and only a wait past the
timeout is answered (503). The pool is used from one event loop, so it needs no locks.
"""

from __future__ import annotations

import asyncio
import heapq
import time
from collections import deque
from collections.abc import Callable

__all__ = ["SlotPool", "SlotTimeout"]


class SlotTimeout(Exception):
    """No slot became free within the wait limit."""


class SlotPool:
    """``size`` slots numbered ``0..size-1`` (the ``env_idx``); the lowest free one is handed out."""

    def __init__(self, size: int, sweep: Callable[[], None] | None = None, poll_s: float = 0.5):
        if size < 1:
            raise ValueError("a slot pool needs at least one slot")
        self.size = size
        self._free = list(range(size))
        self._waiters: deque[asyncio.Future[int]] = deque()
        self._sweep = sweep or (lambda: None)
        self._poll_s = poll_s

    @property
    def in_use(self) -> int:
        """How many slots are leased."""
        return self.size - len(self._free)

    @property
    def waiting(self) -> int:
        """How many resets wait for a slot."""
        return sum(1 for w in self._waiters if not w.done())

    async def acquire(self, timeout_s: float) -> int:
        """A free slot, waiting in FIFO order behind earlier callers; SlotTimeout after ``timeout_s``."""
        self._sweep()
        if self._free and not self.waiting:
            return heapq.heappop(self._free)
        fut: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        self._waiters.append(fut)
        deadline = time.monotonic() + timeout_s
        try:
            while True:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise SlotTimeout(f"no environment slot became free within {timeout_s:g}s")
                try:
                    return await asyncio.wait_for(asyncio.shield(fut), timeout=min(left, self._poll_s))
                except TimeoutError:
                    self._sweep()  # idle leases past their TTL give their slots back
        except BaseException:
            if fut.done() and not fut.cancelled():
                self.release(fut.result())  # handed a slot just as we gave up: pass it on
            else:
                fut.cancel()
            raise

    def release(self, slot: int) -> None:
        """Give ``slot`` to the longest waiter, or back to the free list."""
        while self._waiters:
            w = self._waiters.popleft()
            if not w.done():
                w.set_result(slot)
                return
        heapq.heappush(self._free, slot)
