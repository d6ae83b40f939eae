"""``/shop/{lease}``: the v8 service's HTML view, against a real server on 127.0.0.1 (httpx).

A form post steps the session exactly as ``POST /api/sessions/{lease}/step`` does: the same
episode played through both ends in the same ``observation_state`` and reward. The page escapes
every value, offers ``buy now`` only when v8's rules allow it, and keeps the API's lease rules.
"""

from __future__ import annotations

import json
import re
import time
from html import unescape
from typing import Any

import httpx
import pytest

from shopsim.simsite.server import ServerThread


@pytest.fixture(scope="module")
def plan(bundled_v8_shop: Any) -> Any:
    """The first bundled task whose check-goals oracle buys a product with options, with r_strict > 0."""
    from shopsim.agents.reachability_v8 import check_v8_goal

    for index in range(40):
        reach = check_v8_goal(bundled_v8_shop, index)
        if reach.best_options and reach.best_reward > 0 and reach.best_rank is not None and reach.best_rank <= 20:
            return bundled_v8_shop.goal(index), reach
    pytest.fail("no bundled task among the first 40 has an oracle purchase with options on result page 1")


@pytest.fixture(scope="module")
def server(bundled_v8_shop: Any):
    from shopsim.simsite.v8.service import create_v8_app

    with ServerThread(create_v8_app(bundled_v8_shop, slots=8, queue_timeout_s=5.0)) as srv:
        yield srv


@pytest.fixture
def client(server: ServerThread):
    with httpx.Client(base_url=server.base_url, timeout=30.0) as c:
        yield c


def _open(client: httpx.Client, task_id: int) -> str:
    r = client.post("/api/sessions", json={"task_id": task_id})
    assert r.status_code == 201, r.text
    return str(r.json()["lease_id"])


def _state(html: str) -> dict[str, Any]:
    found = re.search(r'<script type="application/json" id="shopsim-state">(.*?)</script>', html, re.S)
    assert found is not None
    return dict(json.loads(found.group(1)))


def _buttons(html: str) -> list[str]:
    return [unescape(v) for v in re.findall(r'<button type="submit" name="action" value="([^"]*)"', html)]


def _act(client: httpx.Client, lid: str, **form: str) -> str:
    r = client.post(f"/shop/{lid}/act", data=form)
    assert r.status_code == 303 and r.headers["location"] == f"/shop/{lid}", r.text
    page = client.get(r.headers["location"])
    assert page.status_code == 200
    return page.text


def test_html_episode_equals_the_api_episode(client: httpx.Client, plan: Any) -> None:
    task, reach = plan
    html_lid, api_lid = _open(client, task.task_id), _open(client, task.task_id)
    first = client.get(f"/shop/{html_lid}").text
    assert _state(first) == {"lease_id": html_lid, "task_id": task.task_id, "instruction": reach.instruction,
                             "page_type": "search", "done": False, "reward": 0.0, "termination": None}
    assert 'id="search_input"' in first and _buttons(first) == []
    steps = [("query", reach.instruction, f"search[{reach.instruction}]"),
             ("action", f"click[{reach.best_asin}]", f"click[{reach.best_asin}]")]
    steps += [("action", f"click[{a}={v}]", f"click[{a}={v}]") for a, v in reach.best_options.items()]
    steps.append(("action", "click[buy now]", "click[buy now]"))
    page = first
    for field, value, action in steps:
        if action == "click[buy now]":
            assert action in _buttons(page)  # every axis chosen: v8's rules allow the purchase now
        page = _act(client, html_lid, **{field: value})
        api = client.post(f"/api/sessions/{api_lid}/step", json={"action": action}).json()
        html_view = client.get(f"/api/sessions/{html_lid}").json()
        assert html_view["observation_state"] == api["observation_state"], action
        assert (html_view["reward"], html_view["done"]) == (api["reward"], api["done"])
        if action.startswith(f"click[{reach.best_asin}"):  # the product page: options as raw axis=value
            assert f"click[{next(iter(reach.best_options))}={next(iter(reach.best_options.values()))}]" in _buttons(page)
    done = _state(page)
    assert done["done"] and done["page_type"] == "terminal" and done["termination"] == "purchase"
    assert done["reward"] == pytest.approx(reach.best_reward) and f"{reach.best_reward:.4f}" in page
    detail = client.get(f"/api/sessions/{html_lid}").json()["reward_detail"]
    assert detail["r_strict"] == pytest.approx(reach.best_reward)  # the breakdown stays on the JSON API
    again = client.post(f"/shop/{html_lid}/act", data={"action": "click[back to search]"})
    assert again.status_code == 409 and again.json()["code"] == "episode_over"


def test_buy_now_only_once_every_axis_is_chosen(client: httpx.Client, plan: Any) -> None:
    task, reach = plan
    lid = _open(client, task.task_id)
    _act(client, lid, query=reach.instruction)
    page = _act(client, lid, action=f"click[{reach.best_asin}]")
    assert "click[buy now]" not in _buttons(page)
    page = _act(client, lid, action="click[buy now]")  # refused as the API refuses it: a step, same page
    assert 'data-feedback="incomplete_options"' in page and _state(page)["page_type"] == "product"


def test_values_are_escaped(client: httpx.Client, plan: Any) -> None:
    lid = _open(client, plan[0].task_id)
    page = _act(client, lid, query='<script>alert("x")</script> & "q"')
    assert "<script>alert" not in page and "&lt;script&gt;alert" in page
    assert _state(page)["page_type"] == "results"  # the state block stays valid JSON


def test_bad_requests_get_one_clear_answer(client: httpx.Client, plan: Any) -> None:
    assert client.get("/shop/nope").json()["code"] == "unknown_lease"
    lid = _open(client, plan[0].task_id)
    for body in ({}, {"other": "x"}, {"action": "x" * 5000}):
        r = client.post(f"/shop/{lid}/act", data=body)
        assert r.status_code == 422 and r.json()["code"] == "invalid_body", body
    r = client.post(f"/shop/{lid}/act", content=b"\xff\xfe", headers={"content-type": "application/x-www-form-urlencoded"})
    assert r.status_code == 422


def test_expired_lease_is_gone_and_frees_its_slot(bundled_v8_shop: Any, plan: Any) -> None:
    from shopsim.simsite.v8.service import create_v8_app

    with ServerThread(create_v8_app(bundled_v8_shop, slots=1, session_ttl_s=0.2)) as srv, \
            httpx.Client(base_url=srv.base_url, timeout=30.0) as c:
        lid = _open(c, plan[0].task_id)
        time.sleep(0.4)  # idle past the TTL (not a timing assertion: any longer wait gives the same answer)
        assert c.get(f"/shop/{lid}").status_code == 410
        assert c.post(f"/shop/{lid}/act", data={"query": "x"}).status_code == 404  # its lease is gone
        assert c.get("/api/health").json()["slots_in_use"] == 0
