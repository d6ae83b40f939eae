"""A scripted OpenAI-compatible chat server on 127.0.0.1, standing in for a paid model service.

It records each request body and answers with scripted replies (protocol errors included); the
LLM agent's tests and the eval-report tests drive it.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Reply = Callable[[dict[str, Any]], dict[str, Any]]


class FakeLLM:
    """Answers POST /v1/chat/completions from a script (a list of replies, then ``default``)."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.script: list[Reply | dict[str, Any]] = []
        self.default: Reply | None = None
        self.status = 200
        self.statuses: list[int] = []  # per request, before ``status``
        self.retry_after: str | None = None
        self.delay = 0.0
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                fake.requests.append(body)
                fake.headers.append(dict(self.headers))
                if fake.delay:
                    threading.Event().wait(fake.delay)
                status = fake.statuses.pop(0) if fake.statuses else fake.status
                if status != 200:
                    payload = json.dumps({"error": {"message": "boom"}}).encode()
                    code = status
                else:
                    reply = fake.script.pop(0) if fake.script else fake.default
                    assert reply is not None, "script exhausted"
                    message = dict(reply(body) if callable(reply) else reply)
                    finish = message.pop("finish_reason", "tool_calls" if message.get("tool_calls") else "stop")
                    payload = json.dumps({"choices": [{"index": 0, "message": message, "finish_reason": finish}],
                                          "usage": {"prompt_tokens": 10, "completion_tokens": 2, "total_tokens": 12}}).encode()
                    code = 200 if self.path == "/v1/chat/completions" else 404
                self.send_response(code)
                if code != 200 and fake.retry_after is not None:
                    self.send_header("Retry-After", fake.retry_after)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def call(name: str, args: Any, call_id: str = "c1") -> dict[str, Any]:
    """One tool call; ``args`` is JSON-encoded unless it is already a string."""
    arguments = args if isinstance(args, str) else json.dumps(args)
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def reply(*calls: dict[str, Any], content: str | None = None) -> dict[str, Any]:
    return {"role": "assistant", "content": content, "tool_calls": list(calls) if calls else None}


def tools_of(body: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {t["function"]["name"]: t["function"] for t in body.get("tools", [])}


_FIXED = {"back to search", "next >", "< prev", "buy now", "description", "features", "reviews", "attributes"}


def scripted_shopper(body: dict[str, Any]) -> dict[str, Any]:
    """A scripted 'model': search, open the first product, click one option value (if any), buy."""
    tools = tools_of(body)
    if "search" in tools:
        return reply(call("search", {"query": "shoes"}))
    enum = tools["click"]["parameters"]["properties"]["value"]["enum"]
    assert "Instruction:" in body["messages"][-1]["content"]
    last_tool = ([m["content"] for m in body["messages"] if m["role"] == "tool"] or [""])[-1]  # a task may start on an item
    options = [v for v in enum if v not in _FIXED]
    if "buy now" in enum:
        just_opened = last_tool not in {f"executed click[{v}]" for v in options}
        return reply(call("click", {"value": options[0] if options and just_opened else "buy now"}))
    return reply(call("click", {"value": next(v for v in enum if v not in _FIXED)}))
