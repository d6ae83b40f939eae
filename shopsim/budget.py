"""The budget a shopping request states: an upper bound, approximate or not, or a phrase we cannot read.

ShopSimulator scores ``r_price`` against the budget in the request, so a budget the parser misses
is a constraint silently scored as met. The parser therefore reads what real requests say: Arabic
and Chinese numerals (``两百``, ``一千二``, ``1.5万``, ``2千``), ``k``/``w`` units, ranges (their
upper end), approximate amounts (``左右``, ``约``, ``about``; the caller's code applies
:data:`APPROX_FACTOR`, never a model) and limit words (``以内``, ``不超过``, ``under``, ``at most``).
A phrase that plainly states a budget but no number we can read (``几百元以内``, ``1000多元``,
``a few hundred dollars``) comes back unparseable, so the scorer can fail closed instead of open.
Lower bounds alone (``200元以上``, ``at least $50``) are not budgets: nothing caps the price.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

__all__ = ["APPROX_FACTOR", "BudgetMatch", "chinese_number", "parse_budget"]

APPROX_FACTOR = 1.10
"""An approximate budget ("1000元左右", "about 50 dollars") allows this much more."""


@dataclass(frozen=True)
class BudgetMatch:
    """A budget phrase found in a text; ``limit`` is None when the phrase states no readable amount."""

    limit: float | None
    approximate: bool
    phrase: str

    @property
    def parsed(self) -> bool:
        """Whether the phrase gave a number (else it is recorded as unparseable)."""
        return self.limit is not None


_CN_DIGITS = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
_CN_UNITS = {"十": 10, "百": 100, "千": 1000}
_CN_BIG = {"万": 10_000, "亿": 100_000_000}
_MULT = {"k": 1000, "w": 10_000, "千": 1000, "万": 10_000, "百": 100}


def _cn_integer(text: str) -> int | None:
    total = section = num = 0
    last_unit = 0  # the unit just passed, for abbreviations: 一千二 = 1200, 两万五 = 25000
    for ch in text:
        if ch in _CN_DIGITS:
            num = _CN_DIGITS[ch]
            if ch in "零〇":
                last_unit = 0
        elif ch in _CN_UNITS:
            unit = _CN_UNITS[ch]
            section += (num or (1 if unit == 10 else 0)) * unit
            if num == 0 and unit != 10:
                return None  # 百 or 千 with no digit before it
            num, last_unit = 0, unit
        elif ch in _CN_BIG:
            total += (section + num) * _CN_BIG[ch]
            section = num = 0
            last_unit = _CN_BIG[ch]
        else:
            return None
    if num:
        section += num * last_unit // 10 if last_unit >= 10 else num
    return total + section


def chinese_number(text: str) -> float | None:
    """``两百`` -> 200, ``一千二`` -> 1200, ``三万五`` -> 35000, ``一点五万`` -> 15000; None if not a numeral."""
    if "点" in text:
        whole, _, rest = text.partition("点")
        digits = "".join(str(_CN_DIGITS[c]) for c in rest if c in _CN_DIGITS)
        unit = rest[len(digits):]
        base = _cn_integer(whole) if whole else 0
        if base is None or not digits or (unit and unit not in _MULT):
            return None
        return (base + float("0." + digits)) * (_MULT[unit] if unit else 1)
    value = _cn_integer(text)
    return float(value) if value is not None else None


_ARABIC = r"\d+(?:,\d{3})*(?:\.\d+)?"
_CN_NUM = r"[零〇一二两三四五六七八九十][零〇一二两三四五六七八九十百千万亿点]*"
_CUR = r"(?:[$¥]|rmb|usd|us\$|cny)"
_UNIT = r"(?:元钱|元|块钱|块|rmb|yuan|dollars?|usd|bucks|美元|美金|人民币|cny)"
# 千/k/w as multipliers, never the first letter of a unit (千克, kg, kW, 2W is watts when no money cue)
_AMOUNT = (
    r"(?P<cur{i}>" + _CUR + r")?\s*(?:(?P<ar{i}>" + _ARABIC + r")\s*(?P<mult{i}>[kKwW千万百](?![a-zA-Z克米瓦卡吨斤])|)"
    # the spoken abbreviation after a multiplier: 1万5 = 15000, 2千5 = 2500, 1万2千 = 12000
    r"(?:(?<=[kKwW千万])(?P<tail{i}>\d)(?P<tunit{i}>[千百]?)(?![\d.%]|\s*[个件人只双套位岁天年月号码寸斤克米]))?"
    r"|(?P<cn{i}>" + _CN_NUM + r"))\s*(?P<unit{i}>" + _UNIT + r")?"
)
_SINGLE = re.compile(_AMOUNT.replace("{i}", ""), re.IGNORECASE)
_RANGE = re.compile(
    _AMOUNT.replace("{i}", "1") + r"\s*(?:到|至|-|~|—|–|to|and)\s*" + _AMOUNT.replace("{i}", "2"), re.IGNORECASE
)

_UPPER_BEFORE = re.compile(
    r"(?:不超过|不要超过|不能超过|别超过|不超出|不高于|低于|少于|最多|最高|顶多|封顶|控制在|小于|under|below|"
    r"less than|at most|no more than|not more than|not over|within|up to|max(?:imum)?|cheaper than|no higher than|"
    r"not exceeding|not to exceed)[\s:：]*(?:[$¥])?\s*$", re.IGNORECASE)
_UPPER_AFTER = re.compile(r"^\s*(?:以内|以下|之内|内|封顶|为限|或更低|or less|or under|max|tops|at most)", re.IGNORECASE)
_LOWER_BEFORE = re.compile(
    r"(?:至少|最低|起码|不低于|高于|(?<![不要能别])超过|大于|at least|(?<!no )(?<!not )more than|(?<!not )over|above|starting at|minimum)\s*(?:[$¥])?\s*$",
    re.IGNORECASE)
_LOWER_AFTER = re.compile(r"^\s*(?:以上|起步|起|\+|or more|and up|plus)", re.IGNORECASE)
_APPROX_BEFORE = re.compile(
    r"(?:大约|大概|约莫|约|差不多|估计|about|around|approximately|approx\.?|roughly|circa|some)\s*(?:[$¥])?\s*$",
    re.IGNORECASE)
_APPROX_AFTER = re.compile(r"^\s*(?:左右|上下|前后|or so|give or take|ish)", re.IGNORECASE)
_CUE = re.compile(r"预算|价格|价位|价钱|售价|单价|花费|花|budget|price[ds]?|cost[s]?|spend|pay|afford", re.IGNORECASE)
#: A budget word right after an amount: "a 1.5k budget", "2千的预算".
_CUE_RIGHT_AFTER = re.compile(r"^\s*(?:的)?\s*(?:预算|budget)", re.IGNORECASE)
_CUE_RIGHT_BEFORE = re.compile(r"(?:预算|价格|价位|budget|price)\s*(?:是|为|在|:|：|of|is)?\s*$", re.IGNORECASE)
_MEASURE_AFTER = re.compile(
    r"^\s*(?:(?:ml|l|kg|g|mg|lbs?|oz|cm|mm|m|km|in|inch(?:es)?|ft|feet|people|persons?|pcs|pieces?|packs?|x|gb|tb|mah|"
    r"w|kw|v|hz|years?|months?|days?|hours?|minutes?|seats?|cups?|layers?)\b|%|千克|千米|千瓦|万向|人|个|件|岁|天|年|月|号|码|寸|斤|克|公斤|升|毫升|米|厘米|毫米|瓦|伏|档|层|张|只|双|套|包|盒|瓶|片|次|分钟|小时|度|倍|位)",
    re.IGNORECASE)
_VAGUE = re.compile(
    r"(?:几|数|若干)[十百千万]+(?:来|多)?\s*" + _UNIT + r"|[百千万][来把]\s*" + _UNIT
    + r"|(?:" + _ARABIC + r"|" + _CN_NUM + r")\s*多\s*" + _UNIT
    + r"|(?:a few|several|some|a couple of?)\s+(?:hundred|thousand)\s+(?:" + _UNIT + r")"
    + r"|(?:预算|价格|budget|price)\s*(?:是|为|在|:|：|of|is)?\s*(?:\?|？|xx|XX|多少|未知)",
    re.IGNORECASE)


def _value(m: re.Match[str], i: str = "") -> tuple[float, bool] | None:
    """The amount of one ``_AMOUNT`` match and whether it carries a multiplier; None if unreadable."""
    if m.group(f"ar{i}"):
        mult = (m.group(f"mult{i}") or "").lower()
        amount = float(m.group(f"ar{i}").replace(",", "")) * _MULT.get(mult, 1)
        if m.group(f"tail{i}"):  # 1万5: the digit counts in the next unit down (or the one it names)
            amount += int(m.group(f"tail{i}")) * _MULT.get(m.group(f"tunit{i}") or "", _MULT[mult] // 10)
        return amount, bool(mult)
    value = chinese_number(m.group(f"cn{i}"))
    return (value, True) if value is not None else None


def _context(s: str, start: int, end: int) -> tuple[str, str]:
    return s[max(0, start - 16) : start], s[end : end + 10]


def _is_money(m: re.Match[str], i: str, before: str, after: str, cue: bool) -> bool:
    """Whether this amount is a price: a currency, or a limit word / multiplier beside a price cue."""
    if m.group(f"cur{i}") or m.group(f"unit{i}"):
        return True
    if _MEASURE_AFTER.match(after) and (m.group(f"mult{i}") or "").lower() not in ("k", "w"):
        return False
    limit = bool(_UPPER_BEFORE.search(before) or _UPPER_AFTER.match(after))
    near_cue = bool(_CUE.search(before))
    if (m.group(f"mult{i}") or "").lower() in ("k", "w"):  # 2000W is watts unless a budget word or limit says money
        unit_ok = cue or (m.group(f"mult{i}") or "").lower() == "k"  # "under 3k" is money; "3000W以内" is watts
        bound = limit or (_approx(before, after) and not _MEASURE_AFTER.match(after))  # "around 1.5k" bounds a price
        return (bound and unit_ok) or bool(_CUE_RIGHT_BEFORE.search(before) or _CUE_RIGHT_AFTER.match(after))
    if m.group(f"cn{i}"):  # 价格十分实惠 is no price: a bare Chinese numeral needs a limit word, or two characters
        if limit:            # and a budget word right before it
            return cue or near_cue
        return len(m.group(f"cn{i}")) >= 2 and bool(_CUE_RIGHT_BEFORE.search(before))
    return near_cue or (limit and cue)


def _approx(before: str, after: str) -> bool:
    return bool(_APPROX_BEFORE.search(before) or _APPROX_AFTER.match(after))


def _ranges(s: str, cue: bool) -> list[tuple[int, int, BudgetMatch]]:
    out = []
    for m in _RANGE.finditer(s):
        lo, hi = _value(m, "1"), _value(m, "2")
        if lo is None or hi is None:
            continue
        before, after = _context(s, m.start(), m.end())
        low = lo[0] * (_MULT[(m.group("mult2") or "").lower()] if hi[1] and not lo[1] and m.group("ar2") else 1)
        money = _is_money(m, "1", before, after, cue) or _is_money(m, "2", before, after, cue) or bool(_CUE.search(before))
        if money and low <= hi[0] and not _MEASURE_AFTER.match(after):
            out.append((m.start(), 3, _match(hi[0], _approx(before, after), m.group(0))))
    return out


def _match(value: float, approximate: bool, phrase: str) -> BudgetMatch:
    limit = round(value * APPROX_FACTOR, 6) if approximate else value
    return BudgetMatch(limit, approximate, phrase.strip())


def _singles(s: str, cue: bool) -> list[tuple[int, int, BudgetMatch]]:
    out = []
    for m in _SINGLE.finditer(s):
        if not (m.group("ar") or m.group("cn")):
            continue
        before, after = _context(s, m.start(), m.end())
        if after.lstrip().startswith("多") or _LOWER_AFTER.match(after) or _LOWER_BEFORE.search(before):
            continue
        value = _value(m)
        if value is None or not _is_money(m, "", before, after, cue):
            continue
        strength = 2 if (_UPPER_BEFORE.search(before) or _UPPER_AFTER.match(after) or _CUE.search(before)) else 1
        out.append((m.start(), strength, _match(value[0], _approx(before, after), m.group(0))))
    return out


@lru_cache(maxsize=1 << 14)
def parse_budget(text: str | None) -> BudgetMatch | None:
    """The budget ``text`` states, or None when it states none (cached: a task's request is read every
    episode, and the answer is a frozen :class:`BudgetMatch`).

    A range gives its upper end; an approximate amount is multiplied by :data:`APPROX_FACTOR`.
    Only numbers tied to a currency, or to a limit word beside a price word, count, so "2-3 people",
    "QC45" or "不超过3斤" are never budgets. Several candidates: a range or an amount with a limit or
    price word beats a bare currency amount; then the first in the text wins.
    """
    if not text:
        return None
    s = unicodedata.normalize("NFKC", text)
    cue = bool(_CUE.search(s))
    found = _ranges(s, cue) + _singles(s, cue)
    if found:
        return max(found, key=lambda f: (f[1], -f[0]))[2]
    vague = _VAGUE.search(s)
    if vague is not None:
        return BudgetMatch(None, False, vague.group(0).strip())
    return None
