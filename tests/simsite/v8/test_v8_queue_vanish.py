"""The v8 slot queue with real HTTP clients that vanish.

A client that hangs up while queued for a slot must leave the queue at once: before, its wait went
on, the next free slot was leased to nobody (the answer went to a closed socket) and held until
``--session-ttl``, so the next real client waited and got 503. A client that vanishes while it
*holds* a lease cannot be noticed (HTTP has no connection per lease); its lease expires on the TTL,
and a queued client gets the slot then, not a 503.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from shopsim.simsite.server import ServerThread


def _wait_for(check: Any, what: str, limit_s: float = 10.0) -> None:
    """Poll ``check()`` until true; the limit only keeps a broken build from hanging the suite."""
    deadline = time.monotonic() + limit_s
    while not check():
        assert time.monotonic() < deadline, f"still not {what} after {limit_s}s"
        time.sleep(0.05)


def _health(base: str) -> dict[str, Any]:
    return httpx.get(f"{base}/api/health", timeout=10).json()


def _queue_and_vanish(base: str, body: bytes) -> None:
    """A real client: send a whole reset request on a raw socket, wait until it is queued, hang up."""
    host, port = base.removeprefix("http://").split(":")
    sock = socket.create_connection((host, int(port)))
    sock.sendall(b"POST /api/sessions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                 b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
    _wait_for(lambda: _health(base)["waiting"] == 1, "queued")
    sock.close()


@pytest.fixture()
def one_slot(bundled_v8_shop: Any) -> Iterator[tuple[str, bytes]]:
    from shopsim.simsite.v8.service import create_v8_app

    app = create_v8_app(bundled_v8_shop, slots=1, queue_timeout_s=20.0, session_ttl_s=600.0)
    with ServerThread(app) as srv:
        yield srv.base_url, b'{"task_id": %d}' % bundled_v8_shop.goals[0].task_id


def test_client_that_hangs_up_in_the_queue_frees_its_place(one_slot: tuple[str, bytes]) -> None:
    base, body = one_slot
    with httpx.Client(base_url=base, timeout=30) as c:
        holder = c.post("/api/sessions", content=body).json()["lease_id"]
        for _ in range(3):  # three clients queue behind the holder, then vanish
            _queue_and_vanish(base, body)
            _wait_for(lambda: _health(base)["waiting"] == 0, "out of the queue")
        got: dict[str, httpx.Response] = {}
        waiter = threading.Thread(target=lambda: got.setdefault("r", httpx.post(
            f"{base}/api/sessions", content=body, timeout=30)))
        waiter.start()
        _wait_for(lambda: _health(base)["waiting"] == 1, "queued")
        assert c.delete(f"/api/sessions/{holder}").status_code == 204
        waiter.join(timeout=30)
        r = got["r"]
        assert r.status_code == 201, r.text[:300]  # before the fix: 503 after the queue timeout
        assert _health(base)["slots_in_use"] == 1  # the real client's lease, no lease for a vanished one
        assert c.delete(f"/api/sessions/{r.json()['lease_id']}").status_code == 204
        assert _health(base)["slots_in_use"] == 0 and _health(base)["waiting"] == 0


def test_lease_of_a_vanished_client_expires_and_serves_the_queue(bundled_v8_shop: Any) -> None:
    from shopsim.simsite.v8.service import create_v8_app

    app = create_v8_app(bundled_v8_shop, slots=1, queue_timeout_s=20.0, session_ttl_s=1.0)
    body = b'{"task_id": %d}' % bundled_v8_shop.goals[0].task_id
    with ServerThread(app) as srv:
        with httpx.Client(base_url=srv.base_url, timeout=30) as gone:  # takes the slot, then disappears
            gone_lease = gone.post("/api/sessions", content=body).json()["lease_id"]
        r = httpx.post(f"{srv.base_url}/api/sessions", content=body, timeout=30)  # queued until the TTL
        assert r.status_code == 201, r.text[:300]
        assert r.json()["lease_id"] != gone_lease and r.json()["env_idx"] == 0
        late = httpx.get(f"{srv.base_url}/api/sessions/{gone_lease}", timeout=10)
        assert late.status_code in (404, 410)  # swept: its slot went to the queue
