"""Refuse an output folder that holds a command's own input, before anything is written.

Why: ``data prepare`` replaces its ``--out`` (a store is renamed into place, v8's files are rewritten),
so an ``--out`` that is, or contains, the archive or data folder it reads would destroy its source
(an archive prepared into its own folder lost 7 of 300 products without a word).
"""

from __future__ import annotations

from pathlib import Path

from shopsim.errors import ConfigError

__all__ = ["refuse_out_holding"]


def refuse_out_holding(out: str | Path, inputs: dict[str, str | Path | None]) -> None:
    """ConfigError when ``out`` is, or is a folder above, any of ``inputs`` (``{flag: path}``; None is skipped)."""
    dest = Path(out).expanduser().resolve()
    for flag, value in inputs.items():
        if value is None:
            continue
        src = Path(value).expanduser().resolve()
        if src == dest or dest in src.parents:
            raise ConfigError(f"--out {out} holds the input {flag} {value}: preparing there would overwrite it; "
                              "choose another folder for --out")
