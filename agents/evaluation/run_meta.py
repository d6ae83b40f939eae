"""What a run was: date, versions, commit, catalog fingerprint and settings (``summary.json``'s ``run``).

Enough to tell two runs apart, or to rerun one, without trusting folder names: the shopsim version
and git commit (``git rev-parse``; absent, never an error, outside a repository), a SHA-256 over the
catalog files the shop was loaded from (or over the goals, for replayed bundles), the profile, seed,
engine, agent and its options, and the skill context file of an assisted run (path and SHA-256).
Secret-looking options and environment settings read ``"***"``.
"""

from __future__ import annotations

import hashlib
import platform
import subprocess
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from shopsim.agents.redact import redact_mapping, shopsim_env
from shopsim.agents.skills import load_skills
from shopsim.errors import ShopsimError
from shopsim.simsite.profiles import get_profile

__all__ = ["catalog_fingerprint", "git_commit", "run_metadata"]

_CHUNK = 1 << 20
_hash_cache: dict[tuple[str, int, int], str] = {}


def git_commit(where: str | Path | None = None) -> dict[str, Any] | None:
    """``{"commit": sha, "dirty": bool}`` of the repository holding ``where`` (shopsim's source by
    default); None when it is not in one or git is missing or slow.
    """
    if where is None:
        import shopsim

        where = Path(shopsim.__file__).resolve().parent
    try:
        head = subprocess.run(["git", "-C", str(where), "rev-parse", "HEAD"], capture_output=True, text=True,
                              timeout=5, check=False)
        if head.returncode != 0 or not head.stdout.strip():
            return None
        status = subprocess.run(["git", "-C", str(where), "status", "--porcelain", "--untracked-files=no"],
                                capture_output=True, text=True, timeout=5, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    dirty = bool(status.stdout.strip()) if status.returncode == 0 else None
    return {"commit": head.stdout.strip(), "dirty": dirty}


def _file_digest(path: Path) -> str:
    st = path.stat()
    key = (str(path.resolve()), st.st_size, st.st_mtime_ns)
    if key not in _hash_cache:
        h = hashlib.sha256()
        with open(path, "rb") as f:
            while chunk := f.read(_CHUNK):
                h.update(chunk)
        _hash_cache[key] = h.hexdigest()
    return _hash_cache[key]


def _catalog_files(cfg: Any) -> list[Path]:
    return get_profile(cfg.profile).part("catalog_files")(cfg.data)


def catalog_fingerprint(cfg: Any, goals: list[Any] | None = None) -> dict[str, Any]:
    """SHA-256 over the catalog files (name and content, in a fixed order), or over ``goals`` (replay).

    The same files give the same fingerprint wherever they live; ``num_products`` and the goal
    settings are recorded beside it, not in it.
    """
    h = hashlib.sha256()
    try:
        if goals is not None:
            for g in goals:
                h.update(g.model_dump_json().encode("utf-8") + b"\n")
            return {"sha256": h.hexdigest(), "over": "goals", "goals": len(goals)}
        files = _catalog_files(cfg)
        for path in files:
            h.update(f"{path.name}\0{_file_digest(path)}\n".encode())
        return {"sha256": h.hexdigest(), "over": "files", "files": [p.name for p in files]}
    except (OSError, ShopsimError) as exc:  # the shop loaded, so this is rare: say so, never fail the run
        return {"sha256": None, "error": f"{type(exc).__name__}: {exc}"}


def run_metadata(cfg: Any, *, started: datetime | None = None, goals: list[Any] | None = None) -> dict[str, Any]:
    """The ``run`` block of ``summary.json`` (secrets redacted)."""
    import shopsim

    started = started or datetime.now(UTC)
    meta: dict[str, Any] = {
        "date": started.isoformat(timespec="seconds"),
        "shopsim_version": shopsim.__version__,
        "python": platform.python_version(),
        "git": git_commit(),
        "catalog": catalog_fingerprint(cfg, goals),
        "data": cfg.data,
        "profile": cfg.profile,
        "seed": cfg.seed,
        "engine": cfg.engine or "default",
        "agent": cfg.agent,
        "agent_options": redact_mapping(dict(cfg.agent_options)),
        "adapter": cfg.adapter,
        "max_steps": cfg.max_steps,
        "goals": len(dict.fromkeys(cfg.goals)),
        "human_goals": cfg.human_goals,
        "num_products": cfg.num_products,
        "workers": cfg.workers,
        "env": shopsim_env(),
    }
    if cfg.adapter == "browser":
        meta["browser_mode"] = cfg.browser_mode
        meta["trace"] = cfg.trace
    if cfg.task_mode:
        meta["task_mode"] = cfg.task_mode
    if cfg.agent_options.get("skills"):  # an assisted condition: which guidance the agent had
        meta["skills"] = load_skills(cfg.agent_options["skills"]).record()
    if cfg.interaction_mode != "single_turn":
        meta["interaction_mode"] = cfg.interaction_mode
    if cfg.price_per_1k_tokens is not None:
        meta["price_per_1k_tokens"] = list(cfg.price_per_1k_tokens)
    return meta
