"""The v8 profile's rules on hand-built records: budgets, SKU prices, reward components, loader errors."""

from __future__ import annotations

import gzip
import json

import pytest

from shopsim.budget import parse_budget
from shopsim.errors import DataError
from shopsim.simsite.v8.prices import resolve_price, task_budget
from shopsim.simsite.v8.records import load_v8_catalog, parse_v8_records, public_persona
from shopsim.simsite.v8.reward import TitleTerms, score_v8_purchase


def product(**kw):
    base = {"asin": "100000000001", "title": "不锈钢保温杯 大容量 户外", "category": ["家居", "水杯", "保温杯"],
            "pricing": [59, 89]}
    base.update(kw)
    return base


def catalog(*records):
    return parse_v8_records(list(records), "test")


# ---- budgets -----------------------------------------------------------------------------------
@pytest.mark.parametrize(("text", "want"), [
    ("价格在1000到1200元之间", (1200.0, False)),
    ("1000元左右", (1100.0, True)),
    ("预算大约300元", (330.0, True)),
    ("800元上下的电饼铛", (880.0, True)),
    ("under 50 dollars", (50.0, False)),
    ("priced from 1,000 to 1,200 yuan", (1200.0, False)),
    ("around $40 please", (44.0, True)),
    ("approximately 20 dollars", (22.0, True)),
    ("预算599元以内", (599.0, False)),
    ("最多199元", (199.0, False)),
    ("A 2-3 person tent under $120", (120.0, False)),
])
def test_budget_patterns(text, want):
    found = parse_budget(text)
    assert (found.limit, found.approximate) == want


@pytest.mark.parametrize("text", ["", "Bose QC45 耳机", "适合2-3人使用的帐篷", "a size 10 shoe"])
def test_texts_without_a_budget(text):
    assert parse_budget(text) is None


def test_budget_sources_in_order():
    rec = product(instructions=[
        {"task_id": 1, "instruction": "价格在100到200元之间的杯子", "instruction_simple": "300元左右的杯子", "price_upper": 150},
        {"task_id": 2, "instruction": "价格在100到200元之间的杯子", "instruction_simple": "300元左右的杯子", "price_upper": None},
        {"task_id": 3, "instruction": "价格在100到200元之间的杯子", "instruction_simple": "一个杯子"},
        {"task_id": 4, "instruction": "一个杯子", "price_upper": "not a number"},
        {"task_id": 5, "instruction": "一个杯子", "price_upper": 99, "price_upper_source": "annotation"},
        {"task_id": 6, "instruction": "两百元以内的杯子", "instruction_simple": "几百元以内的杯子"},
        {"task_id": 7, "instruction": "几百元以内的杯子", "instruction_simple": "一个杯子"},
    ])
    tasks = {t.task_id: t for t in catalog(rec).tasks}
    assert (task_budget(tasks[1]).limit, task_budget(tasks[1]).source) == (150.0, "price_upper")
    b2 = task_budget(tasks[2])
    assert (b2.limit, b2.source, b2.approximate, b2.field) == (pytest.approx(330.0), "regex", True, "instruction_simple")
    b3 = task_budget(tasks[3])
    assert (b3.limit, b3.source, b3.field, b3.phrase) == (200.0, "regex", "instruction", "100到200元")
    assert task_budget(tasks[4]) is None  # an invalid price_upper falls back to the text, which has none
    assert (task_budget(tasks[5]).limit, task_budget(tasks[5]).source) == (99.0, "annotation")
    b6 = task_budget(tasks[6])  # the simple text's phrase is unreadable; the full one gives a number
    assert (b6.limit, b6.source, b6.field) == (200.0, "regex", "instruction")
    b7 = task_budget(tasks[7])
    assert (b7.limit, b7.source, b7.field, b7.phrase) == (None, "unparseable", "instruction", "几百元")


# ---- selected-SKU prices -----------------------------------------------------------------------
def test_price_resolver_rules():
    one_axis = catalog(product(customization_options={
        "容量": [{"value": "500ml", "price": 59}, {"value": "1L", "price": 89}],
        "颜色": [{"value": "黑", "price": None}, {"value": "白"}]})).products[0]
    assert resolve_price(one_axis, {}).price is None
    assert resolve_price(one_axis, {"颜色": "黑"}).verifiable is False
    r = resolve_price(one_axis, {"容量": "1L", "颜色": "白"})
    assert (r.price, r.verifiable) == (89.0, True)

    two_axes = catalog(product(customization_options={
        "容量": [{"value": "500ml", "price": 59}, {"value": "1L", "price": 89}],
        "颜色": [{"value": "黑", "price": 60}, {"value": "白", "price": 70}]})).products[0]
    assert two_axes.price_axes == ["容量", "颜色"]
    assert resolve_price(two_axes, {"容量": "1L", "颜色": "白"}).verifiable is False

    same_price = catalog(product(pricing=[59], customization_options={
        "颜色": [{"value": "黑", "price": 59}, {"value": "白", "price": 59}]})).products[0]
    assert resolve_price(same_price, {"颜色": "白"}).price == 59.0
    assert resolve_price(catalog(product(pricing=[42])).products[0], {}).price == 42.0
    assert resolve_price(catalog(product(pricing=[59, 89])).products[0], {}).verifiable is False
    assert resolve_price(catalog(product(pricing=[])).products[0], {}).verifiable is False


# ---- reward ------------------------------------------------------------------------------------
def _task_and_products(options=None, attributes=None, price_upper=100):
    gold = product(customization_options={"容量": [{"value": "500ml", "price": 59}, {"value": "1L", "price": 89}]},
                   attribute={"材质": "不锈钢"}, small_description=["双层真空，保温十二小时"],
                   instructions=[{"task_id": 7, "instruction": "买保温杯", "attributes": attributes or ["不锈钢", "保温"],
                                  "instruction_options": options if options is not None else {"容量": "1L"},
                                  "price_upper": price_upper}])
    other = product(asin="B0TESTCUP1", title="Ceramic mug for coffee", category=["Kitchen", "Mugs"], pricing=[12])
    c = catalog(gold, other)
    return c.tasks[0], c.products[0], c.products[1]


def test_reward_full_success_and_strict_vs_loose():
    task, gold, _ = _task_and_products()
    terms = TitleTerms(use_jieba=False)
    d = score_v8_purchase(gold, {"容量": "1L"}, task, gold, terms)
    assert (d.r_type, d.r_att, d.r_option, d.r_price, d.r_strict, d.r_success) == (1, 1, 1, 1, 1, 1)
    assert d.target_asin_match and d.price_verifiable and d.term_source == "fallback"
    wrong = score_v8_purchase(gold, {"容量": "500ml"}, task, gold, terms)
    assert (wrong.r_option, wrong.r_strict, wrong.r_success) == (0, 0, 0)
    assert wrong.r_loose == pytest.approx((2 + 0 + 1) / (2 + 1 + 1))


def test_reward_price_over_budget_and_unverifiable():
    task, gold, _ = _task_and_products(price_upper=60)
    d = score_v8_purchase(gold, {"容量": "1L"}, task, gold, TitleTerms(use_jieba=False))
    assert d.r_price == 0 and d.price_verifiable and d.selected_price == 89
    no_budget, gold, _ = _task_and_products(price_upper=None)
    assert score_v8_purchase(gold, {}, no_budget, gold, TitleTerms(use_jieba=False)).r_price == 1


def test_reward_options_by_value_without_colour_normalisation():
    task, gold, _ = _task_and_products(options=["Wired"])
    d = score_v8_purchase(gold, {"颜色": "Red"}, task, gold, TitleTerms(use_jieba=False))
    assert d.r_option == 0  # WebShop would fold "wired" to "red"
    d = score_v8_purchase(gold, {"别的轴": "wired"}, task, gold, TitleTerms(use_jieba=False))
    assert d.r_option == 1  # compared by value, any axis, case-insensitively


def test_reward_type_zero_for_unrelated_titles_and_categories():
    task, gold, other = _task_and_products()
    d = score_v8_purchase(other, {}, task, gold, TitleTerms(use_jieba=False))
    assert (d.r_type, d.r_strict, d.r_loose, d.target_asin_match) == (0, 0, 0, False)


def test_reward_type_from_two_category_nodes():
    task, gold, _ = _task_and_products()
    other = catalog(product(asin="200000000002", title="完全不同的东西", category=["家居", "水杯", "玻璃杯"],
                            pricing=[30])).products[0]
    d = score_v8_purchase(other, {}, task, gold, TitleTerms(use_jieba=False))
    assert d.r_type == 1 and d.category_overlap == 2


# ---- loader ------------------------------------------------------------------------------------
def test_loader_shapes(tmp_path):
    recs = [product(asin="824100258497", category="家居 > 水杯 › 保温杯", attribute=["带盖", "材质: 钢"],
                    small_description="一句卖点", pricing=45,
                    user_persona={"用户ID": "u1", "__reasoning__": "x", "标签": [{"__reasoning__": 1, "a": 2}]},
                    instructions=[{"task_id": "12", "instruction": "买杯子", "instruction_simple": "杯子",
                                   "instruction_options": ["黑"]}])]
    path = tmp_path / "p.json.gz"
    path.write_bytes(gzip.compress(json.dumps(recs, ensure_ascii=False).encode()))
    c = load_v8_catalog(path)
    p, t = c.products[0], c.tasks[0]
    assert p.asin == "824100258497" and p.category == ["家居", "水杯", "保温杯"]
    assert p.attribute_list == ["带盖", "材质: 钢"] and p.bullets == ["一句卖点"] and p.pricing == [45.0]
    assert t.task_id == 12 and t.task_mode == "persona" and t.options == [(None, "黑")]
    assert public_persona(t.user_persona) == {"用户ID": "u1", "标签": [{"a": 2}]}


@pytest.mark.parametrize(("records", "message"), [
    ({"asin": "1"}, "expected a JSON array"),
    ([{"title": "x"}], "product 0: field 'asin': missing"),
    ([{"asin": "1"}], "field 'title': missing"),
    ([{"asin": "1", "title": "x", "pricing": [-5]}], "field 'pricing'"),
    ([{"asin": "1", "title": "x", "pricing": ["abc"]}], "is not a number"),
    ([{"asin": "1", "title": "x", "customization_options": {"c": [{"price": 1}]}}], "customization_options.c"),
    ([{"asin": "1", "title": "x", "instructions": [{"instruction": "y"}]}], "field 'task_id'"),
    ([{"asin": "1", "title": "x", "instructions": [{"task_id": 1}]}], "field 'instruction': missing"),
    ([{"asin": "1", "title": "x"}, {"asin": "1", "title": "y"}], "duplicate ASIN"),
    ([{"asin": "1", "title": "x", "instructions": [{"task_id": 1, "instruction": "a"}, {"task_id": 1, "instruction": "b"}]}],
     "is also a task of"),
    ([{"asin": "1", "title": "x", "user_persona": "someone"}], "field 'user_persona'"),
    ([{"asin": "1", "title": "x", "instructions": [{"task_id": 1, "instruction": "a", "task_mode": "persona"}]}],
     "'persona' but neither"),
])
def test_loader_errors_name_record_and_field(records, message):
    with pytest.raises(DataError, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse_v8_records(records, "cat.json")


def test_loader_file_errors(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_bytes(b"\xff\xfe not utf8")
    with pytest.raises(DataError, match=r"bad\.json: not UTF-8"):
        load_v8_catalog(bad)
    trunc = tmp_path / "t.json.gz"
    trunc.write_bytes(gzip.compress(b"[1, 2, 3]")[:12])
    with pytest.raises(DataError, match=r"t\.json\.gz: not a valid gzip"):
        load_v8_catalog(trunc)
    with pytest.raises(DataError, match="cannot read"):
        load_v8_catalog(tmp_path / "missing.json")


def test_title_terms_fallback_and_jieba():
    title = "鑫旺达可移动小吃车 多功能摆摊餐车 Stainless steel cart"
    fallback = TitleTerms(use_jieba=False)
    assert fallback.source == "fallback"
    terms = fallback(title)
    assert {"小吃", "吃车", "cart"} <= terms and "多功" in terms
    try:
        import jieba  # noqa: F401
    except ImportError:
        pytest.skip("jieba is not installed (pip install -e .[zh]); the fallback is tested above")
    tagged = TitleTerms(use_jieba=True)
    assert tagged.source.startswith("jieba-")
    nouns = tagged(title)
    assert "cart" in nouns and "餐车" in nouns and "吃车" not in nouns  # words, not bigrams
