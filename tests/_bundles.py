"""Recorded-session bundles for tests: the fixture bundles, and one assembled from WebShop's 2022 Amazon mocks.

Also the two readings of a bundle that replay tests compare: the observations as recorded and as replayed.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import REAL_PAGES, ROOT

from shopsim.adapters.bundle import Bundle, BundleWriter
from shopsim.adapters.replay import ReplaySource
from shopsim.render import render_rich

FIXTURES = ROOT / "fixtures" / "bundles"
AMAZON_RESULTS = REAL_PAGES / "amazon" / "search" / "webshop-mock_results_2022.html"
AMAZON_ITEM = REAL_PAGES / "amazon" / "item" / "webshop-mock_item_2022.html"
SEARCH_URL = "https://www.amazon.com/s?k=red+basketball+shoes&page=1"
ITEM_URL = "https://www.amazon.com/AmazonBasics-Foldable-Platform-Under-Bed-Storage/dp/B073WRF565"
FIRST_RESULT = "b083qcwf61"

needs_real = pytest.mark.skipif(
    not (AMAZON_RESULTS.exists() and AMAZON_ITEM.exists()),
    reason=f"WebShop's 2022 Amazon fixtures are not at {REAL_PAGES} (real pages are not redistributed)",
)


def assemble_amazon_bundle(out: Path, instruction: str | None = None) -> Path:
    """A bundle from WebShop's two 2022 Amazon mocks, assembled at test time (never copied into the repo).

    The mocks are unrelated pages: the item (B073WRF565, a bed frame) is not among the results. The
    bundle records the first result's link as redirecting to the item page, so a session reads
    search -> results -> click -> item; the page bytes stay exactly the fixtures' bytes.
    """
    w = BundleWriter(out, site="amazon", start_url=SEARCH_URL, instruction=instruction,
                     recorder="assembled in tests from WebShop's 2022 Amazon mocks")
    w.add_page(None, SEARCH_URL, AMAZON_RESULTS.read_bytes())
    w.add_page(f"click[{FIRST_RESULT}]", f"https://www.amazon.com/dp/{FIRST_RESULT.upper()}", AMAZON_ITEM.read_bytes(),
               final_url=ITEM_URL)
    w.add_purchase("click[buy now]")
    return w.finish()


def recorded_observations(bundle: Bundle, src: ReplaySource) -> list[str]:
    """The rich observation of every recorded page, as the recording saw it."""
    out = []
    for step in bundle.load_steps():
        state = src.translator.parse(bundle.html(step), step.final_url or step.url)
        if bundle.manifest.instruction is not None:
            state = state.model_copy(update={"instruction": bundle.manifest.instruction})
        out.append(render_rich(state))
    return out


def replayed_observations(bundle: Bundle, src: ReplaySource) -> list[str]:
    """Replay the bundle's own actions; the rich observation after every step that loaded a page."""
    out = [render_rich(src.reset())]
    for step in bundle.manifest.steps[1:]:
        state, _reward, done, _ = src.step(step.action or "")
        assert state.feedback.code in ("ok", "not_available", "unknown_action"), state.feedback
        if step.kind == "load":
            out.append(render_rich(state))
        assert done == (step.kind == "purchase")
    return out
