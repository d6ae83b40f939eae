"""The v8 reward: the paper's four components, ``r_strict`` on top, a zero vector for any other end.

Differences from the WebShop reward are the contract's: no query branch in ``r_type`` (the data
has no query tag), no colour normalisation of option values, the budget from the task text and the
price of the chosen SKU, and ``r_strict`` (a product, so one failed constraint fails the purchase)
as the scalar reward. ``r_loose`` and ``r_success`` stay in the detail for diagnosis.
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache
from typing import Any

from pydantic import BaseModel
from rapidfuzz import fuzz

from shopsim.simsite.nouns import fallback_nouns
from shopsim.simsite.v8.prices import resolve_price, task_budget
from shopsim.simsite.v8.records import V8Product, V8Task
from shopsim.text import is_cjk, tokenize

__all__ = ["ATT_FUZZY_THRESHOLD", "RewardDetail", "TitleTerms", "default_title_terms", "score_v8_purchase", "zero_detail"]

ATT_FUZZY_THRESHOLD = 85
"""An attribute hits a product attribute when their token-set ratio exceeds this (WebShop's 85)."""


class RewardDetail(BaseModel):
    """Every number of a v8 reward; ``reward`` (the API's scalar) equals ``r_strict``."""

    r_type: float = 0.0
    r_att: float = 0.0
    r_option: float = 0.0
    r_price: float = 0.0
    r_loose: float = 0.0
    r_strict: float = 0.0
    r_success: float = 0.0
    target_asin_match: bool = False
    price_verifiable: bool = False
    n_att: int = 0
    m_att: int = 0
    n_opt: int = 0
    m_opt: int = 0
    category_overlap: int = 0
    title_score: float = 0.0
    budget: float | None = None
    budget_source: str = "none"  # annotation | price_upper | regex | unparseable | none
    budget_field: str | None = None  # the text a regex budget was read from
    budget_phrase: str | None = None
    selected_price: float | None = None
    price_reason: str = ""
    term_source: str = ""

    @property
    def reward(self) -> float:
        """The episode's reward: ``r_strict``."""
        return self.r_strict


def zero_detail(**extra: Any) -> RewardDetail:
    """The all-zero vector of an unpurchased terminal (action limit, generation length)."""
    return RewardDetail(**extra)


@lru_cache(maxsize=1 << 16)
def norm(text: str) -> str:
    """NFKC, case-folded, whitespace collapsed: how v8 compares values (no colour folding). Cached: a
    purchase compares the same titles, bullets and option values episode after episode.
    """
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


class TitleTerms:
    """Title terms for ``r_type``: CJK nouns from jieba when installed, else CJK bigrams; Latin nouns.

    ``source`` is recorded in every reward detail, as the WebShop reward records its noun source:
    the seed's ``zh_core_web_sm`` is not on PyPI, so runs must say which terms they compared.
    """

    def __init__(self, use_jieba: bool | None = None):
        self._posseg: Any = None
        if use_jieba is not False:
            try:
                import jieba  # type: ignore[import-not-found]
                import jieba.posseg as posseg  # type: ignore[import-not-found]

                jieba.setLogLevel(60)
                self._posseg = posseg
            except ImportError:
                if use_jieba:
                    raise
        version = ""
        if self._posseg is not None:
            import jieba  # type: ignore[import-not-found]

            version = getattr(jieba, "__version__", "")
        self.source = f"jieba-{version}+fallback" if self._posseg is not None else "fallback"
        self._cache: dict[str, frozenset[str]] = {}

    def __call__(self, title: str) -> frozenset[str]:
        """The title's terms (cached per title)."""
        hit = self._cache.get(title)
        if hit is None:
            hit = self._cache[title] = frozenset(self._terms(title))
        return hit

    def _terms(self, title: str) -> list[str]:
        text = unicodedata.normalize("NFKC", title)
        latin = fallback_nouns(text)
        if self._posseg is not None:
            cjk = [w.word for w in self._posseg.cut(text) if w.flag.startswith("n") and any(is_cjk(c) for c in w.word)]
        else:
            cjk = [t for t in tokenize(text) if is_cjk(t[0])]
        return latin + [t.lower() for t in cjk]


@lru_cache(maxsize=1)
def default_title_terms() -> TitleTerms:
    """The process's one ``TitleTerms`` (jieba loads once)."""
    return TitleTerms()


def _type_reward(bought: V8Product, gold: V8Product | None, terms: TitleTerms) -> tuple[float, int, float]:
    gold_category = gold.category if gold is not None else []
    overlap = len({norm(c) for c in bought.category} & {norm(c) for c in gold_category})
    wanted = terms(gold.title) if gold is not None else frozenset()
    have = terms(bought.title)
    title_score = len(have & wanted) / len(wanted) if wanted else 0.0
    if overlap >= 2 or title_score > 0.2:
        return 1.0, overlap, title_score
    if title_score == 0.0:
        return 0.0, overlap, title_score
    return (0.1 if title_score < 0.1 else 0.5), overlap, title_score


@lru_cache(maxsize=1 << 16)
def _token_text(text: str) -> str:
    return " ".join(tokenize(text))


def _attribute_hit(target: str, product: V8Product) -> bool:
    want = norm(target)
    if not want:
        return True
    literal = [product.title, product.description, *product.bullets]
    if any(want in norm(t) for t in literal):
        return True
    want_tokens = _token_text(want)
    return any(fuzz.token_set_ratio(want_tokens, _token_text(a)) > ATT_FUZZY_THRESHOLD for a in product.attribute_texts)


def _option_hits(task: V8Task, selected: dict[str, str]) -> int:
    chosen = {norm(v) for v in selected.values()}
    return sum(1 for v in task.option_values if norm(v) in chosen)


def score_v8_purchase(
    bought: V8Product,
    selected: dict[str, str],
    task: V8Task,
    gold: V8Product | None,
    terms: TitleTerms | None = None,
) -> RewardDetail:
    """Score buying ``bought`` with options ``selected`` for ``task`` (``gold`` is its own product)."""
    terms = terms or default_title_terms()
    r_type, overlap, title_score = _type_reward(bought, gold, terms)
    n_att = len(task.attributes)
    m_att = sum(1 for a in task.attributes if _attribute_hit(a, bought))
    n_opt = len(task.option_values)
    m_opt = _option_hits(task, selected)
    price = resolve_price(bought, selected)
    budget = task_budget(task)
    if budget is None:
        r_price = 1.0
    elif budget.limit is None:  # declared but unreadable: fail closed, as for an unverifiable price
        r_price = 0.0
    else:
        r_price = 1.0 if price.verifiable and price.price is not None and price.price <= budget.limit + 1e-9 else 0.0
    r_att = m_att / n_att if n_att else 1.0
    r_option = m_opt / n_opt if n_opt else 1.0
    r_loose = r_type * (m_att + m_opt + r_price) / (n_att + n_opt + 1)
    r_strict = r_type * r_att * r_option * r_price
    success = float(r_type == 1.0 and r_att == 1.0 and r_option == 1.0 and r_price == 1.0)
    return RewardDetail(
        r_type=r_type, r_att=r_att, r_option=r_option, r_price=r_price, r_loose=r_loose, r_strict=r_strict,
        r_success=success, target_asin_match=bought.asin == task.asin, price_verifiable=price.verifiable,
        n_att=n_att, m_att=m_att, n_opt=n_opt, m_opt=m_opt, category_overlap=overlap, title_score=title_score,
        budget=budget.limit if budget else None, budget_source=budget.source if budget else "none",
        budget_field=budget.field if budget else None, budget_phrase=budget.phrase if budget else None,
        selected_price=price.price, price_reason=price.reason, term_source=terms.source,
    )

