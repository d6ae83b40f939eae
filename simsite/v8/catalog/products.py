"""Products for the ShopSimulator v8 catalog generator: titles, bullets, attributes, options and prices.

One product is drawn from one product type of :mod:`vocabulary` (Chinese) or
:mod:`vocabulary_en` (English). Its pricing follows one of the v8 contract's cases (``MODES``):
one price-changing axis (``pricing`` = [min, max] of its option prices), optionally with a second
axis without prices or with equal prices; no options and one listed price; options all at one
price; a listed range with no option prices (unverifiable); two price-changing axes (excluded at
preparation). Options sometimes carry crawl metadata (image, availability, sku_id), never indexed.

Everything draws from the caller's ``random.Random`` through ``rng.random()`` (and ``randrange``
for ids), so the bytes are stable across machines and ``PYTHONHASHSEED``.
"""

from __future__ import annotations

from collections.abc import Sequence
from random import Random
from typing import Any, NamedTuple

from shopsim.simsite.v8.catalog import vocabulary as ZH
from shopsim.simsite.v8.catalog import vocabulary_en as EN
from shopsim.simsite.v8.catalog.tasks import title_case
from shopsim.simsite.v8.catalog.vocabulary import V8Type

__all__ = ["GROUPS", "MODES", "TYPES", "TYPES_BY_LANG", "Built", "State", "as_number", "build_product", "has_digit",
           "pick", "price_axes", "sample"]

MODES = (("single", 0.74), ("none", 0.12), ("flat", 0.08), ("range", 0.03), ("double", 0.03))
"""Pricing cases: one price axis, no options, options at one price, unverifiable range, two price axes."""
IMAGE_HOST = "https://img.example.invalid"

TYPES: tuple[V8Type, ...] = ZH.TYPES + EN.TYPES
TYPES_BY_LANG = {"zh": tuple(i for i, t in enumerate(TYPES) if t.lang == "zh"),
                 "en": tuple(i for i, t in enumerate(TYPES) if t.lang == "en")}
GROUPS = {"zh": ZH.GROUPS, "en": EN.GROUPS}
_ALNUM = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
_LETTERS = "ABCDEFGHJKLMNPRSTXYZ"
_ZH_ORIGINS = ("中国大陆", "浙江宁波", "广东佛山", "广东中山", "浙江永康", "江苏苏州", "福建泉州", "山东临沂")
_EN_ORIGINS = ("China", "Vietnam", "Taiwan", "Malaysia")
_ZH_BULLETS = ("{f}，{b}", "【{f}】{b}", "{f}设计，{b}", "采用{f}设计，{b}")
_EN_BULLETS = ("{F}: {B}.", "{U} - {B}.")

Product = dict[str, Any]


def pick(rng: Random, seq: Sequence[Any]) -> Any:
    """One item of ``seq``, drawn with ``rng``."""
    return seq[int(rng.random() * len(seq))]


def sample(rng: Random, seq: Sequence[Any], k: int) -> list[Any]:
    """A partial Fisher-Yates shuffle on ``rng.random()`` only (stable across Python versions)."""
    pool = list(seq)
    k = min(k, len(pool))
    for j in range(k):
        m = j + int(rng.random() * (len(pool) - j))
        pool[j], pool[m] = pool[m], pool[j]
    return pool[:k]


def has_digit(text: str) -> bool:
    """Whether ``text`` holds a digit."""
    return any(c.isdigit() for c in text)


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


# ---------------------------------------------------------------------------- prices and options


def _price(x: float, lang: str, yuan: bool) -> float:
    """A shelf price near ``x``: 45.99 in dollars; 19.9, 129 or 1299 in yuan."""
    if lang == "en" and not yuan:
        return round(int(x) + 0.99, 2)
    if x < 50:
        return round(int(x) + 0.9, 1)
    if x < 1000:
        return float(int(x / 10) * 10 + 9)
    return float(int(x / 100) * 100 + 99)


def _ladder(rng: Random, base: float, k: int, lang: str, yuan: bool) -> list[float]:
    """``k`` strictly increasing prices from ``base``."""
    prices: list[float] = []
    x = base
    for _ in range(k):
        p = _price(x, lang, yuan)
        while prices and p <= prices[-1]:
            x *= 1.08
            p = _price(x, lang, yuan)
        prices.append(p)
        x *= rng.uniform(1.1, 1.45)
    return prices


def as_number(p: float) -> float | int:
    """An integral price as an int (129, not 129.0), as shops list them."""
    return int(p) if p == int(p) else p


def _axis_values(rng: Random, values: Sequence[str], low: int = 2, high: int = 5) -> list[str]:
    """A subset of an axis's values in their listed order (tiers and sizes keep their order)."""
    k = min(len(values), low + int(rng.random() * (high - low + 1)))
    keep = sorted(sample(rng, range(len(values)), k))
    return [values[i] for i in keep]


def _entries(rng: Random, asin: str, axis_no: int, values: Sequence[str], prices: Sequence[float | None],
             meta: bool, lang: str) -> list[dict[str, Any]]:
    out = []
    for n, (value, price) in enumerate(zip(values, prices, strict=True)):
        entry: dict[str, Any] = {"value": value, "price": None if price is None else as_number(price)}
        if meta:
            if axis_no == 0 and rng.random() < 0.85:
                entry["image"] = f"{IMAGE_HOST}/{asin}/{axis_no}{_ALNUM[10 + n]}.jpg"
            if rng.random() < 0.7:
                out_of_stock = rng.random() < 0.12
                entry["availability"] = ("缺货" if out_of_stock else "有货") if lang == "zh" else (
                    "Out of Stock" if out_of_stock else "In Stock")
            if rng.random() < 0.3:
                entry["sku_id"] = str(rng.randrange(10**12, 10**13))
        out.append(entry)
    return out


def _options(rng: Random, t: V8Type, asin: str, mode: str, yuan: bool) -> tuple[dict[str, list[dict[str, Any]]], list[float]]:
    """The option axes and ``pricing`` for one pricing case."""
    lang = t.lang
    base = t.price[0] * (t.price[1] / t.price[0]) ** (rng.random() * 0.7)
    if yuan:
        base *= 7
    meta = rng.random() < 0.35
    if mode == "none":
        return {}, [as_number(_price(base, lang, yuan))]
    if mode == "range":
        low = _price(base, lang, yuan)
        high = _ladder(rng, base * 1.3, 1, lang, yuan)[0]
        if rng.random() < 0.5:
            return {}, [as_number(low), as_number(high)]
        axis, values = t.axes[int(rng.random() * len(t.axes))]
        picked = _axis_values(rng, values)
        return {axis: _entries(rng, asin, 0, picked, [None] * len(picked), meta, lang)}, [as_number(low), as_number(high)]
    if mode == "flat":
        price = _price(base, lang, yuan)
        axes = t.axes[: 1 + (rng.random() < 0.3)]
        equal = rng.random() < 0.5
        options = {}
        for n, (axis, values) in enumerate(axes):
            picked = _axis_values(rng, values)
            options[axis] = _entries(rng, asin, n, picked, [price if equal else None] * len(picked), meta, lang)
        return options, [as_number(price)]
    n_priced = 2 if mode == "double" else 1
    options = {}
    all_prices: list[float] = []
    for n in range(n_priced):
        axis, values = t.axes[n]
        picked = _axis_values(rng, values)
        prices = _ladder(rng, base if n == 0 else base * rng.uniform(1.0, 1.1), len(picked), lang, yuan)
        all_prices += prices
        options[axis] = _entries(rng, asin, n, picked, prices, meta, lang)
    if mode == "single" and len(t.axes) > 1 and rng.random() < 0.5:
        axis, values = t.axes[1 + int(rng.random() * (len(t.axes) - 1))]
        picked = _axis_values(rng, values, 2, 6)
        shared = min(all_prices) if rng.random() < 0.4 else None
        options[axis] = _entries(rng, asin, len(options), picked, [shared] * len(picked), meta, lang)
    low, high = min(all_prices), max(all_prices)
    return options, [as_number(low), as_number(high)] if high > low else [as_number(low)]


def price_axes(product: Product) -> list[str]:
    """Axes whose options carry two or more different prices."""
    axes = []
    for axis, entries in product.get("customization_options", {}).items():
        prices = [e["price"] for e in entries if e.get("price") is not None]
        if len(dict.fromkeys(prices)) > 1:
            axes.append(axis)
    return axes


# ---------------------------------------------------------------------------- one product


class Built(NamedTuple):
    """A product and the facts its tasks and personas are made from."""

    product: Product
    t: V8Type
    brand: str
    mode: str
    listed: float | None
    candidates: tuple[str, ...]
    kinds: dict[str, str]
    title_feats: tuple[str, ...]
    features: tuple[str, ...]
    materials: tuple[str, ...]
    sizes: tuple[str, ...]
    scene: str
    yuan: bool


class State:
    """Everything shared across products: the random stream, issued ids, brand pools and personas."""

    def __init__(self, seed: int) -> None:
        self.rng = Random(seed)
        self.asins: set[str] = set()
        self.users: set[str] = set()
        self.brands_used: set[str] = set()
        self.task_id = 1000 + self.rng.randrange(1000)
        self.brands = {(lang, g): [self.new_brand(lang) for _ in range(10)]
                       for lang in ("zh", "en") for g in GROUPS[lang]}
        self.personas: dict[int, list[dict[str, Any]]] = {}

    def new_brand(self, lang: str) -> str:
        """A brand name not used yet; once the head x tail pairs run low (large catalogs), names
        grow by more heads, so generation never stalls however many products are asked for.
        """
        rng = self.rng
        tries = 0
        while True:
            if lang == "zh":
                name = pick(rng, ZH.BRAND_HEADS) + pick(rng, ZH.BRAND_TAILS)
                if rng.random() < 0.3:
                    name = pick(rng, ZH.BRAND_HEADS) + name
            else:
                name = pick(rng, EN.BRAND_HEADS) + pick(rng, EN.BRAND_TAILS)
            heads = ZH.BRAND_HEADS if lang == "zh" else EN.BRAND_HEADS
            for _ in range(tries // 20):
                name = pick(rng, heads) + name if lang == "zh" else pick(rng, heads) + name.lower()
            tries += 1
            if name not in self.brands_used:
                self.brands_used.add(name)
                return name

    def asin(self, lang: str) -> str:
        """A new, unused product id in the style of ``lang``'s products."""
        rng = self.rng
        while True:
            if lang == "zh":
                asin = str(rng.randrange(520_000_000_000, 1_000_000_000_000))
            else:
                asin = "B0" + "".join(_ALNUM[int(rng.random() * 36)] for _ in range(8))
            if asin not in self.asins:
                self.asins.add(asin)
                return asin

    def user(self) -> str:
        """A new, unused user id."""
        while True:
            uid = f"u_{self.rng.randrange(10**7, 10**8)}"
            if uid not in self.users:
                self.users.add(uid)
                return uid


def _title_bullets(rng: Random, t: V8Type, brand: str, model: str, scene: str,
                   feats: list[str], withs: list[str]) -> tuple[str, list[str], list[str], list[str]]:
    """Title and bullets; returns (title, bullets, title features, bullet features)."""
    group = GROUPS[t.lang][t.group]
    n_title = min(len(feats) - 1, 2 + (rng.random() < 0.4)) if t.lang == "zh" else min(len(feats) - 1, 1 + (rng.random() < 0.6))
    title_feats, rest = feats[:n_title], feats[n_title:]
    if t.lang == "zh":
        head = (brand if rng.random() < 0.85 else "") + (scene if scene and rng.random() < 0.5 else "") + t.noun
        segs = list(title_feats)
        if t.alts and rng.random() < 0.5:
            segs.append(pick(rng, t.alts))
        if scene and scene not in head and rng.random() < 0.4:
            segs.append(scene)
        if model and rng.random() < 0.3:
            segs.append(model)
        segs = sample(rng, segs, len(segs))
        if len(segs) > 2 and rng.random() < 0.3:
            segs[:2] = [segs[0] + segs[1]]
        title = " ".join([head, *segs])
        bullet_feats = rest
    else:
        title_withs = withs[:1] if withs and rng.random() < 0.7 else []
        noun = t.noun + "s" if t.unit == "set of" else t.noun
        title = " ".join([brand, *(title_case(a) for a in title_feats), title_case(noun)])
        if title_withs:
            title += " with " + title_case(title_withs[0])
        extras = []
        if t.alts and rng.random() < 0.4:
            extras.append(title_case(pick(rng, t.alts)))
        if scene and rng.random() < 0.4:
            extras.append("for " + title_case(scene))
        if t.unit == "set of" and rng.random() < 0.5:
            extras.append(f"Set of {pick(rng, (2, 3, 4, 6))}")
        if model and rng.random() < 0.25:
            extras.append(model)
        title = ", ".join([title, *extras])
        title_feats = title_feats + title_withs
        bullet_feats = rest + withs[len(title_withs):]
    bullets = []
    for f in bullet_feats + title_feats[: int(rng.random() * 2)]:
        b = pick(rng, group.benefits)
        if t.lang == "zh":
            bullets.append(pick(rng, _ZH_BULLETS).format(f=f, b=b))
        else:
            bullets.append(pick(rng, _EN_BULLETS).format(F=title_case(f), U=f.upper(), B=_cap(b), b=b))
    bullets += sample(rng, group.bullets, max(1, 3 + int(rng.random() * 3) - len(bullets)))
    return title, sample(rng, bullets, len(bullets)), title_feats, bullet_feats


def _attributes(rng: Random, t: V8Type, brand: str, model: str, scene: str, brand_field: bool,
                model_field: bool) -> tuple[dict[str, str], list[str], list[str]]:
    """The attribute dict, the attribute values a task may target and the material values."""
    zh = t.lang == "zh"
    attr: dict[str, str] = {}
    if not brand_field or rng.random() < 0.5:
        attr["品牌" if zh else "Brand"] = brand
    if model and (not model_field or rng.random() < 0.3):
        attr["型号" if zh else "Model"] = model
    targets, materials = [], []
    for key, values in t.attrs:
        if rng.random() < 0.85:
            value = pick(rng, values)
            attr[key] = value
            material = "材质" in key or "面料" in key or "填充物" in key or "Material" in key
            if material:
                materials.append(value)
            if not has_digit(value) and (zh or material or key == "Fit"):
                targets.append(value if zh or value.isupper() else value.lower())
    if zh and scene and "适用场景" not in attr and rng.random() < 0.3:
        attr["适用场景"] = scene
    if rng.random() < 0.25:
        key = "产地" if zh else "Country of Origin"
        attr.setdefault(key, pick(rng, _ZH_ORIGINS if zh else _EN_ORIGINS))
    return attr, targets, materials


def build_product(state: State, lang: str) -> Built:
    """One generated product of language ``lang``, with its tasks."""
    rng = state.rng
    t = TYPES[pick(rng, TYPES_BY_LANG[lang])]
    asin = state.asin(lang)
    pool = state.brands[(lang, t.group)]
    brand = pick(rng, pool) if rng.random() < 0.8 else state.new_brand(lang)
    model = (pick(rng, _LETTERS) + pick(rng, _LETTERS) + "-" + str(rng.randrange(10, 1000))
             + (pick(rng, _LETTERS) if rng.random() < 0.3 else "")) if rng.random() < 0.55 else ""
    brand_field = rng.random() < 0.35
    model_field = bool(model) and rng.random() < 0.4
    scene = pick(rng, t.scenes) if t.scenes and rng.random() < 0.7 else ""
    yuan = lang == "en" and rng.random() < 0.15
    feats = sample(rng, t.feats, 3 + int(rng.random() * 3))
    withs = sample(rng, t.withs, 1 + (rng.random() < 0.5)) if t.withs else []
    title, bullets, title_feats, bullet_feats = _title_bullets(rng, t, brand, model, scene, feats, withs)
    attr, attr_targets, materials = _attributes(rng, t, brand, model, scene, brand_field, model_field)
    u, mode = rng.random(), MODES[-1][0]
    for name, share in MODES:
        if u < share:
            mode = name
            break
        u -= share
    options, pricing = _options(rng, t, asin, mode, yuan)
    nodes = list(t.path)
    u = rng.random()
    if u < 0.15:
        nodes = nodes[1:]
    elif u < 0.3 and lang == "zh" and scene:
        nodes.append(scene + t.noun)
    category: list[str] | str = " > ".join(nodes) if rng.random() < 0.1 else nodes
    group = GROUPS[lang][t.group]
    if lang == "zh":
        shop = (brand + pick(rng, group.shops) if rng.random() < 0.8
                else brand + pick(rng, ZH.SHOP_SUFFIXES))
        desc = title if rng.random() < 0.35 else (
            f"{brand}{t.noun}，{'、'.join(feats[:3])}。" + (f"主体采用{materials[0]}。" if materials else "")
            + "".join(sample(rng, group.sentences, 1 + (rng.random() < 0.5))))
    else:
        shop = pick(rng, EN.SHOP_FORMS).format(brand=brand, suffix=pick(rng, group.shops))
        desc = title if rng.random() < 0.35 else (
            f"The {brand} {t.noun} is {', '.join(feats[:2])}" + (f" and comes with {withs[0]}" if withs else "")
            + ". " + " ".join(sample(rng, group.sentences, 1 + (rng.random() < 0.5))))
    product: Product = {"asin": asin, "title": title, "shop_name": shop}
    if brand_field:
        product["brand"] = brand
    if model_field:
        product["model"] = model
    attribute: dict[str, str] | list[str] = attr
    if rng.random() < 0.1:
        attribute = [f"{k}: {v}" for k, v in attr.items()] + bullet_feats[:1]
    product.update(category=category, pricing=pricing, customization_options=options, attribute=attribute,
                   full_description=desc, small_description=bullets)
    kinds = dict.fromkeys(feats, "adj") | dict.fromkeys(withs, "with") | dict.fromkeys(attr_targets, "adj")
    candidates = tuple(dict.fromkeys([*title_feats, *bullet_feats, *attr_targets]))
    size_axis = "尺码" if lang == "zh" else "Size"
    sizes = tuple(e["value"] for e in options.get(size_axis, ())) if t.group == "clothing" or "鞋" in t.noun \
        or "shoes" in t.noun else ()
    listed = pricing[0] if mode in ("none", "flat") else None
    return Built(product, t, brand, mode, listed, candidates, kinds, tuple(title_feats), tuple(feats),
                  tuple(materials), sizes, scene, yuan)
