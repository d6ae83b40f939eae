"""The v8 JSON API: ShopSimulator's reset / step / terminate / release over leased slots.

Every error is a JSON body ``{"error": message, "code": code}``; client mistakes are 4xx, never a
500 (:mod:`shopsim.simsite.json_api`, shared with the WebShop API). A full slot pool queues new
sessions fairly (503 only after the wait limit). A lease plays one action at a time.

Snapshots (:mod:`shopsim.simsite.snapshots`) let a trainer branch one state into many rollouts
without replaying actions: ``POST /api/sessions/{lease}/snapshot`` answers an opaque token (task,
task mode, interaction mode, action limit, actions used, page), ``POST /api/sessions/{lease}/restore``
puts a leased session into a token's state (no new slot), and a reset with ``{"snapshot": token}``
opens a new session in it (through the same queue as any reset). A token that is malformed, altered
or from a shop with another catalog or task set is 400 ``invalid_snapshot``.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from shopsim.errors import ActionError, ConfigError, SessionError
from shopsim.simsite.json_api import (
    MAX_ACTION_CHARS,
    MAX_BODY_BYTES,
    ClientError,
    FastJSONResponse,
    json_error,
    json_error_handlers,
    read_json_body,
    strict_json_loads,
)
from shopsim.simsite.server import warming_lifespan
from shopsim.simsite.snapshots import MAX_TOKEN_CHARS, SnapshotError, shop_fingerprint
from shopsim.simsite.v8.environment import ENVIRONMENT, RuntimeTermination
from shopsim.simsite.v8.records import TaskMode, V8Task, public_persona
from shopsim.simsite.v8.session import V8Session, V8Step
from shopsim.simsite.v8.shop import V8Shop
from shopsim.simsite.v8.shopper import ShopperFactory, private_goal
from shopsim.simsite.v8.slots import SlotPool, SlotTimeout
from shopsim.simsite.v8.warmup import warm_v8
from shopsim.v8.tool_calls import canonical_action

__all__ = ["V8_ROUTES", "V8Reset", "V8Restore", "V8State", "V8StepRequest", "V8Terminate", "create_v8_app"]

MAX_BODY = MAX_BODY_BYTES  # the documented limit, shared with the WebShop API


#: Reset fields a snapshot token already carries: giving them beside one would be ambiguous (422).
_TOKEN_FIELDS = ("task_mode", "interaction_mode", "max_actions")
_SNAPSHOT_DOC = "A token from POST /api/sessions/{lease}/snapshot (this server, or another over the same shop)."


class V8Reset(BaseModel):
    """Open a session on task ``task_id``, or in a snapshot's state; strict, so ``true`` or ``3538.0`` is not a
    task id (422).

    A snapshot carries its task, task mode, interaction mode and action limit, so beside one only
    ``include_private`` and ``task_id`` (a check: it must be the token's task) may be given.
    """

    model_config = ConfigDict(extra="forbid", strict=True)

    task_id: int | None = Field(default=None, description="The task to open; required unless snapshot is given.")
    task_mode: Literal["standard", "persona"] | None = None
    interaction_mode: Literal["single_turn", "multi_turn"] = "single_turn"
    max_actions: int | None = Field(default=None, ge=1, le=10_000)
    include_private: bool = Field(default=False, description=(
        "For a shopper simulator or an evaluator, never an agent: adds private_task_instruction and "
        "private_goal (attributes, options, budget, target ASIN) to the reset answer."))
    snapshot: str | None = Field(default=None, max_length=MAX_TOKEN_CHARS,
                                 description=_SNAPSHOT_DOC + " Opens the session in the token's state.")

    @model_validator(mode="after")
    def _task_or_snapshot(self) -> V8Reset:
        if self.snapshot is None:
            if self.task_id is None:
                raise ValueError("send task_id, or a snapshot to open the session in")
            return self
        clash = [name for name in _TOKEN_FIELDS if name in self.model_fields_set]
        if clash:
            raise ValueError(f"a snapshot carries its own task mode, interaction mode and action limit: "
                             f"drop {', '.join(clash)}")
        return self


class V8Restore(BaseModel):
    """Put a leased session into a snapshot's state (its task, mode and limits included)."""

    model_config = ConfigDict(extra="forbid", strict=True)

    snapshot: str = Field(max_length=MAX_TOKEN_CHARS, description=_SNAPSHOT_DOC)


class V8StepRequest(BaseModel):
    """One action: the canonical string, or a tool call ``{"tool", "arguments"}``."""

    model_config = ConfigDict(extra="forbid")

    action: str | None = Field(default=None, max_length=MAX_ACTION_CHARS)
    tool: str | None = None
    arguments: dict[str, Any] | str | None = None


class V8Terminate(BaseModel):
    """End the episode for a runtime reason (``generation_length``, ``action_limit``), as ``V8Session.terminate``."""

    model_config = ConfigDict(extra="forbid")

    reason: RuntimeTermination


@dataclass
class _Lease:
    session: V8Session
    slot: int
    task_mode: str
    last_used: float = field(default_factory=time.monotonic)
    busy: asyncio.Lock = field(default_factory=asyncio.Lock)  # one action at a time (an ask runs in a thread)


class V8State:
    """What the v8 endpoints share (``app.state.v8``): the shop, the open leases and the slot pool."""

    def __init__(self, shop: V8Shop, *, slots: int, queue_timeout_s: float, session_ttl_s: float,
                 snapshot_key: str | bytes | None):
        self.shop, self.queue_timeout_s, self.ttl, self.snapshot_key = shop, queue_timeout_s, session_ttl_s, snapshot_key
        self.leases: dict[str, _Lease] = {}
        self.pool = SlotPool(slots, self.sweep)
        self.fingerprinted = False
        self.shopper: ShopperFactory | None = None  # multi_turn sessions' shopper (None: the rule-based one)

    def sweep(self) -> None:
        """Give back the slots of leases idle past the TTL (called before a create waits for a slot)."""
        now = time.monotonic()
        for lid in [k for k, lease in self.leases.items() if now - lease.last_used > self.ttl]:
            self.pool.release(self.leases.pop(lid).slot)

    def lease_of(self, request: Request) -> _Lease:
        """The live lease a request names; an expired one frees its slot and answers 410, an unknown one 404."""
        lid = request.path_params["lease"]
        lease = self.leases.get(lid)
        now = time.monotonic()
        if lease is not None and now - lease.last_used > self.ttl:  # expired: its slot goes back
            self.pool.release(self.leases.pop(lid).slot)
            raise ClientError(410, "lease_expired", f"session {lid[:80]!r} expired after {self.ttl:g}s idle")
        if lease is None:
            raise ClientError(404, "unknown_lease", f"no open session {lid[:80]!r}")
        lease.last_used = now
        return lease

    async def fingerprint(self) -> None:
        """The shop's fingerprint, hashed once in a worker thread: it reads every product (0.2 s for the
        2,000 bundled), and the event loop must keep serving other leases meanwhile.
        """
        if not self.fingerprinted:
            await run_in_threadpool(shop_fingerprint, self.shop)
            self.fingerprinted = True

    def from_token(self, token: str) -> tuple[V8Session, TaskMode]:
        """A session in the token's state and its task mode; any refusal is 400 invalid_snapshot."""
        try:
            session = V8Session.from_snapshot(self.shop, token, key=self.snapshot_key, shopper=self.shopper)
        except SnapshotError as exc:
            raise ClientError(400, "invalid_snapshot", str(exc)) from None
        task = session.task
        mode = session.restored_task_mode or task.task_mode
        if mode == "persona" and task.user_persona is None:
            raise ClientError(400, "invalid_snapshot", f"snapshot is in persona mode, but task {task.task_id} has "
                              "no persona")
        return session, mode


def _state(request: Request) -> V8State:
    return request.app.state.v8


def _step_body(lease: _Lease, step: V8Step | None = None) -> dict[str, Any]:
    s = lease.session
    return {
        "observation": s.observation(), "observation_state": s.state.model_dump(mode="json"),
        "reward": s.reward, "done": s.done, "termination": s.termination,
        "reward_detail": s.detail.model_dump(mode="json") if s.detail is not None else None,
        "action_feedback": step.feedback if step is not None else s.state.action_feedback,
        "actions_used": s.actions, "max_actions": s.max_actions,
    } | ({"shopper_reply": s.reply, "dialogue": [t.model_dump() for t in s.dialogue]}
         if s.interaction_mode == "multi_turn" else {})


def _arguments(arguments: Any) -> Any:
    """String tool arguments parsed as strictly as a body: the JSON inside JSON could otherwise carry
    nesting past the recursion limit or lone surrogates (a 500 later) past the body check.
    """
    if not isinstance(arguments, str):
        return arguments
    try:
        return strict_json_loads(arguments)
    except ValueError as exc:
        raise ActionError(f"tool arguments are not JSON: {str(exc)[:200]}") from None


# ---- endpoints ------------------------------------------------------------------------------------
async def _task_of(st: V8State, body: V8Reset) -> tuple[V8Session | None, V8Task, TaskMode] | Response:
    """The reset's session (restored from a token, else None: opened once a slot is free), task and mode."""
    if body.snapshot is not None:  # checked before queueing: a bad token never waits for a slot
        await st.fingerprint()
        restored, mode = st.from_token(body.snapshot)
        task = restored.task
        if body.task_id is not None and body.task_id != task.task_id:
            raise ClientError(400, "invalid_snapshot", f"snapshot is of task {task.task_id}, not task_id "
                              f"{body.task_id}")
        return restored, task, mode
    assert body.task_id is not None  # V8Reset's validator
    try:
        task = st.shop.task_by_id(body.task_id)
    except ConfigError as exc:
        return json_error(404, "unknown_task", str(exc))
    mode = body.task_mode or task.task_mode
    if mode == "persona" and task.user_persona is None:
        return json_error(422, "no_persona", f"task {task.task_id} has no persona (on the task or its "
                          "product); use task_mode standard")
    return None, task, mode


async def _hung_up(request: Request) -> None:
    """Returns once the client disconnects (the body is already read: the server has nothing else to say)."""
    while (await request.receive())["type"] != "http.disconnect":
        await asyncio.sleep(0.05)  # a server that answers at once with empty bodies must not spin the loop


async def create(request: Request) -> Response:
    st = _state(request)
    body: V8Reset = await read_json_body(request, V8Reset)
    found = await _task_of(st, body)
    if isinstance(found, Response):
        return found
    restored, task, mode = found
    try:
        slot = await st.pool.acquire_unless(st.queue_timeout_s, lambda: _hung_up(request))
    except SlotTimeout as exc:
        return json_error(503, "no_free_slot", str(exc))
    if slot is None:  # the client left the queue: nobody to answer, and no slot taken
        return Response(status_code=499)
    try:
        session = restored if restored is not None else V8Session(
            st.shop, task, max_actions=body.max_actions, interaction_mode=body.interaction_mode, shopper=st.shopper)
    except BaseException:
        st.pool.release(slot)
        raise
    lid = uuid.uuid4().hex
    lease = st.leases[lid] = _Lease(session, slot, mode)
    out = {
        "lease_id": lid, "env_idx": slot, "task_id": task.task_id, "task_instruction": task.instruction_for(mode),
        "user_persona": public_persona(task.user_persona) if mode == "persona" else None,
        "task_mode": mode, "interaction_mode": session.interaction_mode,
        "environment_version": ENVIRONMENT["environment_version"], **_step_body(lease),
    }
    if body.include_private:
        out["private_task_instruction"] = task.instruction
        out["private_goal"] = private_goal(task).model_dump(mode="json")
    return FastJSONResponse(out, status_code=201)


async def step(request: Request) -> Response:
    lease = _state(request).lease_of(request)
    body: V8StepRequest = await read_json_body(request, V8StepRequest)
    if (body.action is None) == (body.tool is None):
        return json_error(422, "invalid_body", "send exactly one of 'action' or 'tool' (with 'arguments')")
    try:
        action = body.action if body.action is not None else canonical_action(body.tool, _arguments(body.arguments))
    except ActionError as exc:
        return json_error(422, "invalid_tool_call", str(exc))
    # an ask waits on the shopper, maybe a remote model: in a worker thread, never on the event loop
    return await play(lease, lease.session.step, action, threaded=action.startswith("ask["))


async def terminate(request: Request) -> Response:
    lease = _state(request).lease_of(request)
    body: V8Terminate = await read_json_body(request, V8Terminate)
    return await play(lease, lease.session.terminate, body.reason)


async def play(lease: _Lease, act: Callable[[str], V8Step], arg: str, threaded: bool = False) -> Response:
    """One step or ending, one at a time per lease; an ended episode is 409 episode_over."""
    async with lease.busy:
        try:
            result = await run_in_threadpool(act, arg) if threaded else act(arg)
        except SessionError as exc:
            return json_error(409, "episode_over", str(exc))
        return FastJSONResponse(_step_body(lease, result))


async def snapshot(request: Request) -> Response:
    st = _state(request)
    lease = st.lease_of(request)
    await st.fingerprint()
    try:
        token = lease.session.snapshot(task_mode=lease.task_mode, key=st.snapshot_key)
    except SnapshotError as exc:  # a state too large for a token
        raise ClientError(409, "snapshot_too_large", str(exc)) from None
    return FastJSONResponse({"snapshot": token})


async def restore(request: Request) -> Response:
    st = _state(request)
    lease = st.lease_of(request)
    body: V8Restore = await read_json_body(request, V8Restore)
    await st.fingerprint()
    async with lease.busy:
        lease.session, lease.task_mode = st.from_token(body.snapshot)  # the lease keeps its slot
    return FastJSONResponse(_step_body(lease))


async def get(request: Request) -> Response:
    return FastJSONResponse(_step_body(_state(request).lease_of(request)))


async def release(request: Request) -> Response:
    st = _state(request)
    lease = st.lease_of(request)
    del st.leases[request.path_params["lease"]]
    st.pool.release(lease.slot)
    return Response(status_code=204)


async def health(request: Request) -> Response:
    st = _state(request)
    pool = st.pool
    return FastJSONResponse({"ok": True, "profile": "shopsim-v8", "products": len(st.shop.products),
                         "tasks": len(st.shop.goals), "slots": pool.size, "slots_in_use": pool.in_use,
                         "waiting": pool.waiting, "environment_version": ENVIRONMENT["environment_version"]})


async def tasks(request: Request) -> Response:
    """The task ids in task order (goal index ``i`` is ``task_ids[i]``) and which of them have a persona, so a
    client can draw a task by seed and map an evaluation's goal indices to task ids without the catalog.
    """
    goals = _state(request).shop.goals
    return FastJSONResponse({"task_ids": [t.task_id for t in goals],
                             "persona_task_ids": [t.task_id for t in goals if t.user_persona is not None]})


async def environment(request: Request) -> Response:
    return FastJSONResponse(ENVIRONMENT)


async def openapi(request: Request) -> Response:
    from shopsim.simsite.v8.openapi import v8_openapi_spec

    return FastJSONResponse(v8_openapi_spec())


async def root(request: Request) -> Response:
    return RedirectResponse("/debug-ui", status_code=307)


V8_ROUTES = (
    Route("/", root),
    Route("/api/sessions", create, methods=["POST"]),
    Route("/api/sessions/{lease}/step", step, methods=["POST"]),
    Route("/api/sessions/{lease}/terminate", terminate, methods=["POST"]),
    Route("/api/sessions/{lease}/snapshot", snapshot, methods=["POST"]),
    Route("/api/sessions/{lease}/restore", restore, methods=["POST"]),
    Route("/api/sessions/{lease}", get, methods=["GET"]),
    Route("/api/sessions/{lease}", release, methods=["DELETE"]),
    Route("/api/health", health),
    Route("/api/tasks", tasks),
    Route("/api/environment", environment),
    Route("/api/openapi.json", openapi),
)


def create_v8_app(shop: V8Shop, *, slots: int = 8, queue_timeout_s: float = 60.0, session_ttl_s: float = 900.0,
                  extra_routes: Sequence[BaseRoute] = (), snapshot_key: str | bytes | None = None,
                  shopper: ShopperFactory | None = None, runs_dir: str | Path | None = None) -> Starlette:
    """The v8 service over one shop: ``/api/...``, ``/debug-ui``, ``/shop/{lease}`` (the HTML view),
    ``/replay-ui`` over ``runs_dir`` (when given)
    and ``extra_routes`` (the run viewer).

    ``snapshot_key`` signs snapshot tokens (default: ``SHOPSIM_SNAPSHOT_KEY``, else a public checksum key).
    ``shopper`` answers multi_turn sessions' ``ask`` (default: the rule-based shopper).
    A server that runs the app's lifespan (``shopsim serve``) plays one throwaway episode before it
    accepts requests (:mod:`shopsim.simsite.v8.warmup`).
    """
    from shopsim.simsite.v8.debug_ui import DEBUG_ROUTES, debug_page
    from shopsim.simsite.v8.html_view import HTML_ROUTES
    from shopsim.simsite.v8.replay_ui import replay_routes

    st = V8State(shop, slots=slots, queue_timeout_s=queue_timeout_s, session_ttl_s=session_ttl_s,
                 snapshot_key=snapshot_key)
    replay = replay_routes(runs_dir) if runs_dir is not None else []
    routes: list[BaseRoute] = [*V8_ROUTES, *DEBUG_ROUTES, *HTML_ROUTES, *replay, *extra_routes]
    app = Starlette(routes=routes, exception_handlers=json_error_handlers(), lifespan=warming_lifespan(warm_v8))
    app.state.warmup = None
    st.shopper = shopper
    app.state.v8 = st
    app.state.debug_page = debug_page(shop)
    app.state.shop = shop
    app.state.leases = st.leases
    app.state.pool = st.pool
    return app
