"""The v8 JSON API: ShopSimulator's reset / step / terminate / release over leased slots.

Every error is a JSON body ``{"error": message, "code": code}``; client mistakes are 4xx, never a
500 (bodies and errors come from :mod:`shopsim.simsite.json_api`, shared with the WebShop API). A
full slot pool queues new sessions fairly (503 only after the wait limit). Each reset carries the
frozen ``environment.json`` version.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from shopsim.errors import ActionError, ConfigError, SessionError
from shopsim.simsite.json_api import (
    MAX_ACTION_CHARS,
    MAX_BODY_BYTES,
    ClientError,
    json_error,
    json_error_handlers,
    read_json_body,
    strict_json_loads,
)
from shopsim.simsite.v8.catalog import public_persona
from shopsim.simsite.v8.environment import ENVIRONMENT, environment_info
from shopsim.simsite.v8.session import V8Session, V8Step
from shopsim.simsite.v8.shop import V8Shop
from shopsim.simsite.v8.slots import SlotPool, SlotTimeout
from shopsim.tool_calls import canonical_action

__all__ = ["ENVIRONMENT", "V8Reset", "V8StepRequest", "V8Terminate", "create_v8_app", "environment_info"]

MAX_BODY = MAX_BODY_BYTES  # the documented limit, shared with the WebShop API


class V8Reset(BaseModel):
    """Open a session on task ``task_id``; strict, so ``true`` or ``3538.0`` is not a task id (422)."""

    model_config = ConfigDict(extra="forbid", strict=True)

    task_id: int
    task_mode: Literal["standard", "persona"] | None = None
    interaction_mode: Literal["single_turn", "multi_turn"] = "single_turn"
    max_actions: int | None = Field(default=None, ge=1, le=10_000)
    include_private: bool = False


class V8StepRequest(BaseModel):
    """One action: the canonical string, or a tool call ``{"tool", "arguments"}``."""

    model_config = ConfigDict(extra="forbid")

    action: str | None = Field(default=None, max_length=MAX_ACTION_CHARS)
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


def _arguments(arguments: Any) -> Any:
    """String tool arguments parsed as strictly as a body: the JSON inside JSON could otherwise carry
    nesting past the recursion limit or lone surrogates (a 500 later) past the body check."""
    if not isinstance(arguments, str):
        return arguments
    try:
        return strict_json_loads(arguments)
    except ValueError as exc:
        raise ActionError(f"tool arguments are not JSON: {str(exc)[:200]}") from None


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
            raise ClientError(410, "lease_expired", f"session {lid[:80]!r} expired after {session_ttl_s:g}s idle")
        if lease is None:
            raise ClientError(404, "unknown_lease", f"no open session {lid[:80]!r}")
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
        body: V8Reset = await read_json_body(request, V8Reset)
        try:
            task = shop.task_by_id(body.task_id)
        except ConfigError as exc:
            return json_error(404, "unknown_task", str(exc))
        mode = body.task_mode or task.task_mode
        if mode == "persona" and task.user_persona is None:
            return json_error(422, "no_persona", f"task {task.task_id} has no persona (on the task or its product); "
                              "use task_mode standard")
        try:
            slot = await pool.acquire(queue_timeout_s)
        except SlotTimeout as exc:
            return json_error(503, "no_free_slot", str(exc))
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
        body: V8StepRequest = await read_json_body(request, V8StepRequest)
        if (body.action is None) == (body.tool is None):
            return json_error(422, "invalid_body", "send exactly one of 'action' or 'tool' (with 'arguments')")
        try:
            action = body.action if body.action is not None else canonical_action(body.tool, _arguments(body.arguments))
        except ActionError as exc:
            return json_error(422, "invalid_tool_call", str(exc))
        try:
            result = lease.session.step(action)
        except SessionError as exc:
            return json_error(409, "episode_over", str(exc))
        return JSONResponse(step_body(lease, result))

    async def terminate(request: Request) -> Response:
        lease = lease_of(request)
        body: V8Terminate = await read_json_body(request, V8Terminate)
        try:
            result = lease.session.terminate(body.reason)
        except SessionError as exc:
            return json_error(409, "episode_over", str(exc))
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

    app = Starlette(routes=routes, exception_handlers=json_error_handlers())
    app.state.shop = shop
    app.state.leases = leases
    app.state.pool = pool
    return app
