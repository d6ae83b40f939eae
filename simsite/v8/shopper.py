"""The multi-turn shopper: who answers ``ask[question]`` from the private target and the persona.

ShopSimulator's multi-turn scenarios let the agent ask the shopper it buys for. The shopper knows
what the evaluator knows (:class:`PrivateGoal`: attributes, options, budget, target ASIN) and the
persona; the agent only sees its answers. :class:`RuleShopper` is the default: deterministic, it
answers the attributes, options and budget it is asked about, in the task's language, and never
says the target ASIN or title verbatim (:func:`guard_answer`), so any shopper behind the
:class:`Shopper` interface (the LLM one in :mod:`shopsim.simsite.v8.llm_shopper`) stays as safe.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict

from shopsim.simsite.v8.prices import task_budget
from shopsim.simsite.v8.records import V8Task, public_persona

__all__ = [
    "DialogueTurn",
    "PrivateGoal",
    "RuleShopper",
    "Shopper",
    "ShopperFactory",
    "guard_answer",
    "private_goal",
    "rule_shopper",
    "task_language",
]

_CJK = re.compile(r"[\u4e00-\u9fff]")


class GoalOption(BaseModel):
    """One target option: its axis when the task names one, and the value."""

    model_config = ConfigDict(frozen=True)

    axis: str | None
    value: str


class PrivateGoal(BaseModel):
    """What a shopper simulator (or an evaluator) may know and an agent may not: never sent to an agent."""

    model_config = ConfigDict(frozen=True)

    task_id: int
    instruction: str
    attributes: list[str]
    options: list[GoalOption]
    budget: float | None
    budget_source: str | None
    target_asin: str


class DialogueTurn(BaseModel):
    """One ``ask``: the agent's question, the shopper's answer, and the action number it used."""

    model_config = ConfigDict(frozen=True)

    action: int
    question: str
    answer: str


def private_goal(task: V8Task) -> PrivateGoal:
    """The task's private goal (the budget resolved as the reward resolves it)."""
    budget = task_budget(task)
    return PrivateGoal(task_id=task.task_id, instruction=task.instruction, attributes=list(task.attributes),
                       options=[GoalOption(axis=a, value=v) for a, v in task.options],
                       budget=budget.limit if budget else None, budget_source=budget.source if budget else None,
                       target_asin=task.asin)


def task_language(task: V8Task) -> str:
    """``zh`` when the task's instruction has Chinese characters, else ``en``."""
    return "zh" if _CJK.search(task.instruction) else "en"


class Shopper(Protocol):
    """Answers one question of the agent (one ``ask`` action) in plain text."""

    def answer(self, question: str) -> str:
        """The answer to ``question``; it must not contain the target ASIN or title (see guard_answer)."""
        ...


ShopperFactory = Callable[[V8Task, str], Shopper]
"""Builds a session's shopper from its task and the target product's title (to keep it unsaid)."""


def guard_answer(answer: str, goal: PrivateGoal, title: str) -> str:
    """The answer with the target ASIN and the target's full title removed (whatever produced it).

    Matched ignoring case and the spacing between words, since a model that copies the ASIN or
    title rarely keeps their exact case and spaces (``b07xyz``, ``Foo  bar``), and either gives it away.
    """
    mask = "（不便透露）" if _CJK.search(goal.instruction) else "(not saying)"
    for secret in (goal.target_asin, title):
        words = secret.split()
        if words:
            answer = re.sub(r"\s*".join(map(re.escape, words)), mask, answer, flags=re.IGNORECASE)
    return answer


# ---- the rule-based shopper -------------------------------------------------------------------------
_BUDGET = ("价格", "预算", "多少钱", "价位", "花多少", "贵", "budget", "price", "cost", "spend", "afford",
           "how much", "expensive")
_ATTRS = ("功能", "特点", "要求", "属性", "需求", "材质", "特性", "feature", "attribute", "requirement", "material",
          "must", "need", "look for", "looking for")
_OPTION_WORDS = ("规格", "款式", "选项", "选哪", "哪个", "哪种", "哪款", "版本", "配置", "option", "which", "variant",
                 "version", "choose", "prefer")
_PRODUCT = ("asin", "链接", "哪一款", "具体哪个商品", "具体型号", "exact product", "which product", "product id", "link")
_BRAND = ("品牌", "牌子", "brand")
_ALIASES = {"color": ("颜色", "colour", "color"), "size": ("尺码", "尺寸", "size"), "颜色": ("color", "colour"),
            "尺码": ("size",), "尺寸": ("size",)}

_ZH = {
    "option": "{axis}要{value}。", "value": "要{value}。", "free": "{axis}没有特别要求，都可以。",
    "budget": "预算最多{limit}元。", "no_budget": "预算没有硬性要求。", "attrs": "我希望是{attrs}的。",
    "no_attrs": "没有其他特别的功能要求。", "brand": "平时比较喜欢{brands}，不过不是必须的。",
    "no_brand": "品牌没有要求。", "product": "我没有指定具体哪一款，符合要求就行。",
    "help": "可以问我想要的功能、规格选项或预算。", "sep": "、",
}
_EN = {
    "option": "For {axis}, I'd like {value}.", "value": "I'd like {value}.", "free": "No preference on {axis}.",
    "budget": "My budget is at most {limit} {unit}.", "no_budget": "I have no strict budget.",
    "attrs": "It should be {attrs}.", "no_attrs": "Nothing else in particular.",
    "brand": "I usually like {brands}, but it is not a must.", "no_brand": "No brand preference.",
    "product": "I don't have one exact product in mind; anything that fits is fine.",
    "help": "You can ask me about the features, the options or the budget.", "sep": ", ",
}


def _num(x: float) -> str:
    return str(int(x)) if x == int(x) else f"{x:.2f}".rstrip("0").rstrip(".")


def _mentions(q: str, axis: str) -> bool:
    key = axis.casefold()
    return key in q or any(alias in q for alias in _ALIASES.get(key, ()))


def _brands(persona: dict[str, Any] | None) -> list[str]:
    """Brand preferences the persona states (ShopSimulator's ``兴趣偏好.品牌偏好``, or an English key)."""
    interests = (persona or {}).get("兴趣偏好") or (persona or {}).get("interests") or {}
    if not isinstance(interests, dict):
        return []
    found = interests.get("品牌偏好") or interests.get("brands") or []
    return [str(b) for b in found] if isinstance(found, list) else []


class RuleShopper:
    """The deterministic shopper: one answer per topic the question names, in the task's language."""

    def __init__(self, task: V8Task, title: str = ""):
        self.goal, self.title = private_goal(task), title
        self.persona = public_persona(task.user_persona)
        self.lang = task_language(task)
        self.words = _ZH if self.lang == "zh" else _EN
        self.unit = "yuan" if "yuan" in task.instruction.casefold() else "dollars"

    def answer(self, question: str) -> str:
        """Answer the attributes, options and budget the question asks about (or say what can be asked)."""
        q = " ".join(question.casefold().split())
        product = any(w in q for w in _PRODUCT)
        parts = self._options(q, free=not product)
        if any(w in q for w in _ATTRS):
            parts.append(self._attributes())
        if any(w in q for w in _BUDGET):
            parts.append(self._budget())
        if any(w in q for w in _BRAND):
            brands = _brands(self.persona)
            parts.append(self.words["brand"].format(brands=self.words["sep"].join(brands)) if brands
                         else self.words["no_brand"])
        if not parts and product:
            parts.append(self.words["product"])
        if not parts:
            parts.append(self.words["help"])
        sep = "" if self.lang == "zh" else " "
        return guard_answer(sep.join(dict.fromkeys(parts)), self.goal, self.title)

    def _options(self, q: str, free: bool = True) -> list[str]:
        """Target options whose axis (or value) the question names; an asked axis outside the target is free."""
        w = self.words
        named = [o for o in self.goal.options if (o.axis and _mentions(q, o.axis)) or o.value.casefold() in q]
        if named:
            return [w["option"].format(axis=o.axis, value=o.value) if o.axis else w["value"].format(value=o.value)
                    for o in named]
        if not free or not any(word in q for word in _OPTION_WORDS):
            return []
        unnamed = [o for o in self.goal.options if o.axis is None]
        if unnamed:  # options given as bare values: the shopper cannot tell which axis is asked
            return [w["value"].format(value=w["sep"].join(o.value for o in unnamed))]
        axis = _asked_axis(q)
        return [w["free"].format(axis=axis)] if axis else []

    def _attributes(self) -> str:
        attrs = self.goal.attributes
        return self.words["attrs"].format(attrs=self.words["sep"].join(attrs)) if attrs else self.words["no_attrs"]

    def _budget(self) -> str:
        if self.goal.budget is None:
            return self.words["no_budget"]
        return self.words["budget"].format(limit=_num(self.goal.budget), unit=self.unit)


_ASKED_AXIS = re.compile(r"^(?:请问)?(.{1,12}?)(?:选|要)?(?:哪个|哪种|哪款|什么)|which (.{1,30}?)(?: do| would| should| is| are|\?|$)")


def _asked_axis(q: str) -> str | None:
    """The axis a question asks about when the target has no option on it (``尺码选哪个`` -> ``尺码``)."""
    m = _ASKED_AXIS.search(q)
    if m is None:
        return None
    axis = (m.group(1) or m.group(2) or "").strip(" ，,：:?？")
    return axis or None


def rule_shopper(task: V8Task, title: str) -> Shopper:
    """The default :data:`ShopperFactory`."""
    return RuleShopper(task, title)
