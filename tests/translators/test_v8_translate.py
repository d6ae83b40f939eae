"""Real pages under the v8 contract: the same observation_state shape and text structure as sim pages."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import SHARED

from shopsim.v8.observation_state import observation_from_page_state
from shopsim.v8.observation_text import render_observation_text

REAL = SHARED / "fixtures" / "real"
needs_real = pytest.mark.skipif(not REAL.exists(), reason=f"the real pages are not at {REAL} (not redistributed)")


def _pages(kind: str) -> list[Path]:
    return sorted(p for site in ("amazon", "ebay") for p in (REAL / site / kind).glob("*.html")) if REAL.exists() else []


def _shape(text: str) -> list[str]:
    """Line kinds of a v8 text observation (content removed)."""
    out = []
    for line in text.splitlines():
        for kind, pat in (("head", r"^(Search results for|Product \S+:)"), ("count", r"^Showing"), ("entry", r"^\d+\. "),
                          ("clicks", r"^Clickable values: ")):
            if re.match(pat, line):
                out.append(kind)
                break
    return [k for i, k in enumerate(out) if i == 0 or k != out[i - 1]]


@needs_real
@pytest.mark.parametrize("path", _pages("search"), ids=lambda p: p.stem)
def test_real_results_pages_read_like_sim_results(path):
    from shopsim.cli.translate import translate_path

    state = translate_path(str(path), None, None)
    obs = observation_from_page_state(state)
    if state.page_type != "results" or not state.results:
        pytest.skip(f"{path.name} has no result cards ({state.page_type})")
    assert obs.page_type == "results" and not obs.search_available
    assert [c for c in obs.clickables if c not in ("next >", "< prev", "back to search")] == [r.asin for r in obs.results]
    assert _shape(render_observation_text(obs)) == ["head", "count", "entry", "clicks"]


@needs_real
@pytest.mark.parametrize("path", _pages("item"), ids=lambda p: p.stem)
def test_real_item_pages_use_axis_qualified_options(path):
    from shopsim.cli.translate import translate_path

    state = translate_path(str(path), None, None)
    if state.page_type != "item" or state.product is None:
        pytest.skip(f"{path.name} is not an item page ({state.page_type})")
    obs = observation_from_page_state(state)
    options = [c for c in obs.clickables if c not in ("< prev", "back to search", "buy now")]
    assert all("=" in c and c.split("=", 1)[0] in obs.product.option_axes for c in options)
    assert ("buy now" in obs.clickables) == (not obs.missing_option_axes)
    assert _shape(render_observation_text(obs))[0] == "head"


def test_sim_results_page_has_the_same_shape(tmp_path):
    from shopsim.simsite.v8.session import V8Session
    from shopsim.simsite.v8.shop import V8Shop

    shop = V8Shop.load()
    s = V8Session(shop, shop.goals[0])
    s.step(f"search[{shop.goals[0].simple_text[:10]}]")
    assert _shape(s.observation()) == ["head", "count", "entry", "clicks"]


@needs_real
def test_translate_cli_profile_v8():
    page = _pages("search")[0]
    out = subprocess.run([str(Path(sys.executable).with_name("shopsim")), "translate", str(page), "--profile",
                          "shopsim-v8", "--format", "text"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and "Clickable values:" in out.stdout and "[SEP]" not in out.stdout
