"""Opening files that must be regular files: a FIFO, device, socket or folder is refused at once.

Why: ``open()`` on a FIFO blocks until a writer comes (for ever, if none does), and a device such as
``/dev/zero`` feeds endless bytes. Every data file shopsim reads (catalogs, stores, v8 prepared
folders, saved pages, bundles) goes through :func:`open_regular`, which opens without blocking and
checks the descriptor it got (``fstat``), so a file swapped in between cannot slip through either.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

__all__ = ["file_kind", "open_regular", "read_regular_file"]

_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_BINARY", 0) \
    | getattr(os, "O_CLOEXEC", 0)


def file_kind(mode: int) -> str:
    """A file type in words ('a folder', 'a FIFO'...) for messages."""
    for test, word in ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISSOCK, "a socket"), (stat.S_ISLNK, "a symbolic link")):
        if test(mode):
            return word
    return "not a regular file"


def _not_regular(mode: int, path: str | Path) -> OSError:
    return OSError(errno.EINVAL, f"{file_kind(mode)}, not a regular file", str(path))


def open_regular(path: str | Path) -> int:
    """A read-only descriptor of the regular file ``path``; OSError (with ``strerror``) otherwise.

    The file is checked before it is opened (a socket cannot be opened at all) and again after,
    on the descriptor, which was opened non-blocking so that a FIFO cannot hold the caller.
    """
    try:
        st = os.stat(path)
    except ValueError as exc:  # a NUL in the path
        raise OSError(errno.EINVAL, str(exc), str(path)) from exc
    if not stat.S_ISREG(st.st_mode):
        raise _not_regular(st.st_mode, path)
    fd = os.open(path, _FLAGS)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise _not_regular(st.st_mode, path)
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_regular_file(path: str | Path, limit: int) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes; OSError (with ``strerror``) otherwise.

    The size is checked before reading (a sparse 1 TiB file is refused from its size), and the read
    stops past ``limit`` should the file grow meanwhile.
    """
    fd = open_regular(path)
    try:
        size = os.fstat(fd).st_size
        if size > limit:
            raise OSError(errno.EFBIG, f"too large ({size:,} bytes; the limit is {limit:,})", str(path))
        chunks, got = [], 0
        # read what fstat promised (one read for most files), then one byte more to see growth
        while chunk := os.read(fd, min(size - got, 1 << 30) if got < size else min(1 << 20, limit + 1 - got)):
            chunks.append(chunk)
            got += len(chunk)
            if got > limit:
                raise OSError(errno.EFBIG, f"too large (over {limit:,} bytes)", str(path))
    finally:
        os.close(fd)
    return b"".join(chunks)
