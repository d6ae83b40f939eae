"""Where shopsim keeps what it derives from a data set: beside the data, else in the user cache.

Why one module: the noun tags (:mod:`.noun_table`) and the built search index (:mod:`.saved_index`)
follow the same rules, so a user finds both in the same places and a locked data set stays untouched.

- Beside the data when that folder is writable and is not inside the installed package (the
  bundled catalog is package data, not the user's); a folder without any write permission bit
  counts as read-only even for root: a data set locked with ``chmod a-w`` is not ours to add to.
- Else in the user cache: ``$SHOPSIM_CACHE_DIR``, else ``$XDG_CACHE_HOME/shopsim``, else
  ``~/.cache/shopsim``, under a subfolder per kind.
- Writes go to a temporary file renamed into place, so a reader never sees half a file.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import BinaryIO

__all__ = ["CACHE_ENV", "cache_dir", "in_package", "places", "texts_key", "writable", "write_atomic"]

#: The environment variable that relocates shopsim's user cache.
CACHE_ENV = "SHOPSIM_CACHE_DIR"


def cache_dir() -> Path:
    """The user cache folder of shopsim (``$SHOPSIM_CACHE_DIR``, ``$XDG_CACHE_HOME/shopsim`` or ``~/.cache/shopsim``)."""
    named = os.environ.get(CACHE_ENV, "").strip()
    if named:
        return Path(named).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME", "").strip()
    return (Path(xdg) if xdg else Path.home() / ".cache") / "shopsim"


def writable(folder: Path) -> bool:
    """Whether we may add files to ``folder``: it has a write bit and this process may write there."""
    try:
        mode = folder.stat().st_mode
    except OSError:
        return False
    return bool(mode & 0o222) and os.access(folder, os.W_OK)


def in_package(folder: Path) -> bool:
    """Whether ``folder`` is inside the installed shopsim (the bundled catalog): package data, not the user's."""
    package = Path(__file__).resolve().parent
    try:
        folder.resolve().relative_to(package)
    except ValueError:
        return False
    return True


def places(folder: Path, kind: str) -> list[Path]:
    """Where a file derived from the data in ``folder`` may be written, in order of preference."""
    beside = writable(folder) and not in_package(folder)
    return ([folder] if beside else []) + [cache_dir() / kind]


def write_atomic(folder: Path, name: str, write: Callable[[BinaryIO], object]) -> Path:
    """Write ``folder / name`` through ``write`` into a temporary file renamed into place; returns its path."""
    folder.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".shopsim-", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as f:
            write(f)
        os.chmod(tmp, 0o644)
        path = folder / name
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def texts_key(header: str, texts: Iterable[str]) -> str:
    """SHA-256 of ``header`` and the texts in order, each length-prefixed (so no two lists of texts collide):
    the key a saved file is named by and checked against.
    """
    h = hashlib.sha256(header.encode())
    for text in texts:
        raw = text.encode("utf-8", "surrogatepass")
        h.update(len(raw).to_bytes(8, "little"))
        h.update(raw)
    return h.hexdigest()
