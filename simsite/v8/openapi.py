"""The v8 API's OpenAPI 3.1 document, built from the same pydantic models the service validates with.

Request bodies are the service's own models (:mod:`shopsim.simsite.v8.service`); the response models
below mirror the dicts the service returns key for key (``extra="forbid"``), so a test can validate a
live response against them and a drift between service and document fails loudly.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field
from pydantic.json_schema import models_json_schema

from shopsim.simsite.json_api import BODY_ERROR_DOCS, MAX_BODY_BYTES, MAX_JSON_DEPTH, BodyErrorCode
from shopsim.simsite.openapi_paths import Operation, json_ref, openapi_paths
from shopsim.simsite.v8.environment import ENVIRONMENT
from shopsim.simsite.v8.reward import RewardDetail
from shopsim.simsite.v8.service import V8Reset, V8Restore, V8StepRequest, V8Terminate
from shopsim.simsite.v8.shopper import DialogueTurn, PrivateGoal
from shopsim.v8.observation_state import ObservationState, V8Feedback

__all__ = [
    "ERROR_CODES",
    "V8Environment",
    "V8Error",
    "V8Health",
    "V8ResetResponse",
    "V8Snapshot",
    "V8StepResponse",
    "V8Tasks",
    "v8_openapi_spec",
]

#: The shared body and handler codes (json_api) plus the v8 service's own.
ErrorCode = Literal[
    BodyErrorCode, "invalid_tool_call", "unknown_task", "unknown_lease", "episode_over", "no_free_slot",
    "lease_expired", "no_persona", "invalid_snapshot", "snapshot_too_large",
]
ERROR_CODES: tuple[str, ...] = ErrorCode.__args__  # type: ignore[attr-defined]
Termination = Literal["purchase", "action_limit", "generation_length"]


class _Response(BaseModel):
    model_config = ConfigDict(extra="forbid")


class V8StepResponse(_Response):
    """The session's state after a step, a terminate, or on GET: what the agent sees plus the outcome."""

    observation: str = Field(description="The text observation, rendered from observation_state alone.")
    observation_state: ObservationState
    reward: float = Field(description="r_strict of a purchase; 0.0 until the episode ends, and for any other end.")
    done: bool
    termination: Termination | None = Field(description="Why the episode ended; null while it runs.")
    reward_detail: RewardDetail | None = Field(description="Every reward component once done; null while it runs.")
    action_feedback: V8Feedback = Field(description="Why the last action was refused (the page is then unchanged), or ok.")
    actions_used: int = Field(description="Agent actions counted so far, refused ones included.")
    max_actions: int = Field(description="The action limit: the episode ends with action_limit when it is reached.")
    shopper_reply: str | None = Field(
        default=None, description="multi_turn only: the shopper's answer when the last action was ask[question].")
    dialogue: list[DialogueTurn] | None = Field(
        default=None, description="multi_turn only: every question asked so far and its answer.")


class V8ResetResponse(V8StepResponse):
    """A new session: the lease to address it by, the task as the agent sees it, and the first page."""

    lease_id: str = Field(description="Addresses the session in every later call; release it with DELETE.")
    env_idx: int = Field(description="The slot this session holds.")
    task_id: int
    task_instruction: str = Field(description="instruction_simple in persona mode, the full instruction in standard mode.")
    user_persona: dict[str, Any] | None = Field(description="The public persona (persona mode only; __reasoning__ removed).")
    task_mode: Literal["standard", "persona"]
    interaction_mode: Literal["single_turn", "multi_turn"]
    environment_version: str
    private_task_instruction: str | None = Field(
        default=None, description="The full instruction; present only when the reset asked for include_private.")
    private_goal: PrivateGoal | None = Field(
        default=None, description="The private target (for a shopper simulator); present only with include_private.")


class V8Snapshot(_Response):
    """An opaque token: restore it any number of times, here or on a server over the same catalog and tasks."""

    snapshot: str = Field(description="Send it to POST /api/sessions/{lease}/restore or in a reset body.")


class V8Error(_Response):
    """Every error body: a message for people and a stable code for programs."""

    error: str
    code: ErrorCode
    detail: Any = Field(default=None, description="For invalid_body: pydantic's list of validation errors.")


class V8Health(_Response):
    """Liveness plus the slot pool's load, so a client can see the queue before it joins it."""

    ok: bool
    profile: str
    products: int
    tasks: int
    slots: int
    slots_in_use: int
    waiting: int = Field(description="Resets queued for a slot right now.")
    environment_version: str


class V8Tasks(_Response):
    """The shop's tasks as ids: what a client draws a task from, and how an evaluation's goal index maps to one."""

    task_ids: list[int] = Field(description="Every task id in task order: goal index i is task_ids[i].")
    persona_task_ids: list[int] = Field(description="The task ids that can run in persona mode (they have a persona).")


class V8Environment(BaseModel):
    """The frozen environment.json (names the environment, search and observation versions)."""

    model_config = ConfigDict(extra="allow")

    environment_version: str
    search_version: str
    observation_version: str


_REQUESTS: list[type[BaseModel]] = [V8Reset, V8StepRequest, V8Terminate, V8Restore]
_RESPONSES: list[type[BaseModel]] = [V8ResetResponse, V8StepResponse, V8Snapshot, V8Error, V8Health, V8Tasks,
                                     V8Environment]

_DESCRIPTION = """\
The ShopSimulator v8 environment (`{env}`) over HTTP: reset a task, step with `search[...]` /
`click[...]` (or a tool call `{{"tool", "arguments"}}`), read the reward when the episode ends.

**Sessions are leases on a fixed pool of environment slots.** When every slot is busy, a reset
does not fail: it waits in a first-come queue until another client releases a slot (DELETE) or
an idle session expires, and only when no slot frees within the server's queue wait does it
answer 503 `no_free_slot`. There is no 429 and no rate limit; release sessions you are done with.
`GET /api/health` shows `slots`, `slots_in_use` and `waiting`.

**Snapshots branch one state into many rollouts** (a GRPO group) without replaying actions:
`POST /api/sessions/{{lease}}/snapshot` answers an opaque token (task, task mode, interaction mode,
action limit, actions used, page); `POST /api/sessions/{{lease}}/restore` with `{{"snapshot": token}}`
puts that session into the token's state, keeping its slot; a reset with `{{"snapshot": token}}`
(task_id optional, then a check) opens a new session in it through the same queue. A restored
session given the same actions answers the same bodies, byte for byte. A token that is malformed,
altered, or from a server over another catalog or task set is 400 `invalid_snapshot`.

Errors are JSON `{{"error": message, "code": code}}` (plus `detail` for 422 `invalid_body`):
400 malformed JSON (also a BOM, lone surrogates, `NaN`, `Infinity`, `1e999`), 404 unknown lease /
task / endpoint, 405 wrong method, 409 a step or terminate after the episode ended, 413 a body over
{max_body} bytes, 415 a `Content-Type` other than JSON (none at all is read as JSON), 422 a body that
is JSON but not valid (integers must be JSON integers, not `1.0` or `true`) or nests deeper than
{max_depth} levels (`json_too_deep`), 503 no free slot after
the queue wait. A refused action (`action_feedback` other than `ok`) is not
an HTTP error: it is a 200 that counts as a step and leaves the page unchanged.
"""


def _err(description: str) -> dict[str, Any]:
    return {"description": description, **json_ref("V8Error")}


def _ok(description: str, model: str) -> dict[str, Any]:
    return {"description": description, **json_ref(model)}


def _op(path: str, method: str, operation_id: str, summary: str, responses: dict[str, Any],
        body: str | None = None) -> Operation:
    return Operation(path, method, summary, responses, body=body, operation_id=operation_id,
                     param_docs={"lease": "lease_id from the reset"})


def _operations() -> list[Operation]:
    """What the document says of each route that the models cannot: summaries and every error status."""
    body = {status: _err(text) for status, text in BODY_ERROR_DOCS.items()}  # 400, 413, 415, 422
    expired = _err("the lease was idle past the session TTL (lease_expired); its slot was freed")
    no_lease = _err("no open session with this lease (unknown_lease): released, expired or never opened")
    over = _err("the episode has already ended (episode_over); start a new session")
    wrong_method = _err("this method is not allowed on this path (method_not_allowed)")
    bad_snapshot = ("the snapshot is malformed, altered, of another profile, or from a shop with another catalog "
                    "or task set, or describes a state no session reaches (invalid_snapshot)")
    json_object = {"content": {"application/json": {"schema": {"type": "object"}}}}
    return [
        _op("/api/sessions", "post", "reset", "Open a session on a task (waits in the queue when every slot is busy)",
            body="V8Reset", responses={
                "201": _ok("the session and its first page (the snapshot's page when one was sent)", "V8ResetResponse"),
                **body, "400": _err(BODY_ERROR_DOCS["400"] + "; or " + bad_snapshot
                                    + ", or not of the task_id sent beside it"),
                "404": _err("no task with this task_id (unknown_task)"),
                "422": _err(BODY_ERROR_DOCS["422"] + "; invalid_body also for neither task_id nor snapshot, "
                            "or a snapshot with task_mode, interaction_mode or max_actions (the "
                            "token carries them); or persona mode on a task without a persona (no_persona)"),
                "503": _err("no slot freed within the queue wait (no_free_slot)")}),
        _op("/api/sessions/{lease}/step", "post", "step", "Apply one action", body="V8StepRequest", responses={
            "200": _ok("the session after the action", "V8StepResponse"), **body, "404": no_lease, "409": over,
            "410": expired,
            "422": _err(BODY_ERROR_DOCS["422"] + "; invalid_body also for not exactly one of action or tool; or a "
                        "tool call that is not search/click with a string argument (invalid_tool_call)")}),
        _op("/api/sessions/{lease}/terminate", "post", "terminate",
            "End the episode for a runtime reason, action_limit or generation_length (all-zero reward)",
            body="V8Terminate",
            responses={"200": _ok("the ended session", "V8StepResponse"), **body, "404": no_lease, "409": over,
                       "410": expired}),
        _op("/api/sessions/{lease}/snapshot", "post", "snapshot", "The session's state as an opaque token (no body)",
            responses={"200": _ok("the token", "V8Snapshot"), "404": no_lease, "405": wrong_method, "410": expired,
                       "409": _err("the session's state is too large for a token (snapshot_too_large)")}),
        _op("/api/sessions/{lease}/restore", "post", "restore",
            "Put the session into a snapshot's state (its task, mode and limits included)", body="V8Restore",
            responses={"200": _ok("the session in the snapshot's state", "V8StepResponse"), **body,
                       "400": _err(BODY_ERROR_DOCS["400"] + "; or " + bad_snapshot),
                       "404": no_lease, "405": wrong_method, "410": expired}),
        _op("/api/sessions/{lease}", "get", "get_session", "The session's current state",
            responses={"200": _ok("current state", "V8StepResponse"), "404": no_lease, "410": expired}),
        _op("/api/sessions/{lease}", "delete", "release", "Release the session and free its slot",
            responses={"204": {"description": "released"}, "404": no_lease, "410": expired}),
        _op("/api/health", "get", "health", "Liveness and slot-pool load", responses={"200": _ok("ok", "V8Health")}),
        _op("/api/tasks", "get", "tasks", "Every task id in task order, and those with a persona",
            responses={"200": _ok("ok", "V8Tasks")}),
        _op("/api/environment", "get", "environment", "The frozen environment.json",
            responses={"200": _ok("ok", "V8Environment")}),
        _op("/api/openapi.json", "get", "openapi", "This document",
            responses={"200": {"description": "the OpenAPI 3.1 document", **json_object}}),
    ]


def v8_openapi_spec() -> dict[str, Any]:
    """A static OpenAPI 3.1 document for every ``/api/`` route of ``create_v8_app``: paths from
    :func:`_operations`, schemas from the pydantic models (requests as validated, responses as serialized).
    """
    pairs = [(m, "validation") for m in _REQUESTS] + [(m, "serialization") for m in _RESPONSES]
    _, top = models_json_schema(pairs, ref_template="#/components/schemas/{model}")  # type: ignore[arg-type]
    schemas: dict[str, Any] = top["$defs"]
    return {
        "openapi": "3.1.0",
        "info": {"title": "ShopSimulator v8 API", "version": str(ENVIRONMENT["environment_version"]),
                 "description": _DESCRIPTION.format(env=ENVIRONMENT["environment_version"], max_body=MAX_BODY_BYTES,
                                                     max_depth=MAX_JSON_DEPTH)},
        "paths": openapi_paths(_operations()),
        "components": {"schemas": schemas},
    }
