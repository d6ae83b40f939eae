"""Saved noun tags of a WebShop-format catalog: a small JSON file beside the data, or in the user cache.

Why: the type reward tags the bought product's title and the goal's name. Tagging one text with
spaCy costs milliseconds and loading the model a second, so the first purchase stalled and every
new title stalled again. :func:`load_catalog_tags` tags a catalog's titles once, in one batch
(``nlp.pipe``), saves them, and on later opens reads them back in a few milliseconds.

The file, ``shopsim-nouns-<key[:16]>.json``, holds ``{"format", "tagger", "key", "tags"}``. ``key``
is the SHA-256 of the format, the tagger's version (spaCy's, the model's) and the sorted texts, so
a file for other texts or another tagger is never read as this one's. A file that fails any check
(unreadable, not this key, a text missing or added) is ignored and written again; writes go to a
temporary file renamed into place, so a reader never sees half a file.

It is written beside the items file when that folder is writable, else under ``nouns/`` in the
user cache (``$SHOPSIM_CACHE_DIR``, else ``$XDG_CACHE_HOME/shopsim``, else ``~/.cache/shopsim``).
A folder without any write permission bit counts as read-only even for root: a data set locked
with ``chmod a-w`` is not ours to add to. The fallback tagger is not saved: it costs microseconds.

``python -m shopsim.simsite.noun_table [FOLDER]`` writes the file for a folder (default: the
bundled catalog, which ships its tags).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Collection, Mapping
from pathlib import Path
from typing import Literal, TextIO

from pydantic import BaseModel, ConfigDict, ValidationError

from shopsim.errors import DataError
from shopsim.progress import Progress
from shopsim.simsite.datafiles import read_data_file
from shopsim.simsite.nouns import FALLBACK, NounExtractor, Tagger
from shopsim.simsite.user_cache import cache_dir, in_package, places, texts_key, write_atomic

__all__ = ["EAGER_LIMIT", "FORMAT", "NounTable", "find_table", "load_catalog_tags", "read_table", "sidecar_name",
           "table_key", "write_table"]

FORMAT = "shopsim-nouns-1"
EAGER_LIMIT = 5_000
"""Catalogs with more titles are not tagged on open (spaCy takes 1-2.5 ms a title, so 5,000 take up
to about 12 s on one busy core): their titles are tagged when bought, or ahead of time in a store
prepared with ``--nouns``."""


class NounTable(BaseModel):
    """The sidecar file as written: checked on read, never trusted."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    format: Literal["shopsim-nouns-1"]
    tagger: str
    key: str
    tags: dict[str, list[str]]


def table_key(texts: Collection[str], tagger: Tagger) -> str:
    """SHA-256 of the format, the tagger's version and the sorted texts (each length-prefixed)."""
    return texts_key(f"{FORMAT}\n{tagger.version}\n", sorted(texts))


def sidecar_name(key: str) -> str:
    """The file name of the table with this key."""
    return f"shopsim-nouns-{key[:16]}.json"


def read_table(path: Path, key: str, texts: Collection[str]) -> dict[str, tuple[str, ...]] | None:
    """The tags saved at ``path`` when the file is exactly the table for ``key`` over ``texts``, else None."""
    try:
        table = NounTable.model_validate(json.loads(read_data_file(path)))
    except (DataError, ValueError, RecursionError, ValidationError):  # missing, not a file, unreadable, damaged
        return None
    if table.key != key or len(table.tags) != len(texts) or not all(t in table.tags for t in texts):
        return None
    return {text: tuple(nouns) for text, nouns in table.tags.items()}


def write_table(folder: Path, key: str, tagger: Tagger, tags: Mapping[str, tuple[str, ...]]) -> Path:
    """Write the table into ``folder`` atomically (a temporary file renamed into place); returns its path."""
    body = json.dumps({"format": FORMAT, "tagger": tagger.version, "key": key,
                       "tags": {text: list(tags[text]) for text in sorted(tags)}}, separators=(",", ":"))
    return write_atomic(folder, sidecar_name(key), lambda f: f.write(body.encode("ascii") + b"\n"))


def _save(folder: Path, key: str, tagger: Tagger, tags: Mapping[str, tuple[str, ...]]) -> Path | None:
    """Save beside the data if we may, else in the user cache; None when neither takes it.

    Never beside the bundled catalog: a subset of it (``num_products=200``) would add a file to the
    installed package; only ``python -m shopsim.simsite.noun_table`` writes the shipped table there.
    """
    for place in places(folder, "nouns"):
        try:
            return write_table(place, key, tagger, tags)
        except OSError:
            continue
    return None


def find_table(folder: Path, key: str, texts: Collection[str]) -> tuple[Path, dict[str, tuple[str, ...]]] | None:
    """The table for ``key`` saved beside the data or in the user cache, with its path; None when neither holds it."""
    for place in (folder, cache_dir() / "nouns"):
        saved = read_table(place / sidecar_name(key), key, texts)
        if saved is not None:
            return place / sidecar_name(key), saved
    return None


def load_catalog_tags(extractor: NounExtractor, texts: Collection[str], folder: Path,
                      stream: TextIO | None = None, n_process: int = 1) -> Path | None:
    """Give ``extractor`` the saved tags of ``texts`` (a catalog's titles), tagging them the first time
    (in ``n_process`` processes; a progress bar on ``stream``, default stderr, when it is a terminal)
    and saving them.

    Returns the file read or written; None when nothing is saved for these texts (the fallback
    tagger, more than :data:`EAGER_LIMIT` texts, or no writable place).
    """
    tagger = extractor.tagger
    if tagger == FALLBACK or not texts or len(texts) > EAGER_LIMIT:
        return None
    key = table_key(texts, tagger)
    if extractor.has_table(key):
        return None
    found = find_table(folder, key, texts)
    if found is not None:
        extractor.add_table(key, found[1])
        return found[0]
    bar = Progress("tagging titles (once per catalog)", len(texts), "", stream=stream or sys.stderr)
    try:
        tags = extractor.tag_many(texts, bar.set, n_process)
    except ValueError:  # a title spaCy refuses (over its max_length): tagged when bought, as before
        return None
    finally:
        bar.close()
    if extractor.tagger != tagger:  # the model did not load: the tags are the fallback's, not worth saving
        return None
    extractor.add_table(key, tags)
    return _save(folder, key, tagger, tags)


def main(argv: list[str] | None = None) -> int:
    """Open a folder's catalog (default: the bundled one), which saves its tag table, and print where it is."""
    from shopsim.simsite.catalog import default_catalog_dir
    from shopsim.simsite.shop import Shop

    args = sys.argv[1:] if argv is None else argv
    folder = Path(args[0]) if args else default_catalog_dir()
    shop = Shop.load(folder)
    texts = {p.title for p in shop.product_list}
    key = table_key(texts, shop.nouns.tagger)
    found = find_table(folder, key, texts)
    if found is not None and found[0].parent != folder and in_package(folder):  # the table we ship
        found = (write_table(folder, key, shop.nouns.tagger, found[1]), found[1])
    print(found[0] if found is not None else f"nothing saved (tagger {shop.nouns.source}, {len(texts)} titles)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
