"""Which recorded bundle replays which goal (``shopsim eval --adapter replay``).

The pairing is explicit, never positional, because a goal scored on another goal's session is a
silent wrong number. For each goal, in this order:

1. the mapping file (``--bundle-map``) names its goal index, or its goal id (the goal's ``asin``:
   every goal for that product is replayed on the bundle);
2. a single bundle (``--bundle`` is one bundle, or a folder holding one) serves every goal;
3. the one bundle whose manifest carries this goal (``shopsim record --goal FILE`` writes it).

Several bundles with no mapping are an error unless every bundle carries its goal; without
``--goal-file`` the goals are the bundles' own (the i-th bundle in folder order is goal i). A
mapping is JSON (``{"<goal index or id>": "<bundle folder>", ...}`` or a list of entries) or JSONL
(one entry a line), an entry being ``{"goal_index": N, "bundle": "..."}`` or
``{"goal_id": "B0...", "bundle": "..."}``. Relative bundle folders resolve against ``--bundle``
when given (a folder of bundles), else against the mapping file's folder. Every problem is a
ConfigError of one line (exit 2 on the command line).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from shopsim.adapters.bundle import MANIFEST, Bundle
from shopsim.adapters.parity_source import ParitySource
from shopsim.adapters.replay import ReplaySource
from shopsim.errors import ConfigError, first_problem
from shopsim.regular_files import read_regular_file
from shopsim.simsite.models import Goal
from shopsim.translators.parity import ActionModel

__all__ = ["BundleRef", "MapEntry", "ReplayGoals", "read_bundle_map"]

#: A mapping file is a few lines per goal; anything larger is a mistake (a bundle or data file).
MAX_MAP_BYTES = 8_000_000


class BundleRef(BaseModel):
    """The bundle an episode replayed, as episode and trace records name it."""

    path: str
    site: str
    start_url: str


class MapEntry(BaseModel):
    """One goal → bundle line of a mapping file: exactly one of ``goal_index`` and ``goal_id``."""

    model_config = ConfigDict(extra="forbid", strict=True)

    goal_index: int | None = Field(default=None, ge=0)
    goal_id: str | None = Field(default=None, min_length=1)
    bundle: str = Field(min_length=1)

    @model_validator(mode="after")
    def _one_goal(self) -> MapEntry:
        if (self.goal_index is None) == (self.goal_id is None):
            raise ValueError("give exactly one of goal_index and goal_id")
        return self


def _entry(where: str, raw: Any, path: Path) -> tuple[str, MapEntry]:
    try:
        return where, MapEntry.model_validate(raw)
    except ValidationError as exc:
        loc, message = first_problem(exc)
        raise ConfigError(f"--bundle-map {path}: {where}: {f'{loc}: ' if loc else ''}{message} "
                          '(expected {"goal_index": N or "goal_id": "...", "bundle": "folder"})') from exc


def read_bundle_map(path: str | Path) -> list[tuple[str, MapEntry]]:
    """The entries of a mapping file, each with where it is (``line 3``, ``key '7'``) for messages."""
    path = Path(path)
    try:
        text = read_regular_file(path, MAX_MAP_BYTES).decode("utf-8")
    except (OSError, ValueError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        raise ConfigError(f"--bundle-map {path}: cannot read it: {reason}") from exc
    entries = _parse_map(text, path)
    if not entries:
        raise ConfigError(f"--bundle-map {path}: no entries (expected goal index or id -> bundle folder)")
    return entries


def _parse_map(text: str, path: Path) -> list[tuple[str, MapEntry]]:
    try:
        doc: Any = json.loads(text)
    except (ValueError, RecursionError):
        doc = None  # not one JSON document: JSONL
    else:
        if isinstance(doc, dict) and "bundle" not in doc:  # {"<index or id>": "<folder>"}
            out = []
            for key, folder in doc.items():
                field = "goal_index" if key.isascii() and key.isdigit() and len(key) < 19 else "goal_id"
                goal: int | str = int(key) if field == "goal_index" else key
                out.append(_entry(f"key {key!r}", {field: goal, "bundle": folder}, path))
            return out
        if isinstance(doc, dict):  # one entry
            return [_entry("entry 0", doc, path)]
        if isinstance(doc, list):
            return [_entry(f"entry {i}", raw, path) for i, raw in enumerate(doc)]
        raise ConfigError(f"--bundle-map {path}: expected a JSON object mapping goal index or id to a bundle "
                          f"folder, a list of entries, or JSONL entries; got {type(doc).__name__}")
    entries = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            raw = json.loads(line)
        except (ValueError, RecursionError) as exc:
            raise ConfigError(f"--bundle-map {path}: line {n}: not valid JSON (expected a JSON mapping or one "
                              f"entry per line): {str(exc) if isinstance(exc, ValueError) else 'too deep'}") from exc
        entries.append(_entry(f"line {n}", raw, path))
    return entries


def _same_goal(a: Goal, b: Goal) -> bool:
    """Same goal, whatever its sampling weight."""
    return a.model_dump(exclude={"weight"}) == b.model_dump(exclude={"weight"})


class ReplayGoals:
    """Goals and the bundle each is replayed on; everything is checked before any episode runs."""

    def __init__(self, bundle: str | None, goal_file: str | None, bundle_map: str | None = None,
                 action_model: ActionModel = "sim"):
        from shopsim.simsite.goals import load_goal_file
        from shopsim.simsite.nouns import default_extractor

        self._loaded: dict[Path, tuple[Bundle, BundleRef]] = {}
        self.action_model = action_model
        self.folder = self._folder(bundle, bundle_map is not None) if bundle else []
        if not self.folder and bundle_map is None:
            raise ConfigError("--adapter replay needs --bundle DIR (a bundle or a folder of bundles) "
                              "or --bundle-map FILE")
        self.by_index: dict[int, BundleRef] = {}
        self.by_id: dict[str, BundleRef] = {}
        if goal_file:
            self.goals = load_goal_file(goal_file)
        elif bundle_map is not None:
            raise ConfigError("--bundle-map needs --goal-file FILE: the goals its indices and ids refer to")
        else:
            bare = [ref.path for ref in self.folder if self.bundle(ref).manifest.goal is None]
            if bare:
                raise ConfigError(f"--goal-file FILE is needed: bundle {bare[0]} carries no goal "
                                  "(record it with `shopsim record --goal FILE`, or pass the goals)")
            self.goals = [g for ref in self.folder if (g := self.bundle(ref).manifest.goal) is not None]
            self.by_index = dict(enumerate(self.folder))
        if bundle_map is not None:
            base = Path(bundle) if bundle else Path(bundle_map).parent
            self._read_map(Path(bundle_map), base)
        elif len(self.folder) > 1 and goal_file:
            bare = [ref.path for ref in self.folder if self.bundle(ref).manifest.goal is None]
            if bare:
                raise ConfigError(f"--bundle {bundle} holds {len(self.folder)} bundles and {len(bare)} of them carry "
                                  f"no goal (e.g. {bare[0]}): say which bundle replays which goal with "
                                  "--bundle-map FILE, or record each with its goal (shopsim record --goal FILE)")
        self.single = self.folder[0] if len(self.folder) == 1 and bundle_map is None else None
        self.nouns = default_extractor()

    @classmethod
    def for_run(cls, cfg: Any) -> ReplayGoals | None:
        """The pairing of an ``EvalConfig`` (None unless its adapter is ``replay``)."""
        if cfg.adapter != "replay":
            return None
        return cls(cfg.bundle, cfg.goal_file, cfg.bundle_map, getattr(cfg, "action_model", "sim"))

    # ---- bundles --------------------------------------------------------------------------------------
    def _load(self, path: Path, display: str) -> BundleRef:
        """Load (once) and describe the bundle at ``path``."""
        key = path.resolve()
        if key not in self._loaded:
            bundle = Bundle.load(path)
            self._loaded[key] = bundle, BundleRef(path=display, site=bundle.site,
                                                  start_url=bundle.manifest.start_url)
        return self._loaded[key][1]

    def bundle(self, ref: BundleRef) -> Bundle:
        """The loaded bundle ``ref`` names (each is loaded, and its hashes checked, once)."""
        return self._loaded[Path(ref.path).resolve()][0]

    def _folder(self, bundle: str, mapped: bool) -> list[BundleRef]:
        """``--bundle``: one bundle, or the bundles directly inside a folder (with a mapping: its base folder)."""
        root = Path(bundle)
        if (root / MANIFEST).exists():
            if mapped:
                raise ConfigError(f"--bundle {bundle} is one bundle; with --bundle-map give the folder that holds "
                                  "the mapped bundles (or leave --bundle out)")
            return [self._load(root, str(root))]
        try:
            dirs = sorted(d for d in root.iterdir() if (d / MANIFEST).exists()) if root.is_dir() else []
        except OSError as exc:
            raise ConfigError(f"--bundle {bundle}: cannot list it: {exc.strerror or exc}") from exc
        if not dirs and not (mapped and root.is_dir()):
            raise ConfigError(f"--bundle {bundle}: no bundle (a folder with {MANIFEST}, or a folder of them)")
        return [self._load(d, str(d)) for d in dirs]

    def _read_map(self, path: Path, base: Path) -> None:
        ids = {g.asin.upper() for g in self.goals}
        for where, entry in read_bundle_map(path):
            folder = base / entry.bundle
            if not (folder / MANIFEST).is_file():
                raise ConfigError(f"--bundle-map {path}: {where}: bundle {entry.bundle!r} ({folder}) is not a "
                                  f"bundle folder (no {MANIFEST})")
            ref = self._load(folder, str(folder))
            if entry.goal_index is not None:
                if entry.goal_index >= len(self.goals):
                    raise ConfigError(f"--bundle-map {path}: {where}: goal index {entry.goal_index} out of range: "
                                      f"the goal file has {len(self.goals)} goals (0..{len(self.goals) - 1})")
                table: dict[Any, BundleRef] = self.by_index
                goal: int | str = entry.goal_index
            else:
                goal = (entry.goal_id or "").upper()
                if goal not in ids:
                    raise ConfigError(f"--bundle-map {path}: {where}: unknown goal id {entry.goal_id!r}: no goal in "
                                      "the goal file has that asin")
                table = self.by_id
            if goal in table and table[goal].path != ref.path:
                raise ConfigError(f"--bundle-map {path}: {where}: goal {goal!r} is mapped twice "
                                  f"({table[goal].path} and {ref.path})")
            table[goal] = ref

    # ---- pairing --------------------------------------------------------------------------------------
    def ref(self, index: int) -> BundleRef:
        """The bundle goal ``index`` replays on; ConfigError when none (or more than one) is known."""
        if index in self.by_index:
            return self.by_index[index]
        goal = self.goals[index]
        if goal.asin.upper() in self.by_id:
            return self.by_id[goal.asin.upper()]
        if self.single is not None:
            return self.single
        carriers = [ref for _, ref in self._loaded.values()
                    if (g := self.bundle(ref).manifest.goal) is not None and _same_goal(g, goal)]
        if len(carriers) == 1:
            return carriers[0]
        if carriers:
            raise ConfigError(f"goal {index} is carried by {len(carriers)} bundles ({carriers[0].path}, "
                              f"{carriers[1].path}, ...): choose one with --bundle-map FILE")
        raise ConfigError(f"goal {index} ({goal.asin}: {goal.instruction_text[:60]!r}) has no bundle: no mapping "
                          "names it and no bundle carries it (see --bundle-map)")

    def check(self, indices: list[int]) -> None:
        """Every goal in ``indices`` has exactly one bundle (raises the first problem)."""
        for index in indices:
            self.ref(index)

    def source(self, index: int) -> ParitySource:
        """A fresh replay of goal ``index``'s bundle, scored against that goal, shown as the sim shows pages."""
        from shopsim.agents.transfer.bundle_episode import make_scorer

        goal = self.goals[index]
        replay = ReplaySource(self.bundle(self.ref(index)), instruction=goal.instruction_text,
                              scorer=make_scorer(goal, self.nouns))
        return ParitySource(replay, action_model=self.action_model)

    def check_resume(self, out: Path, finished: dict[int, dict[str, Any]], indices: list[int]) -> None:
        """Refuse to resume a run whose finished episodes were replayed on other bundles than now."""
        for index in indices:
            old = finished.get(index, {}).get("bundle")
            if not isinstance(old, dict) or not isinstance(old.get("path"), str):
                continue  # not finished, or recorded before episodes named their bundle
            new = self.ref(index).path
            if old["path"] != new and Path(old["path"]).resolve() != Path(new).resolve():
                raise ConfigError(f"{out}: goal {index} was replayed on bundle {old['path']}, but it is now paired "
                                  f"with {new}; resume with the same pairing, or use a new --out")

    def summary(self, indices: list[int]) -> list[dict[str, Any]]:
        """The bundles a run used, each with the goals it replayed (for ``summary.json``)."""
        used: dict[str, dict[str, Any]] = {}
        for index in indices:
            ref = self.ref(index)
            used.setdefault(ref.path, {**ref.model_dump(), "goals": []})["goals"].append(index)
        return list(used.values())
