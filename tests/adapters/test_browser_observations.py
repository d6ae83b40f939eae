"""Browser observation modes (screenshot, axtree, som, dom) on a real server through real Chromium.

Element ids must mean the same action in every mode and lead where that ``click[...]`` leads; the
same seed and actions must give the same text and the same screenshot bytes; traces, videos and a
caller-owned page must work. The PNG decoder and the id helpers are checked without a browser.
"""

from __future__ import annotations

import re
import struct
import zipfile
import zlib
from pathlib import Path

import numpy as np
import pytest

from shopsim.adapters.browser_obs import (
    BROWSER_MODES,
    DEFAULT_VIEWPORT,
    MARK_ATTR,
    action_for_id,
    element_actions,
    render_axtree,
)
from shopsim.adapters.browser_source import BrowserSource, playwright_ffmpeg
from shopsim.adapters.env import ShopEnv
from shopsim.adapters.screenshots import PALETTE, decode_png
from shopsim.adapters.sources import HttpSource, InProcessSource
from shopsim.errors import ConfigError
from shopsim.page import Clickable, PageState
from shopsim.render import render_simple
from shopsim.simsite.server import serve_shop
from shopsim.simsite.shop import Shop

GOAL = 7
WIDTH, HEIGHT = DEFAULT_VIEWPORT


@pytest.fixture(scope="module")
def server(bundled_shop: Shop):
    with serve_shop(bundled_shop) as srv:
        yield srv


@pytest.fixture
def source(server, chromium_path, browser_shutdown):
    src = BrowserSource(server.base_url, executable_path=chromium_path)
    yield src
    src.close()


def _item_card(shop: Shop, state: PageState) -> str:
    """A result with options, so the item page has option ids too."""
    return next(c.id for c in state.results if shop.products[c.id].options)


def _walk(env: ShopEnv, shop: Shop) -> list[tuple[object, dict]]:
    """Search page, results page, item page: (observation, info) of each."""
    out = [env.reset(seed=0, options={"goal": GOAL})]
    obs, _, _, _, info = env.step("search[shoes for men]")
    out.append((obs, info))
    obs, _, _, _, info = env.step(f"click[{_item_card(shop, info['page_state']).lower()}]")
    out.append((obs, info))
    return out


# ---- every mode on a search, results and item page ------------------------------------------------
@pytest.mark.slow
@pytest.mark.browser
@pytest.mark.parametrize("mode", BROWSER_MODES)
def test_each_mode_on_search_results_and_item_pages(mode, server, chromium_path, browser_shutdown, bundled_shop):
    env = ShopEnv(bundled_shop, observation_mode=mode, source=BrowserSource(server.base_url, executable_path=chromium_path))
    try:
        pages = _walk(env, bundled_shop)
    finally:
        env.close()
    assert [info["page_state"].page_type for _, info in pages] == ["search", "results", "item"]
    for obs, info in pages:
        state = info["page_state"]
        assert env.observation_space.contains(obs)
        assert info["element_actions"] == element_actions(state)
        assert len(info["element_actions"]) == len(state.clickables) > 0
        if mode in ("screenshot", "som"):
            assert obs.shape == (HEIGHT, WIDTH, 3) and obs.dtype == np.uint8
            assert info["screenshot_png"].startswith(b"\x89PNG") and np.array_equal(decode_png(info["screenshot_png"]), obs)
            continue
        assert isinstance(obs, str) and "actions without an element" not in obs  # the sim marks every clickable
        for eid, action in info["element_actions"].items():
            if mode == "axtree":
                assert re.search(rf"^\s*\[{eid}\] \w+", obs, re.M), (eid, action)
            else:
                assert f'bid="{eid}"' in obs, (eid, action)
        assert "<script" not in obs and "shopsim-state" not in obs and "fixed_7_" not in obs
    search, results, item = (obs for obs, _ in pages)
    if mode == "axtree":
        assert '[1] textbox "Search..."' in search
        assert '[1] button "Back to Search"' in results and '[2] button "Next >"' in results
        assert re.search(r'\[\d+\] button "Buy Now"', item) and re.search(r'\[\d+\] radio "', item)
    elif mode == "dom":
        assert 'bid="1"' in search and 'id="search_input"' in search
        assert 'data-action="buy-now"' in item and "<title>" in item and "display" not in item


# ---- ids are actions --------------------------------------------------------------------------
@pytest.mark.slow
@pytest.mark.browser
def test_ids_map_to_the_actions_the_env_accepts(server, chromium_path, browser_shutdown, bundled_shop):
    """An id read off the axtree, taken as an action, lands where the same click lands in-process."""
    env = ShopEnv(bundled_shop, observation_mode="axtree", source=BrowserSource(server.base_url, executable_path=chromium_path))
    ref = ShopEnv(bundled_shop)
    try:
        obs, info = env.reset(options={"goal": GOAL})
        ref.reset(options={"goal": GOAL})
        assert action_for_id(info, "[1]", query="shoes for men") == "search[shoes for men]"
        obs, *_, info = env.step(action_for_id(info, 1, query="shoes for men"))
        ref.step("search[shoes for men]")
        asin = _item_card(bundled_shop, info["page_state"])
        eid = re.search(rf'\[(\d+)\] link "{asin}"', obs).group(1)
        assert action_for_id(info, eid) == f"click[{asin.lower()}]"
        for _ in range(2):  # the product, then one of its option values
            action = action_for_id(info, eid)
            obs, _, _, _, info = env.step(action)
            ref_obs, *_ = ref.step(action)
            assert info["feedback"].code == "ok" and render_simple(info["page_state"]) == ref_obs
            eid = re.search(r'\[(\d+)\] radio "', obs).group(1)
        buy = re.search(r'\[(\d+)\] button "Buy Now"', obs).group(1)
        _, reward, terminated, _, info = env.step(action_for_id(info, buy))
        _, ref_reward, *_ = ref.step("click[buy now]")
        assert terminated and info["page_state"].page_type == "done" and reward == ref_reward
    finally:
        env.close()


@pytest.mark.slow
@pytest.mark.browser
@pytest.mark.parametrize("kind", ["product", "option", "sub_page", "next"])
def test_clicking_the_marked_element_goes_where_the_action_goes(kind, server, chromium_path, browser_shutdown, bundled_shop):
    """Clicking the real element an id marks gives the page ``step(element_actions[id])`` gives."""
    with BrowserSource(server.base_url, executable_path=chromium_path) as by_action, \
            BrowserSource(server.base_url, executable_path=chromium_path) as by_click:
        for src in (by_action, by_click):
            src.reset(GOAL)
            state, *_ = src.step("search[shoes for men]")
            if kind in ("option", "sub_page"):
                state, *_ = src.step(f"click[{_item_card(bundled_shop, state).lower()}]")
        seen = by_click.observe("dom")
        eid = next(i for i, c in enumerate(state.clickables, start=1) if c.kind == kind and f'bid="{i}"' in seen.text)
        page = by_click.page
        with page.expect_navigation():
            page.click(f"[{MARK_ATTR}='{eid}']")
        clicked = by_click.translator.parse(page.content(), page.url)
        stepped, *_ = by_action.step(seen.element_actions[str(eid)])
    assert render_simple(clicked) == render_simple(stepped)
    assert clicked.valid_actions() == stepped.valid_actions()


@pytest.mark.slow
def test_action_for_id_and_element_actions_without_a_browser():
    state = PageState(page_type="search", has_search_bar=True, clickables=[
        Clickable(arg="search", text="Search", kind="search", selector="#search_input"),
        Clickable(arg="buy now", text="Buy Now", kind="buy")])
    actions = element_actions(state)
    assert actions == {"1": "search[]", "2": "click[buy now]"}
    assert action_for_id({"element_actions": actions}, 2) == "click[buy now]"
    assert action_for_id(actions, "[1]", query="red shoes") == "search[red shoes]"
    with pytest.raises(ValueError, match="search box"):
        action_for_id(actions, 1)
    with pytest.raises(KeyError, match=r"\[9\]"):
        action_for_id(actions, 9)


# ---- set-of-marks ------------------------------------------------------------------------------------
@pytest.mark.slow
@pytest.mark.browser
def test_som_marks_are_drawn_over_the_marked_elements(source, bundled_shop):
    source.reset(GOAL)
    state, *_ = source.step("search[shoes for men]")
    som = source.observe("som")
    plain = decode_png(source.observe("screenshot").png)
    marked = decode_png(som.png)
    assert plain.shape == marked.shape == (HEIGHT, WIDTH, 3)
    assert set(som.boxes) == set(som.element_actions) == {str(i) for i in range(1, len(state.clickables) + 1)}
    inside = np.zeros(plain.shape[:2], dtype=bool)
    for eid, (l1, t1, r1, b1, l2, t2, r2, b2) in som.boxes.items():
        color = np.array([int(PALETTE[(int(eid) - 1) % len(PALETTE)][k:k + 2], 16) for k in (1, 3, 5)], dtype=np.uint8)
        tag = marked[max(t2, 0):b2, max(l2, 0):r2]
        assert (tag == color).all(axis=2).mean() > 0.3, f"tag {eid} is not drawn in its colour"
        box = (slice(max(t1, 0), b1), slice(max(l1, 0), r1))
        assert (marked[box] != plain[box]).any(axis=2).sum() > 2 * (r1 - l1), f"box {eid} is not drawn"
        for top, bottom, left, right in ((t1, b1, l1, r1), (t2, b2, l2, r2)):
            inside[max(top - 1, 0):bottom + 1, max(left - 1, 0):right + 1] = True
    differs = (marked != plain).any(axis=2)
    assert not differs[~inside].any(), "the overlay changed pixels outside the boxes"
    assert source.page.locator("#__shopsim_som").count() == 0  # the overlay is gone afterwards
    assert source.page.locator(f"[{MARK_ATTR}]").count() == len(state.clickables)


# ---- determinism ----------------------------------------------------------------------------------
@pytest.mark.slow
@pytest.mark.browser
def test_same_seed_and_actions_give_the_same_observations(server, chromium_path, browser_shutdown, bundled_shop):
    runs = []
    for _ in range(2):
        with BrowserSource(server.base_url, executable_path=chromium_path) as src:
            src.reset(GOAL, seed=0)
            seen = [{m: src.observe(m) for m in BROWSER_MODES}]
            state, *_ = src.step("search[shoes for men]")
            seen.append({m: src.observe(m) for m in BROWSER_MODES})
            state, *_ = src.step(f"click[{_item_card(bundled_shop, state).lower()}]")
            seen.append({m: src.observe(m) for m in BROWSER_MODES})
            runs.append(seen)
    assert state.page_type == "item"
    for first, second in zip(*runs, strict=True):
        for mode in BROWSER_MODES:
            a, b = first[mode], second[mode]
            assert a.element_actions == b.element_actions and a.shown == b.shown, mode
            assert a.state == b.state and a.boxes == b.boxes, mode
            if a.text is not None:
                assert a.text == b.text, mode
            else:
                assert a.png == b.png, f"{mode} bytes differ between runs"


# ---- env plumbing ------------------------------------------------------------------------------------
@pytest.mark.parametrize("mode", BROWSER_MODES)
def test_browser_modes_without_a_browser_source_are_a_one_line_config_error(bundled_shop, mode):
    for source in (None, InProcessSource(bundled_shop), HttpSource("http://127.0.0.1:9")):
        with pytest.raises(ConfigError) as err:
            ShopEnv(bundled_shop, observation_mode=mode, source=source)
        assert "\n" not in str(err.value) and mode in str(err.value) and "BrowserSource" in str(err.value)
    with pytest.raises(ConfigError, match="screenshot, axtree, som, dom"):
        ShopEnv(bundled_shop, observation_mode="pixels")


@pytest.mark.slow
@pytest.mark.browser
@pytest.mark.parametrize("mode", ["axtree", "dom", "screenshot"])
def test_check_env_passes_with_a_browser_source(mode, server, chromium_path, browser_shutdown, bundled_shop):
    import warnings

    from gymnasium.utils.env_checker import check_env

    env = ShopEnv(bundled_shop, observation_mode=mode, source=BrowserSource(server.base_url, executable_path=chromium_path))
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            check_env(env, skip_render_check=True)
    finally:
        env.close()
    assert [str(w.message) for w in caught] == []


@pytest.mark.slow
@pytest.mark.browser
def test_text_modes_are_unchanged_on_a_browser_source(source, bundled_shop):
    env = ShopEnv(bundled_shop, observation_mode="text", source=source)
    obs, info = env.reset(options={"goal": GOAL})
    ref, _ = ShopEnv(bundled_shop).reset(options={"goal": GOAL})
    assert obs == ref and "element_actions" not in info and "screenshot_png" not in info


@pytest.mark.slow
@pytest.mark.browser
def test_without_assets_the_page_reads_the_same_and_is_not_observed(tmp_path: Path, server, chromium_path,
                                                                    browser_shutdown):
    """``assets=False``: no image or stylesheet loads, the state is the drawn page's, observe() refuses;
    its browser draws nothing, so a failing test's screenshot() saves the HTML alone (and returns)."""
    with BrowserSource(server.base_url, executable_path=chromium_path, assets=False) as lean, \
            BrowserSource(server.base_url, executable_path=chromium_path) as drawn:
        assert lean.text_only and not drawn.text_only and lean.browser is not drawn.browser
        states = [(src.reset(GOAL), src.step("search[shoes for men]")[0]) for src in (lean, drawn)]
        lean.screenshot(tmp_path / "lean.png")
        assert (tmp_path / "lean.html").read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
        assert not (tmp_path / "lean.png").exists()
        assert render_simple(states[0][1]) == render_simple(states[1][1]) and len(states[0][1].results) == 10
        assert states[0][1].valid_actions() == states[1][1].valid_actions()
        loaded = """() => [document.images.length, Array.from(document.images).filter((i) => i.naturalWidth).length,
          getComputedStyle(document.body).fontFamily]"""  # style.css sets the body's font
        images, shown, font = lean.page.evaluate(loaded)
        assert (images, shown) == (10, 0) and font != "system-ui, sans-serif"
        drawn.observe("axtree")  # waits for the whole page
        assert drawn.page.evaluate(loaded) == [10, 10, "system-ui, sans-serif"]
        with pytest.raises(ConfigError, match=r"assets=True"):
            lean.observe("axtree")


# ---- traces, video, a caller's page ----------------------------------------------------------------
@pytest.mark.slow
@pytest.mark.browser
def test_trace_zip_per_episode(tmp_path: Path, server, chromium_path, browser_shutdown):
    with BrowserSource(server.base_url, executable_path=chromium_path, trace=tmp_path / "traces") as src:
        src.reset(GOAL)
        src.step("search[shoes]")
        assert src.last_trace is None  # written when the episode ends
        src.reset(GOAL + 1)
        first = src.last_trace
        assert first == tmp_path / "traces" / "episode-1.zip"
    assert src.last_trace == tmp_path / "traces" / "episode-2.zip"
    events = {}
    for path in (first, src.last_trace):
        with zipfile.ZipFile(path) as zf:
            names = zf.namelist()
            assert zf.testzip() is None
            assert any(n.endswith(".network") for n in names) and any(n.startswith("resources/") for n in names)
            events[path] = zf.read(next(n for n in names if n.endswith(".trace"))).decode()
        assert '"type":"context-options"' in events[path]
    assert "search_results" in events[first] and "search_results" not in events[src.last_trace]
    with BrowserSource(server.base_url, executable_path=chromium_path, trace=True) as src:
        src.reset(GOAL)
    assert src.last_trace is not None and src.last_trace.name == "episode-1.zip" and zipfile.is_zipfile(src.last_trace)


@pytest.mark.slow
@pytest.mark.browser
def test_video_per_episode(tmp_path: Path, server, chromium_path, browser_shutdown):
    if playwright_ffmpeg() is None:
        with pytest.raises(ConfigError, match="playwright install ffmpeg"):
            BrowserSource(server.base_url, executable_path=chromium_path, video=tmp_path)
        pytest.skip("Playwright's ffmpeg is not installed (`playwright install ffmpeg`); checked the ConfigError")
    with BrowserSource(server.base_url, executable_path=chromium_path, video=tmp_path / "video") as src:
        src.reset(GOAL)
        src.step("search[shoes]")
    assert src.last_video == tmp_path / "video" / "episode-1.webm"
    assert src.last_video.read_bytes()[:4] == b"\x1a\x45\xdf\xa3" and src.last_video.stat().st_size > 1000


@pytest.mark.slow
@pytest.mark.browser
def test_a_page_the_caller_owns(tmp_path: Path, server, chromium_path, browser_shutdown, bundled_shop):
    from shopsim.adapters.browser_source import _Browser

    context = _Browser.get(chromium_path, True).browser.new_context()
    page = context.new_page()
    try:
        with pytest.raises(ConfigError, match="page="):
            BrowserSource(server.base_url, page=page, video=tmp_path)
        with pytest.raises(ConfigError, match="page="):
            BrowserSource(server.base_url, page=page, assets=False)
        src = BrowserSource(server.base_url, page=page, trace=tmp_path)
        env = ShopEnv(bundled_shop, observation_mode="axtree", source=src)
        obs, _ = env.reset(options={"goal": GOAL})
        assert src.page is page and "/fixed_7_" in page.url and '[1] textbox "Search..."' in obs
        obs, *_ = env.step("search[shoes]")
        assert "/search_results/" in page.url and '[1] button "Back to Search"' in obs
        env.reset(options={"goal": GOAL})
        assert src.last_trace == tmp_path / "episode-1.zip" and zipfile.is_zipfile(src.last_trace)
        env.close()
        assert not page.is_closed() and src.last_trace == tmp_path / "episode-2.zip"
        assert page.viewport_size == {"width": WIDTH, "height": HEIGHT}
        page.goto(f"{server.base_url}/fixed_3")  # still the caller's to use
    finally:
        context.close()


@pytest.mark.slow
@pytest.mark.browser
def test_a_deep_page_and_a_clickable_without_an_element(chromium_path, browser_shutdown):
    """Hostile nesting still observes, with page scripts off (as replays run); an action with no
    element keeps its id, listed after the text."""
    from shopsim.adapters.browser_obs import PageObserver, context_options
    from shopsim.adapters.browser_source import _Browser

    context = _Browser.get(chromium_path, True).browser.new_context(java_script_enabled=False, **context_options())
    try:
        page = context.new_page()
        page.set_content("<div>" * 3000 + '<a href="/x">Deep link</a>' + "</div>" * 3000)
        state = PageState(page_type="results", clickables=[
            Clickable(arg="deep", text="Deep link", kind="product", selector="a"),
            Clickable(arg="buy now", text="Buy Now", kind="buy", selector="#nowhere")])
        observer = PageObserver()
        for mode in ("axtree", "dom"):
            got = observer.observe(page, state, mode)
            assert got.shown == ("1",) and got.element_actions == {"1": "click[deep]", "2": "click[buy now]"}
            assert got.text.endswith("actions without an element on this page: [2] click[buy now]")
        assert '[1] link "Deep link"' in observer.observe(page, state, "axtree").text
        shot, som = observer.observe(page, state, "screenshot"), observer.observe(page, state, "som")
        assert decode_png(shot.png).shape == (HEIGHT, WIDTH, 3) and set(som.boxes) == {"1"} and som.png != shot.png
        observer.detach()
    finally:
        context.close()


# ---- the accessibility-tree renderer and the PNG decoder, without a browser -----------------------
def _node(nid, role, name="", children=(), backend=None, ignored=False, props=None, parent=None):
    out = {"nodeId": nid, "role": {"value": role}, "name": {"value": name}, "childIds": list(children),
           "ignored": ignored, "backendDOMNodeId": backend, "properties": props or []}
    if parent:
        out["parentId"] = parent
    return out


@pytest.mark.slow
def test_render_axtree_folds_groups_and_repeated_text():
    nodes = [
        _node("1", "RootWebArea", "Shop", ["2"]),
        _node("2", "none", "", ["3", "6"], ignored=True, parent="1"),
        _node("3", "generic", "", ["4"], parent="2"),
        _node("4", "button", "Buy Now", ["5"], backend=40, parent="3"),
        _node("5", "StaticText", "Buy Now", parent="4"),
        _node("6", "radio", "Red", [], backend=60, parent="2",
              props=[{"name": "checked", "value": {"value": "true"}}, {"name": "focusable", "value": {"value": True}}]),
    ]
    text, shown = render_axtree(nodes, {40: "3", 60: "5"})
    assert text == 'RootWebArea "Shop"\n  [3] button "Buy Now"\n  [5] radio "Red" [checked]'
    assert shown == ["3", "5"]
    deep = [_node("0", "RootWebArea", "Deep", ["1"])]
    deep += [_node(str(i), "generic", "", [str(i + 1)], parent=str(i - 1)) for i in range(1, 5000)]
    deep.append(_node("5000", "link", "Bottom", [], backend=7, parent="4999"))
    assert render_axtree(deep, {7: "1"}) == ('RootWebArea "Deep"\n  [1] link "Bottom"', ["1"])  # no RecursionError


def _png(pixels: np.ndarray, color: int, filters: list[int]) -> bytes:
    """A PNG with the given filter per row (a reference encoder for the decoder under test)."""
    h, w, bpp = pixels.shape
    rows, prev = [], np.zeros(w * bpp, dtype=np.int32)
    for y in range(h):
        cur = pixels[y].reshape(-1).astype(np.int32)
        f = filters[y % len(filters)]
        left = np.concatenate([np.zeros(bpp, dtype=np.int32), cur[:-bpp]])
        upleft = np.concatenate([np.zeros(bpp, dtype=np.int32), prev[:-bpp]])
        if f == 0:
            pred = np.zeros_like(cur)
        elif f == 1:
            pred = left
        elif f == 2:
            pred = prev
        elif f == 3:
            pred = (left + prev) // 2
        else:
            p = left + prev - upleft
            pa, pb, pc = abs(p - left), abs(p - prev), abs(p - upleft)
            pred = np.where((pa <= pb) & (pa <= pc), left, np.where(pb <= pc, prev, upleft))
        rows.append(bytes([f]) + ((cur - pred) % 256).astype(np.uint8).tobytes())
        prev = cur

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    head = struct.pack(">IIBBBBB", w, h, 8, color, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", head) + chunk(b"IDAT", zlib.compress(b"".join(rows))) + chunk(b"IEND", b"")


@pytest.mark.slow
@pytest.mark.parametrize(("color", "bpp"), [(2, 3), (6, 4), (0, 1)])
def test_decode_png_every_filter(color: int, bpp: int):
    rng = np.random.default_rng(color)
    pixels = rng.integers(0, 256, size=(9, 7, bpp), dtype=np.uint8)
    got = decode_png(_png(pixels, color, [0, 1, 2, 3, 4, 2, 2, 4, 1]))
    want = pixels[:, :, :3] if bpp >= 3 else np.repeat(pixels, 3, axis=2)
    assert got.shape == (9, 7, 3) and got.dtype == np.uint8 and np.array_equal(got, want)
    with pytest.raises(ValueError, match="not a PNG"):
        decode_png(b"GIF89a")


@pytest.mark.slow
def test_browser_replay_offers_the_same_modes_and_traces(tmp_path: Path, chromium_path: str | None) -> None:
    """A recorded real bundle in Chromium: axtree ids map to actions, and each episode leaves a trace."""
    from _bundles import FIRST_RESULT, assemble_amazon_bundle, needs_real

    from shopsim.adapters.browser_obs import action_for_id
    from shopsim.adapters.browser_replay import BrowserReplaySource

    if needs_real.args[0]:
        pytest.skip(needs_real.kwargs["reason"])
    if chromium_path is None:
        pytest.skip("no Chromium")
    root = assemble_amazon_bundle(tmp_path / "bundle")
    source = BrowserReplaySource(root, executable_path=chromium_path, trace=tmp_path / "traces")
    env = ShopEnv(source=source, observation_mode="axtree")
    try:
        obs, info = env.reset(options={"goal": 0})
        ids = {action: int(i) for i, action in info["element_actions"].items()}
        assert f"click[{FIRST_RESULT}]" in ids and f"[{ids[f'click[{FIRST_RESULT}]']}]" in obs
        obs, _, _, _, info = env.step(action_for_id(info, ids[f"click[{FIRST_RESULT}]"]))
        assert info["page_state"].page_type == "item" and "click[buy now]" in info["element_actions"].values()
        env.reset(options={"goal": 0})
        assert source.last_trace is not None and zipfile.is_zipfile(source.last_trace)
    finally:
        env.close()
