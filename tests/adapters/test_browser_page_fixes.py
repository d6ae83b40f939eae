"""What browser-agent harnesses read off the sim's pages, checked in real Chromium: every clickable
element has a role and a name in the accessibility tree, set-of-marks boxes stay inside a short
viewport, and BrowserGym's own DOM text (which writes attribute values unescaped) keeps our hooks.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from selectolax.lexbor import LexborHTMLParser

from shopsim.adapters.browser_source import BrowserSource
from shopsim.attr_text import read_attr_json, read_attr_text
from shopsim.page import PageState
from shopsim.simsite.server import serve_shop
from shopsim.simsite.shop import Shop

pytestmark = [pytest.mark.slow, pytest.mark.browser]
GOAL = 7
SHORT = (1280, 720)


@pytest.fixture(scope="module")
def server(bundled_shop: Shop):
    with serve_shop(bundled_shop) as srv:
        yield srv


def _every_page_type(src: BrowserSource, shop: Shop) -> Iterator[PageState]:
    """Search, results, item (before and after an option), a sub page and done, each while ``src`` shows it."""
    state = src.reset(GOAL)
    yield state
    state, *_ = src.step('search[shoes for men "leather" & <b>]')
    yield state
    card = next(c.id for c in state.results if shop.products[c.id].options)
    state, *_ = src.step(f"click[{card.lower()}]")
    yield state
    state, *_ = src.step(f"click[{next(c for c in state.clickables if c.kind == 'option').arg}]")
    yield state
    yield src.step("click[description]")[0]
    src.step("click[< prev]")
    yield src.step("click[buy now]")[0]


def _clickables_without_a_name(page: Any) -> list[str]:
    """Elements Chromium reports clickable (DOMSnapshot, as BrowserGym reads it) whose AX node has no role or name."""
    cdp = page.context.new_cdp_session(page)
    try:
        snap = cdp.send("DOMSnapshot.captureSnapshot", {"computedStyles": []})
        nodes, strings = snap["documents"][0]["nodes"], snap["strings"]
        clickable = {nodes["backendNodeId"][i]: strings[nodes["nodeName"][i]] for i in nodes["isClickable"]["index"]}
        ax = {n.get("backendDOMNodeId"): n for n in cdp.send("Accessibility.getFullAXTree")["nodes"]}
    finally:
        cdp.detach()
    bad = []
    for backend, tag in clickable.items():
        node = ax.get(backend, {})
        role, name = (node.get("role") or {}).get("value"), (node.get("name") or {}).get("value")
        if not role or not str(name or "").strip():
            bad.append(f"<{tag.lower()}> role={role!r} name={name!r}")
    return bad


def test_every_clickable_element_has_a_role_and_a_name(server, chromium_path, browser_shutdown, bundled_shop):
    types, labels = [], 0
    with BrowserSource(server.base_url, executable_path=chromium_path) as src:
        for state in _every_page_type(src, bundled_shop):
            types.append(state.page_type)
            labels += src.page.locator("label[for]").count()
            assert _clickables_without_a_name(src.page) == [], state.url
    assert types == ["search", "results", "item", "item", "item_detail", "done"]
    assert labels > 0  # the option labels were among them


def test_set_of_marks_boxes_stay_inside_a_short_viewport(server, chromium_path, browser_shutdown):
    """At 1280x720 a ten-result page runs far below the picture: only what is shown is boxed, clipped to it."""
    with BrowserSource(server.base_url, executable_path=chromium_path, viewport=SHORT) as src:
        src.reset(GOAL)
        state, *_ = src.step("search[shoes for men]")
        som = src.observe("som")
        rects = src.page.evaluate("""(attr) => Array.from(document.querySelectorAll('[' + attr + ']'), (el) => {
            const r = el.getBoundingClientRect();
            return [el.getAttribute(attr), r.left, r.top, r.right, r.bottom]; })""", "data-shopsim-id")
    width, height = SHORT
    inside = {i for i, left, top, right, bottom in rects if right > 0 and bottom > 0 and left < width and top < height}
    below = {i for i, _, top, _, _ in rects if top >= height}
    assert len(state.results) == 10 and below, "the page should run below the viewport"
    assert set(som.boxes) == inside and som.shown == tuple(som.boxes)
    for eid, (l1, t1, r1, b1, l2, t2, r2, b2) in som.boxes.items():
        assert 0 <= l1 < r1 <= width and 0 <= t1 < b1 <= height, (eid, som.boxes[eid])
        assert 0 <= l2 < r2 <= width and 0 <= t2 < b2 <= height, (eid, som.boxes[eid])


def test_browsergym_dom_text_keeps_our_hooks(server, chromium_path, browser_shutdown, bundled_shop):
    """BrowserGym's ``flatten_dom_to_str`` writes ``name="value"`` unescaped: our encoded hooks come through whole."""
    obs = pytest.importorskip("browsergym.utils.obs", reason="BrowserGym is not installed (extra shopsim[browsergym])")
    with BrowserSource(server.base_url, executable_path=chromium_path) as src:
        src.reset(GOAL)
        state, *_ = src.step('search[shoes for men "leather" & <b>]')
        card = next(c.id for c in state.results if bundled_shop.products[c.id].options)
        state, *_ = src.step(f"click[{card.lower()}]")
        cdp = src.page.context.new_cdp_session(src.page)
        snap = cdp.send("DOMSnapshot.captureSnapshot", {"computedStyles": [], "includeDOMRects": True})
        cdp.detach()
    tree = LexborHTMLParser(obs.flatten_dom_to_str(snap))
    body = tree.css_first("body").attributes
    assert read_attr_json(body["data-keywords"]) == state.keywords and '"leather"' in state.keywords
    assert read_attr_text(body["data-query"]) == state.query and read_attr_text(body["data-url"]) == state.url
    radios = tree.css("input[type=radio]")
    assert state.product is not None and radios
    assert [read_attr_text(r.attributes["data-value"]) for r in radios] == [
        v for values in state.product.options.values() for v in values]
