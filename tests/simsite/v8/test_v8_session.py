"""The v8 page state machine under fuzzed actions: refusals change nothing, rewards stay consistent."""

from __future__ import annotations

import pytest
from conftest import SHARED
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shopsim.errors import SessionError
from shopsim.v8.observation_state import V8_FEEDBACK_CODES
from shopsim.v8.observation_text import render_observation_text

SAMPLE = SHARED / "data" / "shopsim-sample" / "products.json"


@pytest.fixture(scope="module")
def shop():
    from shopsim.simsite.v8.shop import V8Shop

    # The bundled catalog works without ../shared; the kit is used when present.
    return V8Shop.load(SAMPLE if SAMPLE.exists() else None)


_GARBAGE = st.sampled_from(["", "buy now", "click[]", "search[]", "click[ buy now ]x", "CLICK[buy now]", "search[[]]",
                            "click[next >", "search[" + "x" * 600 + "]", "click[\u0000]", "click[颜色=不存在]"])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_fuzzed_actions_keep_the_contract(shop, data):
    from shopsim.simsite.v8.session import V8Session

    task = shop.goals[data.draw(st.integers(0, len(shop.goals) - 1), label="task")]
    session = V8Session(shop, task, max_actions=data.draw(st.integers(1, 25), label="max_actions"))
    words = [w for w in task.simple_text.replace("，", " ").split() if w][:3] or ["x"]
    while not session.done:
        before = session.state
        pool = [f"click[{c}]" for c in before.clickables] + [f"search[{w}]" for w in words]
        action = data.draw(st.one_of(st.sampled_from(pool), _GARBAGE, st.text(max_size=30)), label="action")
        step = session.step(action)
        assert step.feedback in V8_FEEDBACK_CODES
        text = render_observation_text(step.state)
        assert "[SEP]" not in text and "search[" not in text and task.instruction not in text
        if step.feedback != "ok" and not step.done:
            strip = {"action_feedback", "feedback_message"}
            assert step.state.model_dump(exclude=strip) == before.model_dump(exclude=strip)
        if step.state.page_type == "product":
            assert ("buy now" in step.state.clickables) == step.state.options_complete
            assert step.state.options_complete == (not step.state.missing_option_axes)
        if step.state.page_type != "search":
            assert not step.state.search_available
    assert session.termination in ("purchase", "action_limit")
    d = session.detail
    assert d is not None and 0 <= d.r_strict <= 1 and 0 <= d.r_loose <= 1
    assert d.r_strict == d.r_type * d.r_att * d.r_option * d.r_price
    assert d.r_success == float(d.r_type == d.r_att == d.r_option == d.r_price == 1.0)
    assert session.reward == d.r_strict
    if session.termination == "action_limit":
        assert d.model_dump(include={"r_type", "r_att", "r_option", "r_price", "r_loose", "r_strict", "r_success"}) == \
            dict.fromkeys(("r_type", "r_att", "r_option", "r_price", "r_loose", "r_strict", "r_success"), 0.0)
    assert session.actions <= session.max_actions
    with pytest.raises(SessionError):
        session.step("search[again]")


def test_same_actions_same_observations(shop):
    from shopsim.simsite.v8.session import V8Session

    task = shop.goals[0]
    query = f"search[{task.simple_text[:12]}]"
    runs = []
    for _ in range(2):
        s = V8Session(shop, task)
        trail = [s.step(query).state]
        first = trail[0].clickables[0]
        trail.append(s.step(f"click[{first}]").state)
        runs.append([t.model_dump_json() for t in trail])
    assert runs[0] == runs[1]


def test_results_pages_of_twenty_and_navigation(shop):
    from shopsim.simsite.v8.search import PAGE_SIZE
    from shopsim.simsite.v8.session import V8Session

    s = V8Session(shop, shop.goals[0])
    st_ = s.step("search[a 的 e 1 2 3 款 色]").state
    assert st_.page_type == "results" and len(st_.results) <= PAGE_SIZE
    if st_.total_pages and st_.total_pages > 1:
        nxt = s.step("click[next >]").state
        assert nxt.page == 2 and nxt.rank_start == PAGE_SIZE + 1 and "< prev" in nxt.clickables
        assert s.step("click[< prev]").state.page == 1
    assert s.step("click[back to search]").state.search_available
