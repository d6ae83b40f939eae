"""A hand-written shopping agent: parse the instruction, search, compare a few items, pick options.

It reads only what the page shows (``info["page_state"]``) and the instruction text, never the
goal behind it, so it runs unchanged on recorded real pages. It exists as a stronger non-learned
yardstick than the paper's rule baseline, which ignores options and price.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from rapidfuzz import fuzz

from shopsim.agents.heuristic_v8 import V8Heuristic
from shopsim.page import PageState, ProductView, ResultCard
from shopsim.text import stem

__all__ = ["HeuristicAgent", "ParsedInstruction", "build_query", "parse_instruction"]

_PRICE = re.compile(r",?\s*and\s+price\s+(?:lower|less)\s+than\s+\$?([\d,]+(?:\.\d+)?)\s*dollars?\.?\s*$")
_PRICE_ANY = re.compile(r"(?:price\s+)?(?:lower|less|under|below)\s+(?:than\s+)?\$?([\d,]+(?:\.\d+)?)\s*(?:dollars?|usd|\$)")
_AXIS = r"(?:(?!with\b|and\b)[a-z]+)(?: (?!with\b|and\b)[a-z]+){0,3}"
_OPTIONS_START = re.compile(rf"\bwith ({_AXIS}): ")
_OPTION_NEXT = re.compile(rf",? and ({_AXIS}): ")
_FILLERS = [
    "i am looking for", "i'm looking for", "im looking for", "i am searching for", "looking for",
    "i would like to buy", "i would like", "i'd like to buy", "i'd like", "i want to buy", "i want",
    "i need to buy", "i need", "find me", "can you find me", "can you find", "could you find",
    "show me some", "show me", "get me", "buy me", "search for", "please", "help me find",
    "i'm trying to find", "i am trying to find",
]
_FILLER_RE = re.compile(r"\b(?:" + "|".join(re.escape(f) for f in sorted(_FILLERS, key=len, reverse=True)) + r")\b")
_STOP = frozenset(
    ["a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in", "into", "is", "it", "no", "not", "of", "on", "or", "such", "that", "the", "their", "then", "there", "these", "they", "this", "to", "was", "will", "with", "some", "me", "my", "i", "im", "i'm", "want", "need", "find", "looking", "buy", "get", "would", "like", "pair", "set"]
)
_TOKEN = re.compile(r"[a-z0-9]+")


def words(text: str) -> list[str]:
    """Content words, lower-cased and plural-folded (stop and filler words dropped)."""
    return [stem(t) for t in _TOKEN.findall(text.lower()) if t not in _STOP]


@dataclass(frozen=True)
class ParsedInstruction:
    """What the instruction asks for: the product text, wanted options and a price limit."""

    text: str
    core: str
    options: dict[str, str] = field(default_factory=dict)
    price_limit: float | None = None

    @property
    def core_words(self) -> list[str]:
        """The product description's content words (search and title matching use these)."""
        return words(self.core)


def parse_instruction(instruction: str) -> ParsedInstruction:
    """Split WebShop's ``<what> with <axis>: <value>, and ... , and price lower than X dollars``."""
    text = " ".join(instruction.lower().split())
    limit: float | None = None
    rest = text
    m = _PRICE.search(rest)
    if m:
        limit, rest = _number(m.group(1)), rest[: m.start()]
    else:
        m2 = _PRICE_ANY.search(rest)
        if m2:
            limit = _number(m2.group(1))
            rest = (rest[: m2.start()] + rest[m2.end():]).strip(" ,")
    options: dict[str, str] = {}
    start = _OPTIONS_START.search(rest)
    if start:
        core, tail = rest[: start.start()], rest[start.start() + len("with "):]
        marks = [(0, start.group(1), start.end() - start.start() - len("with "))]
        for nm in _OPTION_NEXT.finditer(tail):
            marks.append((nm.start(), nm.group(1), nm.end()))
        for i, (_, axis, value_start) in enumerate(marks):
            value_end = marks[i + 1][0] if i + 1 < len(marks) else len(tail)
            options[axis.strip()] = tail[value_start:value_end].strip(" ,")
    else:
        core = rest
    return ParsedInstruction(text=text, core=core.strip(" ,."), options=options, price_limit=limit)


def build_query(instruction: str, max_words: int = 30, option_values: bool = True) -> str:
    """The search query: the instruction's product words without fillers, price and option clauses.

    With ``option_values`` the wanted values (not the ``axis:`` labels) are appended as keywords:
    the shop indexes option text, and on WebShop's small set this lifts the goal product to the top
    result for 54% of eval goals instead of 15%.
    """
    parsed = parse_instruction(instruction)
    core = _FILLER_RE.sub(" ", parsed.core)
    core = re.sub(r"[^a-z0-9&'\-\" ]+", " ", core)
    tokens = [t for t in core.split() if t not in ("a", "an", "the", "some", "me")][:max_words]
    if option_values:
        seen = set(tokens)
        for value in parsed.options.values():
            extra = [t for t in re.sub(r"[^a-z0-9&'\-\".#+ ]+", " ", value).split() if t not in seen]
            tokens += extra
            seen.update(extra)
    return " ".join(tokens).strip()[:400] or " ".join(instruction.lower().split()[:max_words])


def _number(text: str) -> float | None:
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return None


def _price_ok(price: float | tuple[float, float] | None, limit: float | None) -> float:
    """1 when the shown price is under the limit, the chance of it for a range, 0.5 when unknown."""
    if limit is None:
        return 1.0
    if price is None:
        return 0.5
    if isinstance(price, tuple):
        low, high = price
        if high <= limit:
            return 1.0
        if low > limit or high <= low:
            return 0.0
        return (limit - low) / (high - low)
    return 1.0 if price <= limit else 0.0


def _overlap(wanted: list[str], have: set[str]) -> float:
    return sum(w in have for w in wanted) / len(wanted) if wanted else 0.0


_CARD_WEIGHTS = {"title": 0.5, "opt_title": 0.3, "price": 1.0, "rank": 0.08, "next_below": 0.9}


@dataclass
class _Seen:
    """A product we opened: how well it fits, and which option values to click on it."""

    id: str
    page_num: int
    score: float
    choices: dict[str, str]
    acceptable: bool


class HeuristicAgent:
    """Search the instruction's product words, open the most promising results, choose options, buy.

    Always buys within ``max_steps`` actions (the runner's budget): when the budget runs short it
    buys the best product it has seen (or the one in front of it).
    """

    name = "heuristic"

    def __init__(self, max_steps: int = 15, max_candidates: int = 4, seed: int = 0):
        self.max_steps, self.max_candidates, self.seed = max_steps, max_candidates, seed
        self.weights = dict(_CARD_WEIGHTS)
        self.reset(seed)

    # ---- episode state ---------------------------------------------------------------------------
    def reset(self, seed: int | None = None) -> None:
        """Forget the last episode (the agent is deterministic; the seed is unused)."""
        self.steps = 0
        self.parsed: ParsedInstruction | None = None
        self.queries: list[str] = []
        self.visited: list[str] = []
        self.seen: dict[str, _Seen] = {}
        self.target: str | None = None
        self.went_next = False
        self.cards: dict[str, tuple[ResultCard, int, float]] = {}
        self._v8 = V8Heuristic(max_steps=self.max_steps)

    def act(self, observation: str, valid_actions: dict[str, Any], info: dict[str, Any]) -> str:
        """Choose the next action from the page state; counts its own steps to stay in budget."""
        action = self._decide(valid_actions, info)
        self.steps += 1
        return action

    # ---- decisions ---------------------------------------------------------------------------------
    def _decide(self, valid_actions: dict[str, Any], info: dict[str, Any]) -> str:
        if info.get("observation_state") is not None:  # a shopsim-v8 page: its own reader
            return self._v8.act(info)
        state: PageState | None = info.get("page_state")
        clickables = list(valid_actions.get("clickables", []))
        instruction = info.get("instruction") or (state.instruction if state is not None else None) or ""
        if self.parsed is None or self.parsed.text != " ".join(instruction.lower().split()):
            self.parsed = parse_instruction(instruction)
        if state is None:
            return self._fallback(valid_actions, clickables)
        if state.page_type == "search" or (state.page_type not in ("results", "item", "item_detail")
                                            and valid_actions.get("has_search_bar")):
            return self._search(instruction)
        if state.page_type == "results":
            return self._on_results(state, clickables)
        if state.page_type == "item" and state.product is not None:
            return self._on_item(state, state.product, clickables)
        if state.page_type == "item_detail" and "< prev" in clickables:
            return "click[< prev]"
        return self._fallback(valid_actions, clickables)

    def _fallback(self, valid_actions: dict[str, Any], clickables: list[str]) -> str:
        if "buy now" in clickables:
            return "click[buy now]"
        if "back to search" in clickables:
            return "click[back to search]"
        clicks = [c for c in clickables if c != "search"]
        if clicks:
            return f"click[{clicks[0]}]"
        return self._search(self.parsed.text if self.parsed else "")

    def _search(self, instruction: str) -> str:
        query = build_query(instruction)
        if query in self.queries:  # results were empty: retry with fewer, more generic words
            short = " ".join(self.parsed.core_words[:4]) if self.parsed else ""
            query = short if short and short not in self.queries else " ".join(query.split()[:2]) or "product"
        self.queries.append(query)
        self.went_next = False
        return f"search[{query}]"

    @property
    def remaining(self) -> int:
        """Actions left, counting the one being decided."""
        return self.max_steps - self.steps

    def _card_score(self, card: ResultCard, rank: int) -> float:
        assert self.parsed is not None
        core = self.parsed.core_words
        title = set(words(card.title))
        option_words = [w for v in self.parsed.options.values() for w in words(v)]
        w = self.weights
        return (w["title"] * _overlap(core, title) + w["opt_title"] * _overlap(option_words, title)
                + w["price"] * _price_ok(card.price, self.parsed.price_limit) - w["rank"] * rank)

    def _on_results(self, state: PageState, clickables: list[str]) -> str:
        page = state.page_num or 1
        products = {c.arg: c for c in state.clickables if c.kind == "product"}
        for rank, card in enumerate(state.results):
            if card.id.lower() in products:
                self.cards[card.id] = (card, page, self._card_score(card, rank))
        if self.target is not None:
            return self._go_to(self.target, state, clickables)
        if not products:
            if self.steps == 0 or self.remaining <= 1:
                return self._fallback({}, clickables)
            return "click[back to search]" if "back to search" in clickables else self._fallback({}, clickables)
        here = [(score, cid) for cid, (card, p, score) in self.cards.items() if p == page and cid not in self.visited]
        here.sort(key=lambda t: -t[0])
        best_here = max((s for cid, (c, p, s) in self.cards.items() if p == page), default=0.0)
        if (not self.went_next and page == 1 and not self.visited and best_here < self.weights["next_below"] and "next >" in clickables
                and self.remaining >= 8):
            self.went_next = True
            return "click[next >]"
        best_seen = self._best_seen()
        explore_ok = len(self.visited) < self.max_candidates and bool(here)
        # Opening one more costs a click; returning to the best seen costs two more than buying there.
        if explore_ok and best_seen is not None:
            explore_ok = self.remaining >= 5 + len(best_seen.choices) and here[0][0] > 0.5
        if explore_ok:
            if page > 1 and here[0][0] < max((s for c, p, s in self.cards.values() if p < page), default=0) - 0.3:
                return "click[< prev]" if "< prev" in clickables else self._open(here[0][1], products)
            return self._open(here[0][1], products)
        if best_seen is not None:
            self.target = best_seen.id
            return self._go_to(self.target, state, clickables)
        ranked = sorted(((s, cid) for cid, (c, p, s) in self.cards.items() if p == page), key=lambda t: -t[0])
        return self._open(ranked[0][1], products)

    def _open(self, product_id: str, products: dict[str, Any]) -> str:
        arg = product_id.lower()
        if product_id not in self.visited:
            self.visited.append(product_id)
        return f"click[{arg}]" if arg in products else "click[back to search]"

    def _go_to(self, product_id: str, state: PageState, clickables: list[str]) -> str:
        page = state.page_num or 1
        want_page = self.seen[product_id].page_num if product_id in self.seen else page
        if any(c.kind == "product" and c.arg == product_id.lower() for c in state.clickables):
            return f"click[{product_id.lower()}]"
        if want_page < page and "< prev" in clickables:
            return "click[< prev]"
        if want_page > page and "next >" in clickables:
            return "click[next >]"
        self.target = None  # lost it (results changed); open the best card here instead
        products = {c.arg: c for c in state.clickables if c.kind == "product"}
        ranked = sorted(((s, cid) for cid, (c, p, s) in self.cards.items() if p == page), key=lambda t: -t[0])
        return self._open(ranked[0][1], products) if ranked else self._fallback({}, clickables)

    def _best_seen(self) -> _Seen | None:
        return max(self.seen.values(), key=lambda s: s.score, default=None)

    def _on_item(self, state: PageState, product: ProductView, clickables: list[str]) -> str:
        seen = self.seen.get(product.id)
        if seen is None:
            seen = self._evaluate(product, state.page_num or 1)
            self.seen[product.id] = seen
            if product.id not in self.visited:
                self.visited.append(product.id)
        if state.feedback.code == "options_incomplete":  # strict shops want every axis chosen
            for axis, values in product.options.items():
                if values and axis not in seen.choices:
                    seen.choices[axis] = values[0]
        todo = self._option_clicks(state, product, seen)
        finish_cost = len(todo) + 1
        best = self._best_seen()
        if self.target is None and not seen.acceptable and "< prev" in clickables:
            better_left = any(cid not in self.visited for cid, (c, p, s) in self.cards.items() if s > 0.5)
            can_explore = len(self.visited) < self.max_candidates and better_left
            # leaving costs < prev + click + (maybe < prev + click back) + options + buy
            if can_explore and self.remaining >= 5 + finish_cost:
                return "click[< prev]"
            if (best is not None and best.id != product.id and best.score > seen.score + 0.25
                    and self.remaining >= 3 + len(best.choices)):
                self.target = best.id
                return "click[< prev]"
        if todo and self.remaining > 1:
            return f"click[{todo[0]}]"
        return "click[buy now]" if "buy now" in clickables else self._fallback({}, clickables)

    # ---- judging a product -------------------------------------------------------------------------
    def _evaluate(self, product: ProductView, page_num: int) -> _Seen:
        assert self.parsed is not None
        parsed = self.parsed
        core = parsed.core_words
        title = set(words(product.title))
        text = set(words(" ".join([product.title, *product.bullet_points, product.description])))
        choices, exact = self._choose_options(product)
        wanted_axes = len(parsed.options) or (1 if product.options else 0)
        option_fit = exact / wanted_axes if wanted_axes else 1.0
        price = _price_ok(product.price, parsed.price_limit)
        title_fit, text_fit = _overlap(core, title), _overlap(core, text)
        score = 1.5 * title_fit + 1.0 * text_fit + 1.2 * option_fit + 1.5 * price
        acceptable = price >= 0.5 and title_fit >= 0.4 and (option_fit >= 0.99 or not parsed.options)
        return _Seen(product.id, page_num, score, choices, acceptable)

    def _choose_options(self, product: ProductView) -> tuple[dict[str, str], int]:
        """Per axis, the value the instruction names (exactly after ``axis:``, else the best fuzzy match)."""
        assert self.parsed is not None
        text, wanted = self.parsed.text, self.parsed.options
        choices: dict[str, str] = {}
        exact = 0
        for axis, values in product.options.items():
            if not values:
                continue
            key = axis.lower()
            named = [v for v in values if _names(text, f"{key}: {v.lower()}")]
            if named:
                choices[axis] = max(named, key=len)
                exact += 1
                continue
            target = wanted.get(key) or next((v for a, v in wanted.items() if fuzz.ratio(a, key) >= 80), None)
            if target is not None:
                best = max(values, key=lambda v: (fuzz.ratio(v.lower(), target), fuzz.token_set_ratio(v.lower(), target)))
                if fuzz.ratio(best.lower(), target) >= 95:
                    exact += 1
                choices[axis] = best
                continue
            scored = [(fuzz.partial_ratio(v.lower(), text) if len(v) >= 2 else 0, v) for v in values]
            score, value = max(scored, key=lambda t: (t[0], len(t[1])))
            if score >= 90 and len(value) >= 3 and value.lower() in text:
                choices[axis] = value
                if not wanted:
                    exact += 1
        return choices, exact

    def _option_clicks(self, state: PageState, product: ProductView, seen: _Seen) -> list[str]:
        """Clickable args still to click for the chosen options (values another axis shadows are skipped)."""
        todo = []
        for axis, value in seen.choices.items():
            if product.selected.get(axis) == value:
                continue
            arg = next((c.arg for c in state.clickables if c.kind == "option" and c.axis == axis and c.text == value), None)
            if arg is not None:
                todo.append(arg)
        return todo


def _names(text: str, phrase: str) -> bool:
    """Whether ``phrase`` occurs in ``text`` as a whole clause (followed by a comma or the end)."""
    start = text.find(phrase)
    while start >= 0:
        end = start + len(phrase)
        if end == len(text) or text[end] == ",":
            return True
        start = text.find(phrase, start + 1)
    return False
