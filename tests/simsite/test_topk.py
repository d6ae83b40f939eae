"""MaxScore's top k equals scoring every document, ties and float rounding included."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shopsim.simsite.catalog import generator as gen
from shopsim.simsite.lucene import LuceneBM25
from shopsim.simsite.lucene.bm25 import length_factors, lucene_idf
from shopsim.simsite.lucene.topk import Hit, candidates, score_hits, score_hits_all
from shopsim.simsite.postings import id_ranks
from shopsim.simsite.shop import Shop
from shopsim.simsite.store import prepare_store


def _hits(doc_count: int, lists: list[tuple[list[int], list[int], int]], lengths: np.ndarray) -> list[Hit]:
    factor, _ = length_factors(lengths)
    hits: list[Hit] = []
    for docs, tfs, qtf in lists:
        d = np.array(sorted(set(docs)), dtype=np.int32)
        tf = np.array(tfs[: len(d)] + [1] * (len(d) - len(tfs)), dtype=np.float32)
        hits.append(((d, np.float32(1.0) + tf * factor[d], lucene_idf(doc_count, len(d))), qtf))
    return hits


@settings(max_examples=400, deadline=None)
@given(
    data=st.data(),
    doc_count=st.integers(1, 300),
    k=st.integers(1, 60),
)
@pytest.mark.slow
def test_pruned_top_k_equals_the_exhaustive_one(data: st.DataObject, doc_count: int, k: int) -> None:
    # few distinct lengths and term frequencies: many equal scores, so ties decide the order
    lengths = np.array(data.draw(st.lists(st.sampled_from([3, 5, 8, 30]), min_size=doc_count, max_size=doc_count)))
    term = st.tuples(
        st.lists(st.integers(0, doc_count - 1), min_size=0, max_size=doc_count),
        st.lists(st.integers(1, 3), max_size=doc_count),
        st.integers(1, 3),
    )
    hits = _hits(doc_count, data.draw(st.lists(term, min_size=1, max_size=6)), lengths)
    ids = data.draw(st.permutations([f"B{i:04d}" for i in range(doc_count)]))
    rank = id_ranks(ids)
    fast, slow = score_hits(hits, doc_count, rank, k), score_hits_all(hits, doc_count, rank, k)
    assert fast[0].tolist() == slow[0].tolist()
    assert fast[1].tolist() == slow[1].tolist()


def test_pruning_skips_common_words_but_keeps_their_scores() -> None:
    """A rare word and a common one: only the rare word's documents are scored, the common word
    still adds to them, and a document holding only the common word never shows."""
    docs = ["red shoe"] * 3 + [f"shoe model {i}" for i in range(200)] + ["red hat"]
    ids = [f"A{i:03d}" for i in range(len(docs))]
    index = LuceneBM25(ids, docs)
    top = index.scored("red shoe", 3)
    assert [a for a, _ in top] == ["A000", "A001", "A002"]
    assert index.scored("red shoe", 4)[3][0] == "A203"  # red alone outscores shoe alone
    assert top[0][1] > index.scored("red", 1)[0][1]


@pytest.fixture(scope="module")
def generated_store(tmp_path_factory: pytest.TempPathFactory) -> Shop:
    """A generated catalog of 6,000 products as a store: common words reach thousands of documents."""
    root = tmp_path_factory.mktemp("topk")
    gen.generate(root / "catalog", 6000, seed=11)
    prepare_store(root / "catalog", root / "store", workers=1, show_progress=False)
    return Shop.load(root / "store")


@pytest.mark.slow
def test_store_searches_equal_the_exhaustive_ranking(generated_store: Shop) -> None:
    """Goal instructions, product queries and pairs of the most common words, on a store's
    mapped postings: the pruned top 50 (and top 1, top 10) are the exhaustive ones."""
    shop = generated_store
    index = shop.search_engine.index
    rng = random.Random(4)
    queries = [shop.goals[rng.randrange(len(shop.goals))].instruction_text for _ in range(120)]
    queries += [f"{p.query} {p.title.split()[-1]}" for p in rng.sample(shop.product_list, 120)]
    common = ["size", "color", "women", "men", "pack", "black", "white", "small"]
    queries += [" ".join(rng.sample(common, 2)) for _ in range(60)]
    pruned = 0
    for q in queries:
        hits = index.hits(q)
        for k in (1, 10, 50):
            fast = score_hits(hits, index.doc_count, index._id_rank, k)
            slow = score_hits_all(hits, index.doc_count, index._id_rank, k)
            assert fast[0].tolist() == slow[0].tolist() and fast[1].tolist() == slow[1].tolist(), (q, k)
        reached = len(np.unique(np.concatenate([h[0][0] for h in hits]))) if hits else 0
        pruned += len(candidates(hits, index.doc_count, 50)) < reached
    assert pruned > len(queries) // 2  # the pruning is exercised, not bypassed
