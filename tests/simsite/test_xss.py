"""Catalog text is data, never markup: a catalog made of classic XSS payloads, served and shown in
real headless Chromium on every page kind (WebShop pages, error pages, API docs, the run viewer and
the v8 debug UI), runs no script, adds no handler and evaluates no template expression.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

import pytest

from shopsim.simsite.server import ServerThread

pytestmark = pytest.mark.browser

TEMPLATE_PROBE, TEMPLATE_EVALUATED = "tpl{{7*7}}tpl", "tpl49tpl"


def bomb(tag: str) -> str:
    """Every classic vector at once, each naming where it was planted (``xss-<tag>``)."""
    call = f"alert('xss-{tag}')"
    return (f"<script>{call}</script> <img src=x onerror={call}> \" autofocus onfocus={call} x=\" "
            f"' autofocus onfocus={call} x=' </textarea></title></script><svg onload={call}> "
            f"<a href=\"javascript:{call}\">link</a> javascript:{call} {TEMPLATE_PROBE}")


def _webshop_catalog(folder: Path) -> Path:
    """Two products in WebShop's file formats with a payload in every field a page can show."""
    items, attributes, human, reviews = [], {}, {}, []
    for i, asin in enumerate(["B0XSS00001", "B0XSS00002"]):
        items.append({
            "asin": asin, "name": f"steel lunch box {i} " + bomb(f"title{i}"),
            "full_description": "insulated " + bomb("description"),
            "small_description": ["leak proof " + bomb("bullet"), bomb("bullet2")],
            "pricing": "$12.99", "images": ["javascript:alert('xss-image')", bomb("image")],
            "customization_options": {
                "color": [{"value": "red " + bomb("option"), "image": "javascript:alert('xss-option-image')"},
                          {"value": "blue", "image": None}],
                "size " + bomb("axis"): [{"value": "large", "image": None}]},
            "product_category": "Home › Kitchen › " + bomb("category"), "category": "kitchen",
            "query": "lunch box", "average_rating": "", "page": 1})
        attributes[asin] = {"attributes": ["leak proof", bomb("attribute")], "instruction_attributes": ["leak proof"],
                            "instruction": "i want a steel lunch box " + bomb("instruction")}
        human[asin] = [{"asin": asin, "instruction": "a lunch box " + bomb("human"), "attributes": ["leak proof"],
                        "options": ["color: blue"], "instruction_attributes": ["leak proof"],
                        "instruction_options": ["blue"], "assignment_id": "a", "worker_id": "w"}]
        reviews.append({"asin": asin, "average_rating": 4.5,
                        "reviews": [{"title": bomb("review-title"), "score": 5, "body": bomb("review-body")}]})
    folder.mkdir(parents=True)
    for name, data in (("items_shuffle_xss.json", items), ("items_ins_v2_xss.json", attributes),
                       ("items_human_ins_xss.json", human), ("reviews_xss.json", reviews)):
        (folder / name).write_text(json.dumps(data), encoding="utf-8")
    return folder


def _v8_catalog(path: Path) -> Path:
    """One v8 product (ShopSimulator's format) with payloads in text, options, attributes and persona."""
    persona = {"用户ID": bomb("persona-id"), "人口属性": {"年龄段": bomb("persona-age")},
               "用户标签": [bomb("persona-tag")], "兴趣偏好": {"类目偏好": {bomb("persona-key"): "高"}}}
    product = {
        "asin": "100000000001", "title": "steel lunch box " + bomb("v8-title"), "shop_name": bomb("v8-shop"),
        "category": ["Kitchen", bomb("v8-category")], "pricing": [20, 30],
        "customization_options": {"color": [{"value": "red " + bomb("v8-option"), "price": 20},
                                            {"value": "blue", "price": 30}]},
        "attribute": {"material": bomb("v8-attribute")}, "full_description": bomb("v8-description"),
        "small_description": [bomb("v8-bullet")],
        "instructions": [{"task_id": 1, "instruction": "a steel lunch box " + bomb("v8-instruction"),
                          "instruction_simple": bomb("v8-simple"), "attributes": ["steel"],
                          "instruction_options": {"color": "blue"}, "price_upper": 35, "task_mode": "persona",
                          "user_persona": persona}]}
    path.write_text(json.dumps([product], ensure_ascii=False), encoding="utf-8")
    return path


# What the page must not have; run in the page after each load.
_PROBE = """() => {
  const bad = [];
  const urlAttrs = ["href", "src", "action", "formaction", "data", "xlink:href", "srcdoc", "poster"];
  for (const el of document.querySelectorAll("*")) {
    for (const a of el.attributes) {
      const name = a.name.toLowerCase();
      if (name.startsWith("on")) bad.push(el.tagName + " has " + name);
      if (name === "autofocus") bad.push(el.tagName + " has autofocus");
      if (urlAttrs.includes(name) && /^\\s*javascript:/i.test(a.value)) bad.push(el.tagName + " " + name + "=javascript:");
    }
    if (["IFRAME", "FRAME", "OBJECT", "EMBED"].includes(el.tagName)) bad.push("a " + el.tagName);
  }
  for (const s of document.scripts) {
    if ((s.type || "").toLowerCase() === "application/json") continue;
    if (s.src || /alert\\(|xss-/.test(s.textContent)) bad.push("script: " + s.outerHTML.slice(0, 120));
  }
  return bad;
}"""


class _Watch:
    """One browser page and everything it might have done wrong."""

    def __init__(self, page: Any):
        self.page = page
        self.dialogs: list[str] = []
        self.console: list[str] = []
        self.requests: list[str] = []
        page.on("dialog", self._dialog)
        page.on("console", lambda m: self.console.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda exc: self.console.append(f"pageerror: {exc}"))
        page.on("request", lambda r: self.requests.append(r.url))
        self.pages = 0

    def _dialog(self, dialog: Any) -> None:
        self.dialogs.append(dialog.message)
        dialog.dismiss()

    def check(self, where: str, planted: bool = True) -> None:
        """Fail on any sign of a payload at work on the page now shown (``planted``: it shows one)."""
        self.pages += 1
        page = self.page
        page.wait_for_load_state("load")
        page.wait_for_timeout(50)  # let autofocus / onload handlers fire, were there any
        html, text = page.content(), page.locator("body").inner_text()
        assert not self.dialogs, f"{where}: a dialog opened: {self.dialogs}"
        assert not [c for c in self.console if "xss" in c or "alert" in c], f"{where}: {self.console}"
        assert not [u for u in self.requests if urlsplit(u).path.rstrip("/").endswith("/x")], \
            f"{where}: an injected <img src=x> was fetched"
        assert page.evaluate(_PROBE) == [], f"{where}: {page.evaluate(_PROBE)}"
        assert TEMPLATE_EVALUATED not in html and TEMPLATE_EVALUATED not in text, f"{where}: {{{{7*7}}}} became 49"
        if planted:
            # the done page keeps the purchase in WebShop's hidden block: text there, though not rendered
            shown = text + page.evaluate("() => document.title + (document.querySelector('#purchase')?.textContent || '')")
            assert TEMPLATE_PROBE in shown, f"{where}: the planted text is not on the page, so this page tested nothing"


@pytest.fixture(scope="module")
def browser_context(chromium_path: str | None, browser_shutdown: None) -> Iterator[Any]:
    from shopsim.adapters.browser_source import _Browser

    context = _Browser.get(chromium_path, True).browser.new_context()
    context.set_default_timeout(15_000)
    yield context
    context.close()


def _nav(page: Any, selector: str) -> None:
    with page.expect_navigation():
        page.locator(selector).first.click()


@pytest.mark.slow
def test_webshop_pages_show_payloads_as_text(tmp_path: Path, browser_context: Any) -> None:
    from shopsim.agents.evaluation.config import EvalConfig
    from shopsim.agents.evaluation.runner import run_eval
    from shopsim.agents.reports.viewer import viewer_routes
    from shopsim.simsite.shop import Shop, ShopConfig
    from shopsim.simsite.web import create_app

    data = _webshop_catalog(tmp_path / "catalog")
    shop = Shop.from_config(ShopConfig(data_dir=data))
    runs = tmp_path / "runs"
    run_eval(EvalConfig(agent="rule", goals=[0, 1], data=str(data), out=str(runs / "xss")), progress=False)
    watch = _Watch(browser_context.new_page())
    page = watch.page
    with ServerThread(create_app(shop, extra_routes=viewer_routes(runs))) as srv:
        base = srv.base_url
        page.goto(f"{base}/fixed_0")
        watch.check("search page")
        reflected = ["lunch", "box", "<img", "src=x", "onerror=alert('xss-kw')>", '"><svg', "onload=alert('xss-kw')>",
                     TEMPLATE_PROBE]
        page.goto(f"{base}/search_results/fixed_0/{'+'.join(quote(w, safe='') for w in reflected)}/1")
        watch.check("results page")
        _nav(page, "a.product-link")
        watch.check("item page")
        _nav(page, "input[type='radio']")  # the value with the payload: selected, it is in the URL too
        watch.check("item page, payload option chosen")
        _nav(page, "input[type='radio'][value='large']")  # the axis named by a payload
        watch.check("item page, payload axis chosen")
        item = page.url
        subs = page.locator("[data-action='sub-page']").evaluate_all("bs => bs.map(b => b.dataset.subPage)")
        assert {"Description", "Features", "Reviews"} <= set(subs)
        for sub in subs:
            page.goto(item)
            _nav(page, f"[data-action='sub-page'][data-sub-page='{sub}']")
            watch.check(f"{sub} sub-page")
        page.goto(item)
        _nav(page, "[data-action='buy-now']")
        watch.check("done page")
        for path, where in ((quote("<svg onload=alert('xss-sid')>" + TEMPLATE_PROBE, safe=""), "bad session"),
                            ("item_page/fixed_0/" + quote("<img src=x onerror=alert('xss-asin')>", safe="")
                             + "/lunch/1/%7B%7D", "unknown product")):
            page.goto(f"{base}/{path}")
            watch.check(f"error page ({where})", planted=False)
        page.goto(f"{base}/api/docs")
        watch.check("API docs", planted=False)
        page.goto(f"{base}/runs")
        watch.check("run list", planted=False)
        page.goto(f"{base}/runs/xss")
        watch.check("run report", planted=False)
        page.goto(f"{base}/runs/xss/episodes/0")
        watch.check("episode viewer")
    assert watch.pages == 12 + len(subs)


def test_v8_debug_ui_shows_payloads_as_text(tmp_path: Path, browser_context: Any) -> None:
    from playwright.sync_api import expect

    from shopsim.simsite.v8.service import create_v8_app
    from shopsim.simsite.v8.shop import V8Shop

    shop = V8Shop.load(_v8_catalog(tmp_path / "products.json"))
    watch = _Watch(browser_context.new_page())
    page = watch.page
    with ServerThread(create_v8_app(shop, slots=1, queue_timeout_s=5)) as srv:
        page.goto(f"{srv.base_url}/debug-ui")
        watch.check("debug UI", planted=False)
        page.select_option("#task-mode", "persona")
        page.click("#start")
        expect(page.locator("#page-type")).to_have_text("search")
        watch.check("debug UI: task and persona")
        page.fill("#search-input", "steel lunch box " + bomb("v8-query"))
        page.click("#search-btn")
        expect(page.locator("#page-type")).to_have_text("results")
        watch.check("debug UI: results")
        page.click("#clickables button[data-value='100000000001']")
        expect(page.locator("#page-type")).to_have_text("product")
        watch.check("debug UI: product")
        page.locator("#clickables .grp button").first.click()
        expect(page.locator("#clickables button.sel")).to_have_count(1)
        watch.check("debug UI: payload option chosen")
        page.click("#clickables button[data-value='buy now']")
        expect(page.locator("#outcome")).to_have_class("on miss", timeout=30_000)  # the first purchase loads jieba
        watch.check("debug UI: outcome")


def test_the_checks_catch_a_page_that_renders_payloads_raw(browser_context: Any) -> None:
    """The negative control: the same payloads pasted in as markup must fail ``check``."""
    watch = _Watch(browser_context.new_page())
    watch.page.set_content("<html><body><p>" + bomb("control").replace(TEMPLATE_PROBE, TEMPLATE_EVALUATED)
                           + "</p><input value='x' autofocus></body></html>")
    with pytest.raises(AssertionError, match=r"dialog|has on|autofocus"):
        watch.check("control", planted=False)
    assert watch.dialogs and watch.page.evaluate(_PROBE)
