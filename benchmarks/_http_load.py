"""Load for the server benchmarks: ``shopsim serve`` in its own process, driven by separate client processes.

The clients are cheap on purpose, so the figures measure the server and not the client: each client
process runs an asyncio loop over raw keep-alive HTTP/1.1 connections (a request is one pre-built
byte string, a response is read by its Content-Length) and decodes only the JSON it needs. The
server and the client processes share the machine's cores, so the client side is kept small
(at most ``MAX_CLIENT_PROCS`` processes, however many connections).
"""

from __future__ import annotations

import asyncio
import json
import multiprocessing
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: Client processes at most: with two cores, one is the server's; more clients only fight over the other.
MAX_CLIENT_PROCS = 2
#: One episode of the JSON-API load: search, look at an item and its sub-pages, then buy.
ACTIONS = ["search[{q}]", "click[{p}]", "click[< prev]", "click[next >]", "click[< prev]", "click[{p}]",
           "click[description]", "click[< prev]", "click[features]", "click[< prev]", "click[buy now]"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Served:
    """A ``shopsim serve`` process on 127.0.0.1 and a free port, its log in a temporary folder."""

    args: list[str]
    python: str = sys.executable
    port: int = field(default_factory=free_port)
    folder: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="shopsim-bench-")))
    proc: subprocess.Popen[bytes] | None = None
    ready_s: float = 0.0

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> Served:
        cmd = [self.python, "-m", "shopsim.cli", "serve", "--port", str(self.port),
               "--runs", str(self.folder / "runs"), *self.args]
        t0 = time.perf_counter()
        with open(self.folder / "serve.log", "wb") as log:
            self.proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)
        while not self._healthy():
            if self.proc.poll() is not None or time.perf_counter() - t0 > 300:
                raise RuntimeError("the server did not come up:\n" + self.log())
            time.sleep(0.02)
        self.ready_s = time.perf_counter() - t0
        return self

    def _healthy(self) -> bool:
        try:
            with urllib.request.urlopen(self.base + "/api/health", timeout=2) as r:
                return bool(r.status == 200)
        except OSError:
            return False

    def cpu_s(self) -> float:
        """CPU seconds (user + system) the server process has used so far (Linux ``/proc``)."""
        assert self.proc is not None
        fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def log(self) -> str:
        return (self.folder / "serve.log").read_text(errors="replace")

    def __exit__(self, *exc: object) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


class Conn:
    """One keep-alive HTTP/1.1 connection: requests are byte strings, responses read by Content-Length."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter):
        self.reader, self.writer = reader, writer

    @classmethod
    async def open(cls, port: int) -> Conn:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        return cls(reader, writer)

    async def request(self, method: str, path: str, body: Any = None) -> tuple[int, bytes]:
        data = b"" if body is None else json.dumps(body).encode()
        head = f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: {len(data)}\r\n"
        if body is not None:
            head += "Content-Type: application/json\r\n"
        self.writer.write(head.encode("latin-1") + b"\r\n" + data)
        raw = await self.reader.readuntil(b"\r\n\r\n")
        lines = raw.decode("latin-1").split("\r\n")
        status = int(lines[0].split(" ", 2)[1])
        length = 0
        for line in lines[1:]:
            name, _, value = line.partition(":")
            if name.lower() == "content-length":
                length = int(value)
            elif name.lower() == "transfer-encoding":
                raise RuntimeError("chunked responses are not expected from this server")
        return status, await self.reader.readexactly(length) if length else b""

    def close(self) -> None:
        self.writer.close()


def _query(instruction: str) -> str:
    return " ".join((instruction or "shoes").lower().split()[:4])


async def _step(conn: Conn, path: str, action: str, on_step: Callable[[float, str, float], None]) -> dict[str, Any]:
    """POST one action to ``path``, report (finished at, action, seconds) and return the decoded body."""
    t = time.perf_counter()
    status, raw = await conn.request("POST", path, {"action": action})
    done = time.perf_counter()
    if status != 200:
        raise RuntimeError(f"step {action!r} answered {status}: {raw[:200]!r}")
    on_step(done, action, done - t)
    return dict(json.loads(raw))


async def json_episode(conn: Conn, goal: int, on_step: Callable[[float, str, float], None]) -> None:
    """One JSON-API episode: open a session on ``goal``, play ACTIONS, close it; each step reported."""
    status, raw = await conn.request("POST", "/api/sessions", {"goal": goal})
    if status != 201:
        raise RuntimeError(f"POST /api/sessions answered {status}: {raw[:200]!r}")
    out = json.loads(raw)
    sid, q, product = out["session_id"], _query(out["page_state"]["instruction"]), None
    for template in ACTIONS:
        if "{p}" in template and product is None:
            break
        action = template.replace("{q}", q).replace("{p}", product or "")
        r = await _step(conn, f"/api/sessions/{sid}/step", action, on_step)
        if product is None and r["page_state"]["results"]:
            product = r["page_state"]["results"][0]["id"].lower()
        if r["done"]:
            break
    await conn.request("DELETE", f"/api/sessions/{sid}")


async def v8_episode(conn: Conn, task_id: int, on_step: Callable[[float, str, float], None]) -> None:
    """One v8 episode (``shopsim serve --profile shopsim-v8``): reset, search the instruction, open the
    first result, choose the first value of each missing option, buy, release the lease."""
    status, raw = await conn.request("POST", "/api/sessions", {"task_id": task_id, "task_mode": "standard"})
    if status != 201:
        raise RuntimeError(f"POST /api/sessions answered {status}: {raw[:200]!r}")
    out = json.loads(raw)
    lid, actions = out["lease_id"], [f"search[{_query(out['task_instruction'])}]"]
    while actions:
        action = actions.pop(0)
        r = await _step(conn, f"/api/sessions/{lid}/step", action, on_step)
        state = r["observation_state"]
        if r["done"]:
            break
        if state["page_type"] == "results" and state["results"] and action.startswith("search"):
            actions.append(f"click[{state['results'][0]['asin']}]")
        elif state["page_type"] == "product" and not actions:
            missing = state["missing_option_axes"]
            value = next((c for c in state["clickables"] if missing and c.startswith(f"{missing[0]}=")), None)
            actions.append(f"click[{value}]" if value else "click[buy now]")
    await conn.request("DELETE", f"/api/sessions/{lid}")


async def _json_conn(port: int, start: float, stop: float, ids: Sequence[int], offset: int, v8: bool) -> list[float]:
    """Episodes on ``ids`` (goal indices, or v8 task ids) in turn from ``offset``, until ``stop``."""
    stamps: list[float] = []
    conn = await Conn.open(port)
    await asyncio.sleep(max(0.0, start - time.time()))
    i = offset
    episode = v8_episode if v8 else json_episode
    while time.time() < stop:
        await episode(conn, ids[i % len(ids)], lambda t, a, d: stamps.append(time.time()))
        i += 1
    conn.close()
    return stamps


async def _get_conn(port: int, start: float, stop: float, paths: Sequence[str], offset: int) -> list[float]:
    stamps: list[float] = []
    conn = await Conn.open(port)
    await asyncio.sleep(max(0.0, start - time.time()))
    i = offset
    while time.time() < stop:
        status, _ = await conn.request("GET", paths[i % len(paths)])
        if status != 200:
            raise RuntimeError(f"GET {paths[i % len(paths)]} answered {status}")
        stamps.append(time.time())
        i += 1
    conn.close()
    return stamps


def _client_proc(job: dict[str, Any]) -> list[float]:
    """One client process: ``job["conns"]`` connections at once, each its own loop of requests."""

    async def run() -> list[list[float]]:
        if job["kind"] in ("json", "v8"):
            tasks = [_json_conn(job["port"], job["start"], job["stop"], job["ids"], k * 7, job["kind"] == "v8")
                     for k in job["conns"]]
        else:
            tasks = [_get_conn(job["port"], job["start"], job["stop"], job["paths"], k * 3) for k in job["conns"]]
        return await asyncio.gather(*tasks)

    return [t for stamps in asyncio.run(run()) for t in stamps]


@dataclass
class Load:
    """A load run's figures: completed requests per second, and the server's CPU time per request."""

    rate: float
    cpu_us: float


def load(served: Served, kind: str, concurrency: int, seconds: float, warm_s: float = 0.5, **job: Any) -> Load:
    """Completed steps (json: WebShop's API, v8: the v8 API) or GETs (get) per second over ``seconds``, after ``warm_s`` not counted,
    and the server's CPU microseconds per request over the whole run (a figure that, unlike the rate,
    hardly depends on what else the machine is running).
    """
    port = served.port
    procs = min(MAX_CLIENT_PROCS, concurrency)
    start = time.time() + 0.3 + 0.2 * procs  # every process connected before the clock starts
    stop = start + warm_s + seconds
    jobs = [{"kind": kind, "port": port, "start": start, "stop": stop, **job,
             "conns": list(range(p, concurrency, procs))} for p in range(procs)]
    ctx = multiprocessing.get_context("fork" if os.name == "posix" else "spawn")
    with ctx.Pool(procs) as pool:
        cpu0 = served.cpu_s()
        stamps = [t for part in pool.map(_client_proc, jobs) for t in part]
        cpu = served.cpu_s() - cpu0
    counted = [t for t in stamps if start + warm_s <= t <= stop]
    return Load(len(counted) / seconds, 1e6 * cpu / max(1, len(stamps)))
