"""The budget parser on real-style shopping requests, Chinese and English: one row per phrase.

Each row is a request as a shopper writes it and the budget it states: ``(limit, approximate)``,
``UNPARSEABLE`` (a budget is stated but no amount can be read) or ``None`` (no budget at all).
"""

from __future__ import annotations

import pytest

from shopsim.budget import APPROX_FACTOR, BudgetMatch, chinese_number, parse_budget

UNPARSEABLE = "unparseable"

PHRASES: list[tuple[str, object]] = [
    # Chinese numerals and units
    ("想买一个电饭煲，两百元以内", (200.0, False)),
    ("帮我找个行李箱，不超过 2千元", (2000.0, False)),
    ("预算1.5万左右的钢琴", (16500.0, True)),
    ("笔记本电脑预算一万二以内", (12000.0, False)),
    ("三百五以内的蓝牙音箱，价格别太贵", (350.0, False)),
    ("价格不超过五千的投影仪", (5000.0, False)),
    ("要一台按摩椅，预算两万五", (25000.0, False)),
    ("预算3千块钱的沙发", (3000.0, False)),
    ("一千二百元以下的显示器", (1200.0, False)),
    ("一百块以内的保温杯", (100.0, False)),
    ("预算八百元左右的吸尘器", (880.0, True)),
    ("预算2w以内的摩托车", (20000.0, False)),
    ("预算1.5k的机械键盘", (1500.0, False)),
    ("想要1.5k左右的显卡", (1650.0, True)),
    ("a gaming laptop around 1.5k", (1650.0, True)),
    ("a road bike, 2k budget", (2000.0, False)),
    ("a 1.5k budget for a camera lens", (1500.0, False)),
    ("a power bank with around 20k mAh", None),
    ("3000W左右的电磁炉", None),
    ("预算：2000元", (2000.0, False)),
    ("预算一点五万的空调", (15000.0, False)),
    ("预算1万5的钢琴", (15000.0, False)),
    ("电脑预算2千5以内", (2500.0, False)),
    ("预算1万2千左右", (13200.0, True)),
    ("预算1w5以内的电动车", (15000.0, False)),
    ("预算1万，5个人用的帐篷", (10000.0, False)),
    ("大概三千块的冰箱", (3300.0, True)),
    ("两千元上下的洗衣机", (2200.0, True)),
    ("约500元的电动牙刷套装", (550.0, True)),
    ("价位在200元左右的茶具", (220.0, True)),
    ("能接受的价格在1000到1200元之间", (1200.0, False)),
    ("价格200-300元的台灯", (300.0, False)),
    ("200到300元的台灯", (300.0, False)),
    ("价格1-2千元的自行车", (2000.0, False)),
    ("价格在一千到一千五百元之间的床垫", (1500.0, False)),
    ("预算100~150元之间的雨伞", (150.0, False)),
    ("１２００元以内的烤箱", (1200.0, False)),
    ("价格不要超过３００块", (300.0, False)),
    ("最多花599元买个耳机", (599.0, False)),
    ("售价低于99元的数据线", (99.0, False)),
    ("控制在800元以内，要静音的风扇", (800.0, False)),
    ("¥399以内的运动鞋", (399.0, False)),
    ("适合2-3人使用的帐篷，价格在500元以内", (500.0, False)),
    ("容量不超过3斤的电热水壶，预算150元", (150.0, False)),
    ("1000元左右", (1100.0, True)),
    ("800元上下的电饼铛", (880.0, True)),
    ("预算599元以内", (599.0, False)),
    ("最多199元", (199.0, False)),
    ("价格在1,000到1,200元之间的小吃车", (1200.0, False)),
    # English
    ("under 50 dollars", (50.0, False)),
    ("priced from 1,000 to 1,200 yuan", (1200.0, False)),
    ("around $40 please", (44.0, True)),
    ("approximately 20 dollars", (22.0, True)),
    ("A 2-3 person tent under $120", (120.0, False)),
    ("wireless earbuds below $80", (80.0, False)),
    ("a desk lamp for less than 30 dollars", (30.0, False)),
    ("running shoes at most $90", (90.0, False)),
    ("a backpack, no more than 45 USD", (45.0, False)),
    ("a monitor within 300 RMB", (300.0, False)),
    ("an office chair under 1.5k", (1500.0, False)),
    ("a budget of $200 for a blender", (200.0, False)),
    ("my budget is 60 bucks", (60.0, False)),
    ("a kettle that costs about $25", (27.5, True)),
    ("a rice cooker between $30 and $50", (50.0, False)),
    ("phone case, $10-$15", (15.0, False)),
    ("headphones for around 100 dollars or so", (110.0, True)),
    ("a coffee grinder up to $70", (70.0, False)),
    ("yoga mat, price under 40", (40.0, False)),
    ("a 55-inch TV under 3k", (3000.0, False)),
    ("a tent priced at 200 to 300 yuan", (300.0, False)),
    ("预算在2000-3000之间的电视", (3000.0, False)),
    ("5000mAh充电宝，价格不超过150元", (150.0, False)),
    ("尺寸40-50码的鞋，100元以内", (100.0, False)),
    ("预算10w的车", (100000.0, False)),
    ("售价199.9元以内的台灯", (199.9, False)),
    # vague: a budget is stated, but no amount can be read
    ("几百元以内的加湿器", UNPARSEABLE),
    ("预算1000多元的手机", UNPARSEABLE),
    ("一千多块的吉他", UNPARSEABLE),
    ("a blender for a few hundred dollars", UNPARSEABLE),
    ("千把块的电动车", UNPARSEABLE),
    # no budget
    ("Bose QC45 耳机", None),
    ("适合2-3人使用的帐篷", None),
    ("a size 10 shoe", None),
    ("容量不超过3斤的电热水壶", None),
    ("2000W大功率电磁炉，价格实惠", None),
    ("一款1.5L的电热水壶", None),
    ("200元以上的礼盒", None),
    ("at least $50 worth of coffee beans", None),
    ("一个可折叠的收纳箱", None),
    ("十分便宜的杯子，价格十分实惠", None),
    ("功率3000W以内的电磁炉", None),
    ("", None),
]


def test_the_table_is_large_enough():
    assert len(PHRASES) >= 60
    assert sum(1 for _, want in PHRASES if isinstance(want, tuple)) >= 50


@pytest.mark.parametrize(("text", "want"), PHRASES, ids=[f"{i:02d}" for i in range(len(PHRASES))])
def test_budget_phrase(text, want):
    got = parse_budget(text)
    if want is None:
        assert got is None, got
    elif want == UNPARSEABLE:
        assert got is not None and not got.parsed and got.limit is None and got.phrase
    else:
        assert got is not None and got.parsed
        assert (got.limit, got.approximate) == (pytest.approx(want[0]), want[1])  # type: ignore[index]


def test_approximate_factor_is_applied_by_code():
    m = parse_budget("预算1000元左右")
    assert m == BudgetMatch(round(1000 * APPROX_FACTOR, 6), True, "1000元")


@pytest.mark.parametrize(("text", "want"), [
    ("两百", 200), ("一千二", 1200), ("三万五", 35000), ("一千零二", 1002), ("十五", 15), ("二十", 20),
    ("两千五百", 2500), ("一点五万", 15000), ("十万", 100000),
])
def test_chinese_numerals(text, want):
    assert chinese_number(text) == want
