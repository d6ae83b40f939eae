"""Sub pages on real item pages: Description, Features, Reviews, Attributes from the page already loaded."""

from __future__ import annotations

from pathlib import Path

import pytest
from _bundles import AMAZON_ITEM, FIRST_RESULT, ITEM_URL, assemble_amazon_bundle, needs_real

from shopsim.adapters.browser_replay import BrowserReplaySource
from shopsim.adapters.replay import ReplaySource
from shopsim.render import render_simple
from shopsim.simsite.session import ShopSession
from shopsim.simsite.shop import Shop
from shopsim.translators.amazon import AmazonTranslator
from shopsim.translators.clickables import sub_page_view

pytestmark = needs_real


def _kinds(state) -> list[str]:
    return [c.kind for c in state.clickables]


def test_a_real_item_offers_the_sims_sub_pages_in_the_sims_order(bundled_shop: Shop) -> None:
    real = AmazonTranslator().parse(AMAZON_ITEM.read_text(encoding="utf-8", errors="replace"), ITEM_URL)
    assert real.product is not None and real.product.bullet_points
    args = [c.arg for c in real.clickables]
    assert args[:6] == ["back to search", "< prev", "description", "features", "reviews", "buy now"]
    sim = ShopSession(bundled_shop, bundled_shop.goals[0], "s")
    sim.step(f"search[{bundled_shop.goals[0].instruction_text}]")
    sim.step(f"click[{sim.state.results[0].id.lower()}]")
    squash = lambda kinds: [k for i, k in enumerate(kinds) if i == 0 or k != kinds[i - 1]]  # noqa: E731
    assert squash(_kinds(real)) == squash(_kinds(sim.state))  # back, prev, sub pages, buy, options
    nav = AmazonTranslator().resolve(real, "click[features]")
    assert nav.kind == "sub_page" and nav.value == "Features" and nav.url is None  # no request
    view = sub_page_view(real, "features")
    assert view.page_type == "item_detail" and [c.arg for c in view.clickables] == ["back to search", "< prev"]
    assert real.product.bullet_points[0].strip() in render_simple(view)
    empty = sub_page_view(real, "reviews")  # the page shows no reviews: an empty sub page, as the sim's
    assert empty.sub_page == "Reviews" and render_simple(empty).endswith("< Prev")
    with pytest.raises(ValueError, match="no attributes sub page"):
        sub_page_view(real, "attributes")  # no item specifics on this page


@pytest.mark.parametrize("in_chromium", [False, True])
@pytest.mark.slow
def test_replay_opens_sub_pages_offline_and_comes_back(tmp_path: Path, in_chromium: bool, no_network,
                                                      chromium_path: str | None) -> None:
    root = assemble_amazon_bundle(tmp_path / "b")
    if in_chromium and chromium_path is None:
        pytest.skip("no Chromium")
    src = BrowserReplaySource(root, executable_path=chromium_path) if in_chromium else ReplaySource(root)
    with src:
        src.reset(0)
        item, *_ = src.step(f"click[{FIRST_RESULT}]")
        before = len(getattr(src, "requests", []))
        features, reward, done, _ = src.step("click[features]")
        assert reward == 0.0
        assert features.page_type == "item_detail" and features.sub_page == "Features" and not done
        assert item.product is not None and item.product.bullet_points[0].strip() in render_simple(features)
        assert len(getattr(src, "requests", [])) == before  # drawn from the loaded page
        refused, *_ = src.step("click[buy now]")
        assert refused.feedback.code == "not_available"
        back, *_ = src.step("click[< prev]")
        assert back.page_type == "item" and [c.arg for c in back.clickables] == [c.arg for c in item.clickables]
        described, *_ = src.step("click[description]")
        assert described.sub_page == "Description" and item.product.description[:40] in render_simple(described)
        src.step("click[< prev]")
        _, _, done, _ = src.step("click[buy now]")
        assert done
