"""Finding a WebShop-format catalog's files and reading JSON and JSONL from them.

Every read, encoding or syntax error becomes one :class:`~shopsim.errors.DataError` line naming the
file (and the offset or line), and the helpers here word a bad value the same way for every file.
Every data file is opened by :func:`open_data_file` or :func:`read_data_file`: regular files only
(a FIFO would block the reader for ever), and never more bytes than the machine has memory.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from shopsim.errors import DataError
from shopsim.regular_files import open_regular, read_regular_file

__all__ = [
    "DATA_ENV",
    "CatalogFiles",
    "env_data_dir",
    "find_catalog_files",
    "iter_jsonl",
    "json_kind",
    "load_json",
    "load_side_files",
    "object_list",
    "one_line",
    "open_data_fd",
    "open_data_file",
    "read_data_file",
    "short_repr",
]

_JSON_KINDS: dict[type, str] = {type(None): "null", bool: "a boolean", int: "a number", float: "a number",
                                str: "a string", list: "a list", dict: "an object"}


#: The environment variable naming the user's WebShop data (a folder in WebShop's layout, or a prepared
#: store): the default of ``--data`` and of ``web_agent_site.utils``' paths.
DATA_ENV = "SHOPSIM_DATA"

GET_DATA_HINT = ("get WebShop's data with `shopsim data fetch --set small --out DIR` and set "
                 f"{DATA_ENV}=DIR (or DIR/store)")


def env_data_dir() -> Path | None:
    """The folder ``$SHOPSIM_DATA`` names, or None when unset or empty.

    A value naming no folder is refused in one line rather than silently replaced by the bundled
    catalog: a user who set it meant their data.
    """
    value = os.environ.get(DATA_ENV, "").strip()
    if not value:
        return None
    path = Path(value).expanduser()
    if not path.is_dir():
        raise DataError(f"{DATA_ENV}={value}: no such folder ({GET_DATA_HINT})")
    return path


@dataclass(frozen=True)
class CatalogFiles:
    """Where a catalog's files are; only ``items`` is required."""

    items: Path
    attributes: Path | None = None
    human_instructions: Path | None = None
    reviews: Path | None = None


def find_catalog_files(data_dir: str | Path, items: str | Path | None = None) -> CatalogFiles:
    """Find WebShop-format files in a folder (``items_shuffle*.json``, ``items_ins_v2*.json``, ...).

    ``items`` names the product file (any name, as WebShop's ``file_path``); the others are looked up beside it.
    """
    root = Path(data_dir)
    if not root.is_dir():
        raise DataError(f"{root}: no such data folder (expected WebShop files such as items_shuffle_1000.json)")

    def pick(pattern: str) -> Path | None:
        found = sorted(root.glob(pattern))
        return found[0] if found else None

    # WebShop's file names first, then the names our generator writes.
    items = Path(items) if items is not None else pick("items_shuffle*.json") or pick("shop_items*.json")
    if items is None:
        raise DataError(f"{root}: no items_shuffle*.json (or shop_items*.json) product file in this folder")
    return CatalogFiles(
        items=items,  # a named file that is missing fails when it is read, naming it
        attributes=pick("items_ins_v2*.json") or pick("shop_attributes*.json"),
        human_instructions=pick("items_human_ins*.json") or pick("shop_human_instructions*.json"),
        reviews=pick("reviews*.json") or pick("shop_reviews*.json"),
    )


def json_kind(value: Any) -> str:
    """What a value is, in JSON's words, for error messages."""
    return _JSON_KINDS.get(type(value), type(value).__name__)


def short_repr(value: Any) -> str:
    """``repr(value)`` cut to one readable length, so a huge bad value cannot flood an error line."""
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def one_line(name: str) -> str:
    """A name from the data (an ASIN, an option name) fit for a one-line message: quoted when it
    holds a line break or other control character, cut when it is long.
    """
    return name if name.isprintable() and len(name) <= 80 else short_repr(name)


def _memory_bytes() -> int:
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError):  # no sysconf names here: no bound but the file's own size
        return 1 << 62


def read_data_file(path: str | Path, limit: int | None = None) -> bytes:
    """A data file's bytes; a FIFO, device, folder, or a file over ``limit`` (default: this
    machine's memory, so a sparse 1 TiB file is refused from its size) is one DataError line.
    """
    try:
        return read_regular_file(path, _memory_bytes() if limit is None else limit)
    except OSError as exc:
        raise DataError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    except MemoryError as exc:
        raise DataError(f"{path}: cannot read: too large for the memory left") from exc


def open_data_fd(path: str | Path) -> int:
    """A data file's read-only descriptor; anything but a regular file is one DataError line, at once."""
    try:
        return open_regular(path)
    except OSError as exc:
        raise DataError(f"{path}: cannot read: {exc.strerror or exc}") from exc


def open_data_file(path: str | Path) -> BinaryIO:
    """A data file open for binary reading (see :func:`open_data_fd`)."""
    return os.fdopen(open_data_fd(path), "rb")


def load_json(path: Path) -> Any:
    """Load a JSON file; any read, encoding or syntax error becomes a DataError naming the file.

    The bytes are decoded here, not by a text stream, so a non-UTF-8 file is reported with the
    absolute offset of its first bad byte.
    """
    raw = read_data_file(path)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise DataError(f"{path}: not UTF-8 text: byte 0x{raw[exc.start]:02x} at offset {exc.start}") from exc
    del raw
    if not text.strip():
        raise DataError(f"{path}: empty file (expected JSON)")
    try:
        return json.loads(text)
    except (ValueError, RecursionError) as exc:  # JSONDecodeError, an over-long integer, deep nesting
        raise DataError(f"{path}: not valid JSON: {exc}") from exc
    except MemoryError as exc:
        raise DataError(f"{path}: too large to parse in the memory left ({len(text):,} characters)") from exc


def iter_jsonl(path: Path) -> Iterable[tuple[int, dict[str, Any]]]:
    """Yield ``(line_number, record)`` from a JSONL file, with errors naming file and line.

    Lines are read as bytes and decoded one by one, so a non-UTF-8 byte is reported by line.
    """
    try:
        with open_data_file(path) as f:
            for n, raw in enumerate(f, 1):
                try:
                    line = raw.decode("utf-8")
                except UnicodeDecodeError as exc:
                    raise DataError(f"{path}: line {n}: not UTF-8 text: byte 0x{raw[exc.start]:02x} "
                                    f"at column {exc.start + 1}") from exc
                if not line.strip():
                    continue
                try:
                    rec = json.loads(line)
                except (ValueError, RecursionError) as exc:
                    raise DataError(f"{path}: line {n}: not valid JSON: {exc}") from exc
                if not isinstance(rec, dict):
                    raise DataError(f"{path}: line {n}: expected an object, got {json_kind(rec)}")
                yield n, rec
    except OSError as exc:
        raise DataError(f"{path}: cannot read: {exc.strerror or exc}") from exc


def object_list(raw: Any, where: str, what: str, item: str) -> list[dict[str, Any]]:
    """``raw`` when it is a list of objects; otherwise a DataError naming the list or the bad item.

    ``item`` names item ``k`` after ``where`` (``": record {}"``, ``"[{}]"``).
    """
    if not isinstance(raw, list):
        raise DataError(f"{where}: expected {what}, got {json_kind(raw)}")
    for k, x in enumerate(raw):
        if not isinstance(x, dict):
            raise DataError(f"{where}{item.format(k)}: expected an object, got {json_kind(x)}")
    return raw


def _load_object(path: Path | None, what: str) -> dict[str, Any]:
    """A per-ASIN file (attributes, human instructions): a JSON object, or {} when there is no file."""
    if path is None:
        return {}
    data = load_json(path)
    if not isinstance(data, dict):
        raise DataError(f"{path}: expected a JSON object mapping ASIN to {what}, got {json_kind(data)}")
    return data


def load_side_files(files: CatalogFiles) -> tuple[dict[str, Any], dict[str, Any]]:
    """The attribute and human-instruction files (``{}`` for a file the folder lacks)."""
    return (_load_object(files.attributes, "attributes and instructions"),
            _load_object(files.human_instructions, "human instructions"))
