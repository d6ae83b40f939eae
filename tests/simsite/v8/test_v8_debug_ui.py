"""The v8 API's OpenAPI document matches the live server, and /debug-ui drives a real session in Chromium."""

from __future__ import annotations

import inspect
import re
from pathlib import Path
from typing import Any

import httpx
import pytest
from conftest import SHARED

from shopsim.simsite.server import ServerThread

SAMPLE = SHARED / "data" / "shopsim-sample" / "products.json"
SCREENSHOT = Path("/tmp/v8-debug-ui.png")
CART, OPTION = "824100258497", "颜色分类=三锅小吃车煮面炉＋关东煮＋油炸"

pytestmark = pytest.mark.skipif(
    not SAMPLE.exists(), reason=f"the ShopSimulator v8 sample kit is not at {SAMPLE} (it lives in ../shared, not in this repo)"
)


@pytest.fixture(scope="module")
def v8_shop() -> Any:
    from shopsim.simsite.v8.shop import V8Shop

    return V8Shop.load(SAMPLE)


@pytest.fixture(scope="module")
def v8_app(v8_shop: Any) -> Any:
    from shopsim.simsite.v8.service import create_v8_app

    return create_v8_app(v8_shop, slots=4, queue_timeout_s=5.0)


@pytest.fixture(scope="module")
def v8_server(v8_app: Any):
    with ServerThread(v8_app) as srv:
        yield srv


@pytest.fixture
def client(v8_server: ServerThread):
    with httpx.Client(base_url=v8_server.base_url, timeout=30.0) as c:
        yield c


@pytest.fixture(scope="module")
def spec() -> dict[str, Any]:
    from shopsim.simsite.v8.openapi import v8_openapi_spec

    return v8_openapi_spec()


# ---- helpers ---------------------------------------------------------------------------------------
def _schema(spec: dict[str, Any], name: str) -> dict[str, Any]:
    return spec["components"]["schemas"][name]


def _ref_name(node: dict[str, Any]) -> str | None:
    """The component a property points to (directly, or through ``anyOf [ref, null]``)."""
    if "$ref" in node:
        return node["$ref"].rsplit("/", 1)[-1]
    for option in node.get("anyOf", []):
        if "$ref" in option:
            return option["$ref"].rsplit("/", 1)[-1]
    return None


def _check_keys(spec: dict[str, Any], name: str, body: dict[str, Any]) -> None:
    """Every returned key is a documented property, every required property is returned; recurse into refs."""
    schema = _schema(spec, name)
    props = schema["properties"]
    assert set(body) <= set(props), f"{name}: undocumented keys {sorted(set(body) - set(props))}"
    assert set(schema.get("required", [])) <= set(body), f"{name}: missing {sorted(set(schema['required']) - set(body))}"
    for key, value in body.items():
        sub = _ref_name(props[key])
        if sub is not None and isinstance(value, dict):
            _check_keys(spec, sub, value)


def _response_schema(spec: dict[str, Any], path: str, method: str, status: int) -> str:
    responses = spec["paths"][path][method]["responses"]
    assert str(status) in responses, f"{method.upper()} {path} answered {status}, which is not documented"
    return _ref_name(responses[str(status)]["content"]["application/json"]["schema"]) or ""


def _error(spec: dict[str, Any], path: str, method: str, resp: httpx.Response, status: int, code: str) -> None:
    from shopsim.simsite.v8.openapi import V8Error

    assert resp.status_code == status, resp.text
    assert _response_schema(spec, path, method, status) == "V8Error"
    body = V8Error.model_validate(resp.json())
    assert body.code == code


# ---- (a) the OpenAPI document --------------------------------------------------------------------
def test_openapi_lists_every_api_route(v8_app: Any, spec: dict[str, Any]) -> None:
    served = {(r.path, m.lower()) for r in v8_app.routes if r.path.startswith("/api/") for m in r.methods if m != "HEAD"}
    documented = {(p, m) for p, ops in spec["paths"].items() for m in ops}
    assert served == documented
    assert spec["openapi"] == "3.1.0"
    refs = re.findall(r"#/components/schemas/(\w+)", repr(spec))
    assert refs and set(refs) <= set(spec["components"]["schemas"])
    description = spec["info"]["description"]
    assert "queue" in description and "503" in description and "429" in description  # "there is no 429"
    for path, method, status in [("/api/sessions", "post", 201), ("/api/sessions/{lease}/step", "post", 200),
                                 ("/api/sessions/{lease}/terminate", "post", 200),
                                 ("/api/sessions/{lease}", "get", 200), ("/api/sessions/{lease}", "delete", 204)]:
        assert str(status) in spec["paths"][path][method]["responses"]
    for code in ("400", "404", "413", "422", "503"):
        assert code in spec["paths"]["/api/sessions"]["post"]["responses"]
    for code in ("400", "404", "409", "413", "422"):
        assert code in spec["paths"]["/api/sessions/{lease}/step"]["post"]["responses"]
    assert "429" not in repr(spec["paths"])


def test_every_error_code_of_the_service_is_documented() -> None:
    """A new ``_error(status, code, ...)`` in service.py must reach the document's V8Error enum."""
    from shopsim.simsite.v8 import service
    from shopsim.simsite.v8.openapi import ERROR_CODES

    used = set(re.findall(r'_error\(\s*\d{3},\s*"(\w+)"', inspect.getsource(service)))
    assert used, "no _error(...) calls found: has service.py changed shape?"
    assert used <= set(ERROR_CODES), sorted(used - set(ERROR_CODES))


def test_live_responses_are_documented(client: httpx.Client, spec: dict[str, Any]) -> None:
    from shopsim.simsite.v8.openapi import V8Environment, V8Health, V8ResetResponse, V8StepResponse

    sessions, step, terminate, one = ("/api/sessions", "/api/sessions/{lease}/step",
                                      "/api/sessions/{lease}/terminate", "/api/sessions/{lease}")
    r = client.post(sessions, json={"task_id": 3538, "task_mode": "persona", "include_private": True})
    assert r.status_code == 201, r.text
    reset = r.json()
    assert _response_schema(spec, sessions, "post", 201) == "V8ResetResponse"
    _check_keys(spec, "V8ResetResponse", reset)
    V8ResetResponse.model_validate(reset)
    assert "private_task_instruction" in reset and reset["user_persona"] is not None
    lease = reset["lease_id"]
    url = f"/api/sessions/{lease}"

    bodies = []
    for action in ["search[可移动小吃车]", f"click[{CART}]", f"click[{OPTION}]", "click[buy now]"]:
        r = client.post(f"{url}/step", json={"action": action})
        assert r.status_code == 200, r.text
        bodies.append(r.json())
    assert [b["action_feedback"] for b in bodies] == ["ok"] * 4
    final = bodies[-1]
    assert final["done"] and final["termination"] == "purchase" and final["reward_detail"]["r_strict"] == 1
    assert _response_schema(spec, step, "post", 200) == "V8StepResponse"
    for body in bodies:
        _check_keys(spec, "V8StepResponse", body)
        V8StepResponse.model_validate(body)
    r = client.get(url)
    assert r.status_code == 200 and _response_schema(spec, one, "get", 200) == "V8StepResponse"
    _check_keys(spec, "V8StepResponse", r.json())

    _error(spec, step, "post", client.post(f"{url}/step", json={"action": "click[buy now]"}), 409, "episode_over")
    _error(spec, terminate, "post", client.post(f"{url}/terminate", json={"reason": "generation_length"}), 409,
           "episode_over")
    assert client.delete(url).status_code == 204
    _error(spec, one, "get", client.get(url), 404, "unknown_lease")
    _error(spec, one, "delete", client.delete(url), 404, "unknown_lease")
    _error(spec, step, "post", client.post(f"{url}/step", json={"action": "click[x]"}), 404, "unknown_lease")

    # a standard-mode session ended by the runtime, and the client errors of a live lease
    r = client.post(sessions, json={"task_id": 3538, "task_mode": "standard", "max_actions": 5})
    assert r.status_code == 201
    reset = r.json()
    _check_keys(spec, "V8ResetResponse", reset)
    assert reset["user_persona"] is None and "private_task_instruction" not in reset
    url = f"/api/sessions/{reset['lease_id']}"
    r = client.post(f"{url}/step", json={"action": "buy it now"})
    assert r.status_code == 200 and r.json()["action_feedback"] == "invalid_format"
    _error(spec, step, "post", client.post(f"{url}/step", content=b"{nope"), 400, "malformed_json")
    _error(spec, step, "post", client.post(f"{url}/step", content=b"x" * 70_000), 413, "body_too_large")
    bad = client.post(f"{url}/step", json={"action": "click[x]", "extra": 1})
    _error(spec, step, "post", bad, 422, "invalid_body")
    assert bad.json()["detail"]
    _error(spec, step, "post", client.post(f"{url}/step", json={"tool": "buy", "arguments": {}}), 422,
           "invalid_tool_call")
    _error(spec, terminate, "post", client.post(f"{url}/terminate", json={"reason": "bored"}), 422, "invalid_body")
    r = client.post(f"{url}/terminate", json={"reason": "generation_length"})
    assert r.status_code == 200 and _response_schema(spec, terminate, "post", 200) == "V8StepResponse"
    ended = r.json()
    _check_keys(spec, "V8StepResponse", ended)
    assert ended["termination"] == "generation_length" and ended["reward"] == 0.0
    assert client.delete(url).status_code == 204
    _error(spec, sessions, "post", client.post(sessions, json={"task_id": 424242}), 404, "unknown_task")
    _error(spec, sessions, "post", client.post(sessions, content=b"[1]"), 400, "malformed_json")

    health = client.get("/api/health").json()
    _check_keys(spec, "V8Health", health)
    V8Health.model_validate(health)
    V8Environment.model_validate(client.get("/api/environment").json())
    assert client.get("/api/openapi.json").json() == spec


def test_debug_page_is_self_contained(client: httpx.Client, v8_shop: Any) -> None:
    r = client.get("/debug-ui")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
    html = r.text
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", html), "the page must not load external assets"
    assert "innerHTML" not in html and "insertAdjacentHTML" not in html and "document.write" not in html
    assert f'"id": {v8_shop.goals[0].task_id}' in html
    assert client.get("/", follow_redirects=False).headers["location"] == "/debug-ui"


# ---- (b) the page in a real browser ----------------------------------------------------------------
@pytest.fixture
def page(v8_server: ServerThread, chromium_path: str | None, browser_shutdown: None):
    from shopsim.adapters.browser_source import _Browser

    context = _Browser.get(chromium_path, True).browser.new_context(viewport={"width": 1280, "height": 900})
    context.set_default_timeout(15_000)
    pg = context.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda exc: errors.append(str(exc)))
    pg.goto(f"{v8_server.base_url}/debug-ui")
    yield pg
    context.close()
    assert not errors, f"JavaScript errors on /debug-ui: {errors}"


def _start(page: Any, task_id: str, mode: str) -> None:
    from playwright.sync_api import expect

    before = page.locator("#lease-id").text_content()
    page.fill("#task-id", task_id)
    page.select_option("#task-mode", mode)
    page.click("#start")
    expect(page.locator("#lease-id")).to_have_text(re.compile(r"^[0-9a-f]{32}$"))
    expect(page.locator("#lease-id")).not_to_have_text(before or "-")
    expect(page.locator("#s-task")).to_have_text(task_id)
    expect(page.locator("#page-type")).to_have_text("search")


@pytest.mark.slow
@pytest.mark.browser
def test_debug_ui_buys_task_3538_in_chromium(page: Any) -> None:
    from playwright.sync_api import expect

    expect(page.locator("#task-id")).to_have_value("3538")  # prefilled with the shop's first task
    _start(page, "3538", "persona")
    expect(page.locator("#s-mode")).to_have_text("persona")
    expect(page.locator("#persona-box")).to_be_visible()
    assert "__reasoning__" not in page.locator("#persona").text_content()
    expect(page.locator("#search-btn")).to_be_enabled()

    page.fill("#search-input", "可移动小吃车")
    page.click("#search-btn")
    expect(page.locator("#page-type")).to_have_text("results")
    expect(page.locator("#search-btn")).to_be_disabled()  # search only on the search page
    page.click(f'#clickables button[data-value="{CART}"]')
    expect(page.locator("#page-type")).to_have_text("product")
    expect(page.locator('#clickables button[data-value="buy now"]')).to_have_count(0)  # options incomplete
    page.click(f'#clickables button[data-value="{OPTION}"]')
    expect(page.locator(f'#clickables button[data-value="{OPTION}"]')).to_have_class(re.compile(r"\bsel\b"))
    page.click('#clickables button[data-value="buy now"]')

    # the session's first purchase loads the type reward's word segmenter (jieba's dictionary): seconds
    # on a busy machine, so this one wait is longer than Playwright's 5 s default
    expect(page.locator("#termination")).to_have_text("purchase", timeout=30_000)
    expect(page.locator('#reward-table tr[data-key="r_strict"] td')).to_have_text("1")
    expect(page.locator('#reward-table tr[data-key="price_verifiable"] td')).to_have_text("true")
    expect(page.locator("#steps")).to_have_text("4 / 30")
    expect(page.locator("#terminate")).to_be_disabled()
    page.screenshot(path=str(SCREENSHOT), full_page=True)

    # a malformed action is a counted step answered invalid_format, shown as a refused action
    _start(page, "3538", "standard")
    expect(page.locator("#persona-box")).to_be_hidden()
    page.fill("#raw-action", "buy it now")
    page.click("#raw-send")
    expect(page.locator("#feedback")).to_have_attribute("data-code", "invalid_format")
    expect(page.locator("#feedback")).to_have_class(re.compile(r"\bbad\b"))
    expect(page.locator("#steps")).to_have_text("1 / 30")

    # markup in agent-controlled text stays text
    page.fill("#search-input", '<img src=x onerror="window.__pwned=1"><b id="inj">x</b>')
    page.click("#search-btn")
    expect(page.locator("#page-type")).to_have_text("results")
    assert page.locator("#inj").count() == 0 and page.evaluate("window.__pwned") is None
    assert "<b id=" in page.locator("#state").text_content()

    page.click("#terminate")
    expect(page.locator("#termination")).to_have_text("generation_length")
    expect(page.locator('#reward-table tr[data-key="r_strict"] td')).to_have_text("0")
    page.click("#release")
    expect(page.locator("#session")).to_be_hidden()

    # API errors reach the error line
    page.fill("#task-id", "424242")
    page.click("#start")
    expect(page.locator("#error")).to_contain_text("404 unknown_task")

    # the labels switch language
    page.click("#lang-toggle")
    expect(page.locator("#start")).to_have_text("开始")
    expect(page.locator("html")).to_have_attribute("lang", "zh-CN")
