"""A stateful client of the v8 service for RL rollouts: one lease, typed answers, retries, renewal.

A trainer runs many of these against one shared ``shopsim serve --profile shopsim-v8`` (one per
rollout worker or thread). Answers are the service's own response models
(:mod:`shopsim.simsite.v8.openapi`), so a drift between server and client fails at the boundary.

Retries are only where repeating cannot act twice: a connection that never opened (the request was
not sent) and a 503 ``no_free_slot`` (the reset created nothing) are retried with exponential
backoff and jitter; any other failure of a POST is raised, since the server may have applied it.
Leases expire after the server's idle TTL: ``keepalive_s`` renews the open lease from a background
thread while the trainer thinks, and :meth:`renew` does it once.
"""

from __future__ import annotations

import contextlib
import random
import threading
import time
from typing import Any, Literal, TypeVar

import httpx
from pydantic import BaseModel

from shopsim.errors import ConfigError, ResetNeeded, SourceError
from shopsim.simsite.v8.environment import RuntimeTermination
from shopsim.simsite.v8.openapi import V8Health, V8ResetResponse, V8Snapshot, V8StepResponse, V8Tasks

__all__ = ["LeaseLost", "V8Client", "V8ServiceError"]

_M = TypeVar("_M", bound=BaseModel)
#: Failures where the request never reached the server: safe to send again whatever the method.
_NOT_SENT = (httpx.ConnectError, httpx.ConnectTimeout)


class V8ServiceError(SourceError):
    """Raised when the service answers an error: ``status`` and ``code`` are its HTTP status and error code."""

    def __init__(self, message: str, status: int, code: str | None):
        super().__init__(message)
        self.status, self.code = status, code


class LeaseLost(V8ServiceError):
    """Raised when the session's lease expired (410) or is unknown (404): reset, or restore a snapshot."""


class V8Client:
    """One leased v8 session at a time over HTTP (``reset`` opens one, releasing the previous).

    Example:
        >>> with V8Client("http://127.0.0.1:3000") as env:                 # doctest: +SKIP
        ...     first = env.reset(task_id=3538)
        ...     out = env.step("search[蓝牙耳机]")
    """

    def __init__(self, base_url: str, *, timeout: float = 60.0, retries: int = 8, backoff_s: float = 0.1,
                 max_backoff_s: float = 5.0, keepalive_s: float | None = None, jitter_seed: int = 0,
                 client: httpx.Client | None = None):
        if not (retries >= 0 and backoff_s >= 0 and max_backoff_s >= 0) or (keepalive_s is not None
                                                                          and not keepalive_s > 0):
            raise ConfigError("retries, backoff_s and max_backoff_s must be >= 0 and keepalive_s positive")
        self.http = client or httpx.Client(base_url=base_url.rstrip("/"), timeout=timeout)
        self._own_http = client is None
        self.retries, self.backoff_s, self.max_backoff_s = retries, backoff_s, max_backoff_s
        self._rng = random.Random(jitter_seed)
        self._lock = threading.RLock()  # the keepalive thread and the caller share the lease
        self.lease_id: str | None = None
        self.last: V8StepResponse | None = None
        self._tasks: V8Tasks | None = None
        self._stop = threading.Event()
        self._keepalive: threading.Thread | None = None
        if keepalive_s is not None:
            self._keepalive = threading.Thread(target=self._renew_every, args=(keepalive_s,), daemon=True)
            self._keepalive.start()

    # ---- transport ------------------------------------------------------------------------------
    def _send(self, method: str, path: str, body: dict[str, Any] | None = None, *,
              retry_busy: bool = False) -> httpx.Response:
        """One request: resent after a connection that never opened (any method), a dropped idempotent
        request (GET, DELETE), or, with ``retry_busy``, a 503; errors become V8ServiceError / SourceError.
        """
        for attempt in range(self.retries + 1):
            last = attempt == self.retries
            try:
                r = self.http.request(method, path, json=body)
            except httpx.HTTPError as exc:
                if last or not (isinstance(exc, _NOT_SENT) or method in ("GET", "DELETE")):
                    raise SourceError(f"{method} {path}: {type(exc).__name__}: {exc}") from exc
                self._sleep(attempt)
                continue
            if r.status_code == 503 and retry_busy and not last:
                self._sleep(attempt)
                continue
            if r.status_code >= 400:
                raise _error(method, path, r)
            return r
        raise AssertionError("unreachable")  # pragma: no cover - the last attempt returns or raises

    def _sleep(self, attempt: int) -> None:
        """Exponential backoff with full jitter, so many clients refused at once do not return at once."""
        time.sleep(self._rng.uniform(0, min(self.max_backoff_s, self.backoff_s * 2 ** attempt)))

    def _call(self, model: type[_M], method: str, path: str, body: dict[str, Any] | None = None,
              retry_busy: bool = False) -> _M:
        return model.model_validate_json(self._send(method, path, body, retry_busy=retry_busy).content)

    def _lease(self, what: str) -> str:
        if self.lease_id is None:
            raise ResetNeeded(what)
        return self.lease_id

    # ---- the service ----------------------------------------------------------------------------
    def health(self) -> V8Health:
        """Liveness and the slot pool's load."""
        return self._call(V8Health, "GET", "/api/health")

    def tasks(self) -> V8Tasks:
        """The service's task ids in task order (fetched once)."""
        if self._tasks is None:
            self._tasks = self._call(V8Tasks, "GET", "/api/tasks")
        return self._tasks

    def task_for_seed(self, seed: int, task_mode: Literal["standard", "persona"] | None = None) -> int:
        """The task a seed draws (uniformly; among persona tasks in persona mode): the same on every client."""
        tasks = self.tasks()
        pool = tasks.persona_task_ids if task_mode == "persona" else tasks.task_ids
        if not pool:
            raise ConfigError(f"the service has no {task_mode or ''} tasks to draw from".replace("  ", " "))
        return pool[random.Random(seed).randrange(len(pool))]

    def reset(self, task_id: int | None = None, *, seed: int | None = None,
              task_mode: Literal["standard", "persona"] | None = None,
              interaction_mode: Literal["single_turn", "multi_turn"] = "single_turn",
              max_actions: int | None = None, include_private: bool = False) -> V8ResetResponse:
        """Open a session on ``task_id`` (or the task ``seed`` draws), releasing the one open; waits (with
        backoff) while every slot is busy.
        """
        if (task_id is None) == (seed is None):
            raise ConfigError("reset takes exactly one of task_id or seed")
        if task_id is None:
            assert seed is not None
            task_id = self.task_for_seed(seed, task_mode)
        body: dict[str, Any] = {"task_id": task_id, "interaction_mode": interaction_mode,
                                "include_private": include_private}
        if task_mode is not None:
            body["task_mode"] = task_mode
        if max_actions is not None:
            body["max_actions"] = max_actions
        return self._open(body)

    def reset_from(self, token: str) -> V8ResetResponse:
        """Open a session in a snapshot's state (its task, modes and limits), releasing the one open."""
        return self._open({"snapshot": token})

    def _open(self, body: dict[str, Any]) -> V8ResetResponse:
        with self._lock:
            self.release()
            out = self._call(V8ResetResponse, "POST", "/api/sessions", body, retry_busy=True)
            self.lease_id, self.last = out.lease_id, out
            return out

    def step(self, action: str) -> V8StepResponse:
        """Apply one canonical action (``search[...]`` / ``click[...]``); a refused one is an answer, not an error."""
        return self._lease_call("step", "POST", {"action": action})

    def terminate(self, reason: RuntimeTermination) -> V8StepResponse:
        """End the episode for a runtime reason (``action_limit`` or ``generation_length``): the zero vector."""
        return self._lease_call("terminate", "POST", {"reason": reason})

    def renew(self) -> V8StepResponse:
        """Touch the lease so its idle TTL starts again (and read the session's state)."""
        return self._lease_call("", "GET")

    def _lease_call(self, verb: str, method: str, body: dict[str, Any] | None = None) -> V8StepResponse:
        with self._lock:
            path = f"/api/sessions/{self._lease(verb or 'renew')}" + (f"/{verb}" if verb else "")
            self.last = self._call(V8StepResponse, method, path, body)
            return self.last

    def snapshot(self) -> str:
        """The open session's state as an opaque token (restore it here or on any client of the same shop)."""
        with self._lock:
            return self._call(V8Snapshot, "POST", f"/api/sessions/{self._lease('snapshot')}/snapshot").snapshot

    def restore(self, token: str) -> V8StepResponse:
        """Put the open session into ``token``'s state; with no lease (or a lost one), open a session in it."""
        with self._lock:
            if self.lease_id is not None:
                try:
                    self.last = self._call(V8StepResponse, "POST", f"/api/sessions/{self.lease_id}/restore",
                                           {"snapshot": token})
                    return self.last
                except LeaseLost:
                    self.lease_id = None
            return self.reset_from(token)

    def release(self) -> None:
        """Give the open lease's slot back (a lease already gone is fine)."""
        with self._lock:
            lid, self.lease_id = self.lease_id, None
            if lid is not None:
                with contextlib.suppress(LeaseLost):  # expired or swept: its slot is already free
                    self._send("DELETE", f"/api/sessions/{lid}")

    def _renew_every(self, interval_s: float) -> None:
        while not self._stop.wait(interval_s):
            try:
                if self.lease_id is not None:
                    self.renew()
            except (SourceError, ResetNeeded):
                pass  # the next call by the trainer reports it

    def close(self) -> None:
        """Release the lease, stop renewing it and close the HTTP client if this client made it."""
        self._stop.set()
        try:
            with contextlib.suppress(SourceError):  # the server is gone: its lease goes with it
                self.release()
        finally:
            if self._keepalive is not None:
                self._keepalive.join(timeout=5)
            if self._own_http:
                self.http.close()

    def __enter__(self) -> V8Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _error(method: str, path: str, r: httpx.Response) -> V8ServiceError:
    """The service's JSON error as an exception (its code kept); a lost lease as :class:`LeaseLost`."""
    try:
        body = r.json()
    except ValueError:
        body = None
    code = body.get("code") if isinstance(body, dict) else None
    message = body.get("error") if isinstance(body, dict) else r.text[:300]
    cls = LeaseLost if code in ("lease_expired", "unknown_lease") else V8ServiceError
    return cls(f"{method} {path}: HTTP {r.status_code} {code or ''}: {message}", r.status_code, code)
