"""Reading a model's reply as one tool call, and what the agent tells the model when it is not one.

Two rule sets. WebShop's: the call must name an offered tool and a listed click value; anything
else is a protocol error. shopsim-v8's (seeds 003/004): a protocol error is only a missing tool
call, several calls, malformed arguments or an unknown tool; a well-formed ``search`` or ``click``
goes to the environment even off the page's enum (it answers ``unavailable_action`` or
``search_unavailable`` and counts the step), so the page, not the runtime, judges legality.
Each v8 error has a code (recorded in the agent's stats) and one repair text sent on the same page.
"""

from __future__ import annotations

import json
from typing import Any

from shopsim.errors import ActionError
from shopsim.v8.tool_calls import MULTI_TURN_TOOLS, V8_TOOLS, canonical_action

__all__ = ["REPAIR_TEXT", "ProtocolError", "parse_reply", "parse_v8_reply", "repair_messages"]

#: What the model is told after each kind of v8 protocol error: the page is unchanged, a turn is gone.
REPAIR_TEXT = {
    "no_tool_call": "Your reply had no tool call. Call exactly one of the offered tools.",
    "multiple_tool_calls": "Your reply had {n} tool calls and none was executed. Call exactly one tool per turn.",
    "malformed_arguments": "The arguments of your {tool} call are malformed ({detail}); none was executed. "
                           "Call one tool with a JSON object of its declared arguments.",
    "unknown_tool": "There is no tool {tool!r}; use {offered}.",
}


class ProtocolError(Exception):
    """The model's reply did not follow the one-tool-call protocol (internal; triggers a repair).

    ``code`` names the kind (``no_tool_call``, ``multiple_tool_calls``, ``malformed_arguments``,
    ``unknown_tool``); ``reply_to_calls`` says whether the repair answers the calls made (the API
    requires a tool message per call) or comes as a user message.
    """

    def __init__(self, message: str, reply_to_calls: bool, code: str = "protocol_error"):
        super().__init__(message)
        self.reply_to_calls, self.code = reply_to_calls, code


def _one_call(message: dict[str, Any]) -> tuple[dict[str, Any], Any, Any]:
    """The single call of a reply and its name and raw arguments; a ProtocolError for none or several."""
    calls = message.get("tool_calls") or []
    if not calls:
        raise ProtocolError("you replied without a tool call; call exactly one tool", False, "no_tool_call")
    if len(calls) > 1:
        raise ProtocolError(f"you made {len(calls)} tool calls; make exactly one (none was executed)", True,
                            "multiple_tool_calls")
    fn = calls[0].get("function") or {}
    return calls[0], fn.get("name"), fn.get("arguments")


def parse_reply(message: dict[str, Any], has_search: bool, clicks: list[str]) -> tuple[str, str]:
    """WebShop rules: ``(action, call_id)`` for one offered tool with legal arguments, else ProtocolError."""
    call, name, raw = _one_call(message)
    try:
        args = raw if isinstance(raw, dict) else json.loads(raw or "{}")
    except (TypeError, ValueError) as exc:
        raise ProtocolError(f"the arguments of {name} are not valid JSON ({exc})", True, "malformed_arguments") from exc
    if not isinstance(args, dict):
        raise ProtocolError(f"the arguments of {name} must be a JSON object", True, "malformed_arguments")
    if name == "search" and has_search:
        query = " ".join(str(args.get("query") or "").replace("[", " ").replace("]", " ").split())
        if not query:
            raise ProtocolError("search needs a non-empty 'query'", True, "malformed_arguments")
        return f"search[{query}]", str(call.get("id") or "")
    if name == "click" and clicks:
        value = args.get("value")
        if not isinstance(value, str) or value not in clicks:
            raise ProtocolError(f"click value {value!r} is not one of the allowed values: {', '.join(clicks)}", True,
                                "malformed_arguments")
        return f"click[{value}]", str(call.get("id") or "")
    offered = [n for n, ok in (("search", has_search), ("click", bool(clicks))) if ok]
    raise ProtocolError(f"tool {name!r} is not available on this page; use one of: {', '.join(offered)}", True,
                        "unknown_tool")


def parse_v8_reply(message: dict[str, Any], offered: list[str], *, multi_turn: bool = False) -> tuple[str, str]:
    """v8 rules: ``(canonical action, call_id)`` for one well-formed call of a v8 tool (``ask`` too in a
    multi-turn session), else ProtocolError.
    """
    calls = message.get("tool_calls") or []
    try:
        call, name, raw = _one_call(message)
    except ProtocolError as exc:
        text = REPAIR_TEXT[exc.code].format(n=len(calls))
        raise ProtocolError(text, exc.reply_to_calls, exc.code) from None
    if name not in (MULTI_TURN_TOOLS if multi_turn else V8_TOOLS):
        raise ProtocolError(REPAIR_TEXT["unknown_tool"].format(tool=str(name)[:40], offered=" or ".join(offered)),
                            True, "unknown_tool")
    try:
        action = canonical_action(name, raw)
    except ActionError as exc:
        detail = str(exc)
    else:
        inner = action[len(name) + 1:-1]
        if inner.strip():
            return action, str(call.get("id") or "")
        detail = f"{name} needs a non-empty argument"
    raise ProtocolError(REPAIR_TEXT["malformed_arguments"].format(tool=name, detail=detail[:200]), True,
                        "malformed_arguments")


def repair_messages(message: dict[str, Any], problem: str, reply_to_calls: bool) -> list[dict[str, Any]]:
    """Tool replies for each call made (the API requires them), else a user message."""
    text = f"Protocol error: {problem.rstrip('.')}. Reply again with exactly one tool call."
    calls = message.get("tool_calls") or []
    if reply_to_calls and calls:
        return [{"role": "tool", "tool_call_id": str(c.get("id") or ""), "content": text} for c in calls]
    return [{"role": "user", "content": text}]
