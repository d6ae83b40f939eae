"""Budgets through a real served session: where the budget came from and how ``r_price`` scores it.

A one-product catalog (a kettle whose 容量 axis sets the price: 1L at 180, 2L at 260) and one task
per way a budget can arrive; each task is reset, shopped and bought over HTTP on 127.0.0.1.
"""

from __future__ import annotations

import json

import httpx
import pytest

from shopsim.simsite.server import ServerThread

KETTLE = {
    "asin": "300000000001", "title": "不锈钢电热水壶 家用 大容量", "category": ["家电", "厨房电器", "电热水壶"],
    "pricing": [180, 260], "attribute": {"材质": "不锈钢"},
    "customization_options": {"容量": [{"value": "1L", "price": 180}, {"value": "2L", "price": 260}]},
}
TASKS = [
    # (task_id, instruction, extra fields)
    (1, "想买一个不锈钢电热水壶，两百元以内", {}),
    (2, "想买一个不锈钢电热水壶，不超过 2千元", {}),
    (3, "想买一个不锈钢电热水壶，几百元以内就行", {}),
    (4, "想买一个不锈钢电热水壶", {}),
    (5, "想买一个不锈钢电热水壶，两百元以内", {"price_upper": 300, "price_upper_source": "annotation"}),
    (6, "想买一个不锈钢电热水壶，预算约两百五十元", {}),
]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    from shopsim.simsite.v8.service import create_v8_app
    from shopsim.simsite.v8.shop import V8Shop

    path = tmp_path_factory.mktemp("budget") / "products.json"
    record = dict(KETTLE, instructions=[{"task_id": tid, "instruction": text, "attributes": ["不锈钢"],
                                         "instruction_options": {}, **extra} for tid, text, extra in TASKS])
    path.write_text(json.dumps([record], ensure_ascii=False), encoding="utf-8")
    with ServerThread(create_v8_app(V8Shop.load(path))) as srv:
        yield srv.base_url


def buy(base: str, task_id: int, size: str) -> dict:
    with httpx.Client(base_url=base, timeout=60) as c:
        r = c.post("/api/sessions", json={"task_id": task_id, "task_mode": "standard"})
        assert r.status_code == 201, r.text
        lease = r.json()["lease_id"]
        last = {}
        for action in ("search[不锈钢电热水壶]", f"click[{KETTLE['asin']}]", f"click[容量={size}]", "click[buy now]"):
            last = c.post(f"/api/sessions/{lease}/step", json={"action": action}).json()
            assert last["action_feedback"] == "ok", (action, last)
        assert last["done"] is True and last["termination"] == "purchase"
        return last


@pytest.mark.parametrize(("task_id", "size", "source", "budget", "r_price"), [
    (1, "1L", "regex", 200.0, 1.0),  # 两百元以内: 180 fits
    (1, "2L", "regex", 200.0, 0.0),  # 260 does not
    (2, "2L", "regex", 2000.0, 1.0),  # 不超过 2千元
    (3, "1L", "unparseable", None, 0.0),  # a declared budget nobody can read fails closed
    (4, "2L", "none", None, 1.0),  # no budget at all
    (5, "2L", "annotation", 300.0, 1.0),  # the annotated price_upper wins over the text's 200
    (6, "2L", "regex", 275.0, 1.0),  # 约两百五十元 -> 250 x 1.10
])
def test_budget_source_and_r_price_through_the_service(server, task_id, size, source, budget, r_price):
    detail = buy(server, task_id, size)["reward_detail"]
    assert detail["budget_source"] == source
    assert detail["budget"] == (pytest.approx(budget) if budget is not None else None)
    assert detail["r_price"] == r_price
    assert detail["r_strict"] == r_price  # type, attribute and option all hold here
    if source in ("regex", "unparseable"):
        assert detail["budget_field"] == "instruction" and detail["budget_phrase"]
