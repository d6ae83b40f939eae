"""A one-line progress bar on stderr for long commands (eval, data generate/prepare); silent off a terminal."""

from __future__ import annotations

import sys
import time
from typing import TextIO

__all__ = ["Progress"]


class Progress:
    """``label [#####.....] done/total unit  rate/s  ETA``, redrawn at most ten times a second."""

    def __init__(self, label: str, total: int, unit: str = "", stream: TextIO | None = None,
                 enabled: bool | None = None):
        self.stream = stream if stream is not None else sys.stderr
        self.label, self.total, self.unit, self.done = label, max(total, 0), unit, 0
        tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.enabled = (tty if enabled is None else enabled) and self.total > 0
        self.t0 = self.last = time.monotonic()
        self.shown = False

    def set(self, done: int) -> None:
        """Record absolute progress and redraw when due."""
        self.done = min(done, self.total)
        now = time.monotonic()
        if self.enabled and (now - self.last >= 0.1 or self.done >= self.total):
            self.last = now
            rate = self.done / max(now - self.t0, 1e-9)
            eta = (self.total - self.done) / rate if rate > 0 else 0.0
            filled = int(30 * self.done / self.total)
            bar = "#" * filled + "." * (30 - filled)
            shown = f"{rate:.1f}" if rate < 100 else _human(int(rate))
            self.stream.write(f"\r  {self.label} [{bar}] {_human(self.done)}/{_human(self.total)}{self.unit}  "
                              f"{shown}{self.unit}/s  ETA {eta:.0f}s ")
            self.stream.flush()
            self.shown = True

    def update(self, n: int = 1) -> None:
        """Record ``n`` more units done."""
        self.set(self.done + n)

    def note(self, text: str) -> None:
        """One status line for a phase without a count (only where the bar is drawn)."""
        if self.enabled:
            self.stream.write(f"  {self.label}: {text}\n")
            self.stream.flush()

    def close(self) -> None:
        """End the bar's line."""
        if self.enabled and self.shown:
            self.stream.write("\n")
            self.stream.flush()


def _human(n: int) -> str:
    """1234567 -> ``1.2M``; small numbers as they are."""
    for div, suffix in ((10**9, "G"), (10**6, "M"), (10**3, "k")) if n >= 100_000 else ():
        if n >= div:
            return f"{n / div:.1f}{suffix}"
    return str(n)
