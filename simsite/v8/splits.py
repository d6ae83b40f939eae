"""Persona splits: whole connected groups of tasks go to train / val / test.

Two tasks that share a product, an instruction, a persona or a user would leak one into the other
if they landed in different splits, so tasks are joined into connected groups over five keys (ASIN,
full instruction, simple instruction, persona fingerprint, user id) and only whole groups are
assigned. The split file lists explicit task ids (ids have gaps; ranges would be wrong).
"""

from __future__ import annotations

import hashlib
import json
import random
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from shopsim.errors import ConfigError, DataError
from shopsim.simsite.datafiles import load_json
from shopsim.simsite.v8.source_splits import SOURCE_SPLITS_VERSION, source_splits_from

__all__ = [
    "DEFAULT_LARGE_GROUP",
    "LINKS",
    "SPLIT_FILE_VERSION",
    "SplitResult",
    "SplitTask",
    "build_splits",
    "connected_groups",
    "parse_goal_spec",
    "persona_fingerprint",
    "persona_user_id",
    "read_split_file",
    "split_tasks",
    "write_split_file",
]

SPLIT_FILE_VERSION = "shopsim-persona-splits-v1"

#: The link keys, in the order the split file records them.
LINKS: tuple[str, ...] = ("asin", "instruction", "instruction_simple", "persona", "user_id")

#: Groups larger than this always stay in train. 20 tasks is 5 % of a 400-task held-out split (the
#: seed's val/test size): a bigger group means one reused persona, user or product would dominate a
#: held-out split, which is what the seed keeps out of val/test.
DEFAULT_LARGE_GROUP = 20

REASONING_KEY = "__reasoning__"

#: Persona keys that hold a user id, compared after lower-casing and dropping ``_``, ``-`` and spaces.
_USER_ID_KEYS = ("用户id", "userid", "uid")

_SPLIT_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_-]*")


@dataclass(frozen=True)
class SplitTask:
    """What the split builder needs of one task; ``persona`` is the effective one (task's, else product's)."""

    task_id: int
    asin: str
    instruction: str
    instruction_simple: str | None = None
    persona: dict[str, Any] | None = None
    user_id: str | None = None


@dataclass(frozen=True)
class SplitResult:
    """Explicit, sorted task-id lists per split plus the numbers worth recording beside them."""

    seed: int
    sizes: dict[str, int]
    large_group: int
    splits: dict[str, list[int]]
    stats: dict[str, Any] = field(default_factory=dict)

    @property
    def counts(self) -> dict[str, int]:
        """Tasks per split, in split order (train first)."""
        return {name: len(ids) for name, ids in self.splits.items()}


def _strip_reasoning(value: Any) -> Any:
    """Drop ``__reasoning__`` at every depth: it is annotation, not part of who the persona is."""
    if isinstance(value, Mapping):
        return {str(k): _strip_reasoning(v) for k, v in value.items() if k != REASONING_KEY}
    if isinstance(value, list | tuple):
        return [_strip_reasoning(v) for v in value]
    return value


def persona_fingerprint(persona: Mapping[str, Any]) -> str:
    """SHA-256 hex of the persona's canonical JSON without ``__reasoning__``, so equal personas link."""
    canonical = json.dumps(
        _strip_reasoning(persona), sort_keys=True, ensure_ascii=False, separators=(",", ":")
    )
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def _user_id_value(value: Any) -> str | None:
    if isinstance(value, bool) or not isinstance(value, str | int):
        return None
    text = str(value).strip()
    return text or None


def _is_user_id_key(key: Any) -> bool:
    return isinstance(key, str) and re.sub(r"[\s_-]", "", key).lower() in _USER_ID_KEYS


def persona_user_id(persona: Mapping[str, Any] | None) -> str | None:
    """The user id under ``用户ID`` / ``user_id`` / ``userId`` / ``uid``, top level first, then one level down."""
    if not persona:
        return None
    for key, value in persona.items():
        if _is_user_id_key(key) and (uid := _user_id_value(value)) is not None:
            return uid
    for key in sorted(persona, key=str):
        inner = persona[key]
        if isinstance(inner, Mapping):
            for k, value in inner.items():
                if _is_user_id_key(k) and (uid := _user_id_value(value)) is not None:
                    return uid
    return None


def _link_values(task: SplitTask) -> list[tuple[str, str]]:
    """The (link, value) pairs a task can share; empty values and empty personas never link."""
    pairs: list[tuple[str, str]] = []
    for link, raw in (
        ("asin", task.asin),
        ("instruction", task.instruction),
        ("instruction_simple", task.instruction_simple),
    ):
        if raw and raw.strip():
            pairs.append((link, raw.strip()))
    if task.persona and _strip_reasoning(task.persona):
        pairs.append(("persona", persona_fingerprint(task.persona)))
    # Both the explicit id and the persona's own id link: a mismatch between them is no reason to leak.
    for uid in {_user_id_value(task.user_id), persona_user_id(task.persona)} - {None}:
        pairs.append(("user_id", str(uid)))
    return pairs


def connected_groups(tasks: Sequence[SplitTask]) -> list[list[int]]:
    """Union-find over the five links; groups ordered by smallest task id, members sorted."""
    ids = [t.task_id for t in tasks]
    dups = sorted(i for i, n in Counter(ids).items() if n > 1)
    if dups:
        raise DataError(f"task_id {dups[0]} occurs more than once; split tasks need unique ids")
    parent = list(range(len(tasks)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    first: dict[tuple[str, str], int] = {}
    for index, task in enumerate(tasks):
        for pair in _link_values(task):
            other = first.setdefault(pair, index)
            a, b = find(index), find(other)
            if a != b:
                parent[max(a, b)] = min(a, b)
    members: dict[int, list[int]] = {}
    for index, task in enumerate(tasks):
        members.setdefault(find(index), []).append(task.task_id)
    return sorted((sorted(group) for group in members.values()), key=lambda g: g[0])


def build_splits(
    tasks: Sequence[SplitTask],
    sizes: Mapping[str, int],
    seed: int = 0,
    large_group: int = DEFAULT_LARGE_GROUP,
) -> SplitResult:
    """Assign whole connected groups to the held-out splits in ``sizes``; everything else is train.

    The groups of at most ``large_group`` tasks are shuffled with ``random.Random(seed)`` (from their
    deterministic order), then each held-out split, in the order ``sizes`` lists them, takes groups
    greedily in that shuffled order, skipping any group that would overshoot its target. A split is
    therefore never larger than its target; when the remaining groups cannot add up to it exactly,
    it ends short and ``stats["shortfall"]`` says by how much. Larger groups always stay in train.

    Raises:
        ConfigError: a size is negative or not an int, a held-out split is called ``train``, or
            ``large_group`` is below 1.
        DataError: two tasks share a task id.
    """
    if "train" in sizes:
        raise ConfigError("sizes name the held-out splits only; 'train' takes everything else")
    for name, size in sizes.items():
        if isinstance(size, bool) or not isinstance(size, int) or size < 0:
            raise ConfigError(f"split size for {name!r} must be a non-negative int, got {size!r}")
    if large_group < 1:
        raise ConfigError(f"large_group must be at least 1, got {large_group}")
    groups = connected_groups(tasks)
    candidates = [g for g in groups if len(g) <= large_group]
    random.Random(seed).shuffle(candidates)
    taken = [False] * len(candidates)
    held: dict[str, list[int]] = {}
    held_groups: dict[str, int] = {}
    for name, target in sizes.items():
        ids: list[int] = []
        n_groups = 0
        for index, group in enumerate(candidates):
            if len(ids) == target:
                break
            if not taken[index] and len(ids) + len(group) <= target:
                taken[index] = True
                ids.extend(group)
                n_groups += 1
        held[name] = sorted(ids)
        held_groups[name] = n_groups
    in_held = {i for ids in held.values() for i in ids}
    splits = {"train": sorted(t.task_id for t in tasks if t.task_id not in in_held), **held}
    stats = {
        "tasks": len(tasks),
        "groups": len(groups),
        "largest_group": max((len(g) for g in groups), default=0),
        "large_groups": len(groups) - len(candidates),
        "groups_per_split": {
            "train": len(groups) - sum(held_groups.values()),
            **held_groups,
        },
        "shortfall": {name: target - len(held[name]) for name, target in sizes.items()},
    }
    return SplitResult(seed=seed, sizes=dict(sizes), large_group=large_group, splits=splits, stats=stats)


def write_split_file(result: SplitResult, path: str | Path) -> None:
    """Write the split file: explicit id lists plus the seed, sizes and links that produced them."""
    data = {
        "version": SPLIT_FILE_VERSION,
        "seed": result.seed,
        "sizes": result.sizes,
        "large_group": result.large_group,
        "links": list(LINKS),
        "counts": result.counts,
        "stats": result.stats,
        "splits": result.splits,
    }
    Path(path).write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")


def read_split_file(path: str | Path) -> dict[str, list[int]]:
    """Read and check a split file (or the source-group file); any problem is one DataError line naming the file.

    Raises:
        DataError: unreadable or not JSON, wrong ``version``, no ``splits`` object, a split that is
            not a list of ints, an id listed twice, or ``counts`` that disagree with the lists.
    """
    data = load_json(Path(path))
    if not isinstance(data, dict):
        raise DataError(f"{path}: expected a JSON object, got {type(data).__name__}")
    if data.get("version") == SOURCE_SPLITS_VERSION:  # the official source groups (persona_eval, ...)
        return source_splits_from(data, path)
    if data.get("version") != SPLIT_FILE_VERSION:
        raise DataError(f"{path}: version is {data.get('version')!r}, expected {SPLIT_FILE_VERSION!r}")
    raw = data.get("splits")
    if not isinstance(raw, dict) or not raw:
        raise DataError(f"{path}: 'splits' must be a non-empty object of task-id lists")
    splits: dict[str, list[int]] = {}
    owner: dict[int, str] = {}
    for name, ids in raw.items():
        if not isinstance(ids, list) or not all(isinstance(i, int) and not isinstance(i, bool) for i in ids):
            raise DataError(f"{path}: split {name!r} must be a list of integer task ids")
        for task_id in ids:
            if task_id in owner:
                where = "twice in" if owner[task_id] == name else f"in both {owner[task_id]!r} and"
                raise DataError(f"{path}: task id {task_id} is listed {where} {name!r}")
            owner[task_id] = name
        splits[str(name)] = list(ids)
    counts = data.get("counts")
    if isinstance(counts, dict):
        for name, ids in splits.items():
            if name in counts and counts[name] != len(ids):
                raise DataError(
                    f"{path}: counts[{name!r}] is {counts[name]!r} but the list holds {len(ids)} ids"
                )
    return splits


def parse_goal_spec(spec: str) -> tuple[Path, str] | None:
    """``'splits.json:test'`` -> ``(Path('splits.json'), 'test')``; None for any other form (``'0:500'``)."""
    path, sep, name = spec.strip().rpartition(":")
    if not sep or not path.lower().endswith(".json") or not _SPLIT_NAME.fullmatch(name):
        return None
    return Path(path), name


def split_tasks(tasks: Iterable[Any]) -> list[SplitTask]:
    """SplitTasks from loaded v8 tasks (``V8Task``: its persona is already the task's, else the product's)."""
    return [SplitTask(task_id=t.task_id, asin=t.asin, instruction=t.instruction, instruction_simple=t.instruction_simple,
                      persona=dict(t.user_persona) if t.user_persona is not None else None,
                      user_id=persona_user_id(t.user_persona)) for t in tasks]
