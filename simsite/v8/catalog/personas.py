"""Shopper personas for the ShopSimulator v8 catalog (all names, places and wording written for this project).

A persona is the nested profile a persona task shows the agent: demographics, region, transactions,
interests, behaviour and tags, plus a ``__reasoning__`` note that the environment strips. Chinese
products get Chinese keys, English products English keys. Each persona is built around its task --
recent searches name the product type, preferred features and materials come from the product --
with some noise from another product type, so it helps without giving the answer away.
"""

from __future__ import annotations

from collections.abc import Sequence
from random import Random
from typing import Any, NamedTuple

from shopsim.simsite.v8.catalog.tasks import nice_down, nice_up
from shopsim.simsite.v8.catalog.vocabulary import V8Type, split

__all__ = ["PersonaContext", "make_persona"]

AGES = ("18-24", "25-34", "35-44", "45-54", "55+")
HOURS = ("07:00-09:00", "11:30-13:30", "14:00-17:00", "19:00-22:00", "20:00-23:00", "22:00-01:00")

ZH_REGIONS = (
    ("浙江省", "杭州市"), ("浙江省", "宁波市"), ("广东省", "深圳市"), ("广东省", "广州市"), ("广东省", "东莞市"),
    ("江苏省", "南京市"), ("江苏省", "苏州市"), ("四川省", "成都市"), ("湖北省", "武汉市"), ("山东省", "青岛市"),
    ("山东省", "济南市"), ("北京市", "北京市"), ("上海市", "上海市"), ("福建省", "厦门市"), ("河南省", "郑州市"),
    ("湖南省", "长沙市"), ("陕西省", "西安市"), ("重庆市", "重庆市"), ("辽宁省", "大连市"), ("云南省", "昆明市"),
    ("天津市", "天津市"), ("安徽省", "合肥市"), ("广西壮族自治区", "南宁市"), ("江西省", "南昌市"),
)
EN_REGIONS = (
    ("Guangdong", "Guangzhou"), ("Guangdong", "Foshan"), ("Zhejiang", "Hangzhou"), ("Jiangsu", "Suzhou"),
    ("Shanghai", "Shanghai"), ("Beijing", "Beijing"), ("Sichuan", "Chengdu"), ("Fujian", "Fuzhou"),
    ("Hubei", "Wuhan"), ("Shandong", "Qingdao"), ("Hong Kong", "Hong Kong"), ("Hainan", "Sanya"),
)
ZH_MEMBER = ("普通会员", "普通会员", "白银会员", "黄金会员", "铂金会员", "钻石会员")
EN_MEMBER = ("regular", "regular", "silver", "gold", "platinum", "diamond")
ZH_LEVEL = ("低", "中低", "中", "中高", "高")
EN_LEVEL = ("low", "lower-middle", "middle", "upper-middle", "high")
ZH_PAY = ("支付宝", "微信支付", "花呗", "银行卡", "信用卡")
EN_PAY = ("Alipay", "WeChat Pay", "credit card", "debit card", "PayPal")
ZH_GENERAL_TAGS = split("价格敏感|品质优先|中端预算|高频复购|看重评价|促销爱好者|新客|囤货党")
EN_GENERAL_TAGS = split("deal hunter|quality first|mid-range budget|repeat buyer|reads reviews|new customer|bulk buyer")
ZH_SEARCH_TAILS = split("推荐|哪个牌子好|性价比高|新款|怎么选|耐用")
EN_SEARCH_TAILS = split("best|reviews|on sale|for beginners|durable|top rated")
ZH_REASONS = (
    "{age}岁{who}，住在{city}，{tag}。近两周反复搜索{noun}，偏好{like}，预算大致在{budget}元以内。",
    "从搜索和浏览记录看，正在挑选{noun}，看重{like}；消费等级{level}，{promo}。",
    "{city}的{who}，{tag}，最近在比较几款{noun}，倾向{like}，对价格{promo_short}。",
)
EN_REASONS = (
    "A {age} {who} in {city}; {tag}. Searched for {noun} several times in the last two weeks and cares about "
    "{like}; budget about {budget}.",
    "Browsing history shows they are comparing {noun} options and prefer {like}; spending level {level}, {promo}.",
    "{tag_cap} from {city}, currently shopping for {noun}; leans toward {like} and is {promo_short}.",
)


class PersonaContext(NamedTuple):
    """What a persona is built around: the task's product and constraints, plus some noise."""

    t: V8Type
    nodes: tuple[str, ...]
    brand: str
    task_attrs: tuple[str, ...]
    features: tuple[str, ...]
    materials: tuple[str, ...]
    sizes: tuple[str, ...]
    scene: str
    budget: float
    other: V8Type
    other_brands: tuple[str, ...]
    group_tags: tuple[str, ...]


def _pick(rng: Random, seq: Sequence[Any]) -> Any:
    return seq[int(rng.random() * len(seq))]


def _unique(items: Sequence[str]) -> list[str]:
    return list(dict.fromkeys(i for i in items if i))


def _level(rng: Random, ctx: PersonaContext) -> int:
    lo, hi = ctx.t.price
    share = (ctx.budget - lo) / (hi - lo) if hi > lo else 0.5
    return max(0, min(4, int(share * 4 + rng.uniform(-0.8, 1.2))))


def _material_pool(t: V8Type) -> tuple[str, ...]:
    return tuple(v for key, values in t.attrs if "材质" in key or "面料" in key or "Material" in key for v in values)


def make_persona(rng: Random, uid: str, ctx: PersonaContext) -> dict[str, Any]:
    """A nested persona (Chinese or English keys after ``ctx.t.lang``) with a ``__reasoning__`` note."""
    zh = ctx.t.lang == "zh"
    t, other = ctx.t, ctx.other
    age = _pick(rng, AGES)
    female = rng.random() < 0.55
    level = _level(rng, ctx)
    province, city = _pick(rng, ZH_REGIONS if zh else EN_REGIONS)
    promo = rng.random() < 0.45
    budget = ctx.budget
    aov = round(budget * rng.uniform(0.25, 1.1), 2)
    repurchase = round(rng.uniform(0.05, 0.65), 2)
    u = rng.random()
    brands = ([] if u < 0.5 else [ctx.brand] if u < 0.7 else
              _unique([ctx.brand, _pick(rng, ctx.other_brands)]) if u < 0.85 else [_pick(rng, ctx.other_brands)])
    price_range = (nice_down(budget * rng.uniform(0.3, 0.7)), nice_up(budget * rng.uniform(1.0, 1.6)))
    extra_feats = [f for f in ctx.features if f not in ctx.task_attrs]
    functions = _unique([*ctx.task_attrs[:2], *extra_feats[: int(rng.random() * 3)],
                         _pick(rng, other.feats) if rng.random() < 0.4 else ""])
    functions = [f for f in functions if f not in ctx.materials]
    noise_materials = _material_pool(t)
    materials = _unique([*ctx.materials, _pick(rng, noise_materials) if noise_materials and rng.random() < 0.5 else ""])
    sizes: list[str] = []
    if ctx.sizes:
        start = int(rng.random() * len(ctx.sizes))
        sizes = list(ctx.sizes[start:start + 1 + int(rng.random() * 2)])
    noun = t.noun
    a0 = ctx.task_attrs[0] if ctx.task_attrs else _pick(rng, t.feats)
    sep = "" if zh else " "
    searches = _unique([
        f"{a0}{sep}{noun}",
        f"{noun}{sep}{_pick(rng, ZH_SEARCH_TAILS if zh else EN_SEARCH_TAILS)}",
        f"{ctx.scene}{sep}{noun}" if ctx.scene and rng.random() < 0.5 else "",
        f"{_pick(rng, t.alts)}" if t.alts and rng.random() < 0.4 else "",
        f"{_pick(rng, other.feats)}{sep}{other.noun}" if rng.random() < 0.6 else "",
    ])
    rng.shuffle(searches)
    levels = ("低", "中", "高") if zh else ("low", "medium", "high")
    categories = {ctx.nodes[-1]: levels[2], ctx.nodes[0]: _pick(rng, levels[1:])}
    categories.setdefault(other.path[-1], _pick(rng, levels[:2]))
    general = ZH_GENERAL_TAGS if zh else EN_GENERAL_TAGS
    tags = _unique([_pick(rng, ctx.group_tags), _pick(rng, ctx.group_tags) if rng.random() < 0.5 else "",
                    _pick(rng, general), _pick(rng, general) if rng.random() < 0.5 else ""])
    hours = _unique([_pick(rng, HOURS), _pick(rng, HOURS) if rng.random() < 0.4 else ""])
    viewed = 3 + int(rng.random() * 58)
    like = (functions[:2] + materials[:1]) or [a0]
    if zh:
        reason = _pick(rng, ZH_REASONS).format(
            age=age, who="女性" if female else "男性", city=city, tag=tags[0], noun=noun, like="、".join(like),
            budget=price_range[1], level=ZH_LEVEL[level], promo="对促销敏感" if promo else "不太在意促销",
            promo_short="比较敏感" if promo else "不太敏感")
        return {
            "用户ID": uid,
            "人口属性": {"年龄段": age, "性别": "女" if female else "男", "会员等级": _pick(rng, ZH_MEMBER),
                     "消费等级": ZH_LEVEL[level]},
            "地区信息": {"省份": province, "城市": city, "时区": "Asia/Shanghai"},
            "交易特征": {"平均客单价": aov, "复购率": repurchase, "是否促销敏感": promo, "支付方式偏好": _pick(rng, ZH_PAY)},
            "兴趣偏好": {
                "品牌偏好": brands,
                "商品属性偏好": {"价格区间": {"最小值": price_range[0], "最大值": price_range[1]}, "功能": functions,
                           "材质": materials, "尺码范围": sizes},
                "类目偏好": categories,
            },
            "行为特征": {"最近14天搜索关键词": searches, "最近浏览商品数": viewed, "活跃时段": hours},
            "用户标签": tags,
            "__reasoning__": reason,
        }
    reason = _pick(rng, EN_REASONS).format(
        age=age, who="woman" if female else "man", city=city, tag=tags[0], tag_cap=tags[0][:1].upper() + tags[0][1:],
        noun=noun, like=" and ".join(x if x.isupper() else x.lower() for x in like), budget=price_range[1],
        level=EN_LEVEL[level],
        promo="watches for promotions" if promo else "rarely waits for promotions",
        promo_short="promotion-sensitive" if promo else "not promotion-sensitive")
    return {
        "user_id": uid,
        "demographics": {"age_band": age, "gender": "female" if female else "male", "membership": _pick(rng, EN_MEMBER),
                         "spending_level": EN_LEVEL[level]},
        "region": {"province": province, "city": city,
                   "timezone": "Asia/Hong_Kong" if city == "Hong Kong" else "Asia/Shanghai"},
        "transactions": {"average_order_value": aov, "repurchase_rate": repurchase, "promotion_sensitive": promo,
                         "preferred_payment": _pick(rng, EN_PAY)},
        "interests": {
            "brands": brands,
            "attribute_preferences": {"price_range": {"min": price_range[0], "max": price_range[1]},
                                      "functions": functions, "materials": materials, "sizes": sizes},
            "categories": categories,
        },
        "behaviour": {"recent_searches": searches, "items_viewed_14d": viewed, "active_hours": hours},
        "tags": tags,
        "__reasoning__": reason,
    }
