"""Request bodies and JSON errors shared by both JSON APIs (WebShop's ``web.py`` and v8's ``service.py``).

Both APIs promise the same thing: every ``/api/`` error is a JSON body ``{"error": message, "code":
code}`` (plus ``detail`` for 422 ``invalid_body``), and no client input, however hostile, gets a 500.
Reading a body is where most of that promise is kept, so it lives here once:

* size: a declared ``Content-Length`` over the limit is refused before a byte is read, and a
  streamed (chunked) body is cut off as soon as it passes the limit -> 413 ``body_too_large``;
  a ``Content-Length`` that is not a plain decimal number -> 400 ``malformed_request`` (uvicorn's
  HTTP parser refuses most of those first; the check is for other servers and direct ASGI calls);
* media type: a ``Content-Type`` that is given and is not JSON (``application/json`` or
  ``application/*+json``) -> 415 ``unsupported_media_type``. Refusing is safer than guessing: a form
  post (``curl -d`` without ``-H``) would otherwise be parsed as JSON by accident. A request with
  no ``Content-Type`` at all is read as JSON, so bare clients keep working;
* JSON: the body must be UTF-8 JSON (RFC 8259): a BOM, invalid UTF-8, lone surrogates (also as
  ``\\ud800`` escapes, which would crash the UTF-8 response later),
  ``NaN`` / ``Infinity`` and numbers that overflow to infinity (``1e999``) -> 400 ``malformed_json``;
  a body that is JSON but not an object -> 400 ``malformed_json``; an empty body reads as ``{}``;
* depth: nesting deeper than :data:`MAX_JSON_DEPTH` (checked for itself, never left to a
  ``RecursionError``) -> 422 ``json_too_deep``: the body may be well-formed, we will not process it.
  A body nested past the parser's own limit (about 1,000 levels) is refused there, unread beyond
  that point, so it is 422 too even if its tail would not have parsed;
* validation: the pydantic model's errors -> 422 ``invalid_body`` with pydantic's error list as
  ``detail`` (without the input, which may be large).

Handlers raise :class:`ClientError` from anywhere; :func:`json_error_handlers` turns it, unknown
endpoints, wrong methods and unexpected exceptions into JSON responses.

Responses are :class:`FastJSONResponse`: Starlette's compact UTF-8 JSON, encoded by orjson (a
step's body in ~4 us instead of ~65 us; docs/serving.md has the measurements).
"""

from __future__ import annotations

import json
import logging
import math
from collections.abc import Awaitable, Callable
from typing import Any, Literal, TypeVar

import orjson
from pydantic import BaseModel, ValidationError
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response

from shopsim.errors import DataError

__all__ = [
    "BODY_ERROR_CODES",
    "BODY_ERROR_DOCS",
    "MAX_ACTION_CHARS",
    "MAX_BODY_BYTES",
    "MAX_JSON_DEPTH",
    "BodyErrorCode",
    "ClientError",
    "FastJSONResponse",
    "Handler",
    "JSONTooDeep",
    "check_content_length",
    "json_error",
    "json_error_handlers",
    "parse_json_object",
    "read_json_body",
    "strict_json_loads",
]

#: Request bodies above this many bytes are refused (413); a longest action, \u-escaped, is under 13 KiB.
MAX_BODY_BYTES = 64 * 1024
#: The longest action string either API accepts (422 beyond): room for a 1,000-character query.
MAX_ACTION_CHARS = 2_000
#: Deepest nesting of arrays and objects any JSON we are sent may have (bodies, tool arguments, snapshot
#: payloads); ours nest 5 deep. Far under the recursion limit, so the answer never depends on the stack.
MAX_JSON_DEPTH = 64

#: The codes this module (and the generic handlers) can answer with; each API's document lists them.
BodyErrorCode = Literal[
    "malformed_json", "malformed_request", "body_too_large", "unsupported_media_type", "invalid_body",
    "json_too_deep", "not_found", "method_not_allowed", "internal_error", "data_error",
]
BODY_ERROR_CODES: tuple[str, ...] = BodyErrorCode.__args__  # type: ignore[attr-defined]

#: What each body-reading status means, in one wording for both APIs' OpenAPI documents.
BODY_ERROR_DOCS: dict[str, str] = {
    "400": "the body is not a JSON object (malformed_json), or Content-Length is not a number (malformed_request)",
    "413": f"the body is over {MAX_BODY_BYTES} bytes (body_too_large)",
    "415": "Content-Type is given and is not application/json (unsupported_media_type)",
    "422": "the body is JSON but not valid for this endpoint (invalid_body, with detail), or nests arrays and "
           f"objects deeper than {MAX_JSON_DEPTH} levels (json_too_deep)",
}

M = TypeVar("M", bound=BaseModel)
Handler = Callable[[Request, Exception], Awaitable[Response]]


class FastJSONResponse(JSONResponse):
    """Starlette's :class:`JSONResponse` with the same bytes, encoded by orjson at a small fraction of the cost.

    Both write compact JSON (no spaces), UTF-8 text unescaped, keys in insertion order and the same
    string escapes; a client parses the same values from either. Two differences, neither reachable
    from our bodies: orjson writes a float under 1e-4 positionally (``0.00001``, where the standard
    library writes ``1e-05``: the same number), and a NaN as ``null`` (the standard library refuses it).
    What orjson refuses (a non-string key, an integer past 64 bits) is encoded by the standard
    library, as before.
    """

    def render(self, content: Any) -> bytes:
        """``content`` as JSON bytes."""
        try:
            return orjson.dumps(content)
        except TypeError:  # orjson.JSONEncodeError is a TypeError
            return super().render(content)


def json_error(status: int, code: str, message: str, detail: Any = None) -> JSONResponse:
    """The one error body: a message for people, a stable code for programs, ``detail`` only when set."""
    body: dict[str, Any] = {"error": message, "code": code}
    if detail is not None:
        body["detail"] = detail
    return FastJSONResponse(body, status_code=status)


class ClientError(Exception):
    """A client mistake, raised from anywhere in a handler; the app answers it as a JSON error.

    It keeps its parts (not just a response) so an HTML route can show the same error as a page.
    """

    def __init__(self, status: int, code: str, message: str, detail: Any = None):
        super().__init__(message)
        self.status, self.code, self.message, self.detail = status, code, message, detail

    def response(self) -> JSONResponse:
        """This error as the JSON error response the API sends."""
        return json_error(self.status, self.code, self.message, self.detail)


def check_content_length(request: Request, max_bytes: int = MAX_BODY_BYTES) -> None:
    """Refuse a declared body over ``max_bytes`` before reading any of it."""
    length = request.headers.get("content-length")
    if length is None:
        return
    if not (length.isascii() and length.isdigit()):  # isdigit alone admits '²', which int() refuses
        raise ClientError(400, "malformed_request", "Content-Length must be a non-negative integer")
    if len(length) > 18 or int(length) > max_bytes:  # the length test keeps int() off huge strings
        raise ClientError(413, "body_too_large", f"request bodies are limited to {max_bytes} bytes")


def _check_media_type(request: Request) -> None:
    given = request.headers.get("content-type")
    if given is None:
        return
    media = given.split(";", 1)[0].strip().lower()
    if media == "application/json" or (media.startswith("application/") and media.endswith("+json")):
        return
    raise ClientError(415, "unsupported_media_type",
                      f"send the body as application/json, not {given[:80]!r}")


async def _read_limited(request: Request, max_bytes: int) -> bytes:
    """The body, from the ASGI messages themselves (Starlette's ``stream()`` costs a generator per request)."""
    check_content_length(request, max_bytes)
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await request.receive()
        if message["type"] == "http.disconnect":
            raise ClientDisconnect()
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > max_bytes:  # a chunked body has no Content-Length: stop reading at the limit
            raise ClientError(413, "body_too_large", f"request bodies are limited to {max_bytes} bytes")
        chunks.append(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks)


class JSONTooDeep(ValueError):
    """Raised when JSON nests arrays and objects deeper than :data:`MAX_JSON_DEPTH` (a ValueError, so
    callers that refuse any bad JSON need not name it).
    """

    def __init__(self) -> None:
        super().__init__(f"nesting deeper than {MAX_JSON_DEPTH} levels")


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"number {text[:40]} is out of range")
    return value


def _check_strings(data: Any) -> None:
    """Fail on a lone surrogate in any key or string, or on nesting past :data:`MAX_JSON_DEPTH`;
    iterative, so depth cannot overflow the stack.
    """
    stack: list[tuple[Any, int]] = [(data, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, str):
            item.encode("utf-8")  # UnicodeEncodeError (a ValueError) on a lone surrogate
            continue
        if not isinstance(item, dict | list):
            continue
        if depth >= MAX_JSON_DEPTH:
            raise JSONTooDeep()
        children = [*item.keys(), *item.values()] if isinstance(item, dict) else item
        stack.extend((child, depth + 1) for child in children)


#: One decoder for every body: ``json.loads`` with hooks would build a new one (and its scanner) per call.
_DECODER = json.JSONDecoder(parse_constant=_no_constant, parse_float=_finite)


def strict_json_loads(text: str) -> Any:
    """``json.loads`` that also refuses what would fail later (see module doc); every failure is a ValueError.

    For JSON inside JSON too (a tool call's ``arguments`` string), which the body check cannot see into.
    """
    try:
        data = _DECODER.decode(text)
        _check_strings(data)
    except RecursionError:  # deeper than the interpreter's limit: deeper than ours too
        raise JSONTooDeep() from None
    return data


def parse_json_object(raw: bytes) -> dict[str, Any]:
    """A strict JSON object from raw bytes, or :class:`ClientError` 400 ``malformed_json`` (422
    ``json_too_deep`` for nesting past :data:`MAX_JSON_DEPTH`).
    """
    try:
        data = strict_json_loads(raw.decode("utf-8") or "{}")
    except JSONTooDeep as exc:
        raise ClientError(422, "json_too_deep", f"the body is refused: {exc}") from None
    except ValueError as exc:  # UnicodeDecodeError included
        raise ClientError(400, "malformed_json", f"the body is not valid JSON: {str(exc)[:200]}") from None
    if not isinstance(data, dict):
        raise ClientError(400, "malformed_json", "the body must be a JSON object")
    return data


async def read_json_body(request: Request, model: type[M], max_bytes: int = MAX_BODY_BYTES) -> M:
    """The request body validated as ``model``; every failure is a :class:`ClientError` (see module doc)."""
    _check_media_type(request)
    data = parse_json_object(await _read_limited(request, max_bytes))
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise ClientError(422, "invalid_body", "invalid request body",
                          exc.errors(include_url=False, include_context=False, include_input=False)) from None


# ---- exception handlers ----------------------------------------------------------------------------
async def _client_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, ClientError)
    return exc.response()


async def _not_found(request: Request, exc: Exception) -> Response:
    return json_error(404, "not_found", f"no endpoint {request.method} {request.url.path[:200]}")


async def _not_allowed(request: Request, exc: Exception) -> Response:
    response = json_error(405, "method_not_allowed", f"{request.method} is not allowed on {request.url.path[:200]}")
    allow = (getattr(exc, "headers", None) or {}).get("Allow")
    if allow:
        response.headers["Allow"] = allow
    return response


async def _server_error(request: Request, exc: Exception) -> Response:
    return json_error(500, "internal_error", f"{type(exc).__name__}: {str(exc)[:300]}")


def data_error_line(exc: Exception) -> str:
    """The one line a request failed by damaged data (a store file truncated under the server) gives
    the operator's log, instead of a traceback: the server keeps serving what is intact.
    """
    line = " ".join(str(exc).split())[:500]
    logging.getLogger("uvicorn.error").error("shopsim: data error: %s", line)
    return line


async def _data_error(request: Request, exc: Exception) -> Response:
    return json_error(503, "data_error", data_error_line(exc))


def json_error_handlers() -> dict[Any, Handler]:
    """Starlette ``exception_handlers`` answering ClientError, DataError (503), 404, 405 and 500 as JSON errors."""
    return {ClientError: _client_error, DataError: _data_error, 404: _not_found, 405: _not_allowed,
            500: _server_error}
