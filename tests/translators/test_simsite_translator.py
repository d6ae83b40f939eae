"""The sim's HTML reads back into the same PageState: via the embedded JSON, and from markup alone."""

from __future__ import annotations

import random
import re

import pytest
from _web_policies import RandomPolicy, RulePolicy

from shopsim.page import PageState
from shopsim.render import render_rich, render_simple
from shopsim.simsite.html import render_html
from shopsim.simsite.session import ShopSession
from shopsim.translators.sim_pages import SimsiteTranslator

_BLOCK = re.compile(r'<script type="application/json" id="shopsim-state">.*?</script>', re.S)


def _episode_states(shop, goal: int, kind: str, strict: bool) -> list[PageState]:
    session = ShopSession(shop, shop.goal(goal), f"fixed_{goal}", strict=strict)
    policy = RulePolicy(goal) if kind == "rule" else RandomPolicy(goal, horizon=12)
    states = [session.state]
    for _ in range(20):
        r = session.step(policy.act(session.state))
        states.append(r.state)
        if r.done:
            break
    return states


@pytest.mark.parametrize("seed", range(30))
def test_round_trip(bundled_shop, seed):
    tr = SimsiteTranslator()
    rng = random.Random(seed)
    goal = rng.randrange(len(bundled_shop.goals))
    for state in _episode_states(bundled_shop, goal, "rule" if seed % 2 else "random", strict=seed % 3 == 0):
        html = render_html(state)
        assert tr.parse(html) == state
        bare = tr.parse(_BLOCK.sub("", html))
        assert "shopsim-state" not in _BLOCK.sub("", html)
        assert render_simple(bare) == render_simple(state)
        assert render_rich(bare) == render_rich(state)
        assert bare.valid_actions() == state.valid_actions()
        assert bare.page_type == state.page_type


def test_script_in_product_text_is_inert(bundled_shop):
    session = ShopSession(bundled_shop, bundled_shop.goal(0), "fixed_0")
    session.step("search[</script><script>alert(1)</script>]")
    state = session.state
    card = state.results[0].model_copy(update={"title": "<script>alert('x')</script> & </script>"})
    state = state.model_copy(update={"results": [card, *state.results[1:]]})
    html = render_html(state)
    assert "<script>alert" not in html
    assert html.count("<script") == 1  # only the JSON block (results pages need no script)
    tr = SimsiteTranslator()
    assert tr.parse(html) == state
    assert render_simple(tr.parse(_BLOCK.sub("", html))) == render_simple(state)


def test_resolve(bundled_shop):
    tr = SimsiteTranslator()
    session = ShopSession(bundled_shop, bundled_shop.goal(1), "fixed_1")
    nav = tr.resolve(session.state, "search[Red Shoes]")
    assert nav.kind == "form" and nav.method == "POST" and nav.form == {"search_query": "red shoes"}
    session.step("search[red shoes]")
    state = session.state
    asin = state.results[0].id
    nav = tr.resolve(state, f"click[{asin}]")
    assert nav.kind == "goto" and f"/item_page/fixed_1/{asin}/red+shoes/1/" in (nav.url or "")
    assert tr.resolve(state, "click[nothing here]").kind == "none"
    assert tr.resolve(state, "jump").feedback.code == "unknown_action"
    session.step(f"click[{asin.lower()}]")
    nav = tr.resolve(session.state, "click[buy now]")
    assert nav.kind == "purchase" and "/done/fixed_1/" in (nav.url or "")


def test_unknown_page():
    state = SimsiteTranslator().parse("<html><body><p>hello</p></body></html>", "http://x/")
    assert state.page_type == "unknown" and state.reason
