"""One SIGINT or SIGTERM stops ``shopsim serve`` within seconds, without a traceback, even while
clients hold it up: half a request sent and stalled, an idle keep-alive connection, a v8 reset
waiting in the slot queue. The loopback ServerThread (eval, record, tests) leaves on time too.
"""

from __future__ import annotations

import json
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from shopsim.simsite.server import ServerThread

pytestmark = pytest.mark.slow  # a costly module fixture, or every test is long

#: What "within a few seconds" means here: ~2 s measured; the rest is slack for a busy 2-core runner.
EXIT_LIMIT_S = 6.0
#: (profile, signal, how many times it is sent): one, or a second Ctrl-C while stopping (which skips the grace).
CASES = [("webshop", signal.SIGINT, 1), ("webshop", signal.SIGTERM, 1), ("webshop", signal.SIGINT, 2),
         ("shopsim-v8", signal.SIGINT, 1), ("shopsim-v8", signal.SIGTERM, 1)]
NOISE = ("Traceback", "Exception in ASGI application", "CancelledError")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class _Served:
    """A ``shopsim serve`` process, its port and its combined output."""

    def __init__(self, profile: str, folder: Path, extra: tuple[str, ...] = ()):
        self.port = _free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.log = folder / f"{profile}-{self.port}.log"
        exe = Path(sys.executable).with_name("shopsim")
        args = [str(exe), "serve", "--profile", profile, "--port", str(self.port), "--runs", str(folder / "runs"), *extra]
        if profile == "shopsim-v8":
            args += ["--slots", "1"]
        with open(self.log, "wb") as out:
            self.proc = subprocess.Popen(args, stdout=out, stderr=subprocess.STDOUT)

    def output(self) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace")

    def wait_ready(self, timeout_s: float = 120.0) -> None:
        deadline = time.monotonic() + timeout_s
        while True:
            try:
                if httpx.get(f"{self.base}/api/health", timeout=2).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            assert self.proc.poll() is None, self.output()
            assert time.monotonic() < deadline, "the server did not come up:\n" + self.output()
            time.sleep(0.1)


#: A server with the request log on and uvicorn's pure-Python stack (``serve --access-log --http --loop``).
LOGGED = ("webshop", 0, 0)


@pytest.fixture(scope="module")
def launched(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[tuple[str, int, int], _Served]]:
    """All the servers, started at once: their catalogs load in parallel while the first case runs."""
    folder = tmp_path_factory.mktemp("serve")
    servers = {case: _Served(case[0], folder) for case in CASES}
    servers[LOGGED] = _Served("webshop", folder, ("--access-log", "--http", "h11", "--loop", "asyncio"))
    yield servers
    for s in servers.values():
        if s.proc.poll() is None:
            s.proc.kill()
            s.proc.wait()


def _connect(port: int, data: bytes) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port), timeout=5)
    sock.sendall(data)
    return sock


def _stuck_clients(port: int) -> list[socket.socket]:
    """Half a request line; whole headers and half a body; an idle keep-alive connection after a reply."""
    half_head = _connect(port, b"GET /api/hea")
    half_body = _connect(port, b"POST /api/sessions HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n"
                               b"Content-Length: 100\r\n\r\n{\"go")
    keep_alive = _connect(port, b"GET /api/health HTTP/1.1\r\nHost: t\r\n\r\n")
    assert keep_alive.recv(65536).startswith(b"HTTP/1.1 200")
    return [half_head, half_body, keep_alive]


def _queued_reset(base: str, port: int, client: httpx.Client) -> socket.socket:
    """Take the only v8 slot, then leave a second reset waiting for it."""
    boot = re.search(r'"tasks":\s*\[\{"id":\s*(\d+)', client.get(f"{base}/debug-ui").text)
    assert boot, "no task id in the debug UI's boot block"
    body = json.dumps({"task_id": int(boot.group(1))}).encode()
    assert client.post(f"{base}/api/sessions", content=body).status_code == 201
    waiter = _connect(port, b"POST /api/sessions HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n"
                            b"Content-Length: %d\r\n\r\n" % len(body) + body)
    deadline = time.monotonic() + 10
    while client.get(f"{base}/api/health").json()["waiting"] != 1:
        assert time.monotonic() < deadline, "the second reset never queued"
        time.sleep(0.05)
    return waiter


def _closed_by_server(sock: socket.socket) -> bool:
    """True when the server has closed this connection (EOF or reset), not left it hanging."""
    sock.settimeout(2)
    try:
        while sock.recv(65536):
            pass
    except TimeoutError:
        return False
    except OSError:
        pass
    return True


@pytest.mark.parametrize(("profile", "sig", "times"), CASES,
                         ids=[f"{p}-{signal.Signals(s).name}" + (f"x{n}" if n > 1 else "") for p, s, n in CASES])
def test_one_signal_stops_serve_with_stuck_clients(launched: dict[tuple[str, int, int], _Served], profile: str,
                                                    sig: int, times: int) -> None:
    served = launched[(profile, sig, times)]
    served.wait_ready()
    with httpx.Client(timeout=10) as client:
        clients = _stuck_clients(served.port)
        if profile == "shopsim-v8":
            clients.append(_queued_reset(served.base, served.port, client))
        time.sleep(0.2)  # let the server see every byte before it is asked to stop
        t0 = time.monotonic()
        served.proc.send_signal(sig)
        if times > 1:
            time.sleep(0.3)
            served.proc.send_signal(sig)
        try:
            code = served.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            pytest.fail("one signal did not stop the server:\n" + served.output())
        took = time.monotonic() - t0
    out = served.output()
    print(f"{profile} {signal.Signals(sig).name} x{times}: exit {code} after {took:.2f} s")
    assert took < EXIT_LIMIT_S, f"took {took:.1f} s\n{out}"
    assert code == (130 if sig == signal.SIGINT else 0), out
    assert not [w for w in NOISE if w in out], out
    assert "Finished server process" in out
    assert all(_closed_by_server(c) for c in clients)
    for c in clients:
        c.close()
    # warmed up before it listened (uvicorn logs the lifespan's start-up first); no request lines by default
    assert out.index("Warmed up in") < out.index("Uvicorn running on"), out
    assert "GET /api/health" not in out, out


def test_serve_logs_requests_when_asked(launched: dict[tuple[str, int, int], _Served]) -> None:
    """``--access-log`` brings uvicorn's request lines back; ``--http h11 --loop asyncio`` serves as well."""
    served = launched[LOGGED]
    served.wait_ready()
    assert httpx.get(f"{served.base}/api/sessions/nope", timeout=10).status_code == 404
    served.proc.send_signal(signal.SIGTERM)
    assert served.proc.wait(timeout=30) == 0
    out = served.output()
    assert '"GET /api/health HTTP/1.1" 200' in out and '"GET /api/sessions/nope HTTP/1.1" 404' in out, out
    assert "Warmed up in" in out and not [w for w in NOISE if w in out], out


# ---- the loopback server thread ------------------------------------------------------------------


def _tiny_v8_shop(folder: Path) -> Any:
    from shopsim.simsite.v8.shop import V8Shop

    product = {"asin": "100000000001", "title": "Steel lunch box", "shop_name": "Acme", "category": ["Kitchen"],
               "pricing": [20, 30], "attribute": {"Material": "steel"}, "full_description": "A steel lunch box.",
               "customization_options": {"Color": [{"value": "Red", "price": 20}, {"value": "Blue", "price": 30}]},
               "small_description": ["Keeps food warm"],
               "instructions": [{"task_id": 1, "instruction": "a red steel lunch box under 25", "attributes": ["steel"],
                                 "instruction_options": {"Color": "Red"}, "price_upper": 25, "task_mode": "standard"}]}
    path = folder / "products.json"
    path.write_text(json.dumps([product]), encoding="utf-8")
    return V8Shop.load(path)


def _leave_timed(srv: ServerThread, clients: list[socket.socket]) -> float:
    time.sleep(0.2)
    t0 = time.monotonic()
    srv.__exit__(None, None, None)
    took = time.monotonic() - t0
    assert not srv.thread.is_alive()
    assert all(_closed_by_server(c) for c in clients)
    for c in clients:
        c.close()
    return took


def test_server_thread_leaves_on_time_with_stuck_clients(bundled_shop: Any, tmp_path: Path,
                                                         capfd: pytest.CaptureFixture[str]) -> None:
    from shopsim.simsite.v8.service import create_v8_app
    from shopsim.simsite.web import create_app

    web = ServerThread(create_app(bundled_shop)).__enter__()
    web_took = _leave_timed(web, _stuck_clients(web.port))
    v8 = ServerThread(create_v8_app(_tiny_v8_shop(tmp_path), slots=1, queue_timeout_s=60)).__enter__()
    with httpx.Client(timeout=10) as client:
        clients = [*_stuck_clients(v8.port), _queued_reset(v8.base_url, v8.port, client)]
    v8_took = _leave_timed(v8, clients)
    err = capfd.readouterr().err
    print(f"ServerThread exit: webshop {web_took:.2f} s, v8 {v8_took:.2f} s")
    assert web_took < 3.0 and v8_took < 3.0, (web_took, v8_took)
    assert not [w for w in NOISE if w in err], err


def test_server_thread_without_clients_leaves_at_once(bundled_shop: Any) -> None:
    from shopsim.simsite.web import create_app

    with ServerThread(create_app(bundled_shop)) as srv:
        assert httpx.get(f"{srv.base_url}/api/health").status_code == 200
        t0 = time.monotonic()
    assert time.monotonic() - t0 < 1.0
