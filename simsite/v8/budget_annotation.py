"""LLM budget annotation of persona tasks, as seed 004's ``build_clean_dataset.py`` runs it.

One instruction per request and one answer object per reply (``task_id, kind, amount, evidence``),
so a failure is isolated and every answer is saved the moment it arrives. The model only reads;
code decides: the evidence must be a verbatim substring of the instruction (else the answer is
rejected), and an approximate budget gets the ×1.10 tolerance here, never from the model. Answers
are cached in JSONL under a key of the source archive's SHA-256, the endpoint, the model, the
protocol version and the prompt's hash, so a rerun sends only what is missing and a changed
prompt never reuses old answers.

Rate limits are the service's (per account and model): one gate shared by all workers spaces
request starts to ``requests_per_minute``; a 429 pauses every worker once per wave (its
``Retry-After``, else ``cooldown_s``), and a second wave halves the rate. A wait longer than
:data:`MAX_WAIT_S` is a long-period quota: the request fails instead of sleeping for hours.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from shopsim.budget import APPROX_FACTOR

__all__ = [
    "ANNOTATION_VERSION",
    "Annotator",
    "CacheKey",
    "Item",
    "Outcome",
    "RateGate",
    "check_answer",
    "load_cache",
    "prompt_sha256",
    "request_body",
]

ANNOTATION_VERSION = "shopsim-budget-annotation-v1"
KINDS = ("upper_bound", "range", "approximate", "none")
MAX_WAIT_S = 300.0
"""A Retry-After longer than this is an hourly/daily quota, not a minute's: fail, do not wait."""

SYSTEM_PROMPT = """You read one shopping request and report the price upper bound it states.
Answer with one JSON object and nothing else: {"task_id": <the id given>, "kind": K, "amount": A, "evidence": E}.
K is "upper_bound" (under / at most / 以内 / 不超过 / a plain budget), "range" (A is the range's upper end),
"approximate" (about / around / 左右 / 约: give the stated amount, do not add any tolerance) or "none".
A is the amount as a number in the request's currency (两百 -> 200, 1.5万 -> 15000, 2k -> 2000), null for "none".
E is the exact text of the request that states the budget, copied character for character; "" for "none".
Never guess a budget from the product, the persona or typical prices."""
USER_TEMPLATE = '{{"task_id": {task_id}, "instruction": {text}}}'


def prompt_sha256() -> str:
    """The hash of everything the model is told; part of the cache key."""
    return hashlib.sha256((SYSTEM_PROMPT + "\n" + USER_TEMPLATE).encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class Item:
    """One request: a task's text from one field (``instruction_simple`` first, ``instruction`` after)."""

    task_id: int
    source_field: str
    text: str


@dataclass(frozen=True)
class CacheKey:
    """What a cached answer must match to be reused."""

    source_archive_sha256: str
    api_url: str
    model: str
    annotation_version: str = ANNOTATION_VERSION
    prompt_sha256: str = field(default_factory=prompt_sha256)

    def record(self) -> dict[str, str]:
        """The key's fields, stored on every cache line."""
        return dict(self.__dict__)


def request_body(item: Item, model: str) -> dict[str, Any]:
    """The chat-completions body for one item: the system prompt and this one instruction."""
    user = USER_TEMPLATE.format(task_id=item.task_id, text=json.dumps(item.text, ensure_ascii=False))
    return {"model": model, "temperature": 0, "response_format": {"type": "json_object"},
            "messages": [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": user}]}


_FENCE = re.compile(r"^```(?:json)?\s*|\s*```$")


def check_answer(item: Item, content: str | None) -> tuple[dict[str, Any] | None, str]:
    """The validated annotation of one reply, or ``(None, why it was rejected)``."""
    try:
        answer = json.loads(_FENCE.sub("", (content or "").strip()))
    except ValueError:
        return None, "malformed JSON"
    if not isinstance(answer, dict) or not {"task_id", "kind", "amount", "evidence"} <= set(answer):
        return None, "not an object with task_id, kind, amount, evidence"
    kind, amount, evidence = answer["kind"], answer["amount"], answer["evidence"]
    if answer["task_id"] != item.task_id:
        return None, f"task_id {answer['task_id']!r} is not {item.task_id}"
    if kind not in KINDS:
        return None, f"kind {kind!r} is not one of {', '.join(KINDS)}"
    if kind == "none":
        return {"kind": "none", "amount": None, "evidence": "", "price_upper": None}, ""
    if isinstance(amount, bool) or not isinstance(amount, int | float) or not math.isfinite(amount) or amount <= 0:
        return None, f"amount {amount!r} is not a positive number"
    if not isinstance(evidence, str) or not evidence.strip() or evidence not in item.text:
        return None, f"evidence {evidence!r} is not a verbatim substring of the {item.source_field}"
    upper = round(float(amount) * APPROX_FACTOR, 6) if kind == "approximate" else float(amount)
    return {"kind": kind, "amount": float(amount), "evidence": evidence, "price_upper": upper,
            "approximate_upper_multiplier": APPROX_FACTOR if kind == "approximate" else None}, ""


def load_cache(path: Path, key: CacheKey) -> dict[tuple[int, str], dict[str, Any]]:
    """Cached answers under ``key``; lines under any other key (or unreadable) are skipped."""
    out: dict[tuple[int, str], dict[str, Any]] = {}
    if not path.is_file():
        return out
    want = key.record()
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            rec = json.loads(line)
        except ValueError:
            continue  # a line cut by a crash mid-write: that answer is simply asked again
        if isinstance(rec, dict) and all(rec.get(k) == v for k, v in want.items()) and isinstance(rec.get("annotation"), dict):
            out[(int(rec["task_id"]), str(rec["source_field"]))] = rec["annotation"]
    return out


class RateGate:
    """Spaces request starts to one rate for all workers; cools everyone down once per 429 wave."""

    def __init__(self, requests_per_minute: float, cooldown_s: float = 65.0,
                 clock: Callable[[], float] = time.monotonic, sleep: Callable[[float], None] = time.sleep):
        self.interval = 60.0 / requests_per_minute
        self.cooldown_s = cooldown_s
        self._clock, self._sleep = clock, sleep
        self._lock = threading.Lock()
        self._next = 0.0
        self._cool_until = 0.0
        self.waves = 0

    def wait_turn(self) -> float:
        """Block until this request may start; returns its start time."""
        with self._lock:
            now = self._clock()
            start = max(now, self._next, self._cool_until)
            self._next = start + self.interval
        if start > now:
            self._sleep(start - now)
        return start

    def rate_limited(self, started: float, retry_after: float | None) -> None:
        """A 429 for a request started at ``started``: a new wave cools all down (and, after the first, halves the rate)."""
        with self._lock:
            if started < self._cool_until:  # sent before the last cool-down ended: the same wave
                return
            if self.waves:
                self.interval *= 2
            self.waves += 1
            self._cool_until = self._clock() + (retry_after if retry_after is not None else self.cooldown_s)
            self._next = max(self._next, self._cool_until)


@dataclass
class Outcome:
    """One item's end: its annotation, or why it failed; with its request counts."""

    item: Item
    annotation: dict[str, Any] | None
    error: str = ""
    requests: int = 0
    rate_limited: int = 0
    replied: bool = False  # the service sent at least one chat completion (the health check's question)


def _retry_after(response: httpx.Response) -> float | None:
    try:
        return max(0.0, float(response.headers["Retry-After"]))
    except (KeyError, ValueError):
        return None


class Annotator:
    """Sends items to an OpenAI-compatible ``/chat/completions`` and appends each answer to the cache."""

    def __init__(self, base_url: str, model: str, key: CacheKey, cache: Path, gate: RateGate, *,
                 api_key: str | None = None, retries: int = 2, rate_limit_retries: int = 20,
                 timeout_s: float = 120.0, backoff_s: float = 1.0):
        self.url = base_url.rstrip("/") + "/chat/completions"
        self.model, self.key, self.cache, self.gate = model, key, cache, gate
        self.retries, self.rate_limit_retries, self.backoff_s = retries, rate_limit_retries, backoff_s
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._http = httpx.Client(timeout=timeout_s, headers=headers)
        self._write = threading.Lock()

    def close(self) -> None:
        """Close the HTTP connections."""
        self._http.close()

    def annotate(self, item: Item) -> Outcome:
        """Ask until a valid answer, ``retries`` failures (network, 5xx, rejected answers) or 429s run out."""
        out = Outcome(item, None)
        failures = 0
        while True:
            started = self.gate.wait_turn()
            out.requests += 1
            error, retryable = self._attempt(item, out, started)
            if out.annotation is not None:
                self._append(item, out.annotation)
                return out
            if error == "429":
                if out.rate_limited > self.rate_limit_retries:
                    out.error = f"rate limited {out.rate_limited} times"
                    return out
                continue
            failures += 1
            out.error = error
            if not retryable or failures > self.retries:
                return out
            time.sleep(min(30.0, self.backoff_s * 2 ** (failures - 1)))

    def _attempt(self, item: Item, out: Outcome, started: float) -> tuple[str, bool]:
        try:
            r = self._http.post(self.url, json=request_body(item, self.model))
        except httpx.HTTPError as exc:
            return f"{type(exc).__name__}: {exc}", True
        if r.status_code == 429:
            wait = _retry_after(r)
            if wait is not None and wait > MAX_WAIT_S:
                return f"HTTP 429 with Retry-After {wait:.0f} s: a long-period quota, not retried", False
            out.rate_limited += 1
            self.gate.rate_limited(started, wait)
            return "429", True
        if r.status_code != 200:
            return f"HTTP {r.status_code}: {r.text[:120]}", r.status_code >= 500
        try:
            content = r.json()["choices"][0]["message"]["content"]
        except (ValueError, KeyError, IndexError, TypeError):
            return "a reply that is not a chat completion", True
        out.replied = True
        out.annotation, why = check_answer(item, content)
        return why, True

    def _append(self, item: Item, annotation: dict[str, Any]) -> None:
        line = json.dumps({**self.key.record(), "task_id": item.task_id, "source_field": item.source_field,
                           "annotation": annotation}, ensure_ascii=False, sort_keys=True)
        with self._write:
            self.cache.parent.mkdir(parents=True, exist_ok=True)
            with self.cache.open("a", encoding="utf-8") as f:
                f.write(line + "\n")


def run_items(annotator: Annotator, items: Iterable[Item], workers: int,
              on_done: Callable[[Outcome], None] | None = None) -> list[Outcome]:
    """The first item alone (a health check, saved before anything else is sent), then ``workers`` in flight.

    When the service never answers the first item with a chat completion (refused, unreachable,
    not OpenAI-compatible), nothing else is sent; a rejected answer still proves the service works.
    """
    from concurrent.futures import ThreadPoolExecutor

    items = list(items)
    if not items:
        return []
    first = annotator.annotate(items[0])
    if on_done is not None:
        on_done(first)
    if not first.replied:
        return [first]
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="annotate") as pool:
        rest = list(pool.map(lambda it: _done(annotator.annotate(it), on_done), items[1:]))
    return [first, *rest]


def _done(outcome: Outcome, on_done: Callable[[Outcome], None] | None) -> Outcome:
    if on_done is not None:
        on_done(outcome)
    return outcome
