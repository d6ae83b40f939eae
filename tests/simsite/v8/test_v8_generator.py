"""The ShopSimulator v8 catalog generator: determinism, product/task shape, counts and task consistency."""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import re
import subprocess
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import pytest

from shopsim.simsite.v8.catalog import default_v8_catalog
from shopsim.simsite.v8.catalog import generator as gen
from shopsim.simsite.v8.catalog import products as v8_products

Product = dict[str, Any]

ZH_ASIN = re.compile(r"^[1-9]\d{11}$")
EN_ASIN = re.compile(r"^B0[0-9A-Z]{8}$")
REQUIRED = ("asin", "title", "shop_name", "category", "pricing", "customization_options", "attribute",
            "full_description", "small_description", "instructions")
OPTIONAL = ("brand", "model", "user_persona")
TASK_KEYS = ("task_id", "instruction", "instruction_simple", "attributes", "instruction_options", "price_upper",
             "task_mode")
ZH_PERSONA = {"用户ID": str, "人口属性": dict, "地区信息": dict, "交易特征": dict, "兴趣偏好": dict, "行为特征": dict,
              "用户标签": list, "__reasoning__": str}
EN_PERSONA = {"user_id": str, "demographics": dict, "region": dict, "transactions": dict, "interests": dict,
              "behaviour": dict, "tags": list, "__reasoning__": str}
NOUNS = tuple(dict.fromkeys(t.noun for t in v8_products.TYPES))


def _n(text: str) -> float:
    return float(text.replace(",", ""))


# The contract's budget patterns: standard tasks must use exactly one of these.
STANDARD_BUDGETS = (
    (re.compile(r"价格在(\d+)到(\d+)元之间"), lambda m: _n(m[2])),
    (re.compile(r"(\d+)元左右"), lambda m: 1.10 * _n(m[1])),
    (re.compile(r"(\d+)元以内"), lambda m: _n(m[1])),
    (re.compile(r"不超过(\d+)元"), lambda m: _n(m[1])),
    (re.compile(r"under ([\d,]+) dollars"), lambda m: _n(m[1])),
    (re.compile(r"priced from ([\d,]+) to ([\d,]+) (?:yuan|dollars)"), lambda m: _n(m[2])),
    (re.compile(r"around ([\d,]+) dollars"), lambda m: 1.10 * _n(m[1])),
)
# Persona tasks carry price_upper, so their text may also phrase the budget like this.
PERSONA_BUDGETS = (
    (re.compile(r"最多(\d+)元"), lambda m: _n(m[1])),
    (re.compile(r"(\d+)块钱以内"), lambda m: _n(m[1])),
    (re.compile(r"no more than ([\d,]+) (?:dollars|yuan)"), lambda m: _n(m[1])),
    (re.compile(r"at most ([\d,]+) dollars"), lambda m: _n(m[1])),
)


def parse_budget(text: str, patterns: tuple[Any, ...]) -> float:
    """The one budget the text states; fails when it states none, several, or has other digits."""
    found = [(m, f) for pattern, f in patterns for m in pattern.finditer(text)]
    assert len(found) == 1, f"expected one budget in {text!r}, found {[m.group() for m, _ in found]}"
    m, f = found[0]
    rest = text[: m.start()] + text[m.end():]
    assert not any(c.isdigit() for c in rest), f"a number besides the budget in {text!r}"
    return f(m)


@pytest.fixture(scope="module")
def catalog() -> list[Product]:
    return gen.generate_v8(2000, 0)


@pytest.fixture(scope="module")
def tasks(catalog: list[Product]) -> list[tuple[Product, Product]]:
    return [(p, t) for p in catalog for t in p["instructions"]]


def _persona_of(product: Product, task: Product) -> dict[str, Any] | None:
    return task.get("user_persona") or (product.get("user_persona") if task["task_mode"] == "persona" else None)


def _texts(product: Product) -> list[str]:
    attribute = product["attribute"]
    values = list(attribute.values()) if isinstance(attribute, dict) else list(attribute)
    return [s.lower() for s in [product["title"], *product["small_description"], *values]]


def _gold_price(product: Product, options: dict[str, str]) -> float:
    """The chosen configuration's price by the contract's rules (never an unverifiable product here)."""
    axes = v8_products.price_axes(product)
    assert len(axes) <= 1
    if axes:
        chosen = options[axes[0]]
        return next(e["price"] for e in product["customization_options"][axes[0]] if e["value"] == chosen)
    prices = {e["price"] for v in product["customization_options"].values() for e in v if e["price"] is not None}
    if len(prices) == 1:
        return prices.pop()
    assert len(set(product["pricing"])) == 1, f"{product['asin']}: unverifiable product has a task"
    return product["pricing"][0]


# ---------------------------------------------------------------------------- determinism


def test_same_seed_same_bytes_different_seed_different(tmp_path: Path) -> None:
    a, b, c = tmp_path / "a.json.gz", tmp_path / "b.json.gz", tmp_path / "c.json.gz"
    gen.write_v8(a, 400, 7)
    gen.write_v8(b, 400, 7)
    gen.write_v8(c, 400, 8)
    assert a.read_bytes() == b.read_bytes()
    assert a.read_bytes() != c.read_bytes()
    assert gzip.decompress(a.read_bytes()).decode("utf-8") == gen.dumps_v8(gen.generate_v8(400, 7))
    assert a.read_bytes()[4:8] == b"\0\0\0\0", "gzip mtime must be 0"
    plain = tmp_path / "a.json"
    gen.write_v8(plain, 400, 7)
    assert plain.read_bytes() == gzip.decompress(a.read_bytes())
    assert json.loads(plain.read_text(encoding="utf-8")) == gen.generate_v8(400, 7)


def test_bytes_do_not_depend_on_hash_seed() -> None:
    code = ("import hashlib, sys; from shopsim.simsite.v8.catalog import generator as g; "
            "sys.stdout.write(hashlib.sha256(g.dumps_v8(g.generate_v8(300, 5)).encode()).hexdigest())")
    digests = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                              env={**os.environ, "PYTHONHASHSEED": seed}).stdout for seed in ("1", "987")}
    assert digests == {hashlib.sha256(gen.dumps_v8(gen.generate_v8(300, 5)).encode()).hexdigest()}


def test_prefix_stable() -> None:
    assert gen.generate_v8(150, 3) == gen.generate_v8(400, 3)[:150]


def test_bundled_catalog_is_seed_zero(catalog: list[Product]) -> None:
    path = default_v8_catalog()
    assert path.name == "shop_v8_products.json.gz" and path.is_file()
    raw = path.read_bytes()
    assert len(raw) < 2_000_000
    assert gzip.decompress(raw).decode("utf-8") == gen.dumps_v8(catalog), \
        "stale bundle: python -m shopsim.simsite.v8.catalog.generator --products 2000 --seed 0"


def test_cli_writes_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "cat.json"
    assert gen.main(["--products", "60", "--seed", "2", "--out", str(out)]) == 0
    assert json.loads(out.read_text(encoding="utf-8")) == gen.generate_v8(60, 2)
    assert json.loads(capsys.readouterr().out)["products"] == 60
    with pytest.raises(SystemExit):
        gen.main(["--out", str(tmp_path / "cat.txt")])


# ---------------------------------------------------------------------------- shape


def test_product_shape(catalog: list[Product]) -> None:
    for p in catalog:
        assert set(REQUIRED) <= set(p) <= set(REQUIRED + OPTIONAL), p["asin"]
        assert ZH_ASIN.match(p["asin"]) or EN_ASIN.match(p["asin"]), p["asin"]
        assert p["title"] and isinstance(p["title"], str) and isinstance(p["shop_name"], str) and p["shop_name"]
        nodes = p["category"].split(" > ") if isinstance(p["category"], str) else p["category"]
        assert 2 <= len(nodes) <= 4 and all(isinstance(n, str) and n for n in nodes)
        pricing = p["pricing"]
        assert len(pricing) in (1, 2) and all(isinstance(x, int | float) and x > 0 for x in pricing)
        assert len(pricing) == 1 or pricing[0] < pricing[1]
        for axis, entries in p["customization_options"].items():
            assert axis and len(entries) >= 2
            assert len({e["value"] for e in entries}) == len(entries)
            for e in entries:
                assert set(e) <= {"value", "price", "image", "availability", "sku_id"} and "price" in e
                assert isinstance(e["value"], str) and (e["price"] is None or isinstance(e["price"], int | float))
                assert e.get("image", "https://img.example.invalid/").startswith("https://img.example.invalid/")
                assert e.get("availability", "有货") in ("有货", "缺货", "In Stock", "Out of Stock")
                assert e.get("sku_id", "0").isdigit()
        attribute = p["attribute"]
        if isinstance(attribute, dict):
            assert all(isinstance(k, str) and isinstance(v, str) for k, v in attribute.items())
            brand_known = "brand" in p or "品牌" in attribute or "Brand" in attribute
        else:
            assert all(isinstance(s, str) for s in attribute)
            brand_known = "brand" in p or any(s.startswith(("品牌: ", "Brand: ")) for s in attribute)
        assert brand_known, p["asin"]
        assert isinstance(p["full_description"], str) and p["full_description"]
        assert isinstance(p["small_description"], list) and len(p["small_description"]) >= 2
        assert all(isinstance(s, str) and s for s in p["small_description"])
        for key in ("brand", "model"):
            assert key not in p or (isinstance(p[key], str) and p[key])
        for t in p["instructions"]:
            assert set(TASK_KEYS) <= set(t) <= {*TASK_KEYS, "user_persona"}
            assert isinstance(t["task_id"], int) and not isinstance(t["task_id"], bool)
            assert t["task_mode"] in ("persona", "standard")
            assert isinstance(t["attributes"], list) and 1 <= len(t["attributes"]) <= 3
            assert isinstance(t["instruction_options"], dict)
            assert "user_persona" not in t or t["task_mode"] == "persona"


def test_counts(catalog: list[Product], tasks: list[tuple[Product, Product]]) -> None:
    counts = gen.catalog_counts(catalog)
    assert counts["products"] == len(catalog) >= 2000
    assert 0.6 <= counts["zh"] / counts["products"] <= 0.73
    assert counts["tasks"] == len(tasks) >= 1000
    assert counts["persona"] * 3 >= counts["tasks"]
    assert counts["persona"] + counts["standard"] == counts["tasks"]
    assert 0.015 <= counts["two_price_axes"] / counts["products"] <= 0.05
    assert counts["unverifiable_range"] >= 10 and counts["no_options"] >= 100
    assert counts["product_personas"] >= 10 and counts["reused_persona_users"] >= 10
    assert any(isinstance(p["category"], str) for p in catalog)
    assert any(isinstance(p["attribute"], list) for p in catalog)
    assert any("brand" in p for p in catalog) and any("brand" not in p for p in catalog)
    assert any(len(p["instructions"]) == 2 for p in catalog)
    by_leaf = Counter((p["category"] if isinstance(p["category"], str) else " > ".join(p["category"])).split(" > ")[-1]
                      for p in catalog)
    assert min(by_leaf.most_common(45)[-1][1], 20) == 20, "too few products per category for search distractors"
    priced = [len(v8_products.price_axes(p)) for p in catalog]
    assert priced.count(1) > len(catalog) / 2
    with_unpriced_axis = sum(1 for p in catalog if len(v8_products.price_axes(p)) == 1 and len(p["customization_options"]) == 2)
    assert with_unpriced_axis >= 200


def test_unique_task_ids_and_asins(catalog: list[Product], tasks: list[tuple[Product, Product]]) -> None:
    assert len({p["asin"] for p in catalog}) == len(catalog)
    ids = [t["task_id"] for _, t in tasks]
    assert len(set(ids)) == len(ids)
    assert ids == sorted(ids) and ids[-1] - ids[0] + 1 > len(ids), "ids increase with gaps"


# ---------------------------------------------------------------------------- task consistency


def test_two_price_axis_products_have_no_tasks(catalog: list[Product]) -> None:
    two = [p for p in catalog if len(v8_products.price_axes(p)) >= 2]
    assert two and all(not p["instructions"] and "user_persona" not in p for p in two)


def test_attributes_occur_literally(tasks: list[tuple[Product, Product]]) -> None:
    for p, t in tasks:
        texts = _texts(p)
        for attr in t["attributes"]:
            assert any(attr.lower() in s for s in texts), (t["task_id"], attr)
            assert attr.lower() in t["instruction"].lower(), (t["task_id"], attr)
        title = p["title"].lower()
        nouns = [n for n in NOUNS if n.lower() in title]
        assert any(n.lower() in t["instruction"].lower() and n.lower() in t["instruction_simple"].lower()
                   for n in nouns), t["task_id"]


def test_options_exist_and_budget_covers_gold(tasks: list[tuple[Product, Product]]) -> None:
    for p, t in tasks:
        axes = p["customization_options"]
        for axis, value in t["instruction_options"].items():
            assert value in [e["value"] for e in axes[axis]], (t["task_id"], axis, value)
            assert value in t["instruction"], t["task_id"]
            assert value not in t["instruction_simple"], t["task_id"]
        price_axes = v8_products.price_axes(p)
        assert all(a in t["instruction_options"] for a in price_axes), t["task_id"]
        price = _gold_price(p, t["instruction_options"])
        if t["task_mode"] == "standard":
            assert t["price_upper"] is None
            budget = parse_budget(t["instruction_simple"], STANDARD_BUDGETS)
            assert parse_budget(t["instruction"], STANDARD_BUDGETS) == budget
        else:
            assert isinstance(t["price_upper"], int | float)
            budget = t["price_upper"]
            for text in (t["instruction_simple"], t["instruction"]):
                assert parse_budget(text, STANDARD_BUDGETS + PERSONA_BUDGETS) == pytest.approx(budget, abs=1e-6)
        assert budget >= price, (t["task_id"], budget, price)


def test_personas(catalog: list[Product], tasks: list[tuple[Product, Product]]) -> None:
    by_user: dict[str, list[str]] = defaultdict(list)
    on_product = 0
    for p, t in tasks:
        persona = _persona_of(p, t)
        if t["task_mode"] == "standard":
            assert persona is None or "user_persona" not in t
            continue
        assert persona is not None, t["task_id"]
        on_product += "user_persona" not in t
        zh = ZH_ASIN.match(p["asin"]) is not None
        shape = ZH_PERSONA if zh else EN_PERSONA
        assert list(persona) == list(shape), t["task_id"]
        assert all(isinstance(persona[k], kind) for k, kind in shape.items())
        assert persona["__reasoning__"]
        if zh:
            prefs = persona["兴趣偏好"]["商品属性偏好"]
            assert set(prefs) == {"价格区间", "功能", "材质", "尺码范围"}
            assert set(prefs["价格区间"]) == {"最小值", "最大值"}
            assert set(persona["人口属性"]) == {"年龄段", "性别", "会员等级", "消费等级"}
            assert set(persona["地区信息"]) == {"省份", "城市", "时区"}
            assert set(persona["交易特征"]) == {"平均客单价", "复购率", "是否促销敏感", "支付方式偏好"}
            assert set(persona["兴趣偏好"]) == {"品牌偏好", "商品属性偏好", "类目偏好"}
            assert set(persona["行为特征"]) == {"最近14天搜索关键词", "最近浏览商品数", "活跃时段"}
            uid, searches = persona["用户ID"], persona["行为特征"]["最近14天搜索关键词"]
        else:
            uid, searches = persona["user_id"], persona["behaviour"]["recent_searches"]
        title = p["title"].lower()
        nouns = [n for n in NOUNS if n.lower() in title]
        assert any(n in s for n in nouns for s in searches), (t["task_id"], searches)
        by_user[uid].append(json.dumps(persona, ensure_ascii=False))
    assert on_product >= 10
    reused = [v for v in by_user.values() if len(v) > 1]
    assert len(reused) >= 10
    assert all(len(set(v)) == 1 for v in by_user.values()), "one user id, one persona"
    assert all("__reasoning__" in p["user_persona"] for p in catalog if "user_persona" in p)


def test_vocabulary_keeps_digits_out_of_task_text() -> None:
    """Everything a task may quote is digit-free, so the budget is the only number in a task."""
    for t in v8_products.TYPES:
        quoted = [t.noun, *t.feats, *t.withs, *(v for v in t.axes[0][1])]
        assert not [s for s in quoted if any(c.isdigit() for c in s)], t.noun
        assert len(t.axes) >= 2 and len(t.path) >= 3 and len(t.feats) >= 4
        assert all(len(values) == len(set(values)) >= 2 for _, values in t.axes)
