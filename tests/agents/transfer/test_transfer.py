"""Acceptance: ``shopsim transfer`` scores a purchase on replayed real Amazon pages like the sim does."""

from __future__ import annotations

import json

import pytest
from _bundles import FIRST_RESULT, assemble_amazon_bundle, needs_real

from shopsim.agents.transfer.bundle_episode import ScriptedAgent, product_from_state, run_transfer
from shopsim.cli import main
from shopsim.simsite.models import Goal

pytestmark = needs_real

# The 2022 mock product page (B073WRF565) is an Amazon Basics bed frame at $112.94, sizes Twin/Full/
# Queen/King, styles 14-Inch/18-Inch, Full + 14-Inch selected. The goal is written for it.
GOAL = {
    "asin": "B073WRF565",
    "name": 'Amazon Basics Foldable, 14" Black Metal Platform Bed Frame with Tool-Free Assembly, No Box Spring '
            "Needed - Full",
    "query": "platform bed frame",
    "category": "furniture",
    "product_category": "Home & Kitchen › Furniture › Bedroom Furniture › Beds, Frames & Bases › Bed Frames",
    "instruction_text": "i want a foldable black metal platform bed frame with tool-free assembly that needs no box "
                        "spring, with size: full, and price lower than 120.00 dollars",
    "attributes": ["tool-free assembly", "no box spring needed", "foldable"],
    "goal_options": {"size": "full"},
    "price_upper": 120.0,
}


@pytest.fixture
def setup(tmp_path):
    bundle = assemble_amazon_bundle(tmp_path / "bundle")
    goal_file = tmp_path / "goals.jsonl"
    goal_file.write_text(json.dumps(GOAL) + "\n" + json.dumps({**GOAL, "goal_options": ["twin"]}) + "\n")
    return bundle, goal_file, tmp_path


def _transfer(capsys, *args: str) -> dict:
    assert main(["transfer", *args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_transfer_rule_agent(setup, capsys):
    bundle, goal_file, _ = setup
    out = _transfer(capsys, "--agent", "rule", "--bundle", str(bundle), "--goal", str(goal_file))
    assert out["actions"] == [f"click[{FIRST_RESULT}]", "click[buy now]"]
    assert out["purchased"] and out["purchased_id"] == "B073WRF565"
    b = out["breakdown"]
    assert b["r_type"] == 1.0 and b["category_match"] and b["title_score"] == 1.0
    assert b["r_price"] is True and b["price_paid"] == 112.94
    assert b["r_att"] == 1.0  # all three attributes are in the title / bullet points
    # the rule agent never clicks an option, but a real page shows its variant chosen (Full, 14-Inch):
    # buying there buys that variant, which happens to be the one the goal wants
    assert b["options_chosen"] == {"size": "full", "style": "14-inch"} and b["r_option"] == 1.0
    assert out["reward"] == 1.0 and out["r_strict"] == 1.0 and out["r_success"] == 1.0
    assert b["query_match"] is False and b["noun_source"]


def test_transfer_scripted_actions(setup, capsys):
    bundle, goal_file, tmp_path = setup
    actions = tmp_path / "actions.txt"
    actions.write_text(f"search[red basketball shoes]\nclick[{FIRST_RESULT}]\nclick[full]\nclick[buy now]\n")
    out = _transfer(capsys, "--actions", str(actions), "--bundle", str(bundle), "--goal", str(goal_file))
    assert out["feedback"] == ["ok", "ok", "ok", "ok"]
    b = out["breakdown"]
    assert b["r_type"] > 0 and b["r_price"] is True and b["r_option"] == 1.0
    assert b["options_chosen"] == {"size": "full", "style": "14-inch"}  # the page's own choice kept
    assert out["reward"] == 1.0 and out["r_strict"] == 1.0 and out["r_success"] == 1.0
    # goal options as a list (WebShop's human goals): 'twin' was not chosen
    out = _transfer(capsys, "--actions", str(actions), "--bundle", str(bundle), "--goal", str(goal_file),
                    "--goal-index", "1")
    assert out["breakdown"]["r_option"] == 0.0 and out["reward"] == pytest.approx(4 / 5)


def test_transfer_text_output_and_unrecorded_choice(setup, capsys):
    bundle, goal_file, _ = setup
    assert main(["transfer", "--agent", "rule", "--bundle", str(bundle), "--goal", str(goal_file)]) == 0
    text = capsys.readouterr().out
    assert "purchased: B073WRF565" in text and "r_type=1.0" in text
    # an option whose variant page was never recorded is chosen on the recorded page; buying uses it
    agent = ScriptedAgent([f"click[{FIRST_RESULT}]", "click[twin]", "click[buy now]"])
    result = run_transfer(bundle, Goal(**GOAL), agent)
    assert result.feedback == ["ok", "ok", "ok"] and result.purchased
    assert result.breakdown is not None and result.breakdown["options_chosen"] == {"size": "twin", "style": "14-inch"}
    assert result.breakdown["r_option"] == 0.0  # the goal wants full


def test_product_from_state_uses_low_end_of_range(setup):
    from shopsim.adapters.replay import ReplaySource

    bundle, _, _ = setup
    src = ReplaySource(bundle)
    src.reset()
    item, *_ = src.step(f"click[{FIRST_RESULT}]")
    assert item.product is not None
    product, price = product_from_state(item, "red basketball shoes")
    assert price == 112.94 and product.pricing == [112.94] and product.query == "red basketball shoes"
    assert product.options["size"] == ["twin", "full", "queen", "king"] and product.attributes == []
    assert product.product_category.startswith("Home & Kitchen › Furniture")
    ranged = item.model_copy(update={"product": item.product.model_copy(update={"price": (80.0, 140.0)})})
    product, price = product_from_state(ranged)
    assert price == 80.0 and product.pricing == [80.0, 140.0]
