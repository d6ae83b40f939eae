"""A store's noun tags: every title's nouns, tagged while preparing, found by a hash of the text.

Why: the type reward tags the bought product's title and the goal's name; tagging costs
milliseconds per title (a second more to load spaCy), and a store is opened without parsing its
products, so ``prepare`` tags the titles in one batch (:func:`tag_store`) and the store keeps them:

- ``nouns.bin``: per document, the JSON list of its title's nouns, with ``nouns_offsets.npy``;
- ``nouns_keys.npy``: the 64-bit BLAKE2b hashes of the titles, sorted, with ``nouns_key_docs.npy``
  (the document of each), so a text is found by binary search over arrays read on open.

By default only catalogs of up to :data:`~shopsim.simsite.noun_table.EAGER_LIMIT` products are
tagged: spaCy takes about 2.5 ms a title, which at 1.18M products is about 50 CPU-minutes, far
more than the rest of ``prepare``; ``prepare_store(nouns=True)`` (``--nouns``) tags any size, in
``workers`` processes. The manifest's ``nouns`` names the tagger's version; a store without tags,
or tagged by another tagger than this process would load, is tagged on purchase, as before.
A text outside the catalog could share a title's hash with odds of about n / 2^64 (6e-14 at 1.18M titles).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from shopsim.simsite.noun_table import EAGER_LIMIT, load_catalog_tags
from shopsim.simsite.nouns import default_extractor
from shopsim.simsite.store.arrays import load_array
from shopsim.simsite.store.blob import Blob

__all__ = ["NOUN_FILES", "StoreTags", "tag_store", "text_hash", "titles_kept"]

NOUN_FILES = ("nouns.bin", "nouns_offsets.npy", "nouns_keys.npy", "nouns_key_docs.npy")


def text_hash(text: str) -> int:
    """The 64-bit key of a text (BLAKE2b of its UTF-8, lone surrogates kept)."""
    return int.from_bytes(hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=8).digest(), "little")


def titles_kept(kept: list[str] | None, more: list[str], nouns: bool | None) -> list[str] | None:
    """The titles collected so far for tagging: all of them when ``nouns``, none when it is False,
    and by default none as soon as there are more than :data:`EAGER_LIMIT` (memory and time
    spent only where the tags are made).
    """
    if kept is None:
        return None
    kept += more
    return kept if nouns or len(kept) <= EAGER_LIMIT else None


class _Files(Protocol):
    """The store's files as ``prepare`` writes them (hashed for the manifest)."""

    def blob(self, name: str, value: bytes) -> None: ...

    def array(self, name: str, value: np.ndarray) -> None: ...


def tag_store(files: _Files, titles: list[str] | None, folder: Path, n_process: int = 1) -> str | None:
    """Tag ``titles`` (every document's, in order) and write the tag files; returns the tagger's version
    for the manifest, or None when no titles were kept.

    The tags saved beside the source data (:mod:`shopsim.simsite.noun_table`) are used when they
    match, and saved there when they are made; ``n_process`` > 1 tags in that many processes
    (``nlp.pipe(n_process=)``), for a large catalog tagged on request.
    """
    if not titles:
        return None
    extractor = default_extractor()
    unique = set(titles)
    load_catalog_tags(extractor, unique, folder, n_process=n_process)
    try:
        tags = extractor.tag_many(unique, n_process=n_process)
    except ValueError:  # a title spaCy refuses (over its max_length): the store tags when bought, as before
        return None
    blobs = [json.dumps(tags[t], separators=(",", ":")).encode("ascii") for t in titles]
    files.blob(NOUN_FILES[0], b"".join(blobs))
    sizes = np.fromiter(map(len, blobs), np.int64, len(blobs))
    files.array(NOUN_FILES[1], np.concatenate([np.zeros(1, dtype=np.int64), np.cumsum(sizes)]))
    keys = np.fromiter(map(text_hash, titles), np.uint64, len(titles))
    order = np.argsort(keys, kind="stable")
    files.array(NOUN_FILES[2], keys[order])
    files.array(NOUN_FILES[3], order.astype(np.int32))
    return extractor.tagger.version


class StoreTags:
    """The tags of a store's titles, looked up by text (a :class:`~shopsim.simsite.nouns.TagLookup`)."""

    def __init__(self, root: str | Path):
        self.root = Path(root)
        self._keys = load_array(self.root / NOUN_FILES[2])
        self._docs = load_array(self.root / NOUN_FILES[3])
        self._offsets = load_array(self.root / NOUN_FILES[1])
        self._blob = Blob(self.root / NOUN_FILES[0])

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        # pickled by path, like the store's other files: a copy reads them again
        return StoreTags, (str(self.root),)

    def get(self, text: str) -> tuple[str, ...] | None:
        """The nouns of a title of the store, else None."""
        key = np.uint64(text_hash(text))
        i = int(np.searchsorted(self._keys, key))
        if i >= len(self._keys) or self._keys[i] != key:
            return None
        doc = int(self._docs[i])
        return tuple(json.loads(self._blob.read(int(self._offsets[doc]), int(self._offsets[doc + 1]))))
