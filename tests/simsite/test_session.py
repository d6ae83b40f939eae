"""The session state machine: WebShop's transitions, feedback for bad actions, strict mode, limits."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shopsim.render import render_rich, render_simple
from shopsim.simsite.session import ShopSession
from shopsim.simsite.shop import Shop


def _goal_with_options(shop: Shop) -> int:
    return next(i for i, g in enumerate(shop.goals) if len(shop.products[g.asin].options) >= 2)


def _session(shop: Shop, index: int, **kw: object) -> ShopSession:
    return ShopSession(shop, shop.goals[index], str(index), **kw)  # type: ignore[arg-type]


def _to_goal_product(shop: Shop, s: ShopSession) -> None:
    goal = s.goal
    s.step(f"search[{goal.instruction_text}]")
    for _ in range(5):
        if s.state.clickable(goal.asin.lower()):
            s.step(f"click[{goal.asin}]")
            return
        s.step("click[next >]")
    s.show("item_page", keywords=s.state.keywords, page_num=1, asin=goal.asin)


def test_full_walk_through_every_page(bundled_shop: Shop) -> None:
    shop = bundled_shop
    idx = _goal_with_options(shop)
    s = _session(shop, idx)
    assert s.state.page_type == "search" and s.state.has_search_bar
    s.step("search[shoes and more]")
    assert s.state.page_type == "results" and s.state.page_num == 1
    assert [c.arg for c in s.state.clickables][:2] == ["back to search", "next >"]
    s.step("click[next >]")
    assert s.state.page_num == 2 and s.state.clickable("< prev") is not None
    s.step("click[< prev]")
    assert s.state.page_num == 1
    _to_goal_product(shop, s)
    assert s.state.page_type == "item"
    axis, values = next(iter(s.state.product.options.items()))
    s.step(f"click[{values[-1]}]")
    assert s.state.product.selected[axis] == values[-1]
    for sub in ("description", "features", "reviews"):
        s.step(f"click[{sub}]")
        assert s.state.page_type == "item_detail" and s.state.sub_page == sub.title()
        s.step("click[< prev]")
        assert s.state.page_type == "item" and s.state.product.selected[axis] == values[-1]
    result = s.step("click[buy now]")
    assert result.done and s.state.page_type == "done" and result.breakdown is not None
    assert 0.0 <= result.reward <= 1.0 and s.state.reward == result.reward
    assert s.step("click[back to search]").state.feedback.code == "episode_done"


def test_prev_on_item_page_returns_to_results_and_clears_options(bundled_shop: Shop) -> None:
    s = _session(bundled_shop, _goal_with_options(bundled_shop))
    _to_goal_product(bundled_shop, s)
    value = next(iter(s.state.product.options.values()))[0]
    s.step(f"click[{value}]")
    s.step("click[< prev]")
    assert s.state.page_type == "results"
    s.step(f"click[{s.goal.asin}]") if s.state.clickable(s.goal.asin) else None


@pytest.mark.parametrize(
    ("action", "code"),
    [("", "unknown_action"), ("jump[x]", "unknown_action"), ("search[]", "empty_query"), ("search[   ]", "empty_query"),
     ("click[nothing here]", "not_available"), ("click[search]", "not_available"), ("search[" + "a" * 5000 + "]", "query_too_long"),
     ("click[buy now", "unknown_action")],
)
def test_invalid_actions_leave_the_page_and_say_why(bundled_shop: Shop, action: str, code: str) -> None:
    s = _session(bundled_shop, 0)
    before = (render_simple(s.state), s.state.valid_actions(), s.state.url)
    result = s.step(action)
    assert result.state.feedback.code == code and result.state.feedback.message
    assert (render_simple(s.state), s.state.valid_actions(), s.state.url) == before
    assert result.reward == 0.0 and not result.done


def test_action_limit_truncates_with_zero_reward(bundled_shop: Shop) -> None:
    s = _session(bundled_shop, 0, max_steps=3)
    s.step("search[red]")
    s.step("click[next >]")
    result = s.step("click[next >]")
    assert result.done and result.truncated and result.reward == 0.0
    assert s.state.feedback.code == "action_limit"


def test_strict_mode_rules(bundled_shop: Shop) -> None:
    idx = _goal_with_options(bundled_shop)
    s = _session(bundled_shop, idx, strict=True)
    _to_goal_product(bundled_shop, s)
    assert s.step("click[buy now]").state.feedback.code == "options_incomplete"
    assert s.step("search[anything]").state.feedback.code == "not_available"
    for axis, values in s.state.product.options.items():
        arg = next(c.arg for c in s.state.clickables if c.kind == "option" and c.axis == axis and c.text == values[0])
        s.step(f"click[{arg}]")
    assert s.step("click[buy now]").done


def test_strict_mode_qualifies_values_shared_by_two_axes(tmp_path) -> None:
    import json

    product = {"asin": "B00SHARED1", "name": "Two Tone Sneaker", "full_description": "", "small_description": ["x"],
               "pricing": "$20.0", "images": ["a.jpg"], "product_category": "Shoes › Sneakers", "category": "fashion",
               "query": "sneakers", "customization_options": {"Color": [{"value": "White"}, {"value": "Black"}],
                                                              "Sole Color": [{"value": "White"}, {"value": "Gum"}]}}
    (tmp_path / "items_shuffle_t.json").write_text(json.dumps([product]))
    (tmp_path / "items_ins_v2_t.json").write_text(json.dumps({"B00SHARED1": {
        "attributes": ["two tone"], "instruction": "i want two tone sneakers", "instruction_attributes": ["two tone"]}}))
    shop = Shop.load(tmp_path)
    lax, strict = _session(shop, 0), _session(shop, 0, strict=True)
    for s in (lax, strict):
        s.show("item_page", keywords=["x"], page_num=1, asin="B00SHARED1")
    # WebShop's behaviour: one clickable 'white', bound to the last axis that offers it.
    assert [c.arg for c in lax.state.clickables if c.kind == "option"].count("white") == 1
    lax.step("click[white]")
    assert lax.state.product.selected == {"color": None, "sole color": "white"}
    assert strict.step("click[white]").state.feedback.code == "ambiguous_option"
    strict.step("click[color: white]")
    assert strict.state.product.selected == {"color": "white", "sole color": None}


ACTIONS = st.one_of(
    st.text(max_size=300),
    st.builds(lambda t: f"click[{t}]", st.text(max_size=200)),
    st.builds(lambda t: f"search[{t}]", st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=50)),
    st.sampled_from(["click[", "search[[]]", "click[]]", "[[[", "click[< prev]]", "search]x[", "\x00", "click[\u202e]"]),
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(action=ACTIONS)
def test_no_action_string_raises_or_breaks_the_page(bundled_shop: Shop, action: str) -> None:
    s = _session(bundled_shop, 1)
    s.step("search[red]")
    before = s.state
    result = s.step(action)
    if result.state.feedback.code != "ok":
        assert render_simple(s.state) == render_simple(before) and s.state.url == before.url
    render_rich(s.state)  # always renderable


def test_same_seed_same_everything(bundled_shop: Shop) -> None:
    from shopsim.adapters.env import ShopEnv
    from shopsim.agents.random_agent import RandomAgent

    def trace() -> list[tuple[str, float, bool]]:
        env, agent, out = ShopEnv(Shop.load(seed=3)), RandomAgent(seed=9), []
        for goal in range(5):
            obs, info = env.reset(seed=11, options=None if goal % 2 else {"goal": goal})
            agent.reset(seed=goal)
            for _ in range(12):
                obs, reward, term, trunc, info = env.step(agent.act(obs, info["valid_actions"], info))
                out.append((obs, reward, term))
                if term or trunc:
                    break
        return out

    assert trace() == trace()
