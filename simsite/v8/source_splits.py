"""The source-group split: which tasks came from the official eval file and which from train.

Seed 004 keeps this file (``task_splits.cleaned.v2.json``) for provenance only: the project's
experiments use the persona train/val/test split, but the offline search check runs on the official
``persona_eval`` group, and a model comparison must be able to say which official group a task was
in. The groups, as the seed lays them out:

- ``persona_eval``: persona tasks of the official eval products;
- ``standard_eval``: every task of the official eval products (run in standard mode);
- ``persona_train`` / ``standard_train``: persona / standard tasks of the official train products;
- ``all_train``: every task of the official train products.

Where a task came from is the task's (else its product's) ``source_split`` field (``eval`` or
``train``) when the archive carries one; otherwise products ``[0, eval_products)`` are the eval file's,
as in the seed's merged archive (eval first, then train). Ids are listed explicitly (they have gaps).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from shopsim.errors import DataError
from shopsim.simsite.datafiles import load_json

__all__ = [
    "SOURCE_SPLITS_FILE",
    "SOURCE_SPLITS_VERSION",
    "SourceTask",
    "build_source_splits",
    "read_source_splits",
    "source_splits_from",
    "task_source",
]

SOURCE_SPLITS_VERSION = "shopsimulator-stable-task-splits-v2"
SOURCE_SPLITS_FILE = "task_splits.cleaned.v2.json"

#: group -> (official source, which tasks, the seed's ``persona`` flag)
_GROUPS: dict[str, tuple[str, str, bool | None]] = {
    "persona_eval": ("eval", "persona", True),
    "standard_eval": ("eval", "all", False),
    "persona_train": ("train", "persona", True),
    "standard_train": ("train", "standard", False),
    "all_train": ("train", "all", None),
}

SourceTask = tuple[int, str, str]
"""``(task_id, source, task_mode)``: source ``eval`` or ``train``, mode ``persona`` or ``standard``."""


def build_source_splits(tasks: Iterable[SourceTask], source_task_count: int) -> dict[str, Any]:
    """The split file's JSON: every group's explicit task ids, in the order given."""
    tasks = list(tasks)
    splits: dict[str, Any] = {}
    for name, (source, which, persona) in _GROUPS.items():
        ids = [tid for tid, src, mode in tasks if src == source and which in ("all", mode)]
        splits[name] = {"task_ids": ids, "persona": persona}
    return {
        "version": SOURCE_SPLITS_VERSION,
        "id_semantics": "IDs assigned before filtering; gaps are intentional",
        "source_task_count": source_task_count,
        "active_task_count": len(tasks),
        "splits": splits,
    }


def source_splits_from(data: Any, path: str | Path) -> dict[str, list[int]]:
    """The ``{group: task ids}`` of a parsed source-group file; any problem is one DataError line."""
    if not isinstance(data, dict) or data.get("version") != SOURCE_SPLITS_VERSION:
        got = data.get("version") if isinstance(data, dict) else type(data).__name__
        raise DataError(f"{path}: version is {got!r}, expected {SOURCE_SPLITS_VERSION!r}")
    raw = data.get("splits")
    if not isinstance(raw, dict) or not raw:
        raise DataError(f"{path}: 'splits' must be a non-empty object of groups")
    out: dict[str, list[int]] = {}
    for name, group in raw.items():
        ids = group.get("task_ids") if isinstance(group, dict) else None
        if not isinstance(ids, list) or not all(isinstance(i, int) and not isinstance(i, bool) for i in ids):
            raise DataError(f"{path}: group {name!r} must be an object with a 'task_ids' list of integers")
        if len(set(ids)) != len(ids):
            raise DataError(f"{path}: group {name!r} lists a task id twice")
        out[str(name)] = list(ids)
    return out


def read_source_splits(path: str | Path) -> dict[str, list[int]]:
    """Read ``task_splits.cleaned.v2.json``: ``{group: task ids}``."""
    return source_splits_from(load_json(Path(path)), path)


def task_source(record: Mapping[str, Any], product: Mapping[str, Any], index: int, eval_products: int) -> str:
    """``eval`` or ``train`` for one task: its ``source_split``, its product's, else the product's position."""
    for where in (record, product):
        value = where.get("source_split")
        if value in ("eval", "train"):
            return str(value)
        if value is not None:
            raise DataError(f"product {index}: source_split {value!r}: expected 'eval' or 'train'")
    return "eval" if index < eval_products else "train"
