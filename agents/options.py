"""``--agent-option KEY=VALUE`` strings to the types an agent's constructor declares.

An agent declares its options by its ``__init__`` signature: ``timeout: float = 60.0`` makes
``timeout=3`` the float 3.0, ``verbose: bool`` accepts true/false/yes/no/1/0, ``X | None``
accepts ``none``, ``Literal[...]`` only its values. An unknown key or an unreadable value is one
clear error that lists the options the agent takes. Non-string values (from Python callers) pass
through unchanged; a constructor with ``**kwargs`` takes unknown keys as strings.
"""

from __future__ import annotations

import inspect
import types
import typing
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal, get_args, get_origin

from shopsim.errors import ConfigError, did_you_mean

__all__ = ["agent_option_types", "convert_options"]

_TRUE, _FALSE = {"true", "yes", "1", "on"}, {"false", "no", "0", "off"}
# Options a command line cannot express (objects), never offered as --agent-option.
_HIDDEN = {"self", "seed", "transport", "input_fn", "output"}


def agent_option_types(target: Callable[..., Any]) -> tuple[dict[str, Any], bool]:
    """``({option: annotation}, takes_any)`` from a class's ``__init__`` or a function."""
    if inspect.isclass(target) and target.__init__ is object.__init__:  # type: ignore[misc]
        return {}, False  # a class without a constructor of its own takes no options
    func = target.__init__ if inspect.isclass(target) else target  # type: ignore[misc]
    try:
        hints = typing.get_type_hints(func)
    except Exception:  # unresolvable annotations: fall back to the raw ones
        hints = getattr(func, "__annotations__", {})
    params = inspect.signature(func).parameters
    types_ = {n: hints.get(n, Any) for n, p in params.items()
              if n not in _HIDDEN and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)}
    takes_any = any(p.kind is p.VAR_KEYWORD for p in params.values())
    return types_, takes_any


def _describe(annotation: Any) -> str:
    if annotation is Any or annotation is inspect.Parameter.empty:
        return "text"
    return getattr(annotation, "__name__", None) or str(annotation).replace("typing.", "")


def _convert(key: str, raw: str, annotation: Any) -> Any:
    origin = get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        options = get_args(annotation)
        if type(None) in options and raw.strip().lower() in ("none", "null", ""):
            return None
        errors = []
        for option in (o for o in options if o is not type(None)):
            try:
                return _convert(key, raw, option)
            except ConfigError as exc:
                errors.append(str(exc))
        raise ConfigError(errors[0] if errors else f"--agent-option {key}={raw!r}: unreadable")
    if origin is Literal:
        allowed = [str(v) for v in get_args(annotation)]
        if raw not in allowed:
            raise ConfigError(f"--agent-option {key}={raw!r}: expected one of {', '.join(allowed)}")
        return get_args(annotation)[allowed.index(raw)]
    if annotation is bool:
        low = raw.strip().lower()
        if low in _TRUE | _FALSE:
            return low in _TRUE
        raise ConfigError(f"--agent-option {key}={raw!r}: expected true or false")
    if annotation in (int, float):
        try:
            return annotation(raw)
        except ValueError:
            kind = "a whole number" if annotation is int else "a number"
            raise ConfigError(f"--agent-option {key}={raw!r}: expected {kind}") from None
    if annotation is Path:
        return Path(raw)
    return raw


def convert_options(target: Callable[..., Any], options: dict[str, Any], agent: str) -> dict[str, Any]:
    """``options`` with string values converted to ``target``'s declared types (see the module doc)."""
    declared, takes_any = agent_option_types(target)
    out: dict[str, Any] = {}
    for key, value in options.items():
        if key not in declared:
            if takes_any:
                out[key] = value
                continue
            valid = ", ".join(f"{k} ({_describe(t)})" for k, t in declared.items()) or "none"
            raise ConfigError(f"agent {agent!r} has no option {key!r}.{did_you_mean(key, list(declared))} "
                              f"Its options: {valid}")
        out[key] = _convert(key, value, declared[key]) if isinstance(value, str) else value
    return out
