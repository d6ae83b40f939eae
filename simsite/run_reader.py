"""Reading ``runs/`` for the replay UI with hard bounds: no request reads more than a fixed number of bytes.

A run folder (``shopsim eval --out``) holds ``summary.json``, ``config.json``, ``episodes.jsonl`` and
``traces.jsonl``. Any of them may be damaged (a killed run's torn last line, garbage, a truncated
JSON file) or huge; every reader here reads at most ``max_scan_bytes`` of a JSONL file and
``MAX_JSON_BYTES`` of a JSON file, skips lines over ``max_line_bytes`` without holding them, and
says what it skipped in ``notes`` (shown on the page) instead of failing. Run ids are checked
segment by segment and must resolve inside the runs folder, so neither ``..`` nor a symlink leads out.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

__all__ = ["MAX_JSON_BYTES", "RunReader"]

MAX_JSON_BYTES = 2 * 1024 * 1024
_SEGMENT = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.\-]{0,127}$")
_MARKERS = ("summary.json", "episodes.jsonl")
_MAX_DEPTH = 3
MAX_RUNS = 500


def _mb(n: int) -> str:
    return f"{n / 1024 / 1024:.1f} MB"


@dataclass
class RunReader:
    """Bounded reads of the run folders under ``root``; each method returns plain JSON-ready data."""

    root: Path
    max_scan_bytes: int = 64 * 1024 * 1024
    max_line_bytes: int = 8 * 1024 * 1024
    notes: list[str] = field(default_factory=list)

    def resolve(self, run_id: str) -> Path | None:
        """The run folder ``run_id`` names, or None when it is not a safe, real run under the root."""
        parts = run_id.split("/")
        if not 1 <= len(parts) <= _MAX_DEPTH or not all(_SEGMENT.match(p) for p in parts):
            return None
        base = self.root.resolve()
        path = (base / Path(*parts)).resolve()
        if not path.is_relative_to(base) or path == base or not any((path / m).is_file() for m in _MARKERS):
            return None
        return path

    # ---- files ----------------------------------------------------------------------------------
    def json_object(self, path: Path) -> dict[str, Any]:
        """A small JSON object file; a missing, oversized or damaged one is ``{}`` and a note."""
        if not path.is_file():
            return {}
        size = path.stat().st_size
        if size > MAX_JSON_BYTES:
            self.notes.append(f"{path.name} is {_mb(size)}, over the {_mb(MAX_JSON_BYTES)} read limit: not read")
            return {}
        try:
            data = json.loads(path.read_bytes().decode("utf-8"))
        except (ValueError, RecursionError):  # RecursionError: nested deeper than the stack
            self.notes.append(f"{path.name} is damaged (not UTF-8 JSON): ignored")
            return {}
        if not isinstance(data, dict):
            self.notes.append(f"{path.name} is not a JSON object: ignored")
            return {}
        return data

    def records(self, path: Path, keep: Callable[[bytes], bool] = lambda line: True) -> Iterator[dict[str, Any]]:
        """The JSON object lines of a JSONL file that ``keep`` (a cheap test of the raw line) admits; damaged,
        torn and oversized lines are skipped and counted, and reading stops at ``max_scan_bytes``.
        """
        if not path.is_file():
            return
        damaged = oversized = 0
        with open(path, "rb") as f:
            read = 0
            while read < self.max_scan_bytes:
                line = f.readline(self.max_line_bytes + 1)
                if not line:
                    break
                read += len(line)
                if len(line) > self.max_line_bytes and not line.endswith(b"\n"):
                    oversized += 1
                    read += _skip_line(f, self.max_scan_bytes - read)
                    continue
                if not line.strip() or not keep(line):
                    continue
                rec = _object(line)
                if rec is None:
                    damaged += 1
                    continue
                yield rec
            else:  # the scan budget ran out: say so unless the file ended just there
                if f.read(1):
                    self.notes.append(f"{path.name} is {_mb(path.stat().st_size)}: only its first "
                                      f"{_mb(self.max_scan_bytes)} were read")
        if damaged:
            self.notes.append(f"{path.name}: {damaged} damaged line(s) skipped (not JSON objects, or torn)")
        if oversized:
            self.notes.append(f"{path.name}: {oversized} line(s) over {_mb(self.max_line_bytes)} skipped")

    # ---- runs -----------------------------------------------------------------------------------
    def run_ids(self) -> list[str]:
        """Runs under the root (folders with a summary or episodes, up to three levels deep), by name."""
        base = self.root.resolve()
        if not base.is_dir():
            return []
        found: set[str] = set()
        for depth in range(1, _MAX_DEPTH + 1):
            for marker in _MARKERS:
                for path in base.glob("/".join(["*"] * depth) + "/" + marker):
                    found.add(path.parent.relative_to(base).as_posix())
        ids = sorted(i for i in found if self.resolve(i) is not None)
        if len(ids) > MAX_RUNS:
            self.notes.append(f"{len(ids)} runs under the folder: the first {MAX_RUNS} by name are listed")
        return ids[:MAX_RUNS]

    def episode_rows(self, run: Path) -> list[dict[str, Any]]:
        """Each finished episode's headline (the last record of a goal wins), by goal."""
        rows: dict[int, dict[str, Any]] = {}
        for rec in self.records(run / "episodes.jsonl"):
            goal = rec.get("goal_index")
            if not isinstance(goal, int) or isinstance(goal, bool):
                continue
            info = rec.get("reward_info")
            info = info if isinstance(info, dict) else {}
            rows[goal] = {"goal_index": goal, "reward": _num(rec.get("reward")), "steps": rec.get("steps"),
                          "termination": rec.get("termination"), "r_success": _num(info.get("r_success")),
                          "purchased_asin": info.get("purchased_asin"), "task_mode": _task_mode(rec)}
        return [rows[g] for g in sorted(rows)]

    def overview(self, run_id: str) -> dict[str, Any] | None:
        """One run's headline: agent, profile, adapter, status and scores (from its summary, else its episodes)."""
        run = self.resolve(run_id)
        if run is None:
            return None
        summary, config = self.json_object(run / "summary.json"), self.json_object(run / "config.json")
        rows = None if summary.get("episodes") is not None else self.episode_rows(run)
        if rows is not None:
            n = len(rows)
            summary = {"episodes": n, "score": 100 * sum(r["reward"] or 0 for r in rows) / n if n else None,
                       "success_rate": sum((r["r_success"] or 0) >= 1 for r in rows) / n if n else None}
        status = summary.get("status") or ("complete" if (run / "summary.json").is_file() and rows is None
                                           else "incomplete")
        return {"id": run_id, "status": status, "agent": summary.get("agent", config.get("agent")),
                "profile": config.get("profile"), "adapter": summary.get("adapter", config.get("adapter")),
                **{k: summary.get(k) for k in ("episodes", "score", "success_rate", "r_strict", "avg_steps")}}

    def episode(self, run: Path, goal: int) -> tuple[dict[str, Any] | None, list[dict[str, Any]]]:
        """A goal's episode record (or None) and its trace steps in order; other goals' lines are skipped unparsed."""
        mine, generic = f'{{"goal_index": {goal},'.encode(), b'{"goal_index": '

        def of_goal(line: bytes) -> bool:
            return line.startswith(mine) or not line.startswith(generic)

        records = [r for r in self.records(run / "episodes.jsonl", of_goal) if r.get("goal_index") == goal]
        steps = [r for r in self.records(run / "traces.jsonl", of_goal) if r.get("goal_index") == goal]
        steps.sort(key=lambda r: r["step"] if isinstance(r.get("step"), int) else 0)
        return (records[-1] if records else None), steps


def _skip_line(f: BinaryIO, budget: int) -> int:
    """Read past the rest of an oversized line in chunks (never holding it); returns the bytes read."""
    read = 0
    while read < budget:
        chunk = f.readline(min(1024 * 1024, budget - read))
        if not chunk:
            break
        read += len(chunk)
        if chunk.endswith(b"\n"):
            break
    return read


def _object(line: bytes) -> dict[str, Any] | None:
    try:
        rec = json.loads(line.decode("utf-8"))
    except (ValueError, RecursionError):
        return None
    return rec if isinstance(rec, dict) else None


def _num(v: Any) -> float | None:
    return float(v) if isinstance(v, int | float) and not isinstance(v, bool) else None


def _task_mode(rec: dict[str, Any]) -> str | None:
    groups = rec.get("goal_groups")
    return groups.get("task mode") if isinstance(groups, dict) else None
