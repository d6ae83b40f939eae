"""Synthetic goals are built without validation (thousands on every open): each must be exactly the
goal that validating its own fields gives, on the bundled catalog and on WebShop's small set.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from shopsim.simsite.catalog import default_catalog_dir
from shopsim.simsite.datafiles import find_catalog_files
from shopsim.simsite.goals import generate_prices, goal_dict, synthetic_goals
from shopsim.simsite.loader import load_products
from shopsim.simsite.models import Goal
from tests.conftest import SMALL


@pytest.mark.parametrize("folder", [default_catalog_dir(), SMALL], ids=["bundled", "webshop-small"])
def test_every_synthetic_goal_is_what_validation_makes(folder: Path) -> None:
    if not (folder / "items_shuffle_1000.json").exists() and folder == SMALL:
        pytest.skip(f"WebShop's small data set is not at {SMALL}")
    products = load_products(find_catalog_files(folder), num_products=1000)
    rng = random.Random(0)
    goals = synthetic_goals(products, generate_prices(products, rng), rng)
    assert goals
    for goal in goals:
        checked = Goal.model_validate(dict(goal))
        assert goal == checked and goal.model_fields_set == checked.model_fields_set, goal.asin
        assert list(goal.__dict__) == list(checked.__dict__)  # the same field order (dumps, goal_dict)
        assert goal_dict(goal) == goal_dict(checked)
        assert type(goal.price_upper) is float and type(goal.weight) is float
    # each goal has its own containers, as validation would copy them: changing one changes no other
    assert len({id(g.attributes) for g in goals}) == len(goals) == len({id(g.goal_options) for g in goals})
