"""The frozen ``environment.json``: the versions every v8 reset and trace carries."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

__all__ = ["ENVIRONMENT", "ENVIRONMENT_FILE", "environment_info"]

ENVIRONMENT_FILE = Path(__file__).resolve().parent / "environment.json"


def environment_info() -> dict[str, Any]:
    """The environment, search and observation versions (a fresh copy each call)."""
    return json.loads(ENVIRONMENT_FILE.read_text(encoding="utf-8"))


ENVIRONMENT = environment_info()
