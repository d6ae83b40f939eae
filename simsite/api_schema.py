"""The WebShop JSON API's request and response models and its OpenAPI 3.1 document.

Kept apart from :mod:`shopsim.simsite.web` (the routes) so the document and the models that validate
requests are read in one place.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from shopsim.simsite.json_api import BODY_ERROR_DOCS, MAX_ACTION_CHARS, BodyErrorCode
from shopsim.simsite.openapi_paths import Operation, component_schemas, json_ref, openapi_paths
from shopsim.simsite.snapshots import MAX_TOKEN_CHARS

__all__ = [
    "DOCS_HTML",
    "CreateSession",
    "ErrorBody",
    "RestoreRequest",
    "SessionCreated",
    "SessionObservation",
    "SessionRestored",
    "SnapshotCreated",
    "StepRequest",
    "StepResponse",
    "openapi_spec",
]


class CreateSession(BaseModel):
    """Open a session: ``goal`` (absolute, or within ``split``) or a seeded draw when null; or a snapshot's state.

    Strict, so ``1.0``, ``true`` or ``"3"`` is not a goal, seed or step limit (422, not a guess). A
    ``snapshot`` carries its own goal and rules, so it goes with ``mode`` only.
    """

    model_config = ConfigDict(strict=True)

    goal: int | None = None
    split: Literal["test", "eval", "train"] | None = None
    seed: int = 0
    mode: Literal["text", "text_rich"] = "text"
    strict: bool = False
    max_steps: int | None = Field(default=None, ge=1)
    snapshot: str | None = Field(default=None, max_length=MAX_TOKEN_CHARS,
                                 description="A token from POST /api/sessions/{sid}/snapshot: open the session in its state.")

    @model_validator(mode="after")
    def _snapshot_alone(self) -> CreateSession:
        clash = sorted(self.model_fields_set & {"goal", "split", "seed", "strict", "max_steps"})
        if self.snapshot is not None and clash:
            raise ValueError(f"a snapshot carries its own goal and rules: drop {', '.join(clash)}")
        return self


class StepRequest(BaseModel):
    """One action string, e.g. ``search[red shoes]`` or ``click[buy now]``."""

    action: str = Field(max_length=MAX_ACTION_CHARS)


class SessionCreated(BaseModel):
    """Answer to ``POST /api/sessions``: the new session's id, goal and first page."""

    session_id: str
    goal_index: int
    observation: str
    valid_actions: dict[str, Any]
    page_state: dict[str, Any]


class StepResponse(BaseModel):
    """Answer to ``POST /api/sessions/{sid}/step``: the new page, its reward and whether the episode ended."""

    observation: str
    reward: float
    done: bool
    truncated: bool
    valid_actions: dict[str, Any]
    feedback: dict[str, Any]
    page_state: dict[str, Any]
    reward_info: dict[str, Any] | None = None


class SessionObservation(BaseModel):
    """Answer to ``GET /api/sessions/{sid}``: the session's current page, without stepping.

    ``sid`` may also name a session a browser opened on the HTML shop (``/fixed_3``): read-only, in
    simple text mode; on its done page ``page_state`` holds the reward and its breakdown.
    """

    session_id: str
    observation: str
    valid_actions: dict[str, Any]
    done: bool
    page_state: dict[str, Any]


class SessionRestored(SessionObservation):
    """The session after a restore: its page in the snapshot's state, and the snapshot's goal."""

    goal_index: int


class RestoreRequest(BaseModel):
    """A token from ``POST /api/sessions/{sid}/snapshot`` (this server, or another over the same shop)."""

    model_config = ConfigDict(strict=True)

    snapshot: str = Field(max_length=MAX_TOKEN_CHARS)


class SnapshotCreated(BaseModel):
    """An opaque token: restore it any number of times, here or on a server over the same catalog and goals."""

    snapshot: str


#: The shared body and handler codes (json_api) plus this API's own.
ErrorCode = Literal[BodyErrorCode, "invalid_goal", "unknown_session", "session_expired", "too_many_sessions",
                    "invalid_snapshot", "snapshot_too_large"]


class ErrorBody(BaseModel):
    """Every ``/api/`` error: a message for people (``error``, kept from before codes) and a stable ``code``."""

    error: str
    code: ErrorCode
    detail: Any = Field(default=None, description="For invalid_body: pydantic's list of validation errors.")



def _operations() -> list[Operation]:
    """What the document says of each route that the models cannot: summaries and every error status."""
    def err(description: str) -> dict[str, Any]:
        return {"description": description, **json_ref("ErrorBody")}

    def ok(description: str, model: str) -> dict[str, Any]:
        return {"description": description, **json_ref(model)}

    body = {status: err(text) for status, text in BODY_ERROR_DOCS.items()}  # 400, 413, 415, 422
    wrong_method = err("this method is not allowed on this path (method_not_allowed)")
    gone = {"404": err("no open session with this id (unknown_session)"), "405": wrong_method,
            "410": err("the session was idle past its TTL (session_expired); open a new one")}
    bad_snapshot = "the snapshot is malformed, altered, or from a shop with another catalog or goal set (invalid_snapshot)"
    json_object = {"content": {"application/json": {"schema": {"type": "object"}}}}
    return [
        Operation("/api/sessions", "post", "Open a session", body="CreateSession", body_required=False, responses={
            "201": ok("created", "SessionCreated"), **body,
            "400": err(BODY_ERROR_DOCS["400"] + "; or a goal outside the split (invalid_goal); or " + bad_snapshot),
            "405": wrong_method, "429": err("too many open sessions (too_many_sessions)")}),
        Operation("/api/sessions/{sid}/step", "post", "Apply one action", body="StepRequest",
                  responses={"200": ok("stepped", "StepResponse"), **body, **gone}),
        Operation("/api/sessions/{sid}/snapshot", "post", "Snapshot the session's state as an opaque token (no body)",
                  responses={"200": ok("the token", "SnapshotCreated"), **gone,
                             "409": err("the session's state is too large for a token (snapshot_too_large)")}),
        Operation("/api/sessions/{sid}/restore", "post",
                  "Put the session into a snapshot's state (its goal and rules included)", body="RestoreRequest",
                  responses={"200": ok("restored", "SessionRestored"), **body,
                             "400": err(BODY_ERROR_DOCS["400"] + "; or " + bad_snapshot), **gone}),
        Operation("/api/sessions/{sid}", "get", "Current observation (of an API session, or read-only of an HTML one)",
                  responses={"200": ok("ok", "SessionObservation"), **gone}),
        Operation("/api/sessions/{sid}", "delete", "Close a session",
                  responses={"204": {"description": "closed"}, **gone}),
        Operation("/api/health", "get", "Liveness and open sessions",
                  responses={"200": {"description": "ok", **json_object}}),
        Operation("/api/openapi.json", "get", "This document",
                  responses={"200": {"description": "the OpenAPI 3.1 document", **json_object}}),
    ]


def openapi_spec() -> dict[str, Any]:
    """A static OpenAPI 3.1 document: paths from :func:`_operations`, schemas from the pydantic models.

    Every error status an operation can answer is listed with its codes, so a client (or a fuzzer
    reading this document) can tell a documented refusal from a bug.
    """
    models: list[type[BaseModel]] = [CreateSession, StepRequest, RestoreRequest, SessionCreated, StepResponse, SessionObservation,
              SessionRestored, SnapshotCreated, ErrorBody]
    return {
        "openapi": "3.1.0",
        "info": {"title": "shopsim API", "version": "0.1.0",
                 "description": "Sessions are leases: idle ones expire (410); open sessions are capped (429). "
                                "Errors are JSON {error, code, detail?}; no client input gets a 500."},
        "paths": openapi_paths(_operations()),
        "components": {"schemas": component_schemas(models)},
    }


DOCS_HTML = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>shopsim API</title>
<link rel="stylesheet" href="/static/style.css"></head><body><div class="container">
<h1>shopsim JSON API</h1>
<p>Machine-readable spec: <a href="/api/openapi.json">/api/openapi.json</a>.
Sessions are leases: idle sessions expire (HTTP 410), open sessions are capped (HTTP 429).
Errors are JSON <code>{"error": message, "code": code}</code> (plus <code>detail</code> on 422); bodies must be
JSON objects sent as <code>application/json</code> (or without a Content-Type); larger than the limit is HTTP 413.</p>
<table><thead><tr><th>method</th><th>path</th><th>body</th><th>returns</th></tr></thead><tbody>
<tr><td>POST</td><td>/api/sessions</td><td>{goal, split, seed, mode, strict, max_steps} or {snapshot, mode}</td>
<td>{session_id, goal_index, observation, valid_actions, page_state}</td></tr>
<tr><td>POST</td><td>/api/sessions/{id}/step</td><td>{action}</td>
<td>{observation, reward, done, truncated, valid_actions, feedback, page_state, reward_info}</td></tr>
<tr><td>POST</td><td>/api/sessions/{id}/snapshot</td><td></td><td>{snapshot}</td></tr>
<tr><td>POST</td><td>/api/sessions/{id}/restore</td><td>{snapshot}</td>
<td>{session_id, goal_index, observation, valid_actions, done, page_state}</td></tr>
<tr><td>GET</td><td>/api/sessions/{id}</td><td></td><td>{session_id, observation, valid_actions, done, page_state}</td></tr>
<tr><td>DELETE</td><td>/api/sessions/{id}</td><td></td><td>204</td></tr>
<tr><td>GET</td><td>/api/health</td><td></td><td>{ok, products, goals, open_sessions}</td></tr>
</tbody></table>
<p>HTML pages follow WebShop's URL scheme: <code>/{session}</code>, <code>/search_results/...</code>,
<code>/item_page/...</code>, <code>/item_sub_page/...</code>, <code>/done/...</code>.</p>
</div></body></html>
"""
