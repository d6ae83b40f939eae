"""A real headless Chromium shops on the real server: search, paging, options, sub-pages, buy; one page
serves every episode of a source and forgets each; click mode clicks only what a user could."""

from __future__ import annotations

import contextlib
import re
from pathlib import Path

import pytest
from _web_policies import run_episode
from conftest import ROOT

from shopsim.adapters.browser_source import BrowserSource
from shopsim.errors import ConfigError, SourceError

pytestmark = [pytest.mark.slow, pytest.mark.browser]
ARTIFACTS = ROOT / "test-artifacts"


@pytest.fixture
def browser(web_server, chromium_path, browser_shutdown):
    src = BrowserSource(web_server.base_url, mode="click", executable_path=chromium_path)
    yield src
    src.close()


def test_shop_in_a_browser(browser, bundled_shop):
    try:
        _shop(browser, bundled_shop)
    except BaseException:
        browser.screenshot(Path(ARTIFACTS) / "test_shop_in_a_browser.png")
        raise


def _shop(browser, shop):
    state = browser.reset(7)
    page = browser.page
    assert page.locator("#instruction-text h4").inner_text().startswith("Instruction:")
    state, *_ = browser.step("search[shoes for men]")
    assert state.page_type == "results" and "/search_results/" in page.url and state.page_num == 1
    state, *_ = browser.step("click[next >]")
    assert state.page_num == 2
    state, *_ = browser.step("click[< prev]")
    assert state.page_num == 1
    card = next(c for c in state.results if shop.products[c.id].options)
    state, *_ = browser.step(f"click[{card.id.lower()}]")
    assert state.page_type == "item" and state.product.id == card.id
    option = next(c for c in state.clickables if c.kind == "option")
    state, *_ = browser.step(f"click[{option.arg}]")
    assert state.product.selected[option.axis] == option.text
    assert page.locator(f"input[type='radio'][data-value='{option.text}']").first.is_checked() or "'" in option.text
    # a human clicks the label of another value
    other = next((v for v in state.product.options[option.axis] if v != option.text), None)
    if other is not None and "'" not in other:
        label_for = page.locator(f"input[type='radio'][data-axis='{option.axis}'][data-value='{other}']").first.get_attribute("id")
        with page.expect_navigation():
            page.click(f"label[for='{label_for}']")
        assert browser.translator.parse(page.content()).product.selected[option.axis] == other
        browser.episode.state = browser.translator.parse(page.content())
    state, *_ = browser.step("click[features]")
    assert state.page_type == "item_detail" and state.sub_page == "Features"
    state, *_ = browser.step("click[< prev]")
    assert state.page_type == "item"
    state, reward, done, truncated = browser.step("click[buy now]")
    assert done and not truncated and state.page_type == "done"
    assert page.locator("#reward pre").inner_text() == str(reward)
    assert "Your score (min 0.0, max 1.0)" in page.content()
    state = browser.reset(7)
    state, *_ = browser.step("search[shoes]")
    state, *_ = browser.step("click[back to search]")
    assert state.page_type == "search" and browser.page.locator("#search_input").count() == 1


# ---- one page for all of a source's episodes -------------------------------------------------------
_LEAVE_TRACES = """async () => {
  document.cookie = 'seen=1; path=/';
  localStorage.setItem('seen', '1');
  sessionStorage.setItem('seen', '1');
  window.name = 'seen';
  await new Promise((done) => { const r = indexedDB.open('seen'); r.onsuccess = () => { r.result.close(); done(); }; });
}"""
_WHAT_IS_LEFT = """async () => [document.cookie, localStorage.length, sessionStorage.length, window.name, history.length,
  (await indexedDB.databases()).map((d) => d.name)]"""


def test_a_kept_page_forgets_the_last_episode(web_server, chromium_path, browser_shutdown):
    """Cookies (the page's and the server's kind), storage, window.name and history go between episodes."""
    with BrowserSource(web_server.base_url, executable_path=chromium_path) as src:
        src.reset(3)
        page = src.page
        fresh = page.evaluate(_WHAT_IS_LEFT)
        page.evaluate(_LEAVE_TRACES)
        src.context.add_cookies([{"name": "server", "value": "1", "url": web_server.base_url, "httpOnly": True}])
        src.step("search[shoes]")
        assert page.evaluate(_WHAT_IS_LEFT)[:4] == ["seen=1", 1, 1, "seen"] and len(src.context.cookies()) == 2
        src.reset(4)
        assert src.page is page and src.context.cookies() == []
        assert page.evaluate(_WHAT_IS_LEFT) == fresh == ["", 0, 0, "", 1, []]


@pytest.mark.parametrize(("mode", "assets"), [("url", False), ("click", True)])
def test_episodes_on_a_kept_page_do_not_depend_on_their_order(mode, assets, web_server, chromium_path,
                                                              browser_shutdown):
    """The same goals, forwards then backwards on one page, give the same pages, actions and rewards."""
    goals = [(60, "rule"), (45, "random"), (120, "rule")]
    with BrowserSource(web_server.base_url, mode=mode, executable_path=chromium_path, assets=assets) as src:
        forwards = {goal: run_episode(src, goal, kind) for goal, kind in goals}
        page = src.page
        backwards = {goal: run_episode(src, goal, kind) for goal, kind in reversed(goals)}
        assert src.page is page
    assert all(steps[-1][5] for steps in forwards.values())  # each ends in a purchase
    assert forwards == backwards


# ---- click mode clicks what a user could -----------------------------------------------------------
@pytest.mark.parametrize(("change", "why"), [
    ("", "no element matches"),
    ("b.disabled = true", "the element is disabled"),
    ("b.style.visibility = 'hidden'", "the element is not visible"),
    ("b.style.display = 'none'", "the element is not visible"),
    ("const c = document.createElement('div'); c.id = 'cover'; c.style.cssText = "
     "'position:fixed;inset:0;z-index:9'; document.body.appendChild(c)", "covered at its centre by <div id=\"cover\""),
])
def test_click_mode_refuses_what_a_user_could_not_click(change, why, web_server, chromium_path, browser_shutdown):
    with BrowserSource(web_server.base_url, mode="click", executable_path=chromium_path) as src:
        src.reset(3)
        if change:
            src.page.evaluate(f"() => {{ const b = document.querySelector('button.search-btn'); {change}; }}")
        else:
            src.page.evaluate("() => document.querySelector('button.search-btn').remove()")
        with pytest.raises(SourceError, match=re.escape(why)):
            src.step("search[shoes]")
        assert "/search_results/" not in src.page.url


def test_a_kept_page_that_crashed_is_replaced(web_server, chromium_path, browser_shutdown):
    with BrowserSource(web_server.base_url, executable_path=chromium_path) as src:
        src.reset(3)
        crashed = src.page
        with contextlib.suppress(Exception):  # the navigation dies with the page
            crashed.goto("chrome://crash", timeout=10_000)
        state = src.reset(4)
        assert state.page_type == "search" and src.page is not crashed
        state, *_ = src.step("search[shoes]")
        assert state.page_type == "results"


def test_headless_prefers_the_headless_shell(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Where Debian's headless shell is installed, headless runs take it; a headed run cannot."""
    from shopsim.adapters.browser_source import find_browser

    monkeypatch.setenv("PLAYWRIGHT_BROWSERS_PATH", str(tmp_path))  # no Playwright download here
    shell = Path("/usr/bin/chromium-headless-shell")
    if not shell.exists():
        pytest.skip("Debian's chromium-headless-shell is not installed")
    assert find_browser() == str(shell)
    try:
        headed = find_browser(headless=False)
    except ConfigError:
        return  # only the shell is installed: nothing to run headed
    assert headed != str(shell)
