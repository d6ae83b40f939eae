"""Anserini's default English analyzer, the one WebShop's Pyserini index was built with.

The chain is Lucene's ``EnglishAnalyzer`` with Porter stemming: ``StandardTokenizer``, then
``EnglishPossessiveFilter`` (a trailing ``'s`` goes), ``LowerCaseFilter``, ``StopFilter`` with
Lucene's 33 English stop words, and ``PorterStemFilter``. Stop words leave no trace in the
document length (Lucene counts only the tokens it indexes).
"""

from __future__ import annotations

from collections import Counter

from shopsim.simsite.lucene.porter import porter_stem
from shopsim.simsite.lucene.tokenizer import standard_tokens
from shopsim.simsite.postings import Terms

__all__ = ["ENGLISH_STOP_WORDS", "analyze", "analyze_token", "query_terms"]

ENGLISH_STOP_WORDS = frozenset(
    ["a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in", "into", "is", "it", "no", "not",
     "of", "on", "or", "such", "that", "the", "their", "then", "there", "these", "they", "this", "to", "was",
     "will", "with"]
)
_APOSTROPHES = ("'", "\u2019", "\uff07")


def _lower(token: str) -> str:
    # Java's Character.toLowerCase maps one code point to one; Python's lower() turns U+0130 into two.
    return token.lower() if "\u0130" not in token else "".join(c.lower()[0] for c in token)


def analyze_token(token: str) -> str | None:
    """The term one tokenizer token becomes, or ``None`` for a stop word."""
    if len(token) >= 2 and token[-1] in "sS" and token[-2] in _APOSTROPHES:
        token = token[:-2]
    token = _lower(token)
    return None if token in ENGLISH_STOP_WORDS else porter_stem(token)


_TERMS: dict[str, str | None] = {}
_TERMS_MAX = 1 << 20


def analyze(text: str) -> list[str]:
    """The terms Lucene indexes (or searches) for ``text``, in order."""
    terms = _TERMS
    if len(terms) > _TERMS_MAX:  # a bound on memory for huge vocabularies
        terms.clear()
    out = []
    for tok in standard_tokens(text):
        term = terms.get(tok, "")
        if term == "":
            term = terms[tok] = analyze_token(tok)
        if term is not None:
            out.append(term)
    return out


def query_terms(query: str) -> Terms:
    """A query's terms and their counts, in order of first appearance (Anserini's bag of words:
    a repeated term is one clause boosted by its count; the order is the order of the sum).
    """
    return tuple(Counter(analyze(query)).items())
