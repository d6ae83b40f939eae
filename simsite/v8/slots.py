"""Environment slots as leases, with a fair queue when every slot is taken.

ShopSimulator treats exhausted slots as back-pressure, not failure: a reset waits (first come,
first served) until a slot is released or its idle lease expires, and only a wait past the
timeout is answered (503). A waiter whose client hangs up leaves the queue at once
(:meth:`SlotPool.acquire_unless`), so a slot is never handed to nobody. The pool is used from one
event loop, so it needs no locks.
"""

from __future__ import annotations

import asyncio
import contextlib
import heapq
import time
from collections import deque
from collections.abc import Awaitable, Callable

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

    async def acquire_unless(self, timeout_s: float, gone: Callable[[], Awaitable[object]]) -> int | None:
        """:meth:`acquire`, or None as soon as ``gone()`` completes (the client hung up): its place in the
        queue is freed, and a slot handed over at that moment passes to the next waiter.
        """
        self._sweep()
        if self._free and not self.waiting:  # the common case: no queue, no watcher
            return heapq.heappop(self._free)
        taking = asyncio.ensure_future(self.acquire(timeout_s))
        watching = asyncio.ensure_future(gone())
        try:
            await asyncio.wait({taking, watching}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            watching.cancel()
            if not taking.done():
                taking.cancel()  # acquire's own clean-up passes on a slot it was handed meanwhile
                with contextlib.suppress(asyncio.CancelledError):
                    await taking
        if not taking.done() or taking.cancelled():
            return None
        slot = taking.result()  # SlotTimeout is raised here
        if watching.done() and not watching.cancelled():  # gone in the same moment: pass the slot on
            self.release(slot)
            return None
        return slot

    def release(self, slot: int) -> None:
        """Give ``slot`` to the longest waiter, or back to the free list."""
        while self._waiters:
            w = self._waiters.popleft()
            if not w.done():
                w.set_result(slot)
                return
        heapq.heappush(self._free, slot)
