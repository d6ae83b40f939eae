"""The web app over a real uvicorn server: WebShop's routes, error pages, and the JSON API's leases."""

from __future__ import annotations

import json
import time
from urllib.parse import quote, urlsplit

import httpx
import pytest
from conftest import SMALL, ServerThread, read_jsonl

from shopsim.simsite.web import create_app


@pytest.fixture(scope="module")
def client(web_server):
    with httpx.Client(base_url=web_server.base_url, timeout=30) as c:
        yield c


def _human_urls() -> list[str]:
    urls = []
    for f in sorted((SMALL / "human_trajectories").glob("*.jsonl")):
        urls += [r["url"] for r in read_jsonl(f) if r.get("url")]
    return urls


def test_all_human_trajectory_urls_route(client):
    urls = _human_urls()
    if not urls:
        pytest.skip("no human trajectories")
    statuses: dict[int, int] = {}
    for u in urls:
        parts = urlsplit(u)
        r = client.get(parts.path + (f"?{parts.query}" if parts.query else ""))
        statuses[r.status_code] = statuses.get(r.status_code, 0) + 1
        assert r.status_code in (200, 404), (u, r.status_code, r.text[-300:])
        if r.status_code == 404:
            assert "Product not found" in r.text
    assert statuses.get(200, 0) > 0


def test_search_form_redirects_and_pages(client):
    r = client.get("/fixed_2")
    assert r.status_code == 200
    assert 'id="search_input" class="form-control" type="text" name="search_query"' in r.text and "Instruction: <br>" in r.text
    r = client.post("/fixed_2", data={"search_query": "Red Shoes"}, follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/search_results/fixed_2/red+shoes/1"
    r = client.get(r.headers["location"])
    assert r.status_code == 200 and 'class="product-link"' in r.text and "Next &gt;" in r.text
    # WebShop's list-repr keywords and dict-literal options
    r = client.get("/search_results/fixed_2/%5B%27red%27%2C%20%27shoes%27%5D/2")
    assert r.status_code == 200 and "Page 2" in r.text and "&lt; Prev" in r.text


def test_item_sub_page_and_done(client, bundled_shop):
    asin = next(p.asin for p in bundled_shop.product_list if p.options)
    axis, values = next(iter(bundled_shop.products[asin].options.items()))
    r = client.get(f"/item_page/fixed_4/{asin}/red+shoes/1/{{}}")
    assert r.status_code == 200 and "Buy Now" in r.text and 'type="radio"' in r.text
    opts = quote(json.dumps({axis: values[0]}), safe="")
    r = client.get(f"/item_page/fixed_4/{asin}/red+shoes/1/{opts}")
    assert r.status_code == 200 and " checked" in r.text
    for sub in ("Description", "Features", "Reviews"):
        r = client.post(f"/item_sub_page/fixed_4/{asin}/red+shoes/1/{sub}/{{}}")
        assert r.status_code == 200, sub
    r = client.post(f"/done/fixed_4/{asin}/{{}}")
    assert r.status_code == 200 and "Your score (min 0.0, max 1.0)" in r.text and 'id="reward-details"' in r.text


@pytest.mark.parametrize(
    ("path", "status", "words"),
    [
        ("/item_page/fixed_1/B000000000/a/1/{}", 404, "no product with ASIN"),
        ("/done/fixed_1/NOPE/{}", 404, "no product"),
        ("/item_page/fixed_1/B00XR59RSZ/a/zz/{}", 400, "page number"),
        ("/item_page/fixed_1/B00XR59RSZ/a/1/%7Bbad", 400, "options segment"),
        ("/item_sub_page/fixed_1/B00XR59RSZ/a/1/Nope/{}", 400, "sub-page must be one of"),
        ("/search_results/fixed_1/%5Bunclosed/1", 400, "keywords segment"),
        ("/search_results/fixed_1", 400, "expected /search_results"),
        ("/fixed_99999999", 404, "does not exist"),
        ("/bad%20id", 400, "session id"),
        ("/nowhere/at/all", 404, "no page"),
    ],
)
def test_bad_input_pages(client, path, status, words):
    r = client.get(path)
    assert r.status_code == status, r.text[-300:]
    assert words in r.text and "text/html" in r.headers["content-type"]


def test_empty_search_is_400(client):
    assert client.post("/fixed_1", data={"search_query": "   "}).status_code == 400


def test_script_in_query_is_inert(client):
    r = client.get("/search_results/fixed_1/%3Cscript%3Ealert(1)%3C%2Fscript%3E/1")
    assert r.status_code == 200
    assert "<script>alert(1)" not in r.text and "&lt;script&gt;alert(1)" in r.text


def test_static_and_docs(client):
    assert client.get("/static/style.css").status_code == 200
    spec = client.get("/api/openapi.json").json()
    assert spec["openapi"].startswith("3.") and "/api/sessions" in spec["paths"]
    assert "CreateSession" in spec["components"]["schemas"]
    docs = client.get("/api/docs")
    assert docs.status_code == 200 and "/api/sessions" in docs.text and "cdn" not in docs.text.lower()


def test_api_session_flow(client):
    r = client.post("/api/sessions", json={"goal": 3, "mode": "text_rich"})
    assert r.status_code == 201
    body = r.json()
    sid = body["session_id"]
    assert body["valid_actions"]["has_search_bar"] and "Instruction:" in body["observation"]
    r = client.post(f"/api/sessions/{sid}/step", json={"action": "search[red shoes]"})
    out = r.json()
    assert r.status_code == 200 and not out["done"] and out["page_state"]["page_type"] == "results"
    r = client.post(f"/api/sessions/{sid}/step", json={"action": "click[not there]"})
    assert r.json()["feedback"]["code"] == "not_available"
    assert client.get(f"/api/sessions/{sid}").json()["session_id"] == sid
    assert client.post(f"/api/sessions/{sid}/step", json={}).status_code == 422
    assert client.delete(f"/api/sessions/{sid}").status_code == 204
    assert client.get(f"/api/sessions/{sid}").status_code == 404
    assert client.post("/api/sessions", json={"goal": 10**9}).status_code == 400
    r = client.post("/api/sessions", json={"split": "test", "seed": 7})
    assert r.status_code == 201 and 0 <= r.json()["goal_index"] < 500


def test_api_leases_expire_and_cap(bundled_shop):
    app = create_app(bundled_shop, session_ttl_s=0.3, max_sessions=2)
    with ServerThread(app) as srv, httpx.Client(base_url=srv.base_url) as c:
        a = c.post("/api/sessions", json={"goal": 1}).json()["session_id"]
        c.post("/api/sessions", json={"goal": 2})
        r = c.post("/api/sessions", json={"goal": 3})
        assert r.status_code == 429 and "too many" in r.json()["error"]
        time.sleep(0.5)
        r = c.get(f"/api/sessions/{a}")
        assert r.status_code == 410 and "expired" in r.json()["error"]
        assert c.post("/api/sessions", json={"goal": 3}).status_code == 201  # expired ones free their slots
        assert c.get("/api/sessions/unknown").status_code == 404


def _as_model_wrote_it(model: type, content: bytes) -> bytes:
    """The body the model would send: validated as ``model``, dumped, encoded by Starlette's stdlib JSONResponse."""
    from starlette.responses import JSONResponse

    return JSONResponse(model.model_validate(json.loads(content)).model_dump()).body


def test_api_bodies_are_byte_for_byte_what_their_models_write(client, bundled_shop):
    """The API builds bodies from trusted session state and encodes them with orjson; every one is the
    same bytes its response model (and Starlette's standard-library encoder) would have written, a
    purchase with its reward included, in both observation modes."""
    from shopsim.simsite.api_schema import (
        SessionCreated,
        SessionObservation,
        SessionRestored,
        SnapshotCreated,
        StepResponse,
    )

    for goal, mode in ((3, "text"), (11, "text_rich")):
        r = client.post("/api/sessions", json={"goal": goal, "mode": mode})
        assert r.content == _as_model_wrote_it(SessionCreated, r.content)
        sid, words = r.json()["session_id"], r.json()["page_state"]["instruction"].lower().split()[:4]
        steps = [client.post(f"/api/sessions/{sid}/step", json={"action": f"search[{' '.join(words)}]"})]
        asin = steps[0].json()["page_state"]["results"][0]["id"].lower()
        token = client.post(f"/api/sessions/{sid}/snapshot")
        assert token.content == _as_model_wrote_it(SnapshotCreated, token.content)
        for action in ("next >", "< prev", asin, "features", "< prev", "no such button", "buy now"):
            steps.append(client.post(f"/api/sessions/{sid}/step", json={"action": f"click[{action}]"}))
        assert steps[-1].json()["done"] and steps[-1].json()["reward_info"] is not None
        assert [s.json()["feedback"]["code"] for s in steps].count("not_available") == 1
        for s in steps:
            assert s.status_code == 200 and s.content == _as_model_wrote_it(StepResponse, s.content)
        got = client.get(f"/api/sessions/{sid}")
        assert got.content == _as_model_wrote_it(SessionObservation, got.content)
        back = client.post(f"/api/sessions/{sid}/restore", json={"snapshot": token.json()["snapshot"]})
        assert back.content == _as_model_wrote_it(SessionRestored, back.content)
        assert back.json()["page_state"]["page_type"] == "results" and not back.json()["done"]
