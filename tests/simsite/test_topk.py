"""Both top-k algorithms and the ranking cache equal scoring every document, ties and float rounding included."""

from __future__ import annotations

import pickle
import random
import threading

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shopsim.simsite.catalog import generator as gen
from shopsim.simsite.lucene import LuceneBM25
from shopsim.simsite.lucene.bm25 import length_factors, lucene_idf
from shopsim.simsite.lucene.topk import Hit, candidates, dense_pays, score_hits, score_hits_all, term_postings
from shopsim.simsite.postings import id_ranks
from shopsim.simsite.search import BM25Index, LuceneEngine
from shopsim.simsite.shop import Shop
from shopsim.simsite.store import prepare_store

ALGORITHMS = ("exhaustive", "maxscore", "auto")


def _hits(doc_count: int, lists: list[tuple[list[int], list[int], int]], lengths: np.ndarray,
          keep: list[bool], dense: list[bool]) -> list[Hit]:
    factor, _ = length_factors(lengths)
    hits: list[Hit] = []
    for (docs, tfs, qtf), kept, whole in zip(lists, keep, dense, strict=False):
        d = np.array(sorted(set(docs)), dtype=np.int32)
        tf = np.array(tfs[: len(d)] + [1] * (len(d) - len(tfs)), dtype=np.float32)
        postings = term_postings(d, np.float32(1.0) + tf * factor[d], lucene_idf(doc_count, len(d)), keep_scores=kept,
                                 dense_over=doc_count if whole else 0)
        hits.append((postings, qtf))
    return hits


def _same(a: tuple[np.ndarray, np.ndarray], b: tuple[np.ndarray, np.ndarray]) -> bool:
    return a[0].tolist() == b[0].tolist() and a[1].tolist() == b[1].tolist()


@settings(max_examples=400, deadline=None)
@given(
    data=st.data(),
    # small catalogs whose postings cover them, and larger ones that few postings reach (the
    # exhaustive path's sums over the reached documents only)
    doc_count=st.one_of(st.integers(1, 300), st.integers(301, 20_000)),
    k=st.integers(1, 60),
)
@pytest.mark.slow
def test_both_algorithms_equal_the_exhaustive_reference(data: st.DataObject, doc_count: int, k: int) -> None:
    # few distinct lengths and term frequencies: many equal scores, so ties decide the order
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    lengths = rng.choice([3, 5, 8, 30], doc_count)
    term = st.tuples(
        st.lists(st.integers(0, doc_count - 1), min_size=0, max_size=min(doc_count, 300)),
        st.lists(st.integers(1, 3), max_size=min(doc_count, 300)),
        st.integers(1, 3),
    )
    lists = data.draw(st.lists(term, min_size=1, max_size=6))
    flags = st.lists(st.booleans(), min_size=6, max_size=6)  # term scores kept; every document's kept
    hits = _hits(doc_count, lists, lengths, data.draw(flags), data.draw(flags))
    rank = id_ranks([f"B{i:05d}" for i in rng.permutation(doc_count)])
    slow = score_hits_all(hits, doc_count, rank, k)
    for algorithm in ALGORITHMS:
        assert _same(score_hits(hits, doc_count, rank, k, algorithm), slow), algorithm


def test_dense_scores_are_kept_for_common_terms_of_large_catalogs_only() -> None:
    """Every document's score costs 4 bytes a document: only where MaxScore runs and the term is common."""
    assert dense_pays(100_000, 1_180_000) and dense_pays(73_750, 1_180_000)
    assert not dense_pays(73_749, 1_180_000)  # under one document of 16
    assert not dense_pays(5_000, 6_000)  # a small catalog is scored exhaustively
    docs = np.array([2, 5, 7], dtype=np.int32)
    denom = np.array([1.5, 2.0, 3.0], dtype=np.float32)
    p = term_postings(docs, denom, np.float32(2.0), keep_scores=True, dense_over=10)
    assert p.dense is not None and p.scores is not None
    assert p.dense.dtype == np.float32 and p.dense[docs].tolist() == p.scores.tolist()
    assert np.count_nonzero(p.dense) == 3
    assert term_postings(docs, denom, np.float32(2.0)).dense is None


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
    assert len(candidates(index.hits("red shoe"), index.doc_count, 3)) < 200


def _corpus(rng: random.Random, n: int) -> tuple[list[str], list[str]]:
    """``n`` documents over a small vocabulary (many ties), a few words in most of them."""
    vocab = [f"w{i}" for i in range(40)]
    weights = [1 / (1 + i) ** 1.2 for i in range(len(vocab))]
    docs = [" ".join(rng.choices(vocab, weights, k=rng.randint(1, 12))) for _ in range(n)]
    ids = [f"B{rng.randrange(10**6):06d}{i}" for i in range(n)]
    return ids, docs


def _queries(rng: random.Random, count: int) -> list[str]:
    return [" ".join(f"w{rng.randrange(45)}" for _ in range(rng.randint(1, 20))) for _ in range(count)]


@pytest.mark.parametrize("n", [1, 30, 400, pytest.param(3000, marks=pytest.mark.slow)])
def test_engine_and_its_cache_return_the_reference_rankings(n: int) -> None:
    """Random corpora of several sizes: the engine's rankings (cached or not, both algorithms
    forced) are the reference's, and a ranking handed out cannot be changed by its caller."""
    rng = random.Random(n)
    ids, docs = _corpus(rng, n)
    index = LuceneBM25(ids, docs)
    engine = LuceneEngine.from_index(index, cache_size=8)  # small: evictions as well as hits
    queries = _queries(rng, 30)
    for q in queries + rng.choices(queries, k=60):
        hits = index.hits(q)
        for k in (1, 10, 50):
            ref = score_hits_all(hits, index.doc_count, index._id_rank, k)
            want = [(ids[d], float(s)) for d, s in zip(ref[0].tolist(), ref[1].tolist(), strict=True)]
            for algorithm in ALGORITHMS:
                assert _same(score_hits(hits, index.doc_count, index._id_rank, k, algorithm), ref), (q, k)
            got = engine.scored(q, k)
            assert got == want, (q, k)
            got.clear()  # the caller's own list: the next caller still gets the ranking
            assert engine.scored(q, k) == want and engine.search(q, k) == [a for a, _ in want]
    assert engine.cache.hits > 0 and engine.cache.misses > 0 and len(engine.cache) <= 8


def test_cache_can_be_sized_disabled_and_is_not_pickled() -> None:
    ids, docs = _corpus(random.Random(2), 200)
    engine = LuceneEngine.from_index(LuceneBM25(ids, docs), cache_size=0)
    first = engine.scored("w1 w2 w9", 5)
    assert engine.scored("w1 w2 w9", 5) == first and len(engine.cache) == 0 and engine.cache.hits == 0
    engine.cache.resize(2)
    for q in ("w1", "w2", "w3", "w1 w2 w9"):
        engine.scored(q, 5)
    assert len(engine.cache) == 2
    engine.scored("w9 w1 w2", 5)  # the same terms in another order (another sum): its own entry
    assert engine.cache.misses == 5 and engine.cache.hits == 0
    assert engine.scored("w1  w2, W9", 5) == first  # analyses like "w1 w2 w9": its ranking is shared
    assert engine.cache.hits == 1
    copy = pickle.loads(pickle.dumps(engine))
    assert len(copy.cache) == 0 and copy.cache.size == 2 and copy.scored("w1 w2 w9", 5) == first
    engine.cache.clear()
    assert len(engine.cache) == 0 and engine.cache.size == 2
    bm25 = BM25Index(ids, docs, cache_size=4)
    assert bm25.scored("w1 w2", 5) == bm25.scored("w1 w2", 5) and bm25.cache.hits == 1


def test_cache_is_safe_across_threads() -> None:
    """Eight threads share an engine whose cache holds three rankings (constant eviction)."""
    rng = random.Random(5)
    ids, docs = _corpus(rng, 2000)
    index = LuceneBM25(ids, docs)
    engine = LuceneEngine.from_index(index, cache_size=3)
    queries = _queries(rng, 12)
    want = {q: index.scored(q, 20) for q in queries}
    wrong: list[str] = []

    def work(seed: int) -> None:
        local = random.Random(seed)
        for _ in range(300):
            q = local.choice(queries)
            if engine.scored(q, 20) != want[q]:
                wrong.append(q)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not wrong and len(engine.cache) <= 3


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
    mapped postings: both algorithms' top 50 (and top 1, top 10) are the exhaustive ones."""
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
            slow = score_hits_all(hits, index.doc_count, index._id_rank, k)
            for algorithm in ALGORITHMS:
                assert _same(score_hits(hits, index.doc_count, index._id_rank, k, algorithm), slow), (q, k, algorithm)
        reached = len(np.unique(np.concatenate([h[0].docs for h in hits]))) if hits else 0
        pruned += len(candidates(hits, index.doc_count, 50)) < reached
        assert shop.search_engine.scored(q, 50) == index.scored(q, 50)
    assert pruned > len(queries) // 2  # the pruning is exercised, not bypassed
