"""A download's files on disk: the ``.part`` opened without following links, and the result checked
against its pins. Apart from :mod:`shopsim.simsite.fetch` (the HTTP side) because what is written
where, and what counts as verified, is the part a security review reads.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import BinaryIO

from shopsim.errors import ConfigError
from shopsim.simsite.fetch_record import FetchError, RemoteFile, Verification, sha256_file, verification_level

__all__ = ["held_size", "open_part", "target_paths", "verify", "verify_or_delete"]


def verify(f: RemoteFile, path: Path) -> tuple[str, Verification]:
    """The file's SHA-256 and level, or FetchError naming what did not match."""
    size, digest = path.stat().st_size, sha256_file(path)
    level = verification_level(f)
    why = None
    if f.size is not None and size != f.size:
        why = f"{size} bytes, but the published file has {f.size}"
    elif f.sha256 and digest != f.sha256:
        why = f"SHA-256 {digest[:16]}... does not match the pinned {f.sha256[:16]}..."
    elif not f.sha256 and f.sha256_prefix and not digest.startswith(f.sha256_prefix):
        why = f"SHA-256 {digest[:16]}... does not start with the recorded {f.sha256_prefix}"
    if why is not None:
        raise FetchError(f"{f.name}: {why}", brief=f"gave bytes that do not verify ({why})")
    return digest, level


def verify_or_delete(f: RemoteFile, part: Path) -> tuple[str, Verification]:
    """:func:`verify` for a finished ``.part``; one that does not verify is deleted."""
    try:
        return verify(f, part)
    except FetchError as exc:
        part.unlink(missing_ok=True)  # whose bytes were wrong is unknowable when sources were mixed: start afresh
        raise FetchError(f"{exc} (download deleted; run again to fetch it afresh)",
                         brief=f"{exc.brief}; deleted the download") from None


def held_size(path: Path) -> int:
    """The size of our own regular file at ``path`` (0 when there is none); a link or anything else is refused."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return 0
    if not stat.S_ISREG(st.st_mode):
        kind = "a symlink" if stat.S_ISLNK(st.st_mode) else "not a regular file"
        raise FetchError(f"{path}: {kind}, not a download of shopsim's; remove it and run again (nothing is "
                         "written through it)")
    return st.st_size


def open_part(f: RemoteFile, part: Path, append: bool) -> BinaryIO:
    """``part`` for writing, never through a symlink: appended to, or created afresh (O_EXCL)."""
    flags = os.O_WRONLY | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    if append:
        flags |= os.O_APPEND
    else:
        part.unlink(missing_ok=True)  # removes a link itself, never its target
        flags |= os.O_EXCL
    try:
        fd = os.open(part, flags, 0o644)
    except OSError as exc:
        raise FetchError(f"{f.name}: cannot write {part} ({exc.strerror or exc}); a link or another file is in "
                         "the way") from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise FetchError(f"{f.name}: {part} is not a regular file; remove it and run again")
    return os.fdopen(fd, "ab" if append else "wb")


def target_paths(folder: Path, name: str) -> tuple[Path, Path]:
    """``folder/NAME`` and ``folder/NAME.part``: a name that would lead outside ``folder`` is refused."""
    if not name or name in (".", "..") or Path(name).name != name or "\\" in name or "\0" in name:
        raise ConfigError(f"{name!r}: not a plain file name; refusing to write outside {folder}")
    final, part = folder / name, folder / f"{name}.part"
    for path in (final, part):
        held_size(path)  # a planted link: refused before any request
    return final, part
