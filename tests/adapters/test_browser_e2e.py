"""A real headless Chromium shops on the real server: search, paging, options, sub-pages, buy."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import ROOT

from shopsim.adapters.browser_source import BrowserSource

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


def test_a_kept_page_that_crashed_is_replaced(web_server, chromium_path, browser_shutdown):
    with BrowserSource(web_server.base_url, executable_path=chromium_path) as src:
        src.reset(3)
        crashed = src.page
        with contextlib.suppress(Exception):  # the call dies with the page
            src.context.new_cdp_session(crashed).send("Page.crash")
        state = src.reset(4)
        assert state.page_type == "search" and src.page is not crashed
        state, *_ = src.step("search[shoes]")
        assert state.page_type == "results"
