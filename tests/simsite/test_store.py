"""The prepared on-disk store: same shop as the files, lazy, checked, and the data commands around it."""

from __future__ import annotations

import contextlib
import gc
import hashlib
import io
import json
import os
import pickle
import random
import shutil
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from shopsim.cli import main
from shopsim.errors import ConfigError, DataError
from shopsim.progress import Progress
from shopsim.simsite.catalog import generator as gen
from shopsim.simsite.loader import DataWarning
from shopsim.simsite.lucene.analysis import analyze
from shopsim.simsite.lucene.bm25 import length_factors
from shopsim.simsite.shop import Shop
from shopsim.simsite.store import prepare_store, verify_store
from shopsim.simsite.store.build import term_counts
from shopsim.simsite.store.index import build_postings
from shopsim.simsite.store.jsonstream import JsonListReader
from shopsim.simsite.store.tags import NOUN_FILES
from tests.conftest import SMALL, needs_small

pytestmark = pytest.mark.filterwarnings("ignore::shopsim.simsite.loader.DataWarning")


@dataclass
class Ran:
    stdout: str
    stderr: str


def shopsim(*args: str, ok: bool = True) -> Ran:
    """The ``shopsim`` command line's own entry point, in this process (errors as the console shows them)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(args))
    assert (code == 0) == ok, (args, code, out.getvalue()[-2000:], err.getvalue()[-2000:])
    return Ran(out.getvalue(), err.getvalue())


def assert_same_shop(a: Shop, b: Shop, queries: list[str], products: bool = True) -> None:
    """Products, prices, goals, goal draws and rankings with scores all equal."""
    assert list(a.products) == list(b.products)
    if products:
        assert all(a.products[k] == b.products[k] for k in a.products)
        assert list(a.product_list) == list(b.product_list)
    assert dict(a.prices) == dict(b.prices)
    assert len(a.goals) == len(b.goals)
    assert all(a.goals[i] == b.goals[i] for i in range(len(a.goals)))
    r1, r2 = random.Random(7), random.Random(7)
    assert [a.draw_goal_index(r1) for _ in range(500)] == [b.draw_goal_index(r2) for _ in range(500)]
    for q in queries:
        assert a.search_engine.scored(q, 50) == b.search_engine.scored(q, 50), q  # type: ignore[attr-defined]


def _queries(shop: Shop) -> list[str]:
    return [shop.goals[i].instruction_text for i in range(0, len(shop.goals), max(1, len(shop.goals) // 60))] + [
        "red shoes", "a the of", "", "zzzz-unknown", "Men's 3.5 ounce"]


@pytest.fixture(scope="module")
def odd_catalog(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A generated catalog with the records WebShop's rules treat specially, spread over two chunks."""
    folder = tmp_path_factory.mktemp("odd")
    gen.generate(folder, 1500, seed=5)
    items = json.loads((folder / gen.ITEMS_FILE).read_text(encoding="utf-8"))
    attrs = json.loads((folder / gen.ATTRIBUTES_FILE).read_text(encoding="utf-8"))
    items[3]["name"] = "Caf\u00e9 \u00fcber \u2603 mug \U0001f600 and a lone \ud800 surrogate"
    items[4]["customization_options"] = {"Color": [], "Size": [{"value": "S"}]}  # no combinations: no goals
    attrs[items[4]["asin"]] = {"attributes": ["a"], "instruction": "i want x", "instruction_attributes": ["a"]}
    items[5]["pricing"] = "$3.10 - $17.85"
    items.insert(10, dict(items[2], name="a duplicate: first wins"))
    items.insert(20, dict(items[6], asin="nan"))
    items.insert(30, dict(items[7], asin="B0TOOLONGASIN"))
    (folder / gen.ITEMS_FILE).write_text(json.dumps(items, indent=1), encoding="utf-8")
    (folder / gen.ATTRIBUTES_FILE).write_text(json.dumps(attrs), encoding="utf-8")
    return folder


@needs_small
@pytest.mark.parametrize("config", [{}, {"seed": 3}, {"human_goals": True}], ids=["seed0", "seed3", "human"])
@pytest.mark.slow
def test_store_of_the_real_small_set_is_the_same_shop(tmp_path_factory: pytest.TempPathFactory,
                                                       config: dict[str, Any]) -> None:
    store = tmp_path_factory.getbasetemp() / "small-store"
    if not store.exists():
        prepare_store(SMALL, store, workers=1)
    files, prepared = Shop.load(SMALL, **config), Shop.load(store, **config)
    assert prepared.lazy and not files.lazy
    # seed 3 draws other prices and limits over the same products and rankings
    assert_same_shop(files, prepared, _queries(files) if not config.get("seed") else [], products=not config.get("seed"))


@pytest.mark.slow
def test_pool_prepared_store_of_odd_records_is_the_same_shop(odd_catalog: Path, tmp_path: Path) -> None:
    with pytest.warns(DataWarning, match="1 duplicate ASIN skipped"):
        m = prepare_store(odd_catalog, tmp_path / "s", workers=2)  # two chunks, two worker processes
    assert (m.records, m.products) == (1503, 1500)
    # records sent to the workers as JSON text give the bytes of records decoded in this process
    alone = prepare_store(odd_catalog, tmp_path / "alone", workers=1)
    assert alone.files == m.files
    files = Shop.load(odd_catalog)
    human = Shop.load(odd_catalog, human_goals=True, seed=9)
    prepared = Shop.load(tmp_path / "s")
    assert prepared.products[files.product_list[3].asin].title.endswith("lone \ud800 surrogate")
    assert_same_shop(files, prepared, _queries(files))
    assert_same_shop(human, Shop.load(tmp_path / "s", human_goals=True, seed=9), _queries(human)[:10])


def test_env_episodes_give_the_same_observations_and_rewards(odd_catalog: Path, tmp_path: Path) -> None:
    from shopsim.adapters import ShopEnv
    from shopsim.agents.random_agent import RandomAgent
    from shopsim.agents.rule import RuleAgent

    prepare_store(odd_catalog, tmp_path / "s", workers=1)
    shops = [Shop.load(odd_catalog), Shop.load(tmp_path / "s")]
    runs: list[list[Any]] = []
    for shop in shops:
        env, seen = ShopEnv(shop), []
        for ep, agent in enumerate([RuleAgent(), RandomAgent(seed=1)] * 6):
            agent.reset(seed=ep)
            obs, info = env.reset(seed=ep)
            seen.append(obs)
            for _ in range(12):
                obs, reward, term, trunc, info = env.step(agent.act(obs, info["valid_actions"], info))
                seen.append((obs, reward, term, info["valid_actions"]))
                if term or trunc:
                    break
        runs.append(seen)
    assert runs[0] == runs[1]


def test_a_dropped_store_closes_its_files_without_a_collection(odd_catalog: Path, tmp_path: Path) -> None:
    """No cycle holds a store: dropping it closes its files at once, even with the collector off
    (``load_shop`` freezes what it loaded, and frozen cycles are never collected)."""
    prepare_store(odd_catalog, tmp_path / "s", workers=1)

    def open_files() -> set[str]:
        found = set()
        for fd in os.listdir("/proc/self/fd"):
            with contextlib.suppress(OSError):  # the listing's own descriptor is gone by now
                found.add(os.readlink(f"/proc/self/fd/{fd}"))
        return found

    before = open_files()
    gc.disable()
    try:
        shop = Shop.load(tmp_path / "s")
        asins = shop.search_engine.search("shoes", 5)
        assert shop.products[asins[0]] and shop.goals[0]
        held = {f for f in open_files() - before if f.startswith(str(tmp_path))}
        assert held  # postings, products
        engine = pickle.loads(pickle.dumps(shop.search_engine))  # an index alone re-opens its store
        del shop
        assert engine.search("shoes", 5) == asins
        del engine
        # all but the noun tags, which the process's noun tagger keeps for every catalog it met (by content)
        assert {f for f in open_files() - before if f.startswith(str(tmp_path))} <= {str(tmp_path / "s" / NOUN_FILES[0])}
    finally:
        gc.enable()


def test_opening_is_lazy(odd_catalog: Path, tmp_path: Path) -> None:
    prepare_store(odd_catalog, tmp_path / "s", workers=1)
    shop = Shop.load(tmp_path / "s")
    asins = shop.search_engine.search("shoes", 50)
    assert asins and all(a in shop.products for a in asins)
    products, goals = shop.products, shop.goals
    assert len(products.memo) == 0  # nothing parsed so far
    assert len(goals.memo) == 0
    assert shop.product(asins[0].lower()) == shop.products[asins[0]]
    assert len(products.memo) == 1
    assert "B0NOTTHERE" not in shop.products and shop.product("nope") is None
    shop.prime_nouns()  # a no-op on a store: it would parse the whole catalog
    assert len(products.memo) == 1
    assert isinstance(shop.catalog_fingerprint, str) and len(shop.catalog_fingerprint) == 64
    # pickled (spawned workers, Ray) by path: the copy re-opens the store and shares its pages
    parts = pickle.dumps((shop.products, shop.product_list, shop.goals, shop.search_engine, shop.prices))
    assert len(parts) < 2000, len(parts)  # paths and settings, no records, prices or postings
    assert shop.__getstate__()["_cum_weights"] is None  # the goals' mapped weights, re-mapped
    copy = pickle.loads(pickle.dumps(shop))
    assert copy.goals[3] == shop.goals[3] and copy.search_engine.scored("red", 9) == shop.search_engine.scored("red", 9)


def test_num_products_and_other_engines(odd_catalog: Path, tmp_path: Path) -> None:
    m = prepare_store(odd_catalog, tmp_path / "s", num_products=700, workers=1)
    assert m.records == 700 and m.num_products == 700
    files = Shop.load(odd_catalog, num_products=700)
    assert_same_shop(files, Shop.load(tmp_path / "s", num_products=700), _queries(files)[:10])
    with pytest.raises(ConfigError, match="cannot be cut"):
        Shop.load(tmp_path / "s", num_products=699)
    bm25 = Shop.load(tmp_path / "s", extra={"engine": "bm25"})  # other engines index the lazy products
    assert bm25.search_engine.search("shoes", 5) == Shop.load(odd_catalog, num_products=700,
                                                              extra={"engine": "bm25"}).search_engine.search("shoes", 5)


def test_altered_stale_and_copied_stores_are_refused_in_one_line(odd_catalog: Path, tmp_path: Path) -> None:
    store = tmp_path / "s"
    prepare_store(odd_catalog, store, workers=1)
    copied = tmp_path / "copied"
    shutil.copytree(store, copied, copy_function=shutil.copy)  # new modification times
    with pytest.raises(DataError, match=r"changed since the store was prepared or last verified; run `shopsim data verify"):
        Shop.load(copied)
    verify_store(copied)  # every SHA-256 agrees: re-stamped
    Shop.load(copied)

    blob = copied / "products.bin"
    data = bytearray(blob.read_bytes())
    data[100] ^= 1
    blob.write_bytes(bytes(data))
    with pytest.raises(DataError, match=r"products\.bin changed since"):
        Shop.load(copied)
    out = shopsim("data", "verify", str(copied), ok=False)
    assert out.stderr.count("\n") == 1 and "altered store: products.bin has SHA-256" in out.stderr

    docs = store / "index" / "docs.npy"
    os.truncate(docs, docs.stat().st_size - 4)
    with pytest.raises(DataError, match=r"altered store: index/docs.npy is \d+ bytes, the manifest says"):
        Shop.load(store)
    manifest = json.loads((store / "store.json").read_text())
    (store / "store.json").write_text(json.dumps({**manifest, "format": "shopsim-store-0"}))
    out = shopsim("search", "shoes", "--data", str(store), ok=False)
    assert out.stderr.count("\n") == 1 and "stale store: format 'shopsim-store-0'" in out.stderr


def test_prepare_errors_are_one_clear_line(tmp_path: Path, odd_catalog: Path) -> None:
    with pytest.raises(DataError, match="no such data folder"):
        prepare_store(tmp_path / "missing", tmp_path / "out")
    (tmp_path / "busy").mkdir()
    (tmp_path / "busy" / "notes.txt").write_text("mine")
    with pytest.raises(DataError, match="exists and is not a store"):
        prepare_store(odd_catalog, tmp_path / "busy")
    bad = tmp_path / "bad"
    bad.mkdir()
    text = (odd_catalog / gen.ITEMS_FILE).read_text(encoding="utf-8")
    (bad / gen.ITEMS_FILE).write_text(text[: len(text) // 2], encoding="utf-8")  # a truncated download
    with pytest.raises(DataError, match=r"shop_items.json: not valid JSON: .*\(character \d+\)"):
        prepare_store(bad, tmp_path / "out")
    assert not (tmp_path / "out").exists() and not (tmp_path / "out.partial").exists()
    (bad / gen.ITEMS_FILE).write_text('[{"asin": 5}]', encoding="utf-8")
    out = shopsim("data", "prepare", "--data", str(bad), "--out", str(tmp_path / "out"), ok=False)
    assert out.stderr == f"shopsim: error: {bad / gen.ITEMS_FILE}: record 0: field 'asin': expected a string, got a number\n"


def test_cli_generate_prepare_verify_then_run_on_the_store(tmp_path: Path) -> None:
    cat, store = tmp_path / "cat", tmp_path / "store"
    made = json.loads(shopsim("data", "generate", "--products", "400", "--seed", "2", "--out", str(cat), "--json").stdout)
    assert made["products"] == 400 and set(made["files"]) == set(gen.FILES)
    prep = json.loads(shopsim("data", "prepare", "--data", str(cat), "--out", str(store), "--json").stdout)
    assert prep["products"] == 400 and prep["format"] == "shopsim-store-1"
    assert json.loads(shopsim("data", "verify", str(store), "--json").stdout)["ok"]
    runs = [json.loads(shopsim("run", "--agent", "rule", "--goals", "0:25", "--data", str(d), "--json").stdout)
            for d in (cat, store)]
    for r in runs:
        r.pop("seconds", None)
    assert runs[0] == runs[1]
    out = shopsim("data", "generate", "--products", "-1", "--out", str(tmp_path / "x"), ok=False)
    assert out.stderr == "shopsim: error: --products -1: must be between 0 and 2199023255552\n"


def test_json_list_reader_agrees_with_json_loads_across_chunk_boundaries(tmp_path: Path) -> None:
    rng = random.Random(3)
    path = tmp_path / "f.json"
    for trial in range(60):
        data = [rng.choice([{"a": rng.random(), "s": "x\u00e9\u2603" * rng.randint(0, 5)}, -12.5e-3, 10**rng.randint(0, 30),
                            None, True, "s", [1, [2]]]) for _ in range(rng.randint(0, 25))]
        raw = json.dumps(data, indent=rng.choice([None, 2]), ensure_ascii=rng.random() < 0.5)
        path.write_text(raw, encoding="utf-8")
        for chunk in (1, 2, 5, 1 << 16):
            reader = JsonListReader(path, "a list", chunk=chunk)
            assert [e for _, e in reader] == data, (trial, chunk)
        assert reader.sha256 == hashlib.sha256(raw.encode("utf-8")).hexdigest()
    for text, message in [("", "empty file"), ("{}", "expected a list, got an object"),
                          ("[1, 2", "unterminated list"), ("[1 2]", "expecting ',' delimiter (character 3)"),
                          ("[1] 2", "extra data after the list")]:
        path.write_text(text)
        with pytest.raises(DataError, match=message.replace("(", r"\(").replace(")", r"\)")):
            list(JsonListReader(path, "a list", chunk=2))
    path.write_bytes(b'[1, "\xff"]')
    with pytest.raises(DataError, match="not UTF-8 text: byte 0xff at offset 5"):
        list(JsonListReader(path, "a list", chunk=3))


def test_json_list_reader_gives_each_elements_own_text(tmp_path: Path) -> None:
    path = tmp_path / "f.json"
    data = [{"a": [1, {"b": "x\u00e9\u2603"}], "c": None}, "s", 12.5e-3, [[]], {"d": "\ud800"}] * 5
    path.write_text(json.dumps(data, indent=1), encoding="utf-8")
    for chunk in (1, 3, 7, 1 << 16):
        got = list(JsonListReader(path, "a list", chunk=chunk).with_text())
        assert [e for _, e, _ in got] == data and [json.loads(t) for _, _, t in got] == data, chunk
        assert got[0][2].startswith('{\n  "a"') and got[1][2] == '"s"'


@pytest.mark.parametrize("text", [
    "", "a the of", "plain words, words and WORDS: 3.5 ounce 1,000 U.S.A. don't e.g",
    "tabs\tand\nnew\x0blines\x0cform  double  spaces ", "caf\u00e9 \u3000ideo\u00a0nbsp \u2603mug\U0001f600",
    "\u05d0\u05d1\"\u05d2 \u05d3' x\u200d \u200dy \U0001f468\u200d\U0001f469 #\ufe0f\u20e3 \U0001f1fa\U0001f1f8",
    "\u0130stanbul kat\u0130 john\u2019s caf\u00e9s\u2019s \u6f22\u5b57 \u3072\u3089 \u30ab\u30bf\u30ab\u30ca",
    "x" * 600 + " " + "y_" * 200, "snake_case __init__ a:b 28x28 1.2.3 ...,,, \u0e20\u0e32\u0e29\u0e32\u0e44\u0e17\u0e22",
])
def test_term_counts_by_cached_pieces_are_lucenes(text: str) -> None:
    # a text's first piece alone, then the whole text (known pieces, then new ones), then all known
    for part in (text.split(" ")[0], "known " + text, text):
        counts, length = term_counts(part)
        assert (counts, length) == (dict(Counter(analyze(part))), len(analyze(part)))


def test_build_postings_sorts_by_term_keeping_document_order() -> None:
    rng = np.random.default_rng(4)
    # the last case's frequencies leave no room to pack a posting into 63 bits: the stable argsort
    for docs_n, terms_n, max_tf in [(1, 1, 5), (40, 9, 5), (700, 300, 1 << 30), (50, 20, 1 << 60)]:
        pairs = [(d, t) for d in range(docs_n) for t in rng.permutation(terms_n)[: rng.integers(0, terms_n + 1)]]
        docs = np.array([d for d, _ in pairs], dtype=np.int32)
        term_ids = np.array([t for _, t in pairs], dtype=np.int32)
        tfs = rng.integers(1, max_tf, len(pairs)).astype(np.int32 if max_tf < 1 << 31 else np.int64)
        lengths = rng.integers(0, 300, docs_n)
        vocab = {f"w{rng.integers(10**6)}-{i}": i for i in range(terms_n)}
        out = build_postings(vocab, term_ids, docs, tfs, lengths)
        names = sorted(vocab)
        assert out["index/terms.bin"] == "".join(names).encode()
        by_term: dict[int, list[int]] = {}  # a plain reference: each term's postings in input (document) order
        for k, t in enumerate(term_ids.tolist()):
            by_term.setdefault(t, []).append(k)
        expect_docs, expect_tfs, starts = [], [], [0]
        for name in names:
            hit = by_term.get(vocab[name], [])
            expect_docs += [int(docs[k]) for k in hit]
            expect_tfs += [int(tfs[k]) for k in hit]
            starts.append(len(expect_docs))
        assert out["index/docs.npy"].tolist() == expect_docs
        assert out["index/term_starts.npy"].tolist() == starts
        factor, _ = length_factors(lengths)
        denom = np.float32(1.0) + np.array(expect_tfs, dtype=tfs.dtype).astype(np.float32) * factor[expect_docs]
        assert out["index/denom.npy"].tobytes() == denom.astype(np.float32).tobytes()


def test_progress_bar_draws_on_a_terminal_only() -> None:
    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    tty, pipe = Tty(), io.StringIO()
    for stream in (tty, pipe):
        bar = Progress("prepare", 2_000_000, "B", stream=stream)
        bar.set(1_000_000)
        bar.set(2_000_000)
        bar.close()
    assert pipe.getvalue() == ""
    assert "prepare [" in tty.getvalue() and "2.0M/2.0MB" in tty.getvalue() and tty.getvalue().endswith("\n")


def test_postings_read_from_disk_keep_within_their_budget(odd_catalog: Path, tmp_path: Path) -> None:
    """Postings are copies now (nothing is mapped), kept up to a byte budget: rankings are the same
    whatever the budget, and the kept bytes never pass it."""
    prepare_store(odd_catalog, tmp_path / "s", workers=1)
    shops = [Shop.load(tmp_path / "s") for _ in range(3)]
    indexes = [shop.search_engine.index for shop in shops]  # type: ignore[attr-defined]
    indexes[1].postings_cache.budget = 0
    indexes[2].postings_cache.budget = 20_000  # a few terms' postings
    for query in _queries(shops[0]) * 2:
        rankings = [index.scored(query, 50) for index in indexes]
        assert rankings[1] == rankings[0] and rankings[2] == rankings[0], query
        assert indexes[1].postings_cache.bytes == 0 and indexes[2].postings_cache.bytes <= 20_000
    assert indexes[0].postings_cache.bytes > 20_000  # the default budget kept every term read
