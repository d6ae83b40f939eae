"""The JSON API reads the HTML shop's sessions (``GET /api/sessions/{id}``) and never changes them."""

from __future__ import annotations

import json
from urllib.parse import quote

import httpx
import pytest


@pytest.fixture(scope="module")
def client(web_server):
    with httpx.Client(base_url=web_server.base_url, timeout=30) as c:
        yield c


def _view(client: httpx.Client, sid: str) -> dict:
    r = client.get(f"/api/sessions/{sid}")
    assert r.status_code == 200, r.text
    return r.json()


def test_unopened_html_session_is_unknown(client):
    r = client.get("/api/sessions/fixed_3_never_opened")
    assert r.status_code == 404 and r.json()["code"] == "unknown_session"


def test_html_session_is_readable_through_its_episode(client, bundled_shop):
    sid = "fixed_3_api_view"
    goal = bundled_shop.goal(3)
    assert client.get(f"/{sid}").status_code == 200
    view = _view(client, sid)
    assert view["session_id"] == sid and view["done"] is False
    assert view["page_state"]["page_type"] == "search" and view["page_state"]["instruction"] == goal.instruction_text
    assert view["observation"].startswith("WebShop [SEP] Instruction:") and view["valid_actions"]["has_search_bar"]

    asin = goal.asin
    client.get(f"/item_page/{sid}/{asin}/speaker/1/{{}}")
    view = _view(client, sid)
    assert view["page_state"]["page_type"] == "item" and view["page_state"]["product"]["id"] == asin
    options = quote(json.dumps(dict(goal.goal_options) if isinstance(goal.goal_options, dict) else {}), safe="")
    done = client.post(f"/done/{sid}/{asin}/{options}")
    assert done.status_code == 200
    view = _view(client, sid)
    state = view["page_state"]
    assert view["done"] is True and state["page_type"] == "done"
    assert state["reward"] is not None and state["reward_info"]["purchased_asin"] == asin
    assert f"{state['reward']}" in done.text or f"{state['reward']:.2f}" in done.text  # the score the page shows
    again = _view(client, sid)  # reading twice changes nothing: a finished session is not started over
    assert again == view


@pytest.mark.parametrize(("method", "path", "body"), [
    ("POST", "/api/sessions/{sid}/step", {"action": "search[red shoes]"}),
    ("POST", "/api/sessions/{sid}/snapshot", None),
    ("POST", "/api/sessions/{sid}/restore", {"snapshot": "x"}),
    ("DELETE", "/api/sessions/{sid}", None),
])
def test_json_api_cannot_change_an_html_session(client, method, path, body):
    sid = "fixed_5_read_only"
    client.get(f"/{sid}")
    before = _view(client, sid)
    r = client.request(method, path.format(sid=sid), json=body)
    assert r.status_code == 404 and r.json()["code"] == "unknown_session"
    assert _view(client, sid) == before


def test_api_lease_wins_over_an_html_session_of_the_same_id(client):
    lease = client.post("/api/sessions", json={"goal": 2}).json()
    sid = lease["session_id"]
    client.get(f"/{sid}")  # a browser opening the lease's id gets an HTML session of its own
    client.post(f"/api/sessions/{sid}/step", json={"action": "search[red shoes]"})
    assert _view(client, sid)["page_state"]["page_type"] == "results"  # the lease, not the HTML session
    assert client.delete(f"/api/sessions/{sid}").status_code == 204
    assert _view(client, sid)["page_state"]["page_type"] == "search"  # now the HTML one shows through
