"""Recorded-session bundles: URL normalisation, load validation, offline replay (in-process and Chromium)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from _bundles import (
    FIRST_RESULT,
    FIXTURES,
    ITEM_URL,
    SEARCH_URL,
    assemble_amazon_bundle,
    needs_real,
    recorded_observations,
    replayed_observations,
)

from shopsim.adapters.browser_replay import BrowserReplaySource
from shopsim.adapters.bundle import Bundle, BundleWriter, normalize_url
from shopsim.adapters.replay import ReplaySource
from shopsim.errors import SourceError
from shopsim.render import render_simple


# ---- URL normalisation ---------------------------------------------------------------------------
@pytest.mark.parametrize(("url", "expected"), [
    ("https://www.amazon.com/s?k=red+basketball+shoes&page=2&crid=3JNGQC36RH102&qid=1657217320"
     "&sprefix=red+basketball+shoes%2Caps%2C63&ref=sr_pg_1", "https://www.amazon.com/s?k=red+basketball+shoes&page=2"),
    ("https://www.amazon.com/s?page=1&k=red+basketball+shoes", "https://www.amazon.com/s?k=red+basketball+shoes&page=1"),
    ("https://WWW.Amazon.com/AmazonBasics-Foldable-Platform/dp/B073WRF565/ref=sr_1_3?keywords=bed&qid=1&sr=8-3&th=1",
     "https://www.amazon.com/dp/B073WRF565?keywords=bed"),
    ("https://www.amazon.com/dp/B073WR319C/ref=twister_B084QV5F98?_encoding=UTF8&psc=1",
     "https://www.amazon.com/dp/B073WR319C"),
    ("https://www.amazon.com/gp/product/b073wrf565/?pf_rd_r=X&pd_rd_w=Y&utm_source=z#reviews",
     "https://www.amazon.com/dp/B073WRF565"),
    ("https://www.amazon.com/gp/bestsellers/ref=zg_bs_nav_0?spLa=abc", "https://www.amazon.com/gp/bestsellers"),
    ("https://www.ebay.com/itm/Electric-Full-Body-Shiatsu-Massage-Chair-06C-/390985762669?hash=item5b0&_trksid=p2047675",
     "https://www.ebay.com/itm/390985762669"),
    ("https://www.ebay.com/itm/226771798286?_trkparms=abc%3D1&var=0", "https://www.ebay.com/itm/226771798286?var=0"),
    ("https://www.ebay.com/sch/i.html?_pgn=1&_nkw=red+basketball+shoes&_sacat=0",
     "https://www.ebay.com/sch/i.html?_nkw=red+basketball+shoes&_pgn=1&_sacat=0"),
    ("HTTP://127.0.0.1:80/fixed_3#top", "http://127.0.0.1/fixed_3"),
])
def test_normalize_url(url, expected):
    assert normalize_url(url) == expected
    assert normalize_url(expected) == expected


# ---- load validation -----------------------------------------------------------------------------
def _tiny(tmp_path: Path) -> Path:
    w = BundleWriter(tmp_path / "b", site="amazon", start_url=SEARCH_URL)
    w.add_page(None, SEARCH_URL, b"<html><body>hello</body></html>")
    return w.finish()


def _edit_manifest(root: Path, **step0) -> None:
    m = json.loads((root / "manifest.json").read_text())
    m["steps"][0].update(step0)
    (root / "manifest.json").write_text(json.dumps(m))


def test_load_rejects_changed_page(tmp_path):
    root = _tiny(tmp_path)
    (root / "pages" / "000.html").write_bytes(b"<html>tampered</html>")
    with pytest.raises(SourceError, match=r"pages/000\.html does not match its SHA-256"):
        Bundle.load(root)


@pytest.mark.parametrize("bad", ["../outside.html", "/etc/passwd", "pages/../../outside.html", "pages\\000.html"])
def test_load_rejects_paths_outside(tmp_path, bad):
    root = _tiny(tmp_path)
    (tmp_path / "outside.html").write_bytes(b"<html>x</html>")
    _edit_manifest(root, page=bad)
    with pytest.raises(SourceError, match=r"pages/NNN\.html|inside the bundle"):
        Bundle.load(root)


def test_load_rejects_symlink_escaping(tmp_path):
    root = _tiny(tmp_path)
    secret = tmp_path / "secret.html"
    secret.write_bytes(b"<html><body>hello</body></html>")
    (root / "pages" / "000.html").unlink()
    os.symlink(secret, root / "pages" / "000.html")
    with pytest.raises(SourceError, match="outside the bundle"):
        Bundle.load(root)


def test_load_rejects_har_outside(tmp_path):
    root = _tiny(tmp_path)
    m = json.loads((root / "manifest.json").read_text())
    m["har"] = "../session.har"
    (root / "manifest.json").write_text(json.dumps(m))
    with pytest.raises(SourceError, match="HAR path"):
        Bundle.load(root)


def test_load_reports_missing_page_and_bad_manifest(tmp_path):
    root = _tiny(tmp_path)
    (root / "pages" / "000.html").unlink()
    with pytest.raises(SourceError, match=r"pages/000\.html is missing"):
        Bundle.load(root)
    _edit_manifest(root, sha256="xyz")
    with pytest.raises(SourceError, match=r"manifest\.json: invalid manifest at 'steps\.0\.sha256'"):
        Bundle.load(root)
    with pytest.raises(SourceError, match="is not a folder"):
        Bundle.load(tmp_path / "nope")


# ---- sim bundles from fixtures/ replay exactly ---------------------------------------------------
@pytest.mark.parametrize("name", ["sim-rule-goal3", "sim-options-subpage"])
def test_fixture_bundle_replays_as_recorded(name, no_network):
    bundle = Bundle.load(FIXTURES / name)
    src = ReplaySource(bundle)
    expected = recorded_observations(bundle, src)
    assert replayed_observations(bundle, src) == expected
    assert replayed_observations(bundle, src) == expected  # reset really starts over


def test_option_and_sub_page_bundle_details(no_network):
    src = ReplaySource(FIXTURES / "sim-options-subpage")
    src.reset()
    src.step("search[dry roasted mixed nuts]")
    state, *_ = src.step("click[b02h3wzj6r]")
    assert state.page_type == "item" and state.product is not None
    state, *_ = src.step("click[smoked]")
    assert state.product is not None and state.product.selected["flavor name"] == "smoked"
    state, *_ = src.step("click[2 pound (pack of 2)]")
    assert state.product is not None and state.product.selected["size"] == "2 pound (pack of 2)"
    state, *_ = src.step("click[description]")
    assert state.page_type == "item_detail" and state.sub_page == "Description"
    state, *_ = src.step("click[< prev]")
    state, *_ = src.step("click[< prev]")
    assert state.page_type == "results"
    src.step("click[b02h3wzj6r]")  # the second visit of that URL gets its second recording
    src.step("click[smoked]")
    state, reward, done, _ = src.step("click[buy now]")
    assert done and reward == 0.0 and state.purchase is not None and state.purchase.id == "B02H3WZJ6R"
    assert state.purchase.options == {"flavor name": "smoked"}


def test_unrecorded_url_gives_not_recorded(no_network):
    src = ReplaySource(FIXTURES / "sim-rule-goal3")
    start = src.reset()
    state, reward, done, truncated = src.step("search[something never searched]")
    assert state.page_type == "unknown" and state.feedback.code == "not_recorded"
    assert "not recorded" in (state.reason or "") and (reward, done, truncated) == (0.0, False, False)
    assert [c.arg for c in state.clickables] == ["back to search", "< prev"]  # the ways out, nothing else
    assert state.has_search_bar == start.has_search_bar
    assert "Page unavailable (unknown)" in render_simple(state)
    back, *_ = src.step("click[< prev]")
    assert back.page_type == "search" and back.feedback.code == "ok"
    refused, *_ = src.step("click[no such thing]")
    assert refused.feedback.code == "not_available"


def test_instruction_is_injected(no_network):
    bundle = Bundle.load(FIXTURES / "sim-rule-goal3")
    src = ReplaySource(bundle, instruction="i want purple socks")
    assert src.reset().instruction == "i want purple socks"
    results, *_ = src.step(bundle.manifest.steps[1].action or "")
    assert results.page_type == "results"
    assert render_simple(results).startswith("Instruction: [SEP] i want purple socks [SEP] Back to Search")


# ---- a real Amazon session, assembled from WebShop's 2022 fixtures --------------------------------
@needs_real
def test_amazon_bundle_replays_offline(tmp_path, no_network):
    src = ReplaySource(assemble_amazon_bundle(tmp_path / "amazon"), instruction="i want a bed frame")
    state = src.reset()
    assert state.page_type == "results" and state.site == "amazon" and state.query == "red basketball shoes"
    state, *_ = src.step("search[red basketball shoes]")
    assert state.page_type == "results" and state.feedback.code == "ok"
    assert render_simple(state).startswith("Instruction: [SEP] i want a bed frame [SEP] Back to Search")
    state, *_ = src.step("click[b0817bfnc4]")  # a result the session never opened
    assert state.feedback.code == "not_recorded"
    state, *_ = src.step("click[< prev]")
    assert state.page_type == "results"
    state, *_ = src.step(f"click[{FIRST_RESULT}]")
    assert state.page_type == "item" and state.product is not None and state.product.id == "B073WRF565"
    state, *_ = src.step("click[twin]")  # its own variant page was never recorded: chosen on this page
    assert state.page_type == "item" and state.feedback.code == "ok" and "was not recorded" in state.feedback.message
    assert state.product is not None and state.product.selected["Size"] == "Twin"
    state, *_ = src.step("click[full]")  # links back to the recorded page
    assert state.product is not None and state.product.selected["Size"] == "Full"
    assert any(c.arg == "full" and c.clicked for c in state.clickables)
    state, *_ = src.step("click[< prev]")  # Amazon has no '< prev' link: back through the history
    assert state.page_type == "results"
    state, *_ = src.step(f"click[{FIRST_RESULT}]")
    state, reward, done, truncated = src.step("click[buy now]")
    assert (state.page_type, reward, done, truncated) == ("done", 0.0, True, False)
    assert state.purchase is not None and state.purchase.id == "B073WRF565" and state.purchase.price == 112.94


@needs_real
def test_amazon_option_without_url_is_a_selection(tmp_path, no_network):
    root = assemble_amazon_bundle(tmp_path / "amazon")
    src = ReplaySource(root)
    src.reset()
    item, *_ = src.step(f"click[{FIRST_RESULT}]")
    assert item.product is not None
    # the same page with its option links stripped: option clicks become selections
    stripped = item.product.model_copy(update={"option_urls": {}})
    src.base = item.model_copy(update={"product": stripped, "clickables": [
        c.model_copy(update={"url": None}) for c in item.clickables]})
    state, *_ = src.step("click[queen]")
    assert state.product is not None and state.product.selected["Size"] == "Queen"
    assert state.feedback.code == "ok"
    state, *_ = src.step("click[buy now]")
    assert state.purchase is not None and state.purchase.options == {"Size": "Queen"}


@pytest.mark.browser
@needs_real
@pytest.mark.slow
def test_browser_replay_never_touches_the_network(tmp_path, chromium_path, browser_shutdown):
    root = assemble_amazon_bundle(tmp_path / "amazon")
    plan = ["search[red basketball shoes]", f"click[{FIRST_RESULT}]", "click[full]", "click[buy now]"]
    offline = ReplaySource(root)
    expected = [render_simple(offline.reset())] + [render_simple(offline.step(a)[0]) for a in plan]
    src = BrowserReplaySource(root, executable_path=chromium_path)
    try:
        got = [render_simple(src.reset())]
        for action in plan:
            state, _reward, done, _ = src.step(action)
            got.append(render_simple(state))
        assert done and state.purchase is not None and state.purchase.id == "B073WRF565"
        assert got == expected
        assert src.requests, "the browser made no requests at all"
        outcomes = {outcome for _, outcome in src.requests}
        assert outcomes <= {"fulfilled", "aborted"}
        fulfilled = [normalize_url(u) for u, o in src.requests if o == "fulfilled"]
        assert fulfilled == [normalize_url(SEARCH_URL)] * 2 + [normalize_url(ITEM_URL)] * 2
    finally:
        src.close()
