"""One product of the synthetic WebShop-format catalog: title, bullets, description, price, options,
its synthetic goal, human-style goal and reviews.

Kept apart from :mod:`generator`, which numbers the products, streams them into the four
files and runs blocks in parallel; everything here is a pure function of a seeded random
stream, so a product depends only on that stream and its index.
"""

from __future__ import annotations

from bisect import bisect
from collections.abc import Callable, Sequence
from functools import lru_cache
from itertools import accumulate
from typing import Any, NamedTuple

from shopsim.simsite.catalog import vocabulary as V
from shopsim.simsite.catalog.category_text import BRAND_HEADS, BRAND_TAILS, BRANDS, CATEGORY_TEXT
from shopsim.simsite.catalog.option_pools import POOLS
from shopsim.simsite.catalog.product_types import TYPES
from shopsim.simsite.catalog.vocabulary_shapes import CATEGORIES, SEP, CategoryText, ProductType

INSTRUCTION_RATE = 0.45
REVIEW_RATE = 0.7
RANGE_PRICE_RATE = 0.2
NO_PRICE_RATE = 0.03
NO_DESCRIPTION_RATE = 0.05
NO_RATING_RATE = 0.3

Product = dict[str, Any]
Rand = Callable[[], float]


class GeneratedProduct(NamedTuple):
    """One product and its records in the other three files (``None`` where it has none)."""

    item: Product
    attributes: dict[str, Any]
    review: dict[str, Any] | None
    human: dict[str, Any] | None


# ---------------------------------------------------------------------------- precomputed tables


class _TypeInfo(NamedTuple):
    """Per-type lookups computed once, so the per-product path does no repeated string work."""

    attrs: tuple[str, ...]
    kinds: dict[str, str]
    headers: dict[str, tuple[str, ...]]


_TYPES = {c: tuple(t for t in TYPES if t.category == c) for c in CATEGORIES}
_CUM_WEIGHTS = list(accumulate(CATEGORY_TEXT[c].weight for c in CATEGORIES))
_TOTAL_WEIGHT = _CUM_WEIGHTS[-1]
_ATTR_COUNTS = (2, 2, 2, 3, 3, 3, 3, 4, 4, 5)
_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
"""Letters of a made-up brand."""
_CENTS = ("99", "99", "99", "95", "49", "00", "89", "97")


def _pick(rand: Rand, seq: Sequence[str]) -> str:
    """``Random.choice`` at half the cost; the catalog makes dozens of picks per product."""
    return seq[int(rand() * len(seq))]


def _sample(rand: Rand, seq: Sequence[str], k: int) -> list[str]:
    """``Random.sample`` for short sequences (a partial Fisher-Yates shuffle), about twice as fast."""
    pool = list(seq)
    n = len(pool)
    k = min(k, n)
    for j in range(k):
        m = j + int(rand() * (n - j))
        pool[j], pool[m] = pool[m], pool[j]
    return pool[:k]


@lru_cache(maxsize=4096)
def title_case(phrase: str) -> str:
    """Title-case a lower-case phrase the way listings do: acronyms upper, small words lower."""
    words = []
    for n, w in enumerate(phrase.split(" ")):
        if w in V.ACRONYMS:
            words.append(V.ACRONYMS[w])
        elif n and w in V.SMALL_WORDS:
            words.append(w)
        else:
            words.append("-".join(p[:1].upper() + p[1:] for p in w.split("-")))
    return " ".join(words)


_INFO: dict[str, _TypeInfo] = {
    t.query: _TypeInfo(
        t.adj + t.for_ + t.with_,
        {**dict.fromkeys(t.adj, "adj"), **dict.fromkeys(t.for_, "for"), **dict.fromkeys(t.with_, "with")},
        {a: tuple(h.format(Attr=title_case(a), ATTR=a.upper()) for h in V.BULLET_HEADERS)
         for a in t.adj + t.for_ + t.with_},
    )
    for t in TYPES
}


@lru_cache(maxsize=1024)
def _lower_noun(noun: str) -> str:
    """Lower-case a title noun for use mid-sentence, keeping acronyms and brand-like casing (HDMI, MicroSD)."""
    return " ".join(w if w == "C" or ("-" not in w and any(c.isupper() for c in w[1:])) else w.lower()
                    for w in noun.split(" "))


@lru_cache(maxsize=1024)
def _is_plural(noun: str) -> bool:
    last = noun.rsplit(" ", 1)[-1].lower()
    return last.endswith("s") and not last.endswith("ss")


def _article(phrase: str) -> str:
    first = phrase.split(" ", 1)[0]
    vowel = first[:1] in "aeiou" and not first.startswith(("us", "uni", "uv", "eu", "one"))
    return ("an " if vowel or first in ("hdmi", "hd", "8", "18", "11") else "a ") + phrase


def normalize_option(value: str) -> str:
    """An option value as WebShop's loader stores it (and as goals and human instructions name it)."""
    return value.strip().replace("/", " | ").lower()


# ---------------------------------------------------------------------------- one product


def _brand(rand: Rand, category: str) -> str:
    u = rand()
    if u < 0.6:
        return _pick(rand, BRANDS[category])
    if u < 0.92:
        return _pick(rand, BRAND_HEADS) + _pick(rand, BRAND_TAILS)
    return "".join(_pick(rand, _LETTERS) for _ in range(5 + int(rand() * 3)))


def _options(rand: Rand, t: ProductType, asin: str) -> dict[str, list[dict[str, str | None]]]:
    """1-3 option axes, each with 2-10 values; sizes are contiguous runs, colours a sample."""
    u = rand()
    n_axes = 1 if u < 0.3 or len(t.axes) == 1 else (2 if u < 0.9 or len(t.axes) == 2 else 3)
    keys = [_pick(rand, t.axes[1:])] if n_axes == 1 and len(t.axes) > 1 and rand() < 0.3 else t.axes[:n_axes]
    options: dict[str, list[dict[str, str | None]]] = {}
    image_no = 0
    for key in keys:
        pool = POOLS[key]
        if pool.axis in options:
            continue
        all_values = pool.values
        size = min(len(all_values), 2 + int(rand() ** 2 * 9))
        if pool.ordered:
            start = int(rand() * (len(all_values) - size + 1))
            values: Sequence[str] = all_values[start:start + size]
        else:
            values = _sample(rand, all_values, size)
        if pool.images:
            entries: list[dict[str, str | None]] = []
            for value in values:
                image_no += 1
                entries.append({"value": value, "image": f"/static/img/{asin}-o{image_no}.jpg"})
        else:
            entries = [{"value": value, "image": None} for value in values]
        options[pool.axis] = entries
    return options


def _title(rand: Rand, text: CategoryText, brand: str, noun: str, adjs: list[str], fors: list[str],
           withs: list[str], variant: str) -> str:
    """A keyword-heavy Amazon-style title of 8-20 words built around the product's attributes."""
    if adjs and rand() < 0.3:
        head = f"{brand} {noun}, {' & '.join(title_case(a) for a in adjs[:2])}"
    else:
        head = " ".join((brand, *(title_case(a) for a in adjs[:2]), noun))
    if fors:
        head += " for " + title_case(fors[0])
    if withs:
        head += " with " + title_case(withs[0])
    parts = [head]
    words = head.count(" ") + 1
    target = 11 + int(rand() * 8)
    extras = list(text.extras)
    while extras and ((words < target and len(parts) < 3) or words < 8):
        extra = extras.pop(int(rand() * len(extras)))
        parts.append(extra)
        words += extra.count(" ") + 1
    if variant:
        parts.append(variant)
        words += variant.count(" ") + 1
    while words > 20 and len(parts) > 2:
        words -= parts.pop(-2 if variant else -1).count(" ") + 1
    return ", ".join(parts)


def _bullets(rand: Rand, text: CategoryText, info: _TypeInfo, attrs: list[str], title: str, brand: str,
             noun_l: str, plural: bool) -> list[str]:
    """3-6 bullets; every attribute the title leaves out gets one, so WebShop's text match finds it."""
    low = title.lower()
    missing = [a for a in attrs if a not in low]
    present = [a for a in attrs if a in low]
    n_bullets = 3 + int(rand() * 4)
    this, be = ("These", "are") if plural else ("This", "is")
    kinds, headers = info.kinds, info.headers
    bullets = []
    for attr in missing + present[:max(0, n_bullets - len(missing) - 1)]:
        kind = kinds[attr]
        templates = V.BULLET_ADJ if kind == "adj" else V.BULLET_FOR if kind == "for" else V.BULLET_WITH
        header = _pick(rand, headers[attr])
        body = _pick(rand, templates).format(This=this, noun=noun_l, Brand=brand, attr=attr,
                                             benefit=_pick(rand, text.benefits), **{"is": be})
        bullets.append(header + body + " ")
    generic = list(text.bullets)
    while len(bullets) < n_bullets:
        bullets.append(generic.pop(int(rand() * len(generic))).format(noun=noun_l))
    return bullets


def _description(rand: Rand, text: CategoryText, brand: str, noun_l: str, plural: bool, adjs: list[str],
                 fors: list[str], withs: list[str]) -> str:
    if rand() < NO_DESCRIPTION_RATE:
        return ""
    be = "are" if plural else "is"
    clauses = []
    if adjs:
        clauses.append(f"{be} {' and '.join(adjs[:2])}")
    if fors:
        clauses.append(f"{'' if adjs else be + ' '}made for {fors[0]}")
    if withs:
        clauses.append(f"{'feature' if plural else 'features'} {withs[0]}")
    joined = ", ".join(clauses[:-1]) + " and " + clauses[-1] if len(clauses) > 1 else clauses[0]
    sentences = [f"The {brand} {noun_l} {joined}."]
    pool = list(text.sentences)
    for _ in range(int(rand() * 4)):
        sentences.append(pool.pop(int(rand() * len(pool))).format(Brand=brand, noun=noun_l))
    return " ".join(sentences)


def _pricing(rand: Rand, t: ProductType) -> str:
    u = rand()
    if u < NO_PRICE_RATE:
        return ""
    lo, hi = t.price
    price = lo * (hi / lo) ** rand()
    low = f"${max(1, int(price))}.{_CENTS[int(rand() * 8)]}"
    if u < NO_PRICE_RATE + RANGE_PRICE_RATE:
        return f"{low} - ${int(price * (1.15 + 0.8 * rand()))}.{_CENTS[int(rand() * 8)]}"
    return low


def _instruction(rand: Rand, t: ProductType, kinds: dict[str, str], chosen: Sequence[str],
                 templates_one: Sequence[str], templates_many: Sequence[str], **extra: str) -> str:
    """A shopper's request naming the product type and the ``chosen`` attributes."""
    adjs = [a for a in chosen if kinds[a] == "adj"]
    fors = [a for a in chosen if kinds[a] == "for"]
    withs = [a for a in chosen if kinds[a] == "with"]
    tail = (" for " + " and ".join(fors) if fors else "") + (" with " + " and ".join(withs) if withs else "")
    lead = ", ".join(adjs) + " " if adjs else ""
    if t.one and rand() < 0.6:
        unit, of, noun = t.one.rpartition(" of ")
        phrase = f"{unit}{of}{lead}{noun}" if of else lead + noun
        return _pick(rand, templates_one).format(a=_article(phrase + tail), **extra)
    noun = t.query if rand() < 0.35 else t.many
    return _pick(rand, templates_many).format(p=lead + noun + tail, **extra)


def _human(rand: Rand, i: int, t: ProductType, kinds: dict[str, str], asin: str, attrs: list[str],
           options: dict[str, list[dict[str, str | None]]]) -> dict[str, Any]:
    """A human-style goal in WebShop's ``items_human_ins.json`` record format."""
    axes = list(options)
    if len(axes) > 2:
        axes = _sample(rand, axes, 2)
    picked = [(axis, str(options[axis][int(rand() * len(options[axis]))]["value"])) for axis in axes]
    spoken = " and ".join(
        V.OPTION_SPEECH.get(axis.lower(), "{v}").format(v=value.lower().replace("/", " and "))
        for axis, value in picked
    )
    chosen = _sample(rand, attrs, 1 + int(rand() * 2))
    text = _instruction(rand, t, kinds, chosen, V.HUMAN_ONE, V.HUMAN_MANY, opts=spoken or "any color")
    return {
        "asin": asin,
        "instruction": text.lower(),
        "attributes": attrs,
        "options": [f"{axis.lower()}: {normalize_option(value)}" for axis, value in picked],
        "instruction_attributes": chosen,
        "instruction_options": [normalize_option(value) for _, value in picked],
        "assignment_id": f"gen-{i}",
        "worker_id": "generator",
    }


def _reviews(rand: Rand, text: CategoryText, kinds: dict[str, str], asin: str, rating: float | None,
             noun_l: str, plural: bool, attrs: list[str]) -> dict[str, Any]:
    n = 0 if rating is None else (0, 1, 1, 2, 2, 3, 3, 4)[int(rand() * 8)]
    reviews = []
    this = "these" if plural else "this"
    for _ in range(n):
        assert rating is not None
        # the sum of three uniforms is a cheap bell curve around the product's rating (sd ~0.9)
        score = min(5, max(1, round(rating + (rand() + rand() + rand() - 1.5) * 1.8)))
        good, bad = _pick(rand, text.good), _pick(rand, text.bad)
        if score >= 4:
            title = _pick(rand, V.REVIEW_TITLES_GOOD)
            body = _pick(rand, V.REVIEW_OPENERS).format(this=this, noun=noun_l, n=2 + int(rand() * 10), good=good)
            if rand() < 0.6:
                attr = _pick(rand, attrs)
                body += " " + _pick(rand, V.REVIEW_ATTR[kinds[attr]]).format(attr=attr)
        elif score == 3:
            title = _pick(rand, V.REVIEW_TITLES_MID)
            body = _pick(rand, V.REVIEW_MID).format(good=good, bad=bad)
        else:
            title = _pick(rand, V.REVIEW_TITLES_BAD)
            body = _pick(rand, V.REVIEW_BAD).format(this=this, noun=noun_l, bad=bad, bad_cap=bad[:1].upper() + bad[1:])
        reviews.append({"title": title, "score": score, "body": (body[:1].upper() + body[1:]).replace(" i ", " I ")})
    return {"asin": asin, "average_rating": "N.A." if rating is None else rating, "reviews": reviews}


def draw_product(rand: Rand, i: int, asin: str, human: bool) -> GeneratedProduct:
    """Product ``i`` with ASIN ``asin``, drawn from ``rand``; ``human`` also gives it a human-style goal."""
    category = CATEGORIES[bisect(_CUM_WEIGHTS, rand() * _TOTAL_WEIGHT)]
    types = _TYPES[category]
    t = types[int(rand() * len(types))]
    info = _INFO[t.query]
    kinds = info.kinds
    text = CATEGORY_TEXT[category]
    brand = _brand(rand, category)
    noun = _pick(rand, t.nouns)
    noun_l = _lower_noun(noun)
    plural = _is_plural(noun)
    attrs = _sample(rand, info.attrs, _ATTR_COUNTS[int(rand() * 10)])
    adjs = [a for a in attrs if kinds[a] == "adj"]
    fors = [a for a in attrs if kinds[a] == "for"]
    withs = [a for a in attrs if kinds[a] == "with"]
    options = _options(rand, t, asin) if human or rand() < text.option_rate else {}

    if options and rand() < 0.5:
        variant = str(next(iter(options.values()))[0]["value"])
    elif t.sizes and rand() < 0.6:
        variant = _pick(rand, t.sizes)
    elif text.colors and rand() < 0.4:
        variant = _pick(rand, text.colors)
    else:
        variant = ""
    title = _title(rand, text, brand, noun, adjs, fors, withs, variant)
    bullets = _bullets(rand, text, info, attrs, title, brand, noun_l, plural)
    rating = None if rand() < NO_RATING_RATE else round(min(5.0, max(1.0, 4.3 + (rand() + rand() - 1.0) * 1.4)), 1)
    path = t.path
    if t.leaves and (path.count(SEP) < 2 or rand() < 0.75):
        path += SEP + _pick(rand, t.leaves)
    item: Product = {
        "asin": asin,
        "name": title,
        "full_description": _description(rand, text, brand, noun_l, plural, adjs, fors, withs),
        "small_description": bullets,
        "pricing": _pricing(rand, t),
        "images": [f"/static/img/{asin}-{k}.jpg" for k in range(1, 2 + int(rand() * 4))],
        "customization_options": options or "",
        "product_category": path,
        "category": category,
        "query": t.query,
        "average_rating": "" if rating is None else rating,
        "page": 1 + int(rand() ** 2 * 400),
    }
    attributes: dict[str, Any] = {"attributes": attrs}
    if rand() < INSTRUCTION_RATE:
        chosen = _sample(rand, attrs, 1 + int(rand() * 3))
        attributes["instruction"] = _instruction(rand, t, kinds, chosen, V.INSTRUCTION_ONE, V.INSTRUCTION_MANY)
        attributes["instruction_attributes"] = chosen
    review = _reviews(rand, text, kinds, asin, rating, noun_l, plural, attrs) if rand() < REVIEW_RATE else None
    human_record = _human(rand, i, t, kinds, asin, attrs, options) if human else None
    return GeneratedProduct(item, attributes, review, human_record)
