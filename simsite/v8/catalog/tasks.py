"""Task text for the ShopSimulator v8 catalog: budgets and the full and simple requests.

A standard task states its budget only in the text (``price_upper`` is ``null``), with exactly one
of the patterns the v8 contract parses:

* Chinese: ``价格在X到Y元之间`` -> Y, ``X元左右`` -> 1.10*X, ``X元以内`` / ``不超过X元`` -> X;
* English: ``under X dollars`` -> X, ``priced from X to Y yuan`` / ``dollars`` -> Y,
  ``around X dollars`` -> 1.10*X.

A persona task carries the budget in ``price_upper`` as well, so its text may phrase it more freely
(``最多X元``, ``no more than X dollars``). Every budget is at least the gold configuration's price,
and the budget is the only number in either text (the word lists keep digits out of everything a
task quotes).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from random import Random
from typing import NamedTuple

from shopsim.simsite.v8.catalog.vocabulary import V8Type
from shopsim.simsite.v8.catalog.vocabulary_en import ACRONYMS

__all__ = ["APPROX", "TaskText", "budget_phrase", "nice_down", "nice_up", "task_text", "title_case"]

APPROX = 1.10
"""An approximate budget ("X元左右", "around X dollars") allows this much more."""

_ACRONYMS = frozenset(ACRONYMS)


def title_case(phrase: str) -> str:
    """Title-case an English phrase the way listings do, keeping acronyms and brand casing."""
    out = []
    for word in phrase.split(" "):
        if word in _ACRONYMS or any(c.isupper() for c in word[1:]):
            out.append(word)
        else:
            out.append("-".join(p[:1].upper() + p[1:] for p in word.split("-")))
    return " ".join(out)


def _step(x: float) -> int:
    return 1 if x <= 20 else 5 if x <= 100 else 10 if x <= 500 else 50 if x <= 2000 else 100


def nice_up(x: float) -> int:
    """The smallest round number >= ``x`` (rounded to 1, 5, 10, 50 or 100 by size)."""
    step = _step(x)
    return max(step, math.ceil(x / step - 1e-9) * step)


def nice_down(x: float) -> int:
    """The largest round number <= ``x`` (0 when ``x`` is below the step)."""
    step = _step(x)
    return math.floor(x / step + 1e-9) * step


def _num(value: int, lang: str) -> str:
    return f"{value:,}" if lang == "en" and value >= 1000 else str(value)


class Budget(NamedTuple):
    phrase: str
    limit: float


def budget_phrase(rng: Random, price: float, lang: str, yuan: bool, persona: bool) -> Budget:
    """A budget phrase whose parsed limit is >= ``price`` (the gold configuration's price)."""
    u = rng.random()
    if lang == "zh":
        forms = ("range", "approx", "within", "atmost") + (("most", "kuai") if persona else ())
    elif yuan:
        forms = ("range_yuan",) + (("nomore_yuan",) if persona else ())
    else:
        forms = ("under", "under", "range", "approx") + (("nomore", "atmost_en") if persona else ())
    form = forms[int(u * len(forms))]
    if form in ("range", "range_yuan"):
        high = nice_up(price * rng.uniform(1.0, 1.25))
        low = nice_down(price * rng.uniform(0.55, 0.9))
        if low <= 0 or low >= high:
            low = nice_down(high * 0.5)
        if low <= 0:
            form = "within" if lang == "zh" else "nomore_yuan" if yuan else "under"
        else:
            if lang == "zh":
                return Budget(f"价格在{low}到{high}元之间", high)
            unit = "yuan" if yuan else "dollars"
            return Budget(f"priced from {_num(low, lang)} to {_num(high, lang)} {unit}", high)
    if form == "approx":
        target = price * rng.uniform(0.93, 1.05)
        step = _step(target)
        x = max(step, round(target / step) * step)
        while x * APPROX < price:
            x += step
        limit = round(x * APPROX, 2)
        return Budget(f"预算{x}元左右" if lang == "zh" else f"around {_num(x, lang)} dollars", limit)
    x = nice_up(price * rng.uniform(1.0, 1.3))
    phrase = {
        "within": f"{('预算', '价格', '')[int(rng.random() * 3)]}{x}元以内",
        "atmost": f"价格不超过{x}元",
        "most": f"最多{x}元",
        "kuai": f"{x}块钱以内",
        "under": f"under {_num(x, lang)} dollars",
        "nomore": f"no more than {_num(x, lang)} dollars",
        "atmost_en": f"at most {_num(x, lang)} dollars",
        "nomore_yuan": f"no more than {_num(x, lang)} yuan",
    }[form]
    return Budget(phrase, x)


class TaskText(NamedTuple):
    """A task's full instruction and its simple request."""
    instruction: str
    simple: str


def _pick(rng: Random, seq: Sequence[str]) -> str:
    return seq[int(rng.random() * len(seq))]


# ---------------------------------------------------------------------------- Chinese

_ZH_FULL = (
    "我想买一{unit}{attrs}的{noun}{opts}，{budget}。",
    "帮我找一{unit}{noun}，要{attrs}的{opts}，{budget}。",
    "需要一{unit}{attrs}的{noun}{opts}，{budget}。",
    "想入手一{unit}{noun}，最好是{attrs}的{opts}，{budget}。",
    "请帮我挑一{unit}{attrs}的{noun}{opts}，{budget}。",
)
_ZH_SIMPLE = (
    "想要一{unit}{a0}的{noun}，{budget}。",
    "找一{unit}{noun}，{budget}。",
    "{a0}{noun}，{budget}。",
    "有没有{a0}的{noun}，{budget}。",
    "帮我看看{noun}，{a0}的就行，{budget}。",
)
_ZH_PERSONA_SIMPLE = (
    "最近想添一{unit}{noun}，{budget}。",
    "查一款{a0}的{noun}，{budget}。",
    "有合适的{noun}推荐吗？{a0}的优先，{budget}。",
    "想换一{unit}{noun}，{budget}。",
)
_ZH_OPT = ("{axis}选{value}", "{axis}要{value}", "{axis}选{value}的")


def _zh_text(rng: Random, t: V8Type, attrs: Sequence[str], options: dict[str, str], budget: str,
             persona: bool) -> TaskText:
    opts = "".join("，" + _pick(rng, _ZH_OPT).format(axis=a, value=v) for a, v in options.items())
    full = _pick(rng, _ZH_FULL).format(unit=t.unit, attrs="、".join(attrs), noun=t.noun, opts=opts, budget=budget)
    pool = _ZH_PERSONA_SIMPLE + _ZH_SIMPLE[:2] if persona else _ZH_SIMPLE
    simple = _pick(rng, pool).format(unit=t.unit, a0=attrs[0], noun=t.noun, budget=budget)
    return TaskText(full, simple)


# ---------------------------------------------------------------------------- English

_EN_FULL = (
    "I want {np}{withs}{opts}, {budget}.",
    "I'm looking for {np}{withs}{opts}, {budget}.",
    "Find me {np}{withs}{opts}, {budget}.",
    "I need {np}{withs}{opts}, {budget}.",
    "Please help me buy {np}{withs}{opts}, {budget}.",
)
_EN_SIMPLE = (
    "{NP1}{with1}, {budget}.",
    "Looking for {np1}{with1}, {budget}.",
    "Need {np1}{with1}, {budget}.",
)
_EN_PERSONA_SIMPLE = (
    "Thinking about getting {np0}, {budget}.",
    "Any good {noun_pl}? Something {a0}, {budget}.",
    "Show me {np1}{with1} in my style, {budget}.",
)


def _article(phrase: str) -> str:
    first = phrase.split(" ", 1)[0].lower()
    vowel = first[:1] in "aeiou" and not first.startswith(("us", "uni", "eu", "one"))
    return ("an " if vowel or first in ("led", "rgb", "usb-c", "hdmi") else "a ") + phrase


def _np(t: V8Type, adjs: Sequence[str]) -> str:
    noun = t.noun + "s" if t.unit == "set of" else t.noun
    lead = ", ".join(adjs)
    core = f"{lead} {noun}" if lead else noun
    return _article(f"{t.unit} {core}" if t.unit else core)


def _plural(t: V8Type) -> str:
    return t.noun if t.unit == "pair of" or t.noun.endswith("s") else t.noun + "s"


def _en_opt(axis: str, value: str) -> str:
    if axis == "Color":
        return f"in {value}"
    if axis == "Size":
        return f"in size {value}"
    return f"choosing {value} for the {axis.lower()}"


def _en_text(rng: Random, t: V8Type, attrs: Sequence[str], kinds: dict[str, str], options: dict[str, str],
             budget: str, persona: bool) -> TaskText:
    adjs = [a for a in attrs if kinds[a] == "adj"]
    withs = [a for a in attrs if kinds[a] == "with"]
    opts = "".join(", " + _en_opt(a, v) for a, v in options.items())
    with_text = " with " + " and ".join(withs) if withs else ""
    full = _pick(rng, _EN_FULL).format(np=_np(t, adjs), withs=with_text, opts=opts, budget=budget)
    np1 = _np(t, adjs[:1])
    fields = {"np1": np1, "NP1": _cap(np1), "with1": f" with {withs[0]}" if withs and not adjs else "",
              "np0": _np(t, ()), "noun_pl": _plural(t), "budget": budget,
              "a0": attrs[0] if kinds[attrs[0]] == "adj" else "with " + attrs[0]}
    pool = _EN_PERSONA_SIMPLE + _EN_SIMPLE[:2] if persona else _EN_SIMPLE
    simple = _pick(rng, pool).format(**fields)
    return TaskText(_cap(full), simple)


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def task_text(rng: Random, t: V8Type, attrs: Sequence[str], kinds: dict[str, str], options: dict[str, str],
              budget: str, persona: bool) -> TaskText:
    """The full ``instruction`` (type, attributes, option values, budget) and the shorter ``instruction_simple``
    (no option value, same budget).
    """
    if t.lang == "zh":
        return _zh_text(rng, t, attrs, options, budget, persona)
    return _en_text(rng, t, attrs, kinds, options, budget, persona)
