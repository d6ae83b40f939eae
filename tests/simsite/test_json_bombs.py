"""JSON bombs against both real APIs: nesting past the depth limit is a 4xx with a reason, never a 500.

A body is checked by ``json_api``; a snapshot token carries JSON of its own, signed with a public
checksum key by default, so anyone can forge one that inflates to a 30,000-deep array. Before the
depth limit, ``json.loads`` raised ``RecursionError`` on it and both APIs' create and restore routes
answered 500.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import zlib
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from shopsim.simsite.json_api import MAX_JSON_DEPTH, strict_json_loads
from shopsim.simsite.server import ServerThread
from shopsim.simsite.shop import Shop
from shopsim.simsite.snapshots import _PUBLIC_KEY, TOKEN_PREFIX


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _signed_token(payload: bytes) -> str:
    """A token as the server signs them (public key: no SHOPSIM_SNAPSHOT_KEY set), holding ``payload``."""
    packed = zlib.compress(payload, 9)
    return f"{TOKEN_PREFIX}{_b64(packed)}.{_b64(hmac.new(_PUBLIC_KEY, packed, hashlib.sha256).digest())}"


BOMBS = {
    "array": b"[" * 30_000 + b"]" * 30_000,  # 60 kB: under the 64 KiB payload limit
    "object": b'{"v": 1, "state": ' + b'{"a": ' * 5_000 + b"1" + b"}" * 5_001,
    "just-past-limit": b'{"v": 1, "x": ' + b"[" * MAX_JSON_DEPTH + b"]" * MAX_JSON_DEPTH + b"}",
}


@pytest.fixture(scope="module")
def web(bundled_shop: Shop) -> Iterator[str]:
    from shopsim.simsite.web import create_app

    with ServerThread(create_app(bundled_shop)) as srv:
        yield srv.base_url


@pytest.fixture(scope="module")
def v8(bundled_v8_shop: Any) -> Iterator[str]:
    from shopsim.simsite.v8.service import create_v8_app

    with ServerThread(create_v8_app(bundled_v8_shop, slots=2, queue_timeout_s=0.5)) as srv:
        yield srv.base_url


def test_depth_limit_is_exact() -> None:
    ok = "[" * MAX_JSON_DEPTH + "]" * MAX_JSON_DEPTH
    assert strict_json_loads(ok)  # 64 levels: accepted
    for text in ("[" + ok + "]", "[" * 5000 + "]" * 5000, '{"a": ' * 65 + "1" + "}" * 65):
        with pytest.raises(ValueError, match=f"deeper than {MAX_JSON_DEPTH}"):
            strict_json_loads(text)


@pytest.mark.parametrize("bomb", sorted(BOMBS))
def test_snapshot_bombs_are_400_on_both_apis(web: str, v8: str, bundled_v8_shop: Any, bomb: str) -> None:
    token = _signed_token(BOMBS[bomb])
    with httpx.Client(timeout=30) as c:
        sid = c.post(f"{web}/api/sessions", json={}).json()["session_id"]
        task = bundled_v8_shop.goals[0].task_id
        lease = c.post(f"{v8}/api/sessions", json={"task_id": task}).json()["lease_id"]
        answers = [
            c.post(f"{web}/api/sessions", json={"snapshot": token}),
            c.post(f"{web}/api/sessions/{sid}/restore", json={"snapshot": token}),
            c.post(f"{v8}/api/sessions", json={"snapshot": token}),
            c.post(f"{v8}/api/sessions/{lease}/restore", json={"snapshot": token}),
        ]
        for r in answers:
            assert r.status_code == 400, (r.request.url, r.status_code, r.text[:300])
            assert r.json()["code"] == "invalid_snapshot"
            assert "not JSON" in r.json()["error"] and "deeper than" in r.json()["error"]
        assert c.delete(f"{v8}/api/sessions/{lease}").status_code == 204  # the server kept serving


def test_deep_bodies_and_tool_arguments_are_4xx(v8: str, bundled_v8_shop: Any) -> None:
    deep = "[" * (MAX_JSON_DEPTH + 1) + "]" * (MAX_JSON_DEPTH + 1)
    with httpx.Client(base_url=v8, timeout=30) as c:
        r = c.post("/api/sessions", content=b'{"task_id": ' + deep.encode() + b"}")
        assert r.status_code == 422 and r.json()["code"] == "json_too_deep" and "deeper than" in r.text
        lease = c.post("/api/sessions", json={"task_id": bundled_v8_shop.goals[0].task_id}).json()["lease_id"]
        r = c.post(f"/api/sessions/{lease}/step", json={"tool": "search", "arguments": json.dumps({"q": [deep]})})
        assert r.status_code == 422 and r.json()["code"] == "invalid_tool_call", r.text[:300]
        c.delete(f"/api/sessions/{lease}")


def test_replay_ui_reads_runs_nested_past_the_stack(bundled_v8_shop: Any, tmp_path: Any) -> None:
    """A run's summary or a line nested 5,000 deep is a damaged file with a note, not a 500."""
    from shopsim.simsite.v8.service import create_v8_app

    run = tmp_path / "runs" / "deep"
    run.mkdir(parents=True)
    deep = "[" * 5000 + "]" * 5000
    (run / "summary.json").write_text(deep)
    (run / "episodes.jsonl").write_text(deep + "\n" + json.dumps({"goal_index": 0, "reward": 1.0, "steps": 1}) + "\n")
    (run / "traces.jsonl").write_text(deep + "\n")
    with ServerThread(create_v8_app(bundled_v8_shop, runs_dir=tmp_path / "runs")) as srv, \
            httpx.Client(base_url=srv.base_url, timeout=30) as c:
        listing = c.get("/replay-ui/data/runs/deep/episodes")
        assert listing.status_code == 200, listing.text[:300]
        assert listing.json()["total"] == 1
        assert any("summary.json is damaged" in n for n in listing.json()["notes"])
        assert c.get("/replay-ui/data/runs").status_code == 200
        assert c.get("/replay-ui/data/runs/deep/episodes/0").status_code == 200


def test_too_deep_bodies_are_422_on_every_route_of_both_apis(web: str, v8: str, bundled_v8_shop: Any) -> None:
    """Every operation with a body, in either document: nesting past the limit is 422 ``json_too_deep``
    (a status the operation documents), one level less is read, and malformed JSON stays 400.
    """
    from shopsim.simsite.api_schema import openapi_spec
    from shopsim.simsite.v8.openapi import v8_openapi_spec

    deep = b'{"x": ' + b"[" * MAX_JSON_DEPTH + b"]" * MAX_JSON_DEPTH + b"}"  # 65 levels
    within = b'{"x": ' + b"[" * (MAX_JSON_DEPTH - 1) + b"]" * (MAX_JSON_DEPTH - 1) + b"}"
    task = bundled_v8_shop.goals[0].task_id
    tried = 0
    with httpx.Client(timeout=30) as c:
        for base, spec, open_body, key in ((web, openapi_spec(), {}, "session_id"),
                                           (v8, v8_openapi_spec(), {"task_id": task}, "lease_id")):
            sid = c.post(f"{base}/api/sessions", json=open_body).json()[key]
            for path, ops in spec["paths"].items():
                for method, op in ops.items():
                    if "requestBody" not in op:
                        continue
                    url = base + path.replace("{sid}", sid).replace("{lease}", sid)
                    r = c.request(method.upper(), url, content=deep, headers={"Content-Type": "application/json"})
                    assert (r.status_code, r.json()["code"]) == (422, "json_too_deep"), (path, r.text[:300])
                    assert "422" in op["responses"] and "json_too_deep" in op["responses"]["422"]["description"]
                    r = c.request(method.upper(), url, content=within, headers={"Content-Type": "application/json"})
                    assert r.json().get("code") != "json_too_deep", (path, r.text[:300])
                    r = c.request(method.upper(), url, content=deep[:-1] + b"]")
                    assert (r.status_code, r.json()["code"]) == (400, "malformed_json"), (path, r.text[:300])
                    tried += 1
            assert c.delete(f"{base}/api/sessions/{sid}").status_code == 204
    assert tried >= 6  # create, step, restore on each API (and v8's terminate)
