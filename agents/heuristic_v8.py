"""The heuristic agent on v8 pages (any language): reads ``observation_state``, never the text.

Search the request without its budget phrase; score results by shared tokens (CJK bigrams and Latin
words, the search's own tokenizer) with title, category and key attributes, preferring listed
prices under the budget; open the best few; on a product choose each axis by the value the request
names, else the cheapest value under the budget; buy once ``buy now`` appears and the SKU price
fits, else try the next candidate; buy the best seen when the action budget runs short.

In a multi-turn episode (``info['interaction_mode'] == 'multi_turn'``) it asks the shopper about
an option axis the request and the answers so far name no value for (once per axis, in the
request's language), and reads the answers like the request.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from shopsim.budget import parse_budget
from shopsim.text import tokenize
from shopsim.v8.observation_state import ObservationState, ProductFacts, ResultEntry

__all__ = ["V8Heuristic"]

_BUDGET_PHRASE = re.compile(
    r"[，,。;；]?\s*(?:能接受的)?(?:价格|预算|价位)[^，,。;；]*|(?:priced|under|around|about|below)\b[^,.;]*", re.I)
_CJK = re.compile(r"[\u4e00-\u9fff]")
_NOISE = re.compile(r"[，,。.;；:：!！?？()（）\[\]“”\"']")
MAX_QUERY_CHARS = 60
_FEATURES = "\0features"  # the first question (the request's attributes), beside the option axes asked


@lru_cache(maxsize=1 << 14)
def _query(instruction: str) -> str:
    """The request as a query (cached: read on every search page and again after each answer)."""
    text = _BUDGET_PHRASE.sub(" ", instruction)
    text = " ".join(_NOISE.sub(" ", text).split())
    return text[:MAX_QUERY_CHARS].strip() or instruction[:MAX_QUERY_CHARS]


@lru_cache(maxsize=1 << 16)
def _token_set(text: str) -> frozenset[str]:
    """Cached: the same titles, cards and option values are read on every page that shows them."""
    return frozenset(tokenize(text))


@lru_cache(maxsize=1 << 16)
def _joined_token_set(*parts: str) -> frozenset[str]:
    """The tokens of ``parts`` joined by spaces: the union of each part's (no token spans a space), so a
    card's category and attribute texts, shared by many products, are tokenized once each.
    """
    return frozenset().union(*map(_token_set, parts))


def _share(want: frozenset[str] | set[str], have: frozenset[str]) -> float:
    return len(want & have) / len(want) if want else 0.0


def _overlap(want: frozenset[str] | set[str], text: str) -> float:
    return _share(want, _token_set(text)) if want else 0.0


def _price_low(price: Any) -> float | None:
    if price is None:
        return None
    return float(price[0]) if isinstance(price, list | tuple) else float(price)


@dataclass
class V8Heuristic:
    """One episode's memory; ``act`` is called with the env's ``info`` (``observation_state`` inside)."""

    max_steps: int = 15
    max_candidates: int = 3
    steps: int = 0
    tokens: frozenset[str] = frozenset()
    budget: float | None = None
    instruction: str = ""
    ranked: list[str] = field(default_factory=list)
    tried: list[str] = field(default_factory=list)
    best: tuple[float, str] | None = None
    known: str = ""
    """The request plus the shopper's answers: what option choices are read from."""
    asked: set[str] = field(default_factory=set)
    multi_turn: bool = False

    def act(self, info: dict[str, Any]) -> str:
        """The next action for a v8 page, read from ``info['observation_state']``."""
        obs: ObservationState = info["observation_state"]
        instruction = str(info.get("instruction") or "")
        if instruction != self.instruction:
            self.instruction = instruction
            self.tokens = _token_set(_query(instruction))
            found = parse_budget(instruction)
            self.budget = found.limit if found else None
            self.known = instruction
        self.multi_turn = info.get("interaction_mode") == "multi_turn"
        if info.get("shopper_reply"):
            self.known += "\n" + str(info["shopper_reply"])
            self.tokens = _token_set(_query(self.known))
        self.steps += 1
        if obs.page_type == "search":
            if self.multi_turn and _FEATURES not in self.asked and self.max_steps - self.steps > 6:
                self.asked.add(_FEATURES)
                return "ask[有什么功能要求？]" if _CJK.search(instruction) else "ask[Which features do you need?]"
            return f"search[{_query(self.known)}]"
        if obs.page_type == "results":
            return self._on_results(obs)
        if obs.page_type == "product" and obs.product is not None:
            return self._on_product(obs, obs.product)
        return "click[back to search]" if "back to search" in obs.clickables else f"search[{_query(instruction)}]"

    def _card(self, r: ResultEntry) -> float:
        card = _joined_token_set(r.title, *r.category, *r.key_attributes, r.brand)
        score = 2.0 * _overlap(self.tokens, r.title) + _share(self.tokens, card) - 0.01 * r.rank
        low = _price_low(r.price)
        if self.budget is not None and low is not None and low > self.budget:
            score -= 1.0
        return score

    def _on_results(self, obs: ObservationState) -> str:
        if not self.ranked:
            self.ranked = [r.asin for r in sorted(obs.results, key=self._card, reverse=True)]
        left = [a for a in self.ranked if a not in self.tried and a in obs.clickables]
        if left and len(self.tried) < self.max_candidates and self.max_steps - self.steps >= 3:
            self.tried.append(left[0])
            return f"click[{left[0]}]"
        if self.best is not None and self.best[1] in obs.clickables:
            self.tried.append(self.best[1])
            return f"click[{self.best[1]}]"
        target = left[0] if left else (self.ranked[0] if self.ranked and self.ranked[0] in obs.clickables else None)
        return f"click[{target}]" if target else "click[back to search]"

    def _choice(self, p: ProductFacts, axis: str) -> str:
        values = p.option_axes[axis]
        named = self._named(values)
        if named:
            return max(named, key=len)
        scored = sorted(values, key=lambda v: -_overlap(_token_set(v), self.known))
        if scored and _overlap(_token_set(scored[0]), self.known) > 0:
            return scored[0]
        return values[0]

    def _named(self, values: list[str]) -> list[str]:
        return [v for v in values if v and v.casefold() in self.known.casefold()]

    def _question(self, p: ProductFacts) -> str | None:
        """An ``ask`` about the first axis with no named value, when multi-turn and steps allow."""
        if not self.multi_turn or self.max_steps - self.steps < 3 + len(p.option_axes):
            return None
        for axis, values in p.option_axes.items():
            if axis not in self.asked and not self._named(values):
                self.asked.add(axis)
                return f"ask[{axis}选哪个？]" if _CJK.search(self.instruction) else f"ask[Which {axis} do you want?]"
        return None

    def _on_product(self, obs: ObservationState, p: ProductFacts) -> str:
        if (question := self._question(p)) is not None:
            return question
        for axis in p.option_axes:
            want = self._choice(p, axis)
            if obs.selected_options.get(axis) != want and f"{axis}={want}" in obs.clickables:
                return f"click[{axis}={want}]"
        fits = self.budget is None or (obs.selected_price is not None and obs.selected_price <= self.budget)
        fit = _share(self.tokens, _joined_token_set(p.title, *p.bullets, *p.attributes))
        score = fit + (1.0 if fits else 0.0)
        if self.best is None or score > self.best[0]:
            self.best = (score, p.asin)
        running_out = self.max_steps - self.steps < 2 + len(p.option_axes)
        if "buy now" in obs.clickables and (fits or running_out or (self.best[1] == p.asin and
                                             len(self.tried) >= self.max_candidates)):
            return "click[buy now]"
        if "< prev" in obs.clickables:
            return "click[< prev]"
        return "click[buy now]" if "buy now" in obs.clickables else "click[back to search]"
