"""The download progress line: redrawn in place on a terminal, one summary line per file elsewhere.

Kept beside :mod:`shopsim.simsite.fetch` so logs of non-interactive runs (CI, ``nohup``) still say what
was fetched, at what rate, and where a resumed download picked up.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO

__all__ = ["Progress", "human_bytes"]


def human_bytes(n: float) -> str:
    """``4467013`` -> ``'4.5 MB'`` (decimal units, as download sizes are usually quoted)."""
    for unit in ("B", "kB", "MB", "GB"):
        if n < 1000 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1000
    return f"{n:.1f} GB"  # pragma: no cover


class Progress:
    """One progress line per file on ``stream``: redrawn in place on a terminal, written once when done otherwise."""

    def __init__(self, stream: TextIO | None = None, *, live: bool | None = None):
        self.stream = stream if stream is not None else sys.stderr
        self.live = self.stream.isatty() if live is None else live
        self.name, self.done, self.total, self.start_at = "", 0, None, 0
        self._t0 = self._drawn = 0.0

    def start(self, name: str, have: int, total: int | None) -> None:
        self.name, self.done, self.total, self.start_at = name, have, total, have
        self._t0 = self._drawn = time.monotonic()
        self._draw()

    def advance(self, n: int) -> None:
        self.done += n
        now = time.monotonic()
        if self.live and now - self._drawn >= 0.1:
            self._drawn = now
            self._draw()

    def _line(self) -> str:
        rate = (self.done - self.start_at) / max(time.monotonic() - self._t0, 1e-6)
        if self.total:
            width = 24
            filled = min(width, int(width * self.done / self.total))
            bar = f"[{'#' * filled}{'.' * (width - filled)}] {100 * self.done / self.total:3.0f}%"
            amount = f"{human_bytes(self.done)} / {human_bytes(self.total)}"
        else:
            bar, amount = "[" + "?" * 24 + "]", human_bytes(self.done)
        resumed = f"  (resumed at {human_bytes(self.start_at)})" if self.start_at else ""
        return f"{self.name}  {bar}  {amount}  {human_bytes(rate)}/s{resumed}"

    def _draw(self) -> None:
        if self.live:
            self.stream.write("\r\x1b[K" + self._line())
            self.stream.flush()

    def interrupt(self) -> None:
        """End a half-drawn live line (the download stopped) so the next message starts on its own line."""
        if self.live and self.name:
            self.stream.write("\n")
            self.name = ""

    def say(self, line: str) -> None:
        """A message between progress lines (a retry, a switch to another source)."""
        self.interrupt()
        self.stream.write(line + "\n")
        self.stream.flush()

    def finish(self) -> None:
        self.stream.write(("\r\x1b[K" if self.live else "") + self._line() + "\n")
        self.stream.flush()
        self.name = ""
