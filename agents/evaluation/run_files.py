"""The files of a run folder: torn-line-proof JSONL reading, atomic writes, trace merging, progress.

A killed run leaves an unterminated last line, garbage or duplicates behind; every reader here
drops such lines and counts them (``Counter`` keys ``truncated``, ``garbage``, ``duplicate``,
``unfinished``), so resuming can say what it repaired instead of repairing silently.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

__all__ = ["merge_traces", "read_episodes", "resume_note", "write_atomic"]


def _lines(path: Path) -> Iterator[tuple[bytes, bool]]:
    """The lines of ``path``, each with whether it is the file's unterminated last line (a torn write)."""
    data = path.read_bytes()
    lines = data.splitlines()
    for i, line in enumerate(lines):
        yield line, i == len(lines) - 1 and not data.endswith((b"\n", b"\r"))


def _record(line: bytes, keys: tuple[str, ...]) -> dict[str, Any] | None:
    """``line`` as a JSON object whose ``keys`` are integers, else None (the line is dropped)."""
    try:
        rec = json.loads(line.decode("utf-8"))
    except ValueError:  # UnicodeDecodeError included
        return None
    if not isinstance(rec, dict):
        return None
    if not all(isinstance(rec.get(k), int) and not isinstance(rec.get(k), bool) for k in keys):
        return None
    return rec


def read_episodes(path: Path, dropped: Counter[str] | None = None) -> dict[int, dict[str, Any]]:
    """Finished episodes by goal (the last record of a goal wins).

    Every other line is dropped and counted in ``dropped``: ``truncated`` (the unterminated last
    line a killed run leaves), ``garbage`` (anything else that is not an episode record, blank
    lines included) and ``duplicate`` (an earlier record of a goal recorded again).
    """
    dropped = Counter() if dropped is None else dropped
    finished: dict[int, dict[str, Any]] = {}
    if path.exists():
        for line, torn in _lines(path):
            rec = _record(line, ("goal_index",))
            if rec is None:
                dropped["truncated" if torn and line.strip() else "garbage"] += 1
                continue
            if rec["goal_index"] in finished:
                dropped["duplicate"] += 1
            finished[rec["goal_index"]] = rec
    return finished


def write_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file, so readers never see half a file."""
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def resume_note(out: Path, resume: dict[str, Any]) -> str:
    """One line that says what resuming ``out`` kept, dropped and reruns."""
    def counts(what: dict[str, int]) -> str:
        return ", ".join(f"{n} {reason}" for reason, n in what.items() if n) or "none"

    rerun = f" ({resume['episodes_rerun']} interrupted, rerun from the start)" if resume["episodes_rerun"] else ""
    return (f"shopsim eval: resuming {out}: {resume['episodes_done']} episodes already done, "
            f"{resume['episodes_run_now']} to run now{rerun}; dropped episodes.jsonl lines: "
            f"{counts(resume['episode_lines_dropped'])}; dropped trace lines: {counts(resume['trace_lines_dropped'])}")


def merge_traces(out: Path, keep: set[int] | None = None, dropped: Counter[str] | None = None,
                 unfinished: set[int] | None = None, always: bool = False) -> None:
    """Fold per-worker trace parts into ``traces.jsonl`` (sorted by goal and step, deterministic).

    With ``keep``, steps of other goals (episodes a killed run never finished) are dropped and their
    goals added to ``unfinished``. Every dropped line is counted in ``dropped``: ``truncated``,
    ``garbage``, ``unfinished`` or ``duplicate`` (a goal's step seen twice). Without parts the files
    are only read when ``always`` (to check a resumed run's ``traces.jsonl``).
    """
    dropped = Counter() if dropped is None else dropped
    parts = sorted(out.glob("traces.part*.jsonl"))
    if not parts and not (always and (out / "traces.jsonl").exists()):
        return
    rows = []
    for part in [out / "traces.jsonl", *parts]:
        if part.exists():
            for line, torn in _lines(part):
                row = _record(line, ("goal_index", "step"))
                if row is None:
                    dropped["truncated" if torn and line.strip() else "garbage"] += 1
                elif keep is not None and row["goal_index"] not in keep:
                    dropped["unfinished"] += 1
                    if unfinished is not None:
                        unfinished.add(row["goal_index"])
                else:
                    rows.append(row)
    rows.sort(key=lambda r: (r["goal_index"], r["step"]))
    seen, unique = set(), []
    for r in rows:
        key = (r["goal_index"], r["step"])
        if key in seen:
            dropped["duplicate"] += 1
        else:
            seen.add(key)
            unique.append(r)
    write_atomic(out / "traces.jsonl", "".join(json.dumps(r) + "\n" for r in unique))
    for part in parts:
        part.unlink()
