"""Search engines: BM25 semantics, deterministic ASIN tie-break, rank-bm25 parity, fixed results."""

from __future__ import annotations

from shopsim.simsite.search import (
    SEARCH_RETURN_N,
    BM25Index,
    FixedResults,
    RankBM25Engine,
    make_engine,
    product_document,
    tokenize,
)
from shopsim.simsite.shop import Shop


def test_tokenizer_folds_plurals_and_drops_stop_words() -> None:
    assert tokenize("The Red SHOES for Batteries & boxes") == ["red", "shoe", "battery", "boxe"]


def test_ties_are_broken_by_asin() -> None:
    idx = BM25Index(["B3", "B1", "B2", "B4"], ["red shoe", "red shoe", "red shoe", "blue hat"])
    assert idx.search("red shoe") == ["B1", "B2", "B3"]
    assert idx.search("red shoe", k=2) == ["B1", "B2"]
    assert idx.search("green") == [] and idx.search("") == []


def test_bm25_prefers_rarer_terms_and_shorter_docs() -> None:
    idx = BM25Index(["A", "B", "C"], ["red red shoe", "red shoe with a very long description of many other words", "red hat"])
    assert idx.search("red shoe")[0] == "A"
    assert idx.search("hat") == ["C"]


def test_top_50_on_the_bundled_catalog_is_stable(bundled_shop: Shop) -> None:
    engine = bundled_shop.search_engine
    for goal in bundled_shop.goals[:30]:
        first = engine.search(goal.instruction_text)
        assert 0 < len(first) <= SEARCH_RETURN_N and len(set(first)) == len(first)
        assert engine.search(goal.instruction_text) == first
    rebuilt = make_engine(bundled_shop.product_list)  # the default, WebShop's Lucene ranking
    assert all(rebuilt.search(g.instruction_text) == engine.search(g.instruction_text) for g in bundled_shop.goals[:30])


def test_rank_bm25_finds_the_same_products(bundled_shop: Shop) -> None:
    products = bundled_shop.product_list
    ours, theirs = BM25Index.from_products(products), RankBM25Engine(products)
    overlaps = []
    for goal in bundled_shop.goals[:40]:
        a, b = set(ours.search(goal.instruction_text, 10)), set(theirs.search(goal.instruction_text, 10))
        overlaps.append(len(a & b) / max(1, len(a)))
    assert sum(overlaps) / len(overlaps) > 0.6  # both are BM25 (different k1/b, IDF floor)


def test_search_document_matches_webshop(bundled_shop: Shop) -> None:
    p = next(p for p in bundled_shop.product_list if p.options)
    doc = product_document(p)
    assert doc == doc.lower() and p.title.lower() in doc
    name, values = next(iter(p.options.items()))
    assert f"{name}: {', '.join(values)}" in doc


def test_fixed_results_replay_and_fallback() -> None:
    fallback = BM25Index(["X1"], ["red"])
    fixed = FixedResults({"red shoes": ["B2", "B1"]}, fallback=fallback)
    assert fixed.search("red shoes") == ["B2", "B1"] and fixed.search("red shoes", k=1) == ["B2"]
    assert fixed.search("red") == ["X1"]
    assert FixedResults({}).search("x") == []


def test_engines_by_name_and_a_clear_error_for_a_typo(bundled_shop: Shop) -> None:
    import pytest

    from shopsim.errors import ConfigError

    products = bundled_shop.product_list[:50]
    for kind in ("lucene", "bm25", "rank-bm25"):
        hits = make_engine(products, kind).scored(products[0].title.lower(), 5)
        assert hits and hits[0][0] == products[0].asin and all(isinstance(s, float) for _, s in hits)
        assert [a for a, _ in hits] == [a for a, _ in sorted(hits, key=lambda h: (-h[1], h[0]))]
    with pytest.raises(ConfigError, match="Did you mean: `lucene`"):
        make_engine(products, "lucen")
