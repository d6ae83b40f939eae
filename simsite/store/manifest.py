"""A store's manifest and its integrity checks: cheap ones on every open, full ones on ``verify``.

``store.json`` records the format version, the shopsim version, the source files' SHA-256 and,
for every store file, its size and SHA-256. ``stamp.json`` records each file's modification time
(nanoseconds) when it was written or last verified.

Why two levels: hashing a 1.18M-product store (about 2.5 GB) takes seconds even at 1 GB/s, the
whole open budget, so :func:`check_store` compares only sizes (manifest), modification times
(stamp) and a sampled fingerprint (16 blocks of 4 KB per file, ``FileEntry.sample``), which
catches a stale store, a truncated or rewritten file, an edit in place and a file swapped in from
another store with its time kept; :func:`verify_files` (``shopsim data verify STORE``, with
:func:`~.data.verify_store`'s checks of the recorded settings) hashes every file against the
manifest, refusing a file of the wrong size from its size, before reading it.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from shopsim.errors import DataError
from shopsim.simsite.datafiles import open_data_file, read_data_file

__all__ = [
    "MANIFEST",
    "STAMP",
    "STORE_FORMAT",
    "FileEntry",
    "StoreManifest",
    "check_store",
    "file_sha256",
    "is_store",
    "read_manifest",
    "sample_sha256",
    "verify_files",
    "write_manifest",
    "write_stamp",
]

#: Bump when the layout or anything baked into it (analysis, arithmetic, goal rules) changes.
STORE_FORMAT = "shopsim-store-1"
MANIFEST = "store.json"
STAMP = "stamp.json"
_CHUNK = 1 << 22
_SMALL = 1 << 24
"""The most bytes ``store.json`` and ``stamp.json`` may hold (a few kB in practice)."""


class FileEntry(BaseModel):
    """A file's size and SHA-256 (a store file, or a source file it was prepared from)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    size: int
    sha256: str
    sample: str | None = None
    """:func:`sample_sha256` of the file (stores prepared before it was recorded have none)."""


class StoreManifest(BaseModel):
    """What a store holds and how to tell that it is intact."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    format: str
    shopsim_version: str
    profile: Literal["webshop"] = "webshop"
    seed: int
    """The seed of the stored prices and goals (other seeds are drawn at open)."""
    num_products: int | None
    records: int
    """Product records read from the items file (before WebShop's skip and duplicate rules)."""
    products: int
    goals: int
    human_goals: int
    range_prices: int
    terms: int
    postings: int
    nouns: str | None = None
    """The version of the tagger that tagged the titles' nouns (``nouns.bin``); None in a store without them."""
    sources: dict[str, FileEntry]
    files: dict[str, FileEntry]


def file_sha256(path: Path, root: Path | None = None, entry: FileEntry | None = None) -> str:
    """SHA-256 of a file, read in chunks; with a store's ``entry``, a file of another size is
    refused from its size (a sparse 1 TiB file is not read) and no more than its size is read.
    """
    h = hashlib.sha256()
    try:
        with open_data_file(path) as f:
            if entry is not None and root is not None:
                _check_size(root, entry.name, entry, os.fstat(f.fileno()).st_size)
            left = entry.size if entry is not None else -1
            while left and (chunk := f.read(_CHUNK if left < 0 else min(_CHUNK, left))):
                h.update(chunk)
                left -= len(chunk) if left > 0 else 0
    except OSError as exc:
        raise DataError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    return h.hexdigest()


def sample_sha256(path: Path) -> str:
    """SHA-256 of the size and 16 blocks of 4 KB spread evenly over the file (head and tail included):
    a fingerprint read in a millisecond that tells apart files of one size from different stores.
    """
    with open_data_file(path) as f:
        fd = f.fileno()
        size = os.fstat(fd).st_size
        block = min(4096, size)
        h = hashlib.sha256(str(size).encode())
        try:
            for i in range(16):
                h.update(os.pread(fd, block, (size - block) * i // 15))
        except OSError as exc:
            raise DataError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    return h.hexdigest()


def _check_size(root: Path, name: str, entry: FileEntry, size: int) -> None:
    if size != entry.size:
        raise DataError(f"{root}: altered store: {name} is {size} bytes, the manifest says {entry.size}; "
                        "prepare it again")


def is_store(path: str | Path | None) -> bool:
    """Whether ``path`` is a prepared store folder (it holds ``store.json``)."""
    return path is not None and os.path.lexists(Path(path) / MANIFEST)  # a FIFO there is refused when read


def write_manifest(root: Path, manifest: StoreManifest) -> None:
    """Write the manifest and stamp the files' current modification times."""
    (root / MANIFEST).write_text(manifest.model_dump_json(indent=1) + "\n", encoding="utf-8")
    write_stamp(root, manifest)


def write_stamp(root: Path, manifest: StoreManifest) -> None:
    """Record the files' modification times (after preparing, or after a full check passed)."""
    stamp = {name: (root / name).stat().st_mtime_ns for name in manifest.files}
    tmp = root / (STAMP + ".tmp")
    tmp.write_text(json.dumps({"mtime_ns": stamp}, indent=1) + "\n", encoding="utf-8")
    os.replace(tmp, root / STAMP)


def read_manifest(root: Path) -> StoreManifest:
    """The store's manifest; a missing, unreadable or other-format manifest is one clear error."""
    path = root / MANIFEST
    data = read_data_file(path, _SMALL)
    try:
        raw = json.loads(data)
    except (ValueError, RecursionError) as exc:
        raise DataError(f"{path}: cannot read the store manifest: {exc}") from exc
    found = raw.get("format") if isinstance(raw, dict) else None
    if found != STORE_FORMAT:
        raise DataError(f"{root}: stale store: format {found!r}, this shopsim reads {STORE_FORMAT!r}; "
                        f"prepare it again (shopsim data prepare --data DIR --out {root})")
    try:
        return StoreManifest.model_validate(raw)
    except ValidationError as exc:
        err = exc.errors()[0]
        raise DataError(f"{path}: bad store manifest: field '{'.'.join(map(str, err['loc']))}': {err['msg']}") from exc


def check_store(root: Path) -> StoreManifest:
    """The cheap check made on every open: format, every file present with its size and stamp."""
    manifest = read_manifest(root)
    try:
        stamp = json.loads(read_data_file(root / STAMP, _SMALL))["mtime_ns"]
    except (DataError, ValueError, KeyError, TypeError, RecursionError):
        stamp = {}
    for name, entry in manifest.files.items():
        try:
            st = (root / name).stat()
        except OSError:
            raise DataError(f"{root}: altered store: {name} is missing; prepare it again") from None
        _check_size(root, name, entry, st.st_size)
        if stamp.get(name) != st.st_mtime_ns:
            raise DataError(f"{root}: {name} changed since the store was prepared or last verified; run "
                            f"`shopsim data verify {root}` (full SHA-256 check, re-stamps a store that passes)")
        if entry.sample is not None and sample_sha256(root / name) != entry.sample:
            raise DataError(f"{root}: altered store: {name}'s sampled fingerprint differs from the manifest's "
                            "(a file from another store?); prepare it again")
    return manifest


def verify_files(root: Path) -> StoreManifest:
    """Hash every store file against the manifest (a file of the wrong size is refused unread)."""
    manifest = read_manifest(root)
    for name, entry in manifest.files.items():
        path = root / name
        if not os.path.lexists(path):
            raise DataError(f"{root}: altered store: {name} is missing; prepare it again")
        digest = file_sha256(path, root, entry)
        if digest != entry.sha256:
            raise DataError(f"{root}: altered store: {name} has SHA-256 {digest[:16]}..., the manifest says "
                            f"{entry.sha256[:16]}...; prepare it again")
    return manifest
