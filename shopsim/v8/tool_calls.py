"""The v8 action grammar: two tools, ``search(query)`` and ``click(value)``, one call per turn.

Canonical strings inside are ``search[...]`` and ``click[...]``; the tool-call form
``{"tool": "click", "arguments": {"value": ...}}`` maps to them. Option values are axis-qualified
(``axis=value``, raw axis name) so two axes sharing a value stay distinct clicks. Multi-turn
sessions add a third tool, ``ask(question)`` (``ask[...]``), answered by the shopper simulator;
single-turn sessions refuse it as ``invalid_format``.
"""

from __future__ import annotations

import json
import re
from typing import Any

from shopsim.errors import ActionError

__all__ = ["MULTI_TURN_TOOLS", "V8_TOOLS", "canonical_action", "option_arg", "parse_v8_action", "tool_schemas"]

_ACTION = re.compile(r"^\s*(search|click|ask)\[(.*)\]\s*$", re.DOTALL)
V8_TOOLS = ("search", "click")
MULTI_TURN_TOOLS = (*V8_TOOLS, "ask")
_ARGUMENT = {"search": "query", "click": "value", "ask": "question"}


def parse_v8_action(action: Any) -> tuple[str, str] | None:
    """``'click[buy now]'`` -> ``('click', 'buy now')``; anything malformed -> ``None``."""
    if not isinstance(action, str):
        return None
    m = _ACTION.match(action)
    if m is None:
        return None
    return m.group(1), m.group(2).strip()


def option_arg(axis: str, value: str) -> str:
    """The click value of an option: ``颜色分类=三锅小吃车``."""
    return f"{axis}={value}"


def canonical_action(tool: Any, arguments: Any) -> str:
    """The canonical string of a tool call; raises ActionError when it is not a valid call."""
    if tool not in MULTI_TURN_TOOLS:
        raise ActionError(f"unknown tool {str(tool)[:40]!r}: use search or click (ask in multi_turn mode)")
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except ValueError as exc:
            raise ActionError(f"{tool} arguments are not JSON: {exc}") from exc
    if not isinstance(arguments, dict):
        raise ActionError(f"{tool} arguments must be an object")
    key = _ARGUMENT[tool]
    value = arguments.get(key)
    if not isinstance(value, str):
        raise ActionError(f"{tool} needs a string argument {key!r}")
    return f"{tool}[{value}]"


def tool_schemas(search_available: bool, clickables: list[str], *, ask: bool = False) -> list[dict[str, Any]]:
    """OpenAI-style function tools for one page: ``click`` takes exactly the page's clickables; ``ask``
    (the shopper's questions) only where the session's mode allows it (``multi_turn``).
    """
    tools: list[dict[str, Any]] = []
    if search_available:
        tools.append({"type": "function", "function": {
            "name": "search", "description": "Search the catalog (only from the search page).",
            "parameters": {"type": "object", "properties": {"query": {"type": "string"}},
                           "required": ["query"], "additionalProperties": False}}})
    if clickables:
        tools.append({"type": "function", "function": {
            "name": "click", "description": "Click one value shown on the page.",
            "parameters": {"type": "object", "properties": {"value": {"type": "string", "enum": list(clickables)}},
                           "required": ["value"], "additionalProperties": False}}})
    if ask:
        tools.append({"type": "function", "function": {
            "name": "ask", "description": "Ask the shopper you are buying for one question (uses one action).",
            "parameters": {"type": "object", "properties": {"question": {"type": "string"}},
                           "required": ["question"], "additionalProperties": False}}})
    return tools
