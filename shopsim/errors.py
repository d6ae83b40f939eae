"""The one exception tree of shopsim.

    ShopsimError
    ├── DataError          a catalog / goal / instruction file is malformed (names file, record, field)
    ├── ConfigError        a bad option or argument (unknown agent, bad goal spec, missing browser)
    ├── ActionError        an action string cannot be parsed (only raised by strict helpers;
    │                      environments turn bad actions into feedback instead)
    ├── SessionError       unknown, expired or closed sessions; too many open sessions
    ├── SourceError        a page source (HTTP, browser, replay bundle) failed to deliver a page
    │   └── ResetNeeded    (also a SessionError) an env or page source used before ``reset()``
    └── TranslationError   a page cannot be translated (only for strict callers; translators
                           otherwise return page type ``unknown`` with a reason)
"""

from __future__ import annotations

import difflib
from typing import Any

__all__ = [
    "ActionError",
    "ConfigError",
    "DataError",
    "ResetNeeded",
    "SessionError",
    "ShopsimError",
    "SourceError",
    "TranslationError",
    "did_you_mean",
]


class ShopsimError(Exception):
    """Root of every error shopsim raises on purpose."""


class DataError(ShopsimError):
    """Raised when a data file is malformed; the message names the file, the record and the field."""


class ConfigError(ShopsimError):
    """Raised when an option, argument or environment setting is invalid."""


class ActionError(ShopsimError):
    """Raised by strict helpers when an action string cannot be parsed."""


class SessionError(ShopsimError):
    """Raised for unknown, expired or closed sessions, or when too many are open."""


class SourceError(ShopsimError):
    """Raised when a page source cannot deliver a page."""


class ResetNeeded(SessionError, SourceError):
    """Raised when an env or a page source is used before ``reset()``: one message wherever it happens.

    It is both a :class:`SessionError` (what env callers caught) and a :class:`SourceError` (what
    source callers caught), so existing ``except`` clauses keep working.
    """

    def __init__(self, method: str = "step") -> None:
        super().__init__(f"Cannot call {method}() before reset()")


class TranslationError(ShopsimError):
    """Raised by strict callers when a page cannot be translated."""


def did_you_mean(word: str, choices: list[str] | tuple[str, ...] | set[str]) -> str:
    """Return ' Did you mean: `x`?' for the closest choice, or '' when nothing is close."""
    match = difflib.get_close_matches(word, sorted(choices), n=1)
    return f" Did you mean: `{match[0]}`?" if match else ""


def first_problem(exc: Any) -> tuple[str, str]:
    """A pydantic ``ValidationError``'s first problem as ``(where, message)``, for one-line errors.

    ``where`` is the dotted field path (``''`` at the top level); the message is on one line.
    """
    err = exc.errors()[0]
    return ".".join(map(str, err["loc"])), " ".join(str(err["msg"]).split())
