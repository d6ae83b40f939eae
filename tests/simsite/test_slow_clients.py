"""Slow and oversized request heads against a real server, on both of uvicorn's HTTP stacks.

Before ``simsite/http_guard.py``, a client sending its headers one byte a second kept its
connection for as long as it liked on either stack (uvicorn has no head deadline), and httptools
accepted heads of any size.
"""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from shopsim.simsite.http_guard import MAX_HEAD_BYTES
from shopsim.simsite.server import ServerThread
from shopsim.simsite.shop import Shop

STACKS = ["h11", "httptools"]
HEAD = b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: slowloris\r\nAccept: */*\r\n\r\n"


@pytest.fixture(scope="module", params=STACKS)
def base(request: pytest.FixtureRequest, bundled_shop: Shop) -> Iterator[str]:
    from shopsim.simsite.web import create_app

    if request.param == "httptools":
        pytest.importorskip("httptools", reason="httptools (uvicorn[standard]) is not installed")
    with ServerThread(create_app(bundled_shop), http=request.param, head_timeout_s=1.5) as srv:
        yield srv.base_url


def _connect(base: str) -> socket.socket:
    host, port = base.removeprefix("http://").split(":")
    return socket.create_connection((host, int(port)), timeout=10)


def _drip(sock: socket.socket, data: bytes, every_s: float) -> int:
    """Send ``data`` a byte at a time; the number of bytes sent before the server closed the connection."""
    for i in range(len(data)):
        try:
            sock.sendall(data[i:i + 1])
        except OSError:  # reset by the server
            return i
        time.sleep(every_s)
        sock.setblocking(False)
        try:
            if sock.recv(65536) == b"":  # closed by the server
                return i + 1
        except BlockingIOError:
            pass
        except OSError:
            return i + 1
        finally:
            sock.setblocking(True)
    return len(data)


@pytest.mark.slow
def test_head_sent_a_byte_a_second_is_dropped(base: str) -> None:
    with _connect(base) as sock:
        sent = _drip(sock, HEAD, every_s=1.0)
    assert sent < len(HEAD), "the server waited for the whole slow head"
    assert httpx.get(f"{base}/api/health", timeout=10).status_code == 200  # everyone else is served


@pytest.mark.slow
def test_slow_head_on_a_keep_alive_connection_is_dropped(base: str) -> None:
    with _connect(base) as sock:
        sock.sendall(HEAD)  # a first request, answered
        assert sock.recv(65536).startswith(b"HTTP/1.1 200")
        sent = _drip(sock, HEAD, every_s=0.5)  # the second head drips, past the keep-alive timer too
    assert sent < len(HEAD)


def test_fast_client_is_not_cut_and_keeps_its_connection(base: str) -> None:
    with httpx.Client(base_url=base, timeout=10) as c:
        for _ in range(3):
            assert c.get("/api/health").status_code == 200


def test_oversized_head_is_refused(base: str) -> None:
    with _connect(base) as sock:
        head = HEAD[:-2] + b"X-Pad: " + b"a" * (2 * MAX_HEAD_BYTES) + b"\r\n\r\n"
        try:
            for i in range(0, len(head), 4096):  # in parts, as a network delivers it: h11 bounds an incomplete head
                sock.sendall(head[i:i + 4096])
                time.sleep(0.01)
            answer: Any = sock.recv(65536)
        except OSError:  # reset before the whole head was sent: refused as well
            answer = b""
    assert not answer.startswith(b"HTTP/1.1 200"), answer[:200]
    assert answer == b"" or answer.split(b" ")[1] in (b"400", b"431"), answer[:200]


@pytest.mark.parametrize("http", ["auto", *STACKS])
def test_every_server_we_start_is_guarded(http: str, bundled_shop: Shop) -> None:
    """``shopsim serve`` builds a ShopServer with ``--http``; eval, record and tests use ServerThread."""
    from shopsim.simsite.http_guard import HEAD_TIMEOUT_S, KEEP_ALIVE_S
    from shopsim.simsite.server import ShopServer
    from shopsim.simsite.web import create_app

    config = ShopServer(create_app(bundled_shop), http=http).config
    assert getattr(config.http, "head_timeout_s", None) == HEAD_TIMEOUT_S, config.http
    assert config.timeout_keep_alive == KEEP_ALIVE_S and config.h11_max_incomplete_event_size == MAX_HEAD_BYTES
    thread = ServerThread(create_app(bundled_shop))
    assert getattr(thread.server.config.http, "head_timeout_s", None) == HEAD_TIMEOUT_S
