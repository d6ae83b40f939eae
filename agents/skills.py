"""The skill context of the assisted conditions: a text file the LLM agent adds to its system context.

Seed 003: "Assisted conditions may also add a selected skill context; that changes guidance, not the
task or page state." So a skill is read once, whole, as UTF-8 text (markdown is fine), and a run
records which one it used (path and SHA-256) so skill-free and assisted runs can be told apart.
A file that is missing, unreadable, not text or too large to be guidance is refused in one line.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from pydantic import BaseModel

from shopsim.errors import ConfigError

__all__ = ["MAX_SKILL_BYTES", "SkillContext", "load_skills"]

#: Larger than any guidance worth sending with every model turn; a bigger file is a wrong path.
MAX_SKILL_BYTES = 256 * 1024


class SkillContext(BaseModel):
    """One skill file as the agent sends it and the run metadata records it."""

    path: str
    sha256: str
    bytes: int
    text: str

    def record(self) -> dict[str, object]:
        """What ``summary.json``'s ``run`` block keeps: where it was, its hash and size, not its text."""
        return {"path": self.path, "sha256": self.sha256, "bytes": self.bytes}


def load_skills(path: str | os.PathLike[str]) -> SkillContext:
    """Read a skill context file; a ConfigError (one line) when it cannot serve as one."""
    where = Path(path).expanduser()
    if not str(path).strip():
        raise ConfigError("--skills: give the path of a skill context file (text or markdown)")
    try:
        size = where.stat().st_size
        if not where.is_file():
            raise ConfigError(f"--skills {str(path)!r}: not a file")
        if size > MAX_SKILL_BYTES:
            raise ConfigError(f"--skills {str(path)!r}: {size:,} bytes; a skill context is guidance sent with "
                              f"every model turn, at most {MAX_SKILL_BYTES:,} bytes")
        raw = where.read_bytes()
    except FileNotFoundError:
        raise ConfigError(f"--skills {str(path)!r}: no such file") from None
    except OSError as exc:
        raise ConfigError(f"--skills {str(path)!r}: cannot read it ({exc.strerror or exc})") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ConfigError(f"--skills {str(path)!r}: not UTF-8 text (a skill context is text or markdown)") from None
    if not text.strip():
        raise ConfigError(f"--skills {str(path)!r}: the file is empty")
    return SkillContext(path=str(where.resolve()), sha256=hashlib.sha256(raw).hexdigest(), bytes=len(raw),
                        text=text.strip())
