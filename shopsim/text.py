"""Text helpers the shop and the agents share: a plural stemmer and the v8 search tokenizer.

They sit at the contract level so an agent reads a page the way the shop indexes and scores it
without importing the shop: :func:`stem` is the WebShop profile's plural folding, :func:`tokenize`
the v8 profile's ``cjk-bigram+latin-digit-v1`` tokenizer (budgets live in :mod:`shopsim.budget`).

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

__all__ = ["TOKENIZER_VERSION", "is_cjk", "stem", "tokenize"]


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
