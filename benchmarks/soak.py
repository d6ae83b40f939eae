"""Soak: many leased sessions stepping for a long time; does the server stay fast and its memory flat?

    python benchmarks/soak.py                                   # 1,000 leases x 100,000 HTTP steps + 100,000 in-process
    python benchmarks/soak.py --sessions 100 --steps 10000 --inprocess-steps 10000    # a quick run
    python benchmarks/soak.py --data ../shared/data/webshop-small --json

The HTTP part starts ``shopsim serve`` (the real command) on a free local port, opens ``--sessions``
leases on the JSON API and keeps all of them open: ``--concurrency`` clients step them round-robin,
and a session whose episode ends (bought, or at its step limit) is released and replaced by a new
lease, so session churn is part of the load. Each episode is a scripted shopper (search, open a
result, page, read sub-pages, go back, buy). The server's RSS (``/proc/PID/status``) is sampled every
``--sample-every`` steps; the slope after ``--warmup`` (a fraction of the steps) is fitted by least
squares and reported in % of the RSS at the end of warm-up per 10,000 steps. Memory counts as flat
when the fitted growth over the whole post-warm-up window stays within 5 %. The in-process part
runs the same shopper through ``ShopEnv`` and samples this process's RSS the same way. At the end
the server gets one SIGTERM, and the seconds it takes to exit are reported.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

#: Memory is "flat" when the fitted post-warm-up growth stays within this share of the warm RSS.
FLAT_LIMIT = 0.05

_SCRIPT = ["search[{q}]", "click[{p}]", "click[next >]", "click[< prev]", "click[{p}]", "click[description]",
           "click[< prev]", "click[features]", "click[< prev]", "click[reviews]", "click[< prev]", "click[buy now]"]


def rss_bytes(pid: int | str = "self") -> int:
    """Resident set size of a process, from ``/proc`` (Linux)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError(f"no VmRSS for process {pid}")


def pct(values: list[float], q: float) -> float:
    """The q-quantile (0..1) of ``values``."""
    s = sorted(values)
    return s[min(len(s) - 1, int(q * len(s)))] if s else float("nan")


class Shopper:
    """One scripted episode: search the instruction, then work through ``_SCRIPT`` on the first result."""

    def __init__(self, instruction: str):
        self.query = " ".join((instruction or "shoes").split(", and price")[0].lower().split()[:12])
        self.product: str | None = None
        self.i = 0

    def next_action(self, results: list[dict[str, Any]] | None) -> str | None:
        """The next action; None when the search found nothing (the episode is given up)."""
        if results and self.product is None:
            self.product = str(results[0]["id"]).lower()
        if self.i >= len(_SCRIPT) or (self.i > 0 and self.product is None):
            return None
        action = _SCRIPT[self.i]
        self.i += 1
        return action.replace("{q}", self.query).replace("{p}", self.product or "")


@dataclass
class Run:
    """What one part of the soak measured."""

    steps: int = 0
    seconds: float = 0.0
    latencies: list[float] = field(default_factory=list)
    rss: list[tuple[int, int]] = field(default_factory=list)
    episodes: int = 0
    errors: int = 0
    extra: dict[str, Any] = field(default_factory=dict)

    def sample(self, read_rss: Callable[[], int], every: int) -> None:
        if self.steps % every == 0:
            self.rss.append((self.steps, read_rss()))


def rss_slope(samples: list[tuple[int, int]], warmup_steps: int) -> dict[str, float]:
    """Least-squares RSS growth after warm-up: %/10k steps and % over the window, of the warm RSS."""
    pts = [(s, r) for s, r in samples if s >= warmup_steps]
    if len(pts) < 3:
        return {"slope_pct_per_10k": float("nan"), "growth_pct": float("nan"), "warm_mb": float("nan"),
                "end_mb": float("nan")}
    n = len(pts)
    mx, my = sum(s for s, _ in pts) / n, sum(r for _, r in pts) / n
    sxx = sum((s - mx) ** 2 for s, _ in pts)
    slope = sum((s - mx) * (r - my) for s, r in pts) / sxx if sxx else 0.0  # bytes per step
    warm = my + slope * (pts[0][0] - mx)  # the fitted RSS where warm-up ends
    window = pts[-1][0] - pts[0][0]
    return {"slope_pct_per_10k": 100 * slope * 10_000 / warm, "growth_pct": 100 * slope * window / warm,
            "warm_mb": warm / 2**20, "end_mb": pts[-1][1] / 2**20}


# ---- HTTP: shopsim serve + many leases ---------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(data: str | None, sessions: int, runs_dir: str) -> tuple[subprocess.Popen[bytes], str]:
    """``shopsim serve`` on a free port, allowed ``sessions`` open leases (plus room for churn)."""
    port = _free_port()
    exe = Path(sys.executable).with_name("shopsim")
    cmd = [str(exe) if exe.exists() else sys.executable, *([] if exe.exists() else ["-m", "shopsim.cli"]),
           "serve", "--port", str(port), "--max-sessions", str(sessions + 64), "--runs", runs_dir]
    if data:
        cmd += ["--data", data]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while True:
        try:
            if httpx.get(f"{base}/api/health", timeout=2).status_code == 200:
                return proc, base
        except httpx.HTTPError:
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            raise SystemExit(f"shopsim serve did not come up on {base}")
        time.sleep(0.1)


class _Conn:
    """A minimal HTTP/1.1 keep-alive client on one connection: httpx costs more CPU per request than
    the server spends answering it, and on a small machine the client would be what is measured."""

    def __init__(self, host: str, port: int):
        self.host, self.port = host, port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def request(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        """``(status, parsed JSON body or None)``; reconnects once when the server closed the connection."""
        data = b"" if body is None else json.dumps(body).encode()
        head = (f"{method} {path} HTTP/1.1\r\nHost: {self.host}\r\nContent-Type: application/json\r\n"
                f"Content-Length: {len(data)}\r\n\r\n").encode()
        for attempt in (0, 1):
            if self.writer is None:
                self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
            assert self.reader is not None
            try:
                self.writer.write(head + data)
                status_line = await self.reader.readline()
                if not status_line:
                    raise ConnectionResetError("closed")
                length, close = 0, False
                while (line := await self.reader.readline()) not in (b"\r\n", b""):
                    name, _, value = line.decode("latin-1").partition(":")
                    if name.lower() == "content-length":
                        length = int(value)
                    elif name.lower() == "connection" and value.strip().lower() == "close":
                        close = True
                payload = await self.reader.readexactly(length) if length else b""
            except (ConnectionError, asyncio.IncompleteReadError):
                self.close()
                if attempt:
                    raise
                continue
            if close:
                self.close()
            return int(status_line.split()[1]), json.loads(payload) if payload else None
        raise AssertionError("unreachable")

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
        self.reader = self.writer = None


class _Lease:
    def __init__(self, sid: str, shopper: Shopper):
        self.sid, self.shopper = sid, shopper
        self.results: list[dict[str, Any]] | None = None


async def _open(conn: _Conn, goal: int) -> _Lease:
    status, out = await conn.request("POST", "/api/sessions", {"goal": goal})
    if status != 201:
        raise RuntimeError(f"POST /api/sessions: HTTP {status}: {out}")
    return _Lease(out["session_id"], Shopper(out["page_state"].get("instruction") or ""))


async def soak_http(base: str, pid: int, sessions: int, steps: int, concurrency: int, every: int) -> Run:
    """``steps`` steps over ``sessions`` open leases, ``concurrency`` connections each with one request in flight."""
    run = Run()
    host, port = base.removeprefix("http://").split(":")
    conns = [_Conn(host, int(port)) for _ in range(concurrency)]
    goals = (await conns[0].request("GET", "/api/health"))[1]["goals"]
    next_goal = iter(range(10**9))
    t0 = time.perf_counter()

    async def open_many(conn: _Conn, n: int) -> list[_Lease]:
        return [await _open(conn, next(next_goal) % goals) for _ in range(n)]

    shares = [len(range(w, sessions, concurrency)) for w in range(concurrency)]
    owned = await asyncio.gather(*(open_many(c, n) for c, n in zip(conns, shares, strict=True)))
    run.extra["open_s"] = time.perf_counter() - t0
    issued = 0
    read_rss = lambda: rss_bytes(pid)  # noqa: E731
    run.sample(read_rss, every)

    async def renew(conn: _Conn, mine: list[_Lease], k: int) -> _Lease:
        await conn.request("DELETE", f"/api/sessions/{mine[k].sid}")
        mine[k] = await _open(conn, next(next_goal) % goals)
        return mine[k]

    async def worker(conn: _Conn, mine: list[_Lease]) -> None:
        nonlocal issued
        k = 0
        while issued < steps and mine:
            issued += 1
            lease = mine[k]
            action = lease.shopper.next_action(lease.results)
            if action is None:  # nothing found: give the lease back and take a new one
                run.extra["given_up"] = run.extra.get("given_up", 0) + 1
                lease = await renew(conn, mine, k)
                action = lease.shopper.next_action(None)
            t = time.perf_counter()
            status, out = await conn.request("POST", f"/api/sessions/{lease.sid}/step", {"action": action})
            run.latencies.append(time.perf_counter() - t)
            run.steps += 1
            run.sample(read_rss, every)
            if status != 200:
                run.errors += 1
            else:
                lease.results = out["page_state"].get("results")
            if status != 200 or out["done"]:  # churn: release the lease and take a new one in its place
                run.episodes += status == 200
                await renew(conn, mine, k)
            k = (k + 1) % len(mine)

    t0 = time.perf_counter()
    await asyncio.gather(*(worker(c, mine) for c, mine in zip(conns, owned, strict=True)))
    run.seconds = time.perf_counter() - t0
    run.extra["open_sessions_at_end"] = (await conns[0].request("GET", "/api/health"))[1].get("open_sessions")
    for c in conns:
        c.close()
    return run


def stop_server(proc: subprocess.Popen[bytes]) -> tuple[float, int | None]:
    """One SIGTERM; the seconds until the server exited and its exit status."""
    t0 = time.perf_counter()
    proc.send_signal(signal.SIGTERM)
    try:
        code: int | None = proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        code = None
    return time.perf_counter() - t0, code


# ---- in-process --------------------------------------------------------------------------------


def soak_inprocess(data: str | None, steps: int, every: int) -> Run:
    """The same shopper through ``ShopEnv`` in this process, episode after episode."""
    from shopsim.adapters import ShopEnv
    from shopsim.simsite.shop import Shop, ShopConfig

    shop = Shop.from_config(ShopConfig(data_dir=data))
    env = ShopEnv(shop)
    run = Run()
    goal_iter: Iterator[int] = iter(range(10**9))

    def reset() -> tuple[Shopper, list[dict[str, Any]] | None]:
        _, info = env.reset(options={"goal": next(goal_iter) % len(shop.goals)})
        return Shopper(info["instruction"]), None

    shopper, results = reset()
    run.sample(rss_bytes, every)
    t0 = time.perf_counter()
    while run.steps < steps:
        action = shopper.next_action(results)
        if action is None:  # nothing found: next episode
            run.extra["given_up"] = run.extra.get("given_up", 0) + 1
            shopper, results = reset()
            continue
        t = time.perf_counter()
        _, _, terminated, truncated, info = env.step(action)
        run.latencies.append(time.perf_counter() - t)
        run.steps += 1
        run.sample(rss_bytes, every)
        state = info["page_state"]
        results = [{"id": c.id} for c in state.results] if state.results else None
        if terminated or truncated:
            run.episodes += 1
            shopper, results = reset()
    run.seconds = time.perf_counter() - t0
    return run


# ---- report ------------------------------------------------------------------------------------


def summarize(run: Run, warmup: float) -> dict[str, Any]:
    """The figures of one part, JSON-ready."""
    ms = [x * 1000 for x in run.latencies]
    slope = rss_slope(run.rss, int(warmup * run.steps))
    return {"steps": run.steps, "seconds": run.seconds, "steps_per_s": run.steps / run.seconds if run.seconds else 0.0,
            "p50_ms": pct(ms, 0.50), "p95_ms": pct(ms, 0.95), "p99_ms": pct(ms, 0.99), "episodes": run.episodes,
            "errors": run.errors, **slope, "flat": abs(slope["growth_pct"]) <= 100 * FLAT_LIMIT,
            "rss_samples": len(run.rss), "given_up": 0, **run.extra}


def print_table(parts: dict[str, dict[str, Any]], header: str) -> None:
    print(header)
    rows = [("steps", "{:,}"), ("steps_per_s", "{:,.0f}"), ("p50_ms", "{:.2f}"), ("p95_ms", "{:.2f}"),
            ("p99_ms", "{:.2f}"), ("episodes", "{:,}"), ("given_up", "{:,}"), ("errors", "{:,}"), ("warm_mb", "{:.1f}"), ("end_mb", "{:.1f}"),
            ("slope_pct_per_10k", "{:+.3f}"), ("growth_pct", "{:+.2f}"), ("flat", "{}")]
    labels = {"steps_per_s": "steps/s", "p50_ms": "latency p50 (ms)", "p95_ms": "latency p95 (ms)",
              "p99_ms": "latency p99 (ms)", "warm_mb": "RSS after warm-up (MB)", "end_mb": "RSS at the end (MB)",
              "slope_pct_per_10k": "RSS slope (% / 10k steps)", "growth_pct": "RSS growth after warm-up (%)",
              "flat": f"flat (growth within {100 * FLAT_LIMIT:.0f}%)", "episodes": "episodes finished",
              "given_up": "episodes given up (no results)"}
    names = list(parts)
    width = max(len(labels.get(k, k)) for k, _ in rows)
    print(f"  {'measure':<{width}}  " + "  ".join(f"{n:>16}" for n in names))
    for key, fmt in rows:
        cells = [fmt.format(parts[n][key]) if key in parts[n] else "-" for n in names]
        print(f"  {labels.get(key, key):<{width}}  " + "  ".join(f"{c:>16}" for c in cells))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default=None, help="WebShop-format folder (default: the bundled catalog)")
    ap.add_argument("--sessions", type=int, default=1000, help="leases kept open on the server")
    ap.add_argument("--steps", type=int, default=100_000, help="HTTP steps in all (0: skip)")
    ap.add_argument("--inprocess-steps", type=int, default=100_000, help="in-process steps (0: skip)")
    ap.add_argument("--concurrency", type=int, default=8, help="HTTP connections, one request in flight on each")
    ap.add_argument("--warmup", type=float, default=0.2, help="fraction of the steps before the RSS fit starts")
    ap.add_argument("--sample-every", type=int, default=500, metavar="STEPS", help="RSS sample interval")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    parts: dict[str, dict[str, Any]] = {}
    stop: tuple[float, int | None] | None = None
    if args.steps > 0:
        with tempfile.TemporaryDirectory() as runs:
            proc, base = start_server(args.data, args.sessions, runs)
            try:
                run = asyncio.run(soak_http(base, proc.pid, args.sessions, args.steps, args.concurrency,
                                            args.sample_every))
            finally:
                stop = stop_server(proc)
        parts[f"HTTP, {args.sessions} leases"] = summarize(run, args.warmup)
    if args.inprocess_steps > 0:
        parts["in-process"] = summarize(soak_inprocess(args.data, args.inprocess_steps, args.sample_every), args.warmup)
    if args.json:
        print(json.dumps({"parts": parts, "server_stop_s": stop[0] if stop else None,
                          "server_exit": stop[1] if stop else None}))
        return 0
    print_table(parts, f"soak: {os.cpu_count()} CPUs, catalog {args.data or 'bundled'}, concurrency {args.concurrency}, "
                       f"warm-up {100 * args.warmup:.0f}% of the steps")
    if stop is not None:
        print(f"  server stopped by one SIGTERM in {stop[0]:.2f} s (exit status {stop[1]})")
    return 0 if all(p["flat"] and not p["errors"] for p in parts.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
