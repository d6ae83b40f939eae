"""shopsim-v8 snapshots over HTTP: branch one leased session into rollouts, byte for byte equal to straight replays.

A real v8 service on 127.0.0.1 over the bundled v8 catalog (and the dev kit's sample from ../shared
when present), seeded random policies; each branch's response bodies are compared as raw bytes with
a straight replay of the same actions from a fresh reset.
"""

from __future__ import annotations

import contextlib
import json
import random
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from conftest import SHARED

from shopsim.simsite.server import ServerThread
from shopsim.simsite.snapshots import TOKEN_PREFIX, V8SessionState, decode, encode
from shopsim.simsite.v8.service import create_v8_app
from shopsim.simsite.v8.session import V8Session
from shopsim.v8.tool_calls import option_arg

SAMPLE = SHARED / "data" / "shopsim-sample"
BRANCHES = 3
#: The keys of V8StepResponse: what a reset answers beside its lease, task and persona.
STEP_KEYS = ("observation", "observation_state", "reward", "done", "termination", "reward_detail",
             "action_feedback", "actions_used", "max_actions")


def _load(which: str) -> Any:
    from shopsim.simsite.v8.shop import V8Shop

    if which == "bundled":
        return V8Shop.load()
    if not (SAMPLE / "products.json").exists():
        pytest.skip(f"the v8 dev kit is not at {SAMPLE} (it lives in ../shared)")
    return V8Shop.load(SAMPLE / "products.json")


@pytest.fixture(scope="module")
def v8_shop() -> Any:
    return _load("bundled")


@pytest.fixture(scope="module")
def base(v8_shop: Any) -> Iterator[str]:
    with ServerThread(create_v8_app(v8_shop, slots=8, queue_timeout_s=2.0)) as srv:
        yield srv.base_url


@contextlib.contextmanager
def _served(which: str, shop: Any, bundled_base: str) -> Iterator[str]:
    """The module's server for the bundled shop, a server of its own for another."""
    if which == "bundled":
        yield bundled_base
        return
    with ServerThread(create_v8_app(shop, slots=4)) as srv:
        yield srv.base_url


def _query(rng: random.Random, instruction: str) -> str:
    """A few of the instruction's words, or a few characters of it when it is unspaced (Chinese)."""
    words = instruction.split()
    if len(words) >= 4:
        return " ".join(rng.sample(words, 3))
    start = rng.randrange(max(1, len(instruction) - 6))
    return instruction[start : start + rng.randint(2, 6)].strip() or instruction[:4]


def _act(rng: random.Random, body: dict[str, Any], instruction: str, buy: bool = True) -> str:
    """A seeded random policy over the page's clickables, with now and then a refused action."""
    state = body["observation_state"]
    clicks = [c for c in state["clickables"] if buy or c != "buy now"]
    if state["search_available"] and (not clicks or rng.random() < 0.7):
        return f"search[{_query(rng, instruction)}]"
    if rng.random() < 0.1:
        return "click[not on this page]"  # refused: a step that leaves the page as it was
    return f"click[{rng.choice(clicks)}]"


def _step(c: httpx.Client, lease: str, action: str) -> httpx.Response:
    return c.post(f"/api/sessions/{lease}/step", json={"action": action})


def _rollout(c: httpx.Client, lease: str, body: dict[str, Any], instruction: str, seed: int, steps: int,
             buy: bool = True) -> tuple[list[str], list[tuple[int, bytes]]]:
    """Step with the seeded policy until done (plus one step after, the 409); the actions and raw answers."""
    rng = random.Random(seed)
    actions: list[str] = []
    answers: list[tuple[int, bytes]] = []
    for _ in range(steps):
        action = _act(rng, body, instruction, buy) if not body["done"] else "click[back to search]"
        r = _step(c, lease, action)
        actions.append(action)
        answers.append((r.status_code, r.content))
        if r.status_code != 200:
            break
        body = r.json()
    return actions, answers


def _replay(c: httpx.Client, reset: dict[str, Any], actions: list[str]) -> list[tuple[int, bytes]]:
    lease = c.post("/api/sessions", json=reset).json()["lease_id"]
    try:
        return [((r := _step(c, lease, a)).status_code, r.content) for a in actions]
    finally:
        c.delete(f"/api/sessions/{lease}")


def _step_part(body: dict[str, Any]) -> bytes:
    return json.dumps({k: body[k] for k in STEP_KEYS}, sort_keys=True, ensure_ascii=False).encode()


@pytest.mark.parametrize(("which", "pick"), [("bundled", 0), ("bundled", 2), ("bundled", 7), ("sample", 0)])
def test_branches_equal_straight_replays(which: str, pick: int, v8_shop: Any, base: str) -> None:
    """One state, three branches (a reset from the token, a restore into another lease, a restore into the
    origin lease after it moved on); each equals a straight replay from reset, byte for byte."""
    shop = v8_shop if which == "bundled" else _load(which)
    task = shop.goals[pick]
    with _served(which, shop, base) as url, httpx.Client(base_url=url, timeout=30) as c:
        reset = {"task_id": task.task_id}
        origin = c.post("/api/sessions", json=reset)
        assert origin.status_code == 201, origin.text
        start = origin.json()
        lease, instruction = start["lease_id"], start["task_instruction"]
        prefix, answers = _rollout(c, lease, start, instruction, seed=100 + pick, steps=3, buy=False)
        here = answers[-1][1]
        snap = c.post(f"/api/sessions/{lease}/snapshot")
        assert snap.status_code == 200 and set(snap.json()) == {"snapshot"}
        token = snap.json()["snapshot"]
        assert token.startswith(TOKEN_PREFIX) and decode(token, shop).task_id == task.task_id  # type: ignore[union-attr]

        other = c.post("/api/sessions", json={"task_id": shop.goals[-1].task_id}).json()["lease_id"]
        _step(c, other, "search[x]")
        _rollout(c, lease, json.loads(here), instruction, seed=999, steps=4)  # the origin moves on first
        seen = set()
        for b in range(BRANCHES):
            if b == 0:
                opened = c.post("/api/sessions", json={"snapshot": token})
                assert opened.status_code == 201, opened.text
                first = opened.json()
                assert {k: first[k] for k in ("task_id", "task_mode", "interaction_mode", "task_instruction",
                                              "user_persona")} == {k: start[k] for k in (
                    "task_id", "task_mode", "interaction_mode", "task_instruction", "user_persona")}
                assert _step_part(first) == _step_part(json.loads(here))
                target = first["lease_id"]
            else:
                target = other if b == 1 else lease
                back = c.post(f"/api/sessions/{target}/restore", json={"snapshot": token})
                assert back.status_code == 200 and back.content == here  # the same bytes as at the snapshot
                first = back.json()
            actions, got = _rollout(c, target, first, instruction, seed=b, steps=12)
            want = _replay(c, reset, prefix + actions)[len(prefix):]
            assert got == want, f"branch {b} differs from its straight replay"
            seen.add(tuple(actions))
            if b == 0:
                assert c.delete(f"/api/sessions/{target}").status_code == 204
        assert len(seen) > 1, "the branches should explore different continuations"
        for held in (lease, other):
            assert c.delete(f"/api/sessions/{held}").status_code == 204
        assert c.get("/api/health").json()["slots_in_use"] == 0


def _buy_gold(c: httpx.Client, shop: Any) -> tuple[dict[str, Any], str, dict[str, Any]]:
    """Buy a task's own product (the first task whose product its title finds on page one): reset, lease, answer."""
    for task in shop.goals[:50]:
        gold = shop.product(task.asin)
        if gold is None:
            continue
        start = c.post("/api/sessions", json={"task_id": task.task_id, "task_mode": "standard"}).json()
        lease = start["lease_id"]
        if gold.asin in _step(c, lease, f"search[{gold.title[:200]}]").json()["observation_state"]["clickables"]:
            _step(c, lease, f"click[{gold.asin}]")
            for axis, options in gold.options.items():
                _step(c, lease, f"click[{option_arg(axis, options[0].value)}]")
            bought = _step(c, lease, "click[buy now]").json()
            assert bought["termination"] == "purchase", bought["action_feedback"]
            return start, lease, bought
        c.delete(f"/api/sessions/{lease}")
    pytest.fail("no task's product is found by its title")


def test_purchase_and_action_limit_restore_exactly(base: str, v8_shop: Any) -> None:
    """Ended sessions travel too: a purchase keeps its reward detail, the action limit its mode; both refuse steps."""
    with httpx.Client(base_url=base, timeout=30) as c:
        start, lease, bought = _buy_gold(c, v8_shop)
        token = c.post(f"/api/sessions/{lease}/snapshot").json()["snapshot"]
        opened = c.post("/api/sessions", json={"snapshot": token, "task_id": start["task_id"]}).json()
        assert _step_part(opened) == _step_part(bought) and opened["reward_detail"] is not None
        assert opened["task_mode"] == "standard"
        for held in (lease, opened["lease_id"]):
            r = _step(c, held, "click[back to search]")
            assert (r.status_code, r.json()["code"]) == (409, "episode_over")
            c.delete(f"/api/sessions/{held}")

        persona = next(t for t in v8_shop.goals if t.user_persona is not None)
        short = c.post("/api/sessions", json={"task_id": persona.task_id, "task_mode": "persona", "max_actions": 2,
                                              "interaction_mode": "multi_turn", "include_private": True}).json()
        _step(c, short["lease_id"], "search[x]")
        ended = _step(c, short["lease_id"], "click[nope]").json()
        assert ended["termination"] == "action_limit"
        token = c.post(f"/api/sessions/{short['lease_id']}/snapshot").json()["snapshot"]
        again = c.post("/api/sessions", json={"snapshot": token, "include_private": True}).json()
        assert _step_part(again) == _step_part(ended)
        for key in ("task_mode", "interaction_mode", "user_persona", "task_instruction", "private_task_instruction",
                    "max_actions"):
            assert again[key] == short[key], key
        for held in (short["lease_id"], again["lease_id"]):
            c.delete(f"/api/sessions/{held}")


def _forge(shop: Any, token: str, **change: Any) -> str:
    """A token re-signed with the public key after an edit: it passes the checksum, so the state checks must refuse it."""
    state = decode(token, shop)
    return encode(V8SessionState.model_validate({**state.model_dump(), **change}), shop)


def test_bad_tokens_and_leases_are_json_errors(base: str, v8_shop: Any, bundled_shop: Any) -> None:
    from shopsim.simsite.session import ShopSession

    with httpx.Client(base_url=base, timeout=30) as c:
        task = v8_shop.goals[0]
        lease = c.post("/api/sessions", json={"task_id": task.task_id}).json()["lease_id"]
        _step(c, lease, "search[x]")
        token = c.post(f"/api/sessions/{lease}/snapshot").json()["snapshot"]
        body, _, mac = token[len(TOKEN_PREFIX):].partition(".")
        flipped = TOKEN_PREFIX + body[:10] + ("A" if body[10] != "A" else "B") + body[11:] + "." + mac
        webshop = ShopSession(bundled_shop, bundled_shop.goals[0], "0", goal_index=0).snapshot()
        refused = {
            "tampered": (flipped, "integrity check"),
            "truncated": (token[:-5], "integrity check"),
            "not a token": ("hello", "not a shopsim snapshot token"),
            "webshop token": (webshop, "webshop session; this shop is shopsim-v8"),
            "unknown task": (_forge(v8_shop, token, task_id=-1), "does not exist"),
            "over the limit": (_forge(v8_shop, token, actions=99, max_actions=5), "impossible session"),
            "no product": (_forge(v8_shop, token, page="product", asin="nope"), "not in this catalog"),
            "page out of range": (_forge(v8_shop, token, page_num=999), "impossible session: page 999"),
            "persona without one": (
                _forge(v8_shop, token, task_id=next(t.task_id for t in v8_shop.goals if t.user_persona is None),
                       task_mode="persona"), "has no persona"),
        }
        for name, (bad, why) in refused.items():
            for r in (c.post("/api/sessions", json={"snapshot": bad}),
                      c.post(f"/api/sessions/{lease}/restore", json={"snapshot": bad})):
                assert (r.status_code, r.json()["code"]) == (400, "invalid_snapshot"), (name, r.text)
                assert why in r.json()["error"], (name, r.json()["error"])
        mismatch = c.post("/api/sessions", json={"snapshot": token, "task_id": v8_shop.goals[1].task_id})
        assert (mismatch.status_code, mismatch.json()["code"]) == (400, "invalid_snapshot")
        assert c.get(f"/api/sessions/{lease}").json()["observation_state"]["search_text"] == "x"  # untouched

        for method, path, payload, status, code in [
            ("POST", "/api/sessions/nope/snapshot", None, 404, "unknown_lease"),
            ("POST", "/api/sessions/nope/restore", {"snapshot": token}, 404, "unknown_lease"),
            ("GET", f"/api/sessions/{lease}/snapshot", None, 405, "method_not_allowed"),
            ("PUT", f"/api/sessions/{lease}/restore", {"snapshot": token}, 405, "method_not_allowed"),
            ("POST", f"/api/sessions/{lease}/restore", {}, 422, "invalid_body"),
            ("POST", f"/api/sessions/{lease}/restore", {"snapshot": 3}, 422, "invalid_body"),
            ("POST", f"/api/sessions/{lease}/restore", {"snapshot": token, "x": 1}, 422, "invalid_body"),
            ("POST", f"/api/sessions/{lease}/restore", {"snapshot": "s" * 6000}, 422, "invalid_body"),
            ("POST", "/api/sessions", {}, 422, "invalid_body"),
            ("POST", "/api/sessions", {"task_id": None}, 422, "invalid_body"),
            ("POST", "/api/sessions", {"snapshot": token, "max_actions": 3}, 422, "invalid_body"),
            ("POST", "/api/sessions", {"snapshot": token, "task_mode": "standard"}, 422, "invalid_body"),
        ]:
            r = c.request(method, path, json=payload)
            assert (r.status_code, r.json()["code"]) == (status, code), (method, path, r.text)
        assert c.delete(f"/api/sessions/{lease}").status_code == 204
        r = c.post(f"/api/sessions/{lease}/snapshot")
        assert (r.status_code, r.json()["code"]) == (404, "unknown_lease")


def test_expired_lease_is_410(v8_shop: Any) -> None:
    with ServerThread(create_v8_app(v8_shop, slots=1, session_ttl_s=0.0)) as srv, \
            httpx.Client(base_url=srv.base_url) as c:
        lease = c.post("/api/sessions", json={"task_id": v8_shop.goals[0].task_id}).json()["lease_id"]
        r = c.post(f"/api/sessions/{lease}/snapshot")
        assert (r.status_code, r.json()["code"]) == (410, "lease_expired")


def test_restore_keeps_the_slot_and_a_snapshot_reset_queues(v8_shop: Any) -> None:
    """Restoring into a lease takes no slot; opening from a token waits in the same queue as any reset."""
    with ServerThread(create_v8_app(v8_shop, slots=1, queue_timeout_s=0.3)) as srv, \
            httpx.Client(base_url=srv.base_url) as c:
        lease = c.post("/api/sessions", json={"task_id": v8_shop.goals[0].task_id}).json()["lease_id"]
        token = c.post(f"/api/sessions/{lease}/snapshot").json()["snapshot"]
        assert c.post(f"/api/sessions/{lease}/restore", json={"snapshot": token}).status_code == 200
        assert c.get("/api/health").json()["slots_in_use"] == 1
        full = c.post("/api/sessions", json={"snapshot": token})
        assert (full.status_code, full.json()["code"]) == (503, "no_free_slot")
        bad = c.post("/api/sessions", json={"snapshot": token[:-3]})  # refused before it queues
        assert (bad.status_code, bad.json()["code"]) == (400, "invalid_snapshot")
        c.delete(f"/api/sessions/{lease}")
        opened = c.post("/api/sessions", json={"snapshot": token})
        assert opened.status_code == 201 and opened.json()["env_idx"] == 0


def test_server_key_signs_tokens(v8_shop: Any) -> None:
    with ServerThread(create_v8_app(v8_shop, slots=2, snapshot_key="server-secret")) as srv, \
            httpx.Client(base_url=srv.base_url) as c:
        lease = c.post("/api/sessions", json={"task_id": v8_shop.goals[0].task_id}).json()["lease_id"]
        token = c.post(f"/api/sessions/{lease}/snapshot").json()["snapshot"]
        assert c.post(f"/api/sessions/{lease}/restore", json={"snapshot": token}).status_code == 200
        public = V8Session(v8_shop, v8_shop.goals[0]).snapshot(task_mode="standard")
        r = c.post(f"/api/sessions/{lease}/restore", json={"snapshot": public})
        assert (r.status_code, r.json()["code"]) == (400, "invalid_snapshot") and "integrity" in r.json()["error"]
    assert V8Session.from_snapshot(v8_shop, token, key="server-secret").task.task_id == v8_shop.goals[0].task_id


def test_documented_in_openapi() -> None:
    from shopsim.simsite.v8.openapi import ERROR_CODES, v8_openapi_spec

    spec = v8_openapi_spec()
    assert {"invalid_snapshot", "snapshot_too_large"} <= set(ERROR_CODES)
    snap = spec["paths"]["/api/sessions/{lease}/snapshot"]["post"]["responses"]
    restore = spec["paths"]["/api/sessions/{lease}/restore"]["post"]["responses"]
    assert set(snap) == {"200", "404", "405", "409", "410"}
    assert set(restore) == {"200", "400", "404", "405", "410", "413", "415", "422"}
    assert restore["200"]["content"]["application/json"]["schema"]["$ref"].endswith("/V8StepResponse")
    reset = spec["components"]["schemas"]["V8Reset"]
    assert "snapshot" in reset["properties"] and "task_id" not in reset.get("required", [])
