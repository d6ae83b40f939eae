"""The v8 JSON API: ShopSimulator's reset / step / terminate / release over leased slots.

Every error is a JSON body ``{"error": message, "code": code}``; client mistakes are 4xx, never a
500. A full slot pool queues new sessions fairly (503 only after the wait limit). Each reset
carries the frozen ``environment.json`` version.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from shopsim.errors import ActionError, ConfigError, SessionError
from shopsim.simsite.v8.catalog import public_persona
from shopsim.simsite.v8.environment import ENVIRONMENT, environment_info
from shopsim.simsite.v8.session import V8Session, V8Step
from shopsim.simsite.v8.shop import V8Shop
from shopsim.simsite.v8.slots import SlotPool, SlotTimeout
from shopsim.tool_calls import canonical_action

__all__ = ["ENVIRONMENT", "V8Reset", "V8StepRequest", "V8Terminate", "create_v8_app", "environment_info"]

MAX_BODY = 64 * 1024


class V8Reset(BaseModel):
    """Open a session on task ``task_id``."""

    model_config = ConfigDict(extra="forbid")

    task_id: int
    task_mode: Literal["standard", "persona"] | None = None
    interaction_mode: Literal["single_turn", "multi_turn"] = "single_turn"
    max_actions: int | None = Field(default=None, ge=1, le=10_000)
    include_private: bool = False


class V8StepRequest(BaseModel):
    """One action: the canonical string, or a tool call ``{"tool", "arguments"}``."""

    model_config = ConfigDict(extra="forbid")

    action: str | None = Field(default=None, max_length=2_000)
    tool: str | None = None
    arguments: dict[str, Any] | str | None = None


class V8Terminate(BaseModel):
    """End the episode for a runtime reason: a model turn hit its token cap (``generation_length``).

    ``action_limit`` is not a client reason: the environment reaches it by counting actions.
    """

    model_config = ConfigDict(extra="forbid")

    reason: Literal["generation_length"]


@dataclass
class _Lease:
    session: V8Session
    slot: int
    task_mode: str
    last_used: float = field(default_factory=time.monotonic)


def _error(status: int, code: str, message: str, detail: Any = None) -> JSONResponse:
    body: dict[str, Any] = {"error": message, "code": code}
    if detail is not None:
        body["detail"] = detail
    return JSONResponse(body, status_code=status)


class _ClientError(Exception):
    def __init__(self, response: JSONResponse):
        super().__init__("client error")
        self.response = response


async def _body(request: Request, model: type[BaseModel]) -> Any:
    length = request.headers.get("content-length")
    if length is not None and not length.isdigit():
        raise _ClientError(_error(400, "malformed_request", "Content-Length must be a non-negative integer"))
    if length is not None and int(length) > MAX_BODY:
        raise _ClientError(_error(413, "body_too_large", f"request bodies are limited to {MAX_BODY} bytes"))
    raw = b""
    async for chunk in request.stream():
        raw += chunk
        if len(raw) > MAX_BODY:
            raise _ClientError(_error(413, "body_too_large", f"request bodies are limited to {MAX_BODY} bytes"))
    try:
        data = json.loads(raw.decode("utf-8") or "{}", parse_constant=_no_constant)
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise _ClientError(_error(400, "malformed_json", f"the body is not valid JSON: {str(exc)[:200]}")) from None
    if not isinstance(data, dict):
        raise _ClientError(_error(400, "malformed_json", "the body must be a JSON object"))
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise _ClientError(_error(422, "invalid_body", "invalid request body",
                                  exc.errors(include_url=False, include_context=False, include_input=False))) from None


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def create_v8_app(shop: V8Shop, *, slots: int = 8, queue_timeout_s: float = 60.0, session_ttl_s: float = 900.0,
                  extra_routes: Sequence[BaseRoute] = ()) -> Starlette:
    """The v8 service over one shop: ``/api/...``, ``/debug-ui`` and ``extra_routes`` (the run viewer)."""
    leases: dict[str, _Lease] = {}

    def sweep() -> None:
        now = time.monotonic()
        for lid in [k for k, lease in leases.items() if now - lease.last_used > session_ttl_s]:
            pool.release(leases.pop(lid).slot)

    pool = SlotPool(slots, sweep)

    def lease_of(request: Request) -> _Lease:
        lid = request.path_params["lease"]
        lease = leases.get(lid)
        now = time.monotonic()
        if lease is not None and now - lease.last_used > session_ttl_s:  # expired: its slot goes back
            pool.release(leases.pop(lid).slot)
            raise _ClientError(_error(410, "lease_expired", f"session {lid[:80]!r} expired after {session_ttl_s:g}s idle"))
        if lease is None:
            raise _ClientError(_error(404, "unknown_lease", f"no open session {lid[:80]!r}"))
        lease.last_used = now
        return lease

    def step_body(lease: _Lease, step: V8Step | None = None) -> dict[str, Any]:
        s = lease.session
        return {
            "observation": s.observation(), "observation_state": s.state.model_dump(mode="json"),
            "reward": s.reward, "done": s.done, "termination": s.termination,
            "reward_detail": s.detail.model_dump(mode="json") if s.detail is not None else None,
            "action_feedback": step.feedback if step is not None else s.state.action_feedback,
            "actions_used": s.actions, "max_actions": s.max_actions,
        }

    async def create(request: Request) -> Response:
        body: V8Reset = await _body(request, V8Reset)
        try:
            task = shop.task_by_id(body.task_id)
        except ConfigError as exc:
            return _error(404, "unknown_task", str(exc))
        mode = body.task_mode or task.task_mode
        if mode == "persona" and task.user_persona is None:
            return _error(422, "no_persona", f"task {task.task_id} has no persona (on the task or its product); "
                          "use task_mode standard")
        try:
            slot = await pool.acquire(queue_timeout_s)
        except SlotTimeout as exc:
            return _error(503, "no_free_slot", str(exc))
        try:
            session = V8Session(shop, task, max_actions=body.max_actions, interaction_mode=body.interaction_mode)
        except BaseException:
            pool.release(slot)
            raise
        lid = uuid.uuid4().hex
        lease = leases[lid] = _Lease(session, slot, mode)
        out = {
            "lease_id": lid, "env_idx": slot, "task_id": task.task_id, "task_instruction": task.instruction_for(mode),
            "user_persona": public_persona(task.user_persona) if mode == "persona" else None,
            "task_mode": mode, "interaction_mode": body.interaction_mode,
            "environment_version": ENVIRONMENT["environment_version"], **step_body(lease),
        }
        if body.include_private:
            out["private_task_instruction"] = task.instruction
        return JSONResponse(out, status_code=201)

    async def step(request: Request) -> Response:
        lease = lease_of(request)
        body: V8StepRequest = await _body(request, V8StepRequest)
        if (body.action is None) == (body.tool is None):
            return _error(422, "invalid_body", "send exactly one of 'action' or 'tool' (with 'arguments')")
        try:
            action = body.action if body.action is not None else canonical_action(body.tool, body.arguments)
        except ActionError as exc:
            return _error(422, "invalid_tool_call", str(exc))
        try:
            result = lease.session.step(action)
        except SessionError as exc:
            return _error(409, "episode_over", str(exc))
        return JSONResponse(step_body(lease, result))

    async def terminate(request: Request) -> Response:
        lease = lease_of(request)
        body: V8Terminate = await _body(request, V8Terminate)
        try:
            result = lease.session.terminate(body.reason)
        except SessionError as exc:
            return _error(409, "episode_over", str(exc))
        return JSONResponse(step_body(lease, result))

    async def get(request: Request) -> Response:
        return JSONResponse(step_body(lease_of(request)))

    async def release(request: Request) -> Response:
        lease = lease_of(request)
        del leases[request.path_params["lease"]]
        pool.release(lease.slot)
        return Response(status_code=204)

    async def health(request: Request) -> Response:
        return JSONResponse({"ok": True, "profile": "shopsim-v8", "products": len(shop.products),
                             "tasks": len(shop.goals), "slots": pool.size, "slots_in_use": pool.in_use,
                             "waiting": pool.waiting, "environment_version": ENVIRONMENT["environment_version"]})

    async def environment(request: Request) -> Response:
        return JSONResponse(ENVIRONMENT)

    async def openapi(request: Request) -> Response:
        from shopsim.simsite.v8.openapi import v8_openapi_spec

        return JSONResponse(v8_openapi_spec())

    async def root(request: Request) -> Response:
        return RedirectResponse("/debug-ui", status_code=307)

    routes = [
        Route("/", root),
        Route("/api/sessions", create, methods=["POST"]),
        Route("/api/sessions/{lease}/step", step, methods=["POST"]),
        Route("/api/sessions/{lease}/terminate", terminate, methods=["POST"]),
        Route("/api/sessions/{lease}", get, methods=["GET"]),
        Route("/api/sessions/{lease}", release, methods=["DELETE"]),
        Route("/api/health", health),
        Route("/api/environment", environment),
        Route("/api/openapi.json", openapi),
    ]
    from shopsim.simsite.v8.debug_ui import debug_routes

    routes += debug_routes(shop)
    routes += list(extra_routes)

    async def client_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, _ClientError)
        return exc.response

    async def not_found(request: Request, exc: Exception) -> Response:
        return _error(404, "not_found", f"no endpoint {request.method} {request.url.path[:200]}")

    async def not_allowed(request: Request, exc: Exception) -> Response:
        response = _error(405, "method_not_allowed", f"{request.method} is not allowed on {request.url.path[:200]}")
        allow = (getattr(exc, "headers", None) or {}).get("Allow")
        if allow:
            response.headers["Allow"] = allow
        return response

    async def server_error(request: Request, exc: Exception) -> Response:
        return _error(500, "internal_error", f"{type(exc).__name__}: {str(exc)[:300]}")

    app = Starlette(routes=routes, exception_handlers={_ClientError: client_error, 404: not_found,
                                                      405: not_allowed, 500: server_error})
    app.state.shop = shop
    app.state.leases = leases
    app.state.pool = pool
    return app
