"""The seeded catalog generator: determinism, WebShop file formats, spread, and the bundled files."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from shopsim.simsite.catalog import default_catalog_dir
from shopsim.simsite.catalog import generator as gen
from shopsim.simsite.catalog.option_pools import POOLS
from shopsim.simsite.catalog.product_types import TYPES
from shopsim.simsite.catalog.vocabulary_shapes import SEP

CATEGORIES = {"beauty", "grocery", "fashion", "garden", "electronics"}
ITEM_KEYS = {
    "asin", "name", "full_description", "small_description", "pricing", "images", "customization_options",
    "product_category", "category", "query", "average_rating", "page",
}
ASIN = re.compile(r"^B0[0-9A-Z]{8}$")
PRICE = re.compile(r"^\$\d+\.\d{2}( - \$\d+\.\d{2})?$")


def _files(folder: Path) -> dict[str, bytes]:
    return {name: (folder / name).read_bytes() for name in gen.FILES}


def _load(folder: Path) -> tuple[list[dict[str, Any]], dict[str, Any], dict[str, Any], list[dict[str, Any]]]:
    return tuple(json.loads((folder / name).read_text(encoding="utf-8"))  # type: ignore[return-value]
                 for name in (gen.ITEMS_FILE, gen.ATTRIBUTES_FILE, gen.HUMAN_FILE, gen.REVIEWS_FILE))


def _webshop_options(item: dict[str, Any]) -> dict[str, list[str]]:
    """Options the way WebShop's loader normalises them (lower-case names, '/' -> ' | ')."""
    raw = item["customization_options"]
    if not raw:
        return {}
    return {name.lower(): [c["value"].strip().replace("/", " | ").lower() for c in contents]
            for name, contents in raw.items()}


def _text(item: dict[str, Any]) -> str:
    return " ".join([item["name"], *item["small_description"], item["full_description"]]).lower()


@pytest.fixture(scope="module")
def bundled() -> tuple[list[dict[str, Any]], dict[str, Any], dict[str, Any], list[dict[str, Any]]]:
    return _load(default_catalog_dir())


# ---------------------------------------------------------------------------- determinism


def test_same_seed_same_bytes_and_other_seed_differs(tmp_path: Path) -> None:
    gen.generate(tmp_path / "a", 300, seed=3)
    gen.generate(tmp_path / "b", 300, seed=3)
    gen.generate(tmp_path / "c", 300, seed=4)
    a, b, c = (_files(tmp_path / x) for x in "abc")
    assert a == b
    for name in gen.FILES:
        assert a[name] != c[name], name


def test_smaller_catalog_is_a_prefix_of_a_larger_one(tmp_path: Path) -> None:
    gen.generate(tmp_path / "small", 700, seed=1)
    gen.generate(tmp_path / "large", 2100, seed=1)
    small, large = _load(tmp_path / "small"), _load(tmp_path / "large")
    assert small[0] == large[0][:700]
    assert list(small[1].items()) == list(large[1].items())[:700]


def test_worker_count_does_not_change_the_bytes(tmp_path: Path) -> None:
    seen: list[int] = []
    gen.generate(tmp_path / "one", 3000, seed=2, workers=1)
    gen.generate(tmp_path / "two", 3000, seed=2, workers=2, progress=seen.append)
    assert _files(tmp_path / "one") == _files(tmp_path / "two")
    assert seen == [1000, 2000, 3000]  # products written, once per block (`shopsim data generate`'s bar)


def test_output_does_not_depend_on_hash_seed(tmp_path: Path) -> None:
    outs = []
    for hash_seed in ("1", "2"):
        out = tmp_path / hash_seed
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        subprocess.run([sys.executable, "-m", "shopsim.simsite.catalog.generator", "--out", str(out),
                        "--products", "200", "--seed", "5"], check=True, env=env, capture_output=True)
        outs.append(_files(out))
    assert outs[0] == outs[1]


def test_bundled_files_equal_a_fresh_generation(tmp_path: Path) -> None:
    counts = gen.generate(tmp_path, 600, seed=0)
    assert _files(tmp_path) == _files(default_catalog_dir()), (
        "bundled catalog is stale: run python -m shopsim.simsite.catalog.generator")
    assert counts["products"] == 600
    assert sum(counts["files"].values()) < 3_000_000


def test_asins_are_unique_and_well_formed() -> None:
    asins = [gen.asin_for(i, 0) for i in range(200_000)]
    assert len(set(asins)) == len(asins)
    assert all(ASIN.match(a) for a in asins[:5000])
    assert gen.asin_for(gen.MAX_PRODUCTS - 1, 7).startswith("B0")
    assert gen.asin_for(12, 0) != gen.asin_for(12, 1)
    with pytest.raises(ValueError):
        gen.asin_for(-1)


def test_human_instructions_are_stratified() -> None:
    assert gen.BLOCK % gen.HUMAN_EVERY == 0
    humans = [p.item["asin"] for p in gen.iter_catalog(2000, seed=6) if p.human is not None]
    assert len(humans) == 2000 // gen.HUMAN_EVERY


def test_rejects_bad_arguments(tmp_path: Path) -> None:
    with pytest.raises(ValueError):
        gen.generate(tmp_path, 10, seed=-1)
    with pytest.raises(ValueError):
        gen.generate(tmp_path, -5)


# ---------------------------------------------------------------------------- formats and spread


def test_items_format(bundled: Any) -> None:
    items = bundled[0]
    assert len(items) >= 500
    assert len({p["asin"] for p in items}) == len(items)
    for p in items:
        assert set(p) == ITEM_KEYS
        assert ASIN.match(p["asin"])
        assert 8 <= len(p["name"].split()) <= 20, p["name"]
        assert isinstance(p["full_description"], str)
        assert 3 <= len(p["small_description"]) <= 6
        assert all(isinstance(b, str) and b.endswith(" ") for b in p["small_description"])
        assert p["pricing"] == "" or PRICE.match(p["pricing"]), p["pricing"]
        assert 1 <= len(p["images"]) <= 4 and all(u.startswith("/static/img/") for u in p["images"])
        assert 3 <= len(p["product_category"].split(" › ")) <= 5
        assert p["category"] in CATEGORIES
        assert p["query"] == p["query"].lower().strip() and p["query"]
        rating = p["average_rating"]
        assert rating == "" or (isinstance(rating, float) and 1.0 <= rating <= 5.0)
        assert isinstance(p["page"], int) and p["page"] >= 1
        options = p["customization_options"]
        if options != "":
            assert 1 <= len(options) <= 3
            for contents in options.values():
                assert 2 <= len(contents) <= 10
                assert all(set(c) == {"value", "image"} and isinstance(c["value"], str) for c in contents)
                values = [c["value"] for c in contents]
                assert len(set(values)) == len(values)


def test_price_ranges_parse_like_webshop(bundled: Any) -> None:
    for p in bundled[0]:
        if p["pricing"]:
            prices = [float(re.sub(r"[^\d.]", "", x)) for x in p["pricing"].split("$")[1:]]
            assert all(x > 0 for x in prices) and prices == sorted(prices)


def test_spread_and_proportions(bundled: Any) -> None:
    items = bundled[0]
    n = len(items)
    per_category = Counter(p["category"] for p in items)
    assert set(per_category) == CATEGORIES
    assert all(count >= 0.15 * n for count in per_category.values()), per_category
    for category in CATEGORIES:
        assert len({p["query"] for p in items if p["category"] == category}) >= 8
    with_options = [p for p in items if p["customization_options"]]
    assert len(with_options) >= 0.4 * n
    assert any("/" in c["value"] for p in with_options for v in p["customization_options"].values() for c in v)
    assert any(c["value"] != c["value"].lower() for p in with_options for v in p["customization_options"].values()
               for c in v)
    ranges = sum(" - " in p["pricing"] for p in items)
    assert 0.12 * n <= ranges <= 0.28 * n
    assert 1 <= sum(p["pricing"] == "" for p in items) <= 0.06 * n
    assert 1 <= sum(p["full_description"] == "" for p in items) <= 0.1 * n
    fashion = [p for p in with_options if p["category"] == "fashion"]
    assert sum({"Color", "Size"} <= set(p["customization_options"]) for p in fashion) >= 0.4 * len(fashion)


def test_attribute_file(bundled: Any) -> None:
    items, attributes = bundled[0], bundled[1]
    assert list(attributes) == [p["asin"] for p in items]
    by_asin = {p["asin"]: p for p in items}
    with_instruction = 0
    for asin, record in attributes.items():
        attrs = record["attributes"]
        assert attrs and all(a == a.lower() and a.strip() == a for a in attrs)
        assert len(set(attrs)) == len(attrs)
        text = _text(by_asin[asin])
        assert all(a in text for a in attrs), (asin, attrs)
        if "instruction" in record:
            with_instruction += 1
            assert set(record) == {"attributes", "instruction", "instruction_attributes"}
            assert record["instruction_attributes"] and set(record["instruction_attributes"]) <= set(attrs)
            assert all(a in record["instruction"].lower() for a in record["instruction_attributes"])
        else:
            assert set(record) == {"attributes"}
    assert 0.35 * len(items) <= with_instruction <= 0.55 * len(items)


def test_human_instruction_file(bundled: Any) -> None:
    items, attributes, human = bundled[0], bundled[1], bundled[2]
    by_asin = {p["asin"]: p for p in items}
    assert len(human) == len(items) // gen.HUMAN_EVERY == 30
    ids = set()
    for asin, records in human.items():
        assert len(records) == 1
        rec = records[0]
        assert rec["asin"] == asin
        assert rec["instruction"] == rec["instruction"].lower()
        assert rec["attributes"] == attributes[asin]["attributes"]
        assert rec["instruction_attributes"] and set(rec["instruction_attributes"]) <= set(rec["attributes"])
        options = _webshop_options(by_asin[asin])
        all_values = {v for values in options.values() for v in values}
        assert rec["instruction_options"] and set(rec["instruction_options"]) <= all_values
        for option in rec["options"]:
            name, _, value = option.partition(": ")
            assert value in options[name]
        assert re.match(r"^gen-\d+$", rec["assignment_id"]) and rec["worker_id"] == "generator"
        ids.add(rec["assignment_id"])
    assert len(ids) == len(human)


def test_review_file(bundled: Any) -> None:
    items, reviews = bundled[0], bundled[3]
    by_asin = {p["asin"]: p for p in items}
    assert 0.6 * len(items) <= len(reviews) <= 0.8 * len(items)
    assert len({r["asin"] for r in reviews}) == len(reviews)
    for record in reviews:
        product = by_asin[record["asin"]]
        expected = "N.A." if product["average_rating"] == "" else product["average_rating"]
        assert record["average_rating"] == expected
        assert 0 <= len(record["reviews"]) <= 4
        for review in record["reviews"]:
            assert set(review) == {"title", "score", "body"}
            assert isinstance(review["score"], int) and 1 <= review["score"] <= 5
            assert review["title"] and review["body"]
    assert sum(len(r["reviews"]) for r in reviews) > len(reviews)


def test_counts_match_files(tmp_path: Path) -> None:
    counts = gen.generate(tmp_path, 500, seed=9)
    items, attributes, human, reviews = _load(tmp_path)
    assert counts["products"] == len(items) == len(attributes) == 500
    assert counts["by_category"] == dict(Counter(p["category"] for p in items)) | {
        c: 0 for c in CATEGORIES if c not in {p["category"] for p in items}}
    assert counts["with_options"] == sum(p["customization_options"] != "" for p in items)
    assert counts["instructions"] == sum("instruction" in r for r in attributes.values())
    assert counts["human_instructions"] == len(human)
    assert counts["review_records"] == len(reviews)
    assert counts["reviews"] == sum(len(r["reviews"]) for r in reviews)
    assert counts["queries"] == len({p["query"] for p in items})
    assert counts["files"] == {name: (tmp_path / name).stat().st_size for name in gen.FILES}


def test_empty_catalog_is_valid_json(tmp_path: Path) -> None:
    gen.generate(tmp_path, 0)
    items, attributes, human, reviews = _load(tmp_path)
    assert items == [] and attributes == {} and human == {} and reviews == []


def test_vocabulary_is_consistent() -> None:
    queries = [t.query for t in TYPES]
    assert len(set(queries)) == len(queries)
    for t in TYPES:
        levels = t.path.count(SEP) + 1
        assert (3 <= levels <= 5 and not t.leaves) or (2 <= levels <= 4 and t.leaves), t.query
        attrs = t.adj + t.for_ + t.with_
        assert len(set(attrs)) == len(attrs) >= 5, t.query
        assert all(a == a.lower() and "-" not in a for a in attrs), t.query
        assert all(key in POOLS for key in t.axes), t.query
        axis_names = [POOLS[key].axis for key in t.axes]
        assert len(set(axis_names)) == len(axis_names), t.query
        assert 0 < t.price[0] < t.price[1]
    for pool in POOLS.values():
        assert len(set(pool.values)) == len(pool.values) >= 2


def test_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert gen.main(["--out", str(tmp_path), "--products", "50", "--seed", "2"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["products"] == 50 and report["seed"] == 2
    assert len(_load(tmp_path)[0]) == 50


# ---------------------------------------------------------------------------- scale


@pytest.mark.slow
def test_scales_to_twenty_thousand_products(tmp_path: Path) -> None:
    started = time.perf_counter()
    counts = gen.generate(tmp_path, 20_000, seed=11)
    elapsed = time.perf_counter() - started
    assert elapsed < 60, f"20k products took {elapsed:.1f}s"
    items = json.loads((tmp_path / gen.ITEMS_FILE).read_text(encoding="utf-8"))
    assert counts["products"] == len(items) == 20_000
    assert len({p["asin"] for p in items}) == 20_000
    assert counts["queries"] == len(TYPES)
