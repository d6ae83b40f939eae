"""Progress on stderr for long commands, in the two shapes they need.

- :class:`Progress`: a one-line bar for counted work (eval, data generate/prepare), silent off a terminal.
- :class:`DownloadProgress`: one line per downloaded file (``data fetch``), redrawn in place on a
  terminal and written once when done elsewhere, so logs of non-interactive runs (CI, ``nohup``) still
  say what was fetched, at what rate, and where a resumed download picked up.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO

__all__ = ["DownloadProgress", "Progress", "human_bytes"]


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

def human_bytes(n: float) -> str:
    """``4467013`` -> ``'4.5 MB'`` (decimal units, as download sizes are usually quoted)."""
    for unit in ("B", "kB", "MB", "GB"):
        if n < 1000 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1000
    return f"{n:.1f} GB"  # pragma: no cover


class DownloadProgress:
    """One progress line per file on ``stream``: redrawn in place on a terminal, written once when done otherwise."""

    def __init__(self, stream: TextIO | None = None, *, live: bool | None = None):
        self.stream = stream if stream is not None else sys.stderr
        self.live = self.stream.isatty() if live is None else live
        self.name, self.done, self.start_at = "", 0, 0
        self.total: int | None = None
        self._t0 = self._drawn = 0.0

    def start(self, name: str, have: int, total: int | None) -> None:
        """Begin one file's line: ``have`` bytes already on disk (a resumed download), ``total`` if known."""
        self.name, self.done, self.total, self.start_at = name, have, total, have
        self._t0 = self._drawn = time.monotonic()
        self._draw()

    def advance(self, n: int) -> None:
        """Record ``n`` more bytes and redraw when due."""
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
        """The file's final line (the only one off a terminal)."""
        self.stream.write(("\r\x1b[K" if self.live else "") + self._line() + "\n")
        self.stream.flush()
        self.name = ""
