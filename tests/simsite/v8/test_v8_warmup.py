"""Start-up warm-up of the v8 service: done before the first request is answered, invisible to clients
(no lease, no slot), and the first purchase after start-up is scored as later ones are. Every body
on the way is the bytes Starlette's standard-library encoder would have sent (the API encodes with
orjson)."""

from __future__ import annotations

import json

import httpx
import pytest
from starlette.responses import JSONResponse

from shopsim.simsite.server import ServerThread, Warmup
from shopsim.simsite.v8.service import create_v8_app
from shopsim.simsite.v8.shop import V8Shop


@pytest.fixture(scope="module")
def fresh_v8_shop() -> V8Shop:
    """The bundled v8 catalog, loaded for this module alone: nothing has searched or scored on it yet."""
    return V8Shop.load(None)


def _json(r: httpx.Response) -> dict:
    """The body, after checking it is byte for byte what the standard library would have encoded."""
    assert r.content == JSONResponse(json.loads(r.content)).body, r.text[:300]
    return r.json()


def _buy(c: httpx.Client, task_id: int) -> dict:
    """Search the task's simple request, open the first result, choose the first value of each missing axis, buy."""
    lease = _json(c.post("/api/sessions", json={"task_id": task_id, "task_mode": "standard"}))
    lid = lease["lease_id"]

    def step(action: str) -> dict:
        return _json(c.post(f"/api/sessions/{lid}/step", json={"action": action}))

    state = step(f"search[{(lease['observation_state']['search_text'] or lease['task_instruction'])[:200]}]")
    state = step(f"click[{state['observation_state']['results'][0]['asin']}]")["observation_state"]
    for axis in state["missing_option_axes"]:
        step("click[" + next(a for a in state["clickables"] if a.startswith(f"{axis}=")) + "]")
    out = step("click[buy now]")
    assert c.delete(f"/api/sessions/{lid}").status_code == 204
    return out


def test_v8_warm_up_runs_first_and_the_first_purchase_scores_as_later_ones(fresh_v8_shop):
    app = create_v8_app(fresh_v8_shop, slots=2)
    assert app.state.warmup is None
    with ServerThread(app, lifespan="on", start_timeout_s=120) as srv, httpx.Client(base_url=srv.base_url, timeout=60) as c:
        report = app.state.warmup
        assert isinstance(report, Warmup) and report.purchased and report.pages[-1] == "terminal"
        health = c.get("/api/health").json()
        assert health["slots_in_use"] == 0 and app.state.leases == {}  # the warm-up took no slot
        tasks = [t.task_id for t in fresh_v8_shop.goals[3:5]]
        first = [_buy(c, t) for t in tasks]
        later = [_buy(c, t) for t in tasks]
    for a, b in zip(first, later, strict=True):
        assert a["done"] and a["termination"] == "purchase"
        assert (a["reward"], a["reward_detail"]) == (b["reward"], b["reward_detail"])
