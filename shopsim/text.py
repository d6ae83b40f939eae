"""Text helpers the shop and the agents share: a plural stemmer, the v8 search tokenizer, budgets.

They sit at the contract level so an agent reads a page the way the shop indexes and scores it
without importing the shop: :func:`stem` is the WebShop profile's plural folding, :func:`tokenize`
the v8 profile's ``cjk-bigram+latin-digit-v1`` tokenizer, :func:`parse_budget` the budget a v8
instruction states.

The v8 tokenizer is deterministic and needs no segmentation service. Chinese has no spaces and a
word segmenter is a moving dependency (its dictionary and version change the index), so runs of CJK
characters are cut into fixed overlapping character bigrams: a query's words then match wherever the
same two characters occur. Runs of Latin letters and digits are one token each (``QC45`` stays one
model number). Everything else (punctuation, spaces, symbols, other scripts) only separates. The
text is NFKC-normalised first so full-width ``ＱＣ４５`` and ``＋`` fold to their ASCII forms, then
lower-cased.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

__all__ = ["APPROX_FACTOR", "TOKENIZER_VERSION", "is_cjk", "parse_budget", "stem", "tokenize"]


def stem(word: str) -> str:
    """A light plural stemmer (Harman's S-stemmer): shoes -> shoe, batteries -> battery."""
    if len(word) > 3 and word.endswith("ies") and not word.endswith(("eies", "aies")):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("es") and not word.endswith(("aes", "ees", "oes", "ses")):
        return word[:-1]
    if len(word) > 2 and word.endswith("s") and not word.endswith(("us", "ss")):
        return word[:-1]
    return word


#: Recorded in the index manifest; change it whenever :func:`tokenize`'s output can change.
TOKENIZER_VERSION = "cjk-bigram+latin-digit-v1"

# Han (unified, extension A, compatibility, extensions B-G via the supplementary planes), the
# iteration mark 々 and 〇, kana (without the ・ middle dot, which is punctuation), hangul.
_CJK = (
    "\u3005\u3007\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003134f"
    "\u3041-\u309f\u30a0-\u30fa\u30fc-\u30ff\u31f0-\u31ff"
    "\u1100-\u11ff\u3130-\u318f\ua960-\ua97f\uac00-\ud7af\ud7b0-\ud7ff"
)
# ASCII digits and the Latin letters (Basic Latin, Latin-1 letters without × and ÷, Extended-A/B,
# Extended Additional).
_LATIN = "0-9a-z\u00b5\u00df-\u00f6\u00f8-\u00ff\u0100-\u024f\u1e00-\u1eff"
_RUN = re.compile(f"([{_CJK}]+)|([{_LATIN}]+)")
_BIGRAMS = re.compile(r"(?=(..))", re.S)  # every overlapping pair, found in C


def tokenize(text: str) -> list[str]:
    """Tokens of ``text``: CJK runs as character bigrams (a lone character as itself), Latin/digit runs whole."""
    return list(_tokens(text)) if text else []


@lru_cache(maxsize=1 << 16)
def _tokens(text: str) -> tuple[str, ...]:
    """Cached: titles and attributes are tokenized again on every page that shows them."""
    out: list[str] = []
    for m in _RUN.finditer(unicodedata.normalize("NFKC", text).lower()):
        run = m[0]
        if m.lastindex == 2 or len(run) == 1:
            out.append(run)
        else:
            out += _BIGRAMS.findall(run)
    return tuple(out)


_CJK_CHAR = re.compile(f"[{_CJK}]")


def is_cjk(char: str) -> bool:
    """Whether ``char`` is one of the characters :func:`tokenize` cuts into bigrams."""
    return bool(_CJK_CHAR.match(char))


APPROX_FACTOR = 1.10
"""An approximate budget ("1000元左右", "about 50 dollars") allows this much more."""

_NUM = r"\d+(?:,\d{3})*(?:\.\d+)?"
_UNIT = r"(?:元|块钱|块|rmb|yuan|dollars?|usd|bucks|美元|人民币)"
_CUR = r"[$¥￥]"
_APPROX_AFTER = re.compile(r"^\s*(?:" + _UNIT + r")?\s*(?:左右|上下|以内左右)")
_APPROX_BEFORE = re.compile(r"(?:大约|大概|约|差不多|about|around|approximately|roughly|circa|approx\.?)\s*" + _CUR + r"?\s*$")
_RANGE = re.compile(
    r"(?:(?:价格|预算|价位|price[ds]?|budget|between|from|在)\s*\S{0,4}?\s*)?" + _CUR + r"?\s*(" + _NUM + r")\s*"
    + _UNIT + r"?\s*(?:到|至|-|~|～|—|–|to|and)\s*" + _CUR + r"?\s*(" + _NUM + r")\s*(" + _UNIT + r")?",
    re.IGNORECASE,
)
_SINGLE = re.compile(r"(" + _CUR + r")\s*(" + _NUM + r")|(" + _NUM + r")\s*(" + _UNIT + r")", re.IGNORECASE)
_CUE = re.compile(r"价格|预算|价位|元|price|budget|yuan|dollar|\$|¥|￥|under|below|less than|at most|up to", re.IGNORECASE)


def _num(text: str) -> float:
    return float(text.replace(",", ""))


def parse_budget(text: str) -> tuple[float, bool] | None:
    """The budget a text states: ``(upper bound, approximate?)``, or ``None`` when it states none.

    A range gives its upper end; an approximate amount (左右, 上下, 大约, about, around,
    approximately) is multiplied by :data:`APPROX_FACTOR`. Only numbers tied to a currency or a
    price word count, so "2-3 people" or "QC45" are never budgets.
    """
    if not text:
        return None
    s = unicodedata.normalize("NFKC", text)
    for m in _RANGE.finditer(s):
        has_cue = bool(m.group(3)) or bool(_CUE.search(s[max(0, m.start() - 8) : m.end()]))
        low, high = _num(m.group(1)), _num(m.group(2))
        if has_cue and high >= low:
            return _approx(s, m.start(), m.end(), high)
    for m in _SINGLE.finditer(s):
        value = _num(m.group(2) or m.group(3))
        return _approx(s, m.start(), m.end(), value)
    return None


def _approx(s: str, start: int, end: int, value: float) -> tuple[float, bool]:
    approx = bool(_APPROX_AFTER.match(s[end : end + 8]) or _APPROX_BEFORE.search(s[max(0, start - 14) : start]))
    return (round(value * APPROX_FACTOR, 6) if approx else value), approx
