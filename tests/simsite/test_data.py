"""Loading WebShop-format files: real counts, WebShop's normalisation, and clear errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from shopsim.errors import ConfigError, DataError
from shopsim.simsite.datafiles import find_catalog_files
from shopsim.simsite.goals import SPLITS, load_goal_file, parse_goal_spec
from shopsim.simsite.loader import DataWarning, load_products
from shopsim.simsite.records import parse_pricing
from shopsim.simsite.shop import Shop, ShopConfig
from tests.conftest import GOLDEN, SMALL, needs_small


@needs_small
@pytest.mark.slow
def test_real_small_set_counts() -> None:
    files = find_catalog_files(SMALL)
    products = load_products(files, num_products=1000)
    assert len(products) == 1000
    assert sum(p.instruction_text is not None for p in products) == 415
    synthetic = Shop.from_config(ShopConfig(data_dir=SMALL, num_products=1000))
    assert len(synthetic.goals) == 6910
    human = Shop.from_config(ShopConfig(data_dir=SMALL, num_products=1000, human_goals=True))
    assert len(human.goals) == 13
    assert all(g.weight == 1 and isinstance(g.goal_options, list) for g in human.goals)


@needs_small
def test_webshop_normalisation_on_real_products() -> None:
    products = {p.asin: p for p in load_products(find_catalog_files(SMALL))}
    empty_price = [p for p in products.values() if p.price_text == "$100.0"]
    assert len(empty_price) >= 89 and all(p.pricing == [100.0] for p in empty_price)
    ranged = [p for p in products.values() if len(p.pricing) == 2]
    assert ranged and all(" to $" in p.price_text for p in ranged)
    for p in products.values():
        for values in p.options.values():
            assert all(v == v.lower() and "/" not in v for v in values)
        assert p.query == p.query.lower().strip()
        assert isinstance(p.attributes, list)  # the file may list none (WebShop keeps [])


def test_parse_pricing_semantics() -> None:
    assert parse_pricing("$12.99", "x") == ([12.99], "$12.99")
    assert parse_pricing("$1,299.00", "x") == ([1299.0], "$1299.0")
    assert parse_pricing("$10.00 - $20.50", "x") == ([10.0, 20.5], "$10.0 to $20.5")
    assert parse_pricing("", "x") == ([100.0], "$100.0")
    with pytest.raises(DataError, match="pricing"):
        parse_pricing("twelve dollars", "x")


def _write(tmp: Path, products: list, attrs: dict | None = None) -> Path:
    (tmp / "items_shuffle_test.json").write_text(json.dumps(products))
    (tmp / "items_ins_v2_test.json").write_text(json.dumps(attrs or {}))
    return tmp


def _product(**kw: object) -> dict:
    base = {"asin": "B000000001", "name": "Red Shoe", "full_description": "A shoe.", "small_description": ["Comfy"],
            "pricing": "$10.0", "images": ["x.jpg"], "customization_options": {"Color": [{"value": "Red/Blue"}]},
            "product_category": "Fashion › Shoes", "category": "fashion", "query": "Shoes "}
    base.update(kw)
    return base


def test_malformed_records_name_file_record_and_field(tmp_path: Path) -> None:
    _write(tmp_path, [_product(), _product(asin="B000000002", name=None)])
    with pytest.raises(DataError) as err:
        load_products(find_catalog_files(tmp_path))
    assert "items_shuffle_test.json" in str(err.value) and "record 1" in str(err.value) and "'name'" in str(err.value)

    _write(tmp_path, [_product(customization_options={"Size": [{"label": "no value"}]})])
    with pytest.raises(DataError, match=r"record 0 .*customization_options\.Size\[0\]\.value"):
        load_products(find_catalog_files(tmp_path))

    (tmp_path / "items_shuffle_test.json").write_text("{not json")
    with pytest.raises(DataError, match="not valid JSON"):
        load_products(find_catalog_files(tmp_path))


def test_loader_applies_webshop_rules(tmp_path: Path) -> None:
    _write(tmp_path, [_product(), _product(), _product(asin="nan"), _product(asin="B00000000099")])
    with pytest.warns(DataWarning, match=r"1 duplicate ASIN skipped \(first wins\): B000000001"):
        products = load_products(find_catalog_files(tmp_path))
    assert [p.asin for p in products] == ["B000000001"]  # duplicates, 'nan' and long ASINs dropped
    p = products[0]
    assert p.options == {"color": ["red | blue"]}
    assert p.attributes == ["DUMMY_ATTR"] and p.query == "shoes"


def test_missing_folder_and_files_are_clear(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="no such data folder"):
        find_catalog_files(tmp_path / "nope")
    with pytest.raises(DataError, match="no items_shuffle"):
        find_catalog_files(tmp_path)


def test_goal_specs_and_splits() -> None:
    assert parse_goal_spec("0:3", 10) == [0, 1, 2]
    assert parse_goal_spec("1,4", 10) == [1, 4]
    assert parse_goal_spec("test", 600) == list(range(500))
    assert parse_goal_spec("eval", 600) == list(range(500, 600))
    assert SPLITS["train"] == (1500, None)
    with pytest.raises(ConfigError, match="out of range"):
        parse_goal_spec("12", 10)
    with pytest.raises(ConfigError, match="bad goal spec"):
        parse_goal_spec("a:b", 10)


@pytest.mark.skipif(not (GOLDEN / "goals_synthetic_seed0.jsonl").exists(), reason="golden goal file not present")
def test_explicit_goal_file_loads_in_order(tmp_path: Path) -> None:
    goals = load_goal_file(GOLDEN / "goals_synthetic_seed0.jsonl")
    assert len(goals) == 6910 and goals[0].asin == "B0743JKHBV"
    bad = tmp_path / "goals.jsonl"
    bad.write_text('{"asin": "X", "instruction_text": "hi"}\n{"asin": "Y"}\n')
    with pytest.raises(DataError, match=r"line 2: field 'instruction_text'"):
        load_goal_file(bad)
