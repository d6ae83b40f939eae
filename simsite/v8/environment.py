"""The frozen ``environment.json``: the versions every v8 reset and trace carries."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

__all__ = ["ENVIRONMENT", "ENVIRONMENT_FILE", "RUNTIME_TERMINATIONS", "RuntimeTermination", "environment_info"]

ENVIRONMENT_FILE = Path(__file__).resolve().parent / "environment.json"


def environment_info() -> dict[str, Any]:
    """The environment, search and observation versions (a fresh copy each call)."""
    return json.loads(ENVIRONMENT_FILE.read_text(encoding="utf-8"))


ENVIRONMENT = environment_info()

#: The reasons a runtime may end an episode through ``terminate`` (in process and over HTTP alike): the
#: model's turn hit its token cap, or the runtime counted its turns to the limit. ``purchase`` is not
#: one: only ``click[buy now]`` ends an episode with a purchase.
RuntimeTermination = Literal["action_limit", "generation_length"]
RUNTIME_TERMINATIONS: tuple[str, ...] = RuntimeTermination.__args__  # type: ignore[attr-defined]
