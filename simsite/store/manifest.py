"""A store's manifest and its integrity checks: cheap ones on every open, full ones on ``verify``.

``store.json`` records the format version, the shopsim version, the source files' SHA-256 and,
for every store file, its size and SHA-256. ``stamp.json`` records each file's modification time
(nanoseconds) when it was written or last verified.

Why two levels: hashing a 1.18M-product store (about 2.5 GB) takes seconds even at 1 GB/s, the
whole open budget, so :func:`check_store` compares only sizes (manifest) and modification times
(stamp), which catches a stale store, a truncated or rewritten file and an edit in place;
:func:`verify_store` (``shopsim data verify STORE``) hashes every file against the manifest and,
when all agree, re-stamps the modification times, so a store copied without keeping times (``cp``
without ``-p``) is accepted again after one full check instead of refused for ever.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from shopsim.errors import DataError

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
    "verify_store",
    "write_manifest",
]

#: Bump when the layout or anything baked into it (analysis, arithmetic, goal rules) changes.
STORE_FORMAT = "shopsim-store-1"
MANIFEST = "store.json"
STAMP = "stamp.json"
_CHUNK = 1 << 22


class FileEntry(BaseModel):
    """A file's size and SHA-256 (a store file, or a source file it was prepared from)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    size: int
    sha256: str


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


def file_sha256(path: Path) -> str:
    """SHA-256 of a file, read in chunks."""
    h = hashlib.sha256()
    try:
        with open(path, "rb") as f:
            while chunk := f.read(_CHUNK):
                h.update(chunk)
    except OSError as exc:
        raise DataError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    return h.hexdigest()


def is_store(path: str | Path | None) -> bool:
    """Whether ``path`` is a prepared store folder (it holds ``store.json``)."""
    return path is not None and (Path(path) / MANIFEST).is_file()


def write_manifest(root: Path, manifest: StoreManifest) -> None:
    """Write the manifest and stamp the files' current modification times."""
    (root / MANIFEST).write_text(manifest.model_dump_json(indent=1) + "\n", encoding="utf-8")
    _write_stamp(root, manifest)


def _write_stamp(root: Path, manifest: StoreManifest) -> None:
    stamp = {name: (root / name).stat().st_mtime_ns for name in manifest.files}
    tmp = root / (STAMP + ".tmp")
    tmp.write_text(json.dumps({"mtime_ns": stamp}, indent=1) + "\n", encoding="utf-8")
    os.replace(tmp, root / STAMP)


def read_manifest(root: Path) -> StoreManifest:
    """The store's manifest; a missing, unreadable or other-format manifest is one clear error."""
    path = root / MANIFEST
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError) as exc:
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
        stamp = json.loads((root / STAMP).read_text(encoding="utf-8"))["mtime_ns"]
    except (OSError, ValueError, KeyError, TypeError, RecursionError):
        stamp = {}
    for name, entry in manifest.files.items():
        try:
            st = (root / name).stat()
        except OSError:
            raise DataError(f"{root}: altered store: {name} is missing; prepare it again") from None
        if st.st_size != entry.size:
            raise DataError(f"{root}: altered store: {name} is {st.st_size} bytes, the manifest says {entry.size}; "
                            "prepare it again")
        if stamp.get(name) != st.st_mtime_ns:
            raise DataError(f"{root}: {name} changed since the store was prepared or last verified; run "
                            f"`shopsim data verify {root}` (full SHA-256 check, re-stamps a store that passes)")
    return manifest


def verify_store(root: Path) -> StoreManifest:
    """Hash every store file against the manifest; re-stamp modification times when all agree."""
    manifest = read_manifest(root)
    for name, entry in manifest.files.items():
        path = root / name
        if not path.is_file():
            raise DataError(f"{root}: altered store: {name} is missing; prepare it again")
        digest = file_sha256(path)
        if digest != entry.sha256:
            raise DataError(f"{root}: altered store: {name} has SHA-256 {digest[:16]}..., the manifest says "
                            f"{entry.sha256[:16]}...; prepare it again")
    _write_stamp(root, manifest)
    return manifest
