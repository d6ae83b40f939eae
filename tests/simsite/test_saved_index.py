"""The saved Lucene index: built once per catalog and analyser, read back on later opens with the same
rankings and scores, never trusted when damaged or stale, and never written into a read-only data set
or the installed package.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from shopsim.simsite.catalog import default_catalog_dir
from shopsim.simsite.catalog import generator as gen
from shopsim.simsite.datafiles import find_catalog_files
from shopsim.simsite.loader import load_products
from shopsim.simsite.lucene.bm25 import LuceneBM25
from shopsim.simsite.models import Product
from shopsim.simsite.saved_index import (
    find_index,
    index_key,
    lucene_index,
    read_index,
    saved_name,
    write_index,
)
from shopsim.simsite.search import LuceneEngine, product_document
from shopsim.simsite.shop import Shop, ShopConfig
from shopsim.simsite.user_cache import CACHE_ENV, writable
from tests.conftest import SMALL, needs_small


@pytest.fixture(autouse=True)
def own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """This test's own user cache, so no test reads what another saved."""
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "cache"))
    return tmp_path / "cache"


def _catalog(folder: Path, products: int = 60, seed: int = 5) -> list[Product]:
    """A small generated catalog in ``folder`` and its products (read without opening a shop, which would save)."""
    gen.generate(folder, products, seed=seed)
    return load_products(find_catalog_files(folder))


def _parts(products: list[Product]) -> tuple[list[str], list[str]]:
    return [p.asin for p in products], [product_document(p) for p in products]


def _queries(products: list[Product]) -> list[str]:
    """Titles, options and word mixes: one term, many terms, repeated terms, words no document has."""
    out = []
    for p in products:
        words = p.title.lower().split()
        out += [p.title.lower(), " ".join(words[:2]), " ".join(words[-1:] * 3), f"{words[0]} zzqqx {p.asin}"]
    return out


def _same(a: LuceneBM25, b: LuceneBM25, queries: list[str]) -> None:
    """Identical postings, and identical rankings and scores (the same floats) for every query."""
    assert a.ids == b.ids and a.avgdl == b.avgdl and list(a.postings) == list(b.postings)
    for term, p in a.postings.items():
        q = b.postings[term]
        assert p.idf == q.idf and p.max_denom == q.max_denom, term
        for x, y in ((p.docs, q.docs), (p.denom, q.denom), (p.scores, q.scores)):
            assert x is not None and y is not None and x.dtype == y.dtype and np.array_equal(x, y), term
    for query in queries:
        assert a.scored(query, 50) == b.scored(query, 50), query


def test_the_second_open_reads_the_saved_index_with_the_same_rankings(tmp_path: Path) -> None:
    folder = tmp_path / "data"
    ids, docs = _parts(products := _catalog(folder))
    built, path = lucene_index(ids, docs, folder)
    assert path == folder / saved_name(index_key(ids, docs))  # a writable data folder keeps it beside the data
    assert not any(p.name.startswith(".shopsim") for p in folder.iterdir())  # no temporary file left
    stamp = path.stat().st_mtime_ns
    again, read = lucene_index(ids, docs, folder)
    assert read == path and path.stat().st_mtime_ns == stamp and again is not built
    _same(LuceneBM25(ids, docs), again, _queries(products))


def test_another_catalog_or_subset_gets_its_own_file(tmp_path: Path) -> None:
    folder = tmp_path / "data"
    ids, docs = _parts(_catalog(folder))
    key = index_key(ids, docs)
    assert len({key, index_key(ids[:-1], docs[:-1]), index_key(ids, [*docs[:-1], docs[-1] + " x"]),
                index_key([*ids[:-1], "B000000000"], docs), index_key(ids, docs, k1=1.2)}) == 5
    path = write_index(folder, key, LuceneBM25(ids, docs))
    assert read_index(path, index_key(ids[:-1], docs[:-1]), ids[:-1]) is None  # not the subset's
    assert read_index(path, key, ids[:-1]) is None  # documents out of range of fewer ids


def test_a_damaged_or_stale_file_is_rebuilt_without_a_traceback(tmp_path: Path) -> None:
    folder = tmp_path / "data"
    ids, docs = _parts(products := _catalog(folder))
    _, path = lucene_index(ids, docs, folder)
    assert path is not None
    good = path.read_bytes()
    other_ids, other_docs = _parts(_catalog(tmp_path / "other", 30, seed=9))
    # another catalog's index (its own key inside) under this one's name: stale, not ours
    stale = write_index(tmp_path, index_key(other_ids, other_docs), LuceneBM25(other_ids, other_docs)).read_bytes()
    flipped = bytearray(good)
    flipped[len(good) // 2] ^= 0xFF  # one byte of the postings: the archive's checksum no longer matches
    for bad in (b"", good[: len(good) // 2], bytes(flipped), b"PK\x03\x04" + b"\0" * 64, b"not numpy", stale):
        path.write_bytes(bad)
        assert read_index(path, index_key(ids, docs), ids) is None, bad[:16]
        index, rewritten = lucene_index(ids, docs, folder)
        assert rewritten == path and path.read_bytes() == good  # built again and saved whole
        _same(LuceneBM25(ids, docs), index, _queries(products[:5]))
    path.unlink()
    assert find_index(folder, index_key(ids, docs), ids) is None


def test_arrays_that_do_not_fit_together_are_refused(tmp_path: Path) -> None:
    ids, docs = _parts(_catalog(tmp_path / "data", 20))
    key = index_key(ids, docs)
    path = write_index(tmp_path, key, LuceneBM25(ids, docs))
    with np.load(path, allow_pickle=False) as archive:
        arrays = {name: archive[name] for name in archive.files}
    for name, value in (("docs", arrays["docs"] + len(ids)), ("starts", arrays["starts"][::-1].copy()),
                        ("idf", arrays["idf"][:-1]), ("denom", arrays["denom"].astype(np.float64)),
                        ("terms", np.frombuffer(b"\xff" * len(arrays["terms"]), dtype=np.uint8)),
                        ("params", arrays["params"][:2]), ("format", np.frombuffer(b"shopsim-lucene-index-0", np.uint8))):
        with path.open("wb") as f:
            np.savez(f, **{**arrays, name: value})
        assert read_index(path, key, ids) is None, name
    with path.open("wb") as f:
        np.savez(f, **{k: v for k, v in arrays.items() if k != "scores"})
    assert read_index(path, key, ids) is None


def test_a_read_only_data_folder_keeps_its_index_in_the_user_cache(tmp_path: Path, own_cache: Path) -> None:
    folder = tmp_path / "locked"
    ids, docs = _parts(products := _catalog(folder, 30, seed=4))
    folder.chmod(0o555)  # no write bit: read-only, even for root
    try:
        _, path = lucene_index(ids, docs, folder)
        assert path == own_cache / "index" / saved_name(index_key(ids, docs))
        assert not any(p.name.startswith("shopsim-index") for p in folder.iterdir())
        again, read = lucene_index(ids, docs, folder)
        assert read == path
        _same(LuceneBM25(ids, docs), again, _queries(products))
    finally:
        folder.chmod(0o755)


def test_the_bundled_catalog_is_never_written_to(own_cache: Path) -> None:
    folder = default_catalog_dir()
    before = sorted(p.name for p in folder.iterdir())
    shop = Shop.from_config(ShopConfig(num_products=50))
    assert sorted(p.name for p in folder.iterdir()) == before
    assert len(list((own_cache / "index").glob("shopsim-index-*.npz"))) == 1
    engine = shop.search_engine
    assert isinstance(engine, LuceneEngine)
    fresh = LuceneEngine(shop.product_list)
    for p in shop.product_list:
        assert engine.scored(p.title.lower(), 50) == fresh.scored(p.title.lower(), 50)


def test_no_place_to_save_still_gives_the_index(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "locked"
    ids, docs = _parts(_catalog(folder, 20))
    blocked = tmp_path / "blocked"
    blocked.write_text("a file where the cache folder would be")
    monkeypatch.setenv(CACHE_ENV, str(blocked))
    folder.chmod(0o555)
    try:
        index, path = lucene_index(ids, docs, folder)
        assert path is None and index.search(docs[0][:40], 3)
    finally:
        folder.chmod(0o755)


@needs_small
@pytest.mark.slow
def test_webshop_small_reads_back_the_same_rankings_as_a_fresh_build() -> None:
    config = ShopConfig(data_dir=SMALL, num_products=1000, seed=0)
    first, second = Shop.from_config(config), Shop.from_config(config)  # the second reads the saved index
    fresh = LuceneEngine(first.product_list)
    assert writable(SMALL) or not any(p.name.startswith("shopsim-index") for p in SMALL.iterdir())
    for goal in list(second.goals)[:300]:
        query = goal.instruction_text.lower()
        assert second.search_engine.scored(query) == fresh.scored(query) == first.search_engine.scored(query)  # type: ignore[attr-defined]
