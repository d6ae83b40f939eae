"""Saved noun tags (the type reward's): tagged in batch once per catalog and tagger, read back on open,
checked against their key and never trusted when stale or damaged, and equal to the tags computed live.
"""

from __future__ import annotations

import json
import pickle
import subprocess
import sys
from pathlib import Path

import pytest

from shopsim.simsite.catalog import default_catalog_dir
from shopsim.simsite.catalog import generator as gen
from shopsim.simsite.datafiles import find_catalog_files
from shopsim.simsite.loader import load_products
from shopsim.simsite.noun_table import (
    find_table,
    load_catalog_tags,
    read_table,
    sidecar_name,
    table_key,
    write_table,
)
from shopsim.simsite.nouns import FALLBACK, NounExtractor, Tagger, fallback_nouns, find_tagger
from shopsim.simsite.shop import Shop
from shopsim.simsite.store.tags import StoreTags
from shopsim.simsite.user_cache import CACHE_ENV, cache_dir
from tests.conftest import SMALL, needs_small

needs_spacy = pytest.mark.skipif(find_tagger() == FALLBACK,
                                 reason="no spaCy English model installed: the fallback tagger saves no tags")
OTHER = Tagger("spacy:en_core_web_xx", "spacy 0.0; en_core_web_xx 0.0")


@pytest.fixture(autouse=True)
def own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """This test's own user cache, so no test reads what another saved."""
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "cache"))
    return tmp_path / "cache"


@pytest.fixture(scope="module")
def live() -> NounExtractor:
    """An extractor without tables: every text tagged by the model, one call each (the purchase path)."""
    return NounExtractor()


def _catalog(folder: Path, products: int = 40, seed: int = 3) -> set[str]:
    """A small generated catalog in ``folder``; its titles (read without opening a shop, which would save tags)."""
    gen.generate(folder, products, seed=seed)
    return {p.title for p in load_products(find_catalog_files(folder))}


def test_a_table_round_trips_and_a_stale_or_damaged_one_is_refused(tmp_path: Path) -> None:
    texts = {"Red Leather Shoes for Men", "Caf\u00e9 mug with a lone \ud800 surrogate", "a", "kitchen rug 5x8"}
    tags = {t: tuple(fallback_nouns(t)) for t in texts}
    key = table_key(texts, FALLBACK)
    path = write_table(tmp_path, key, FALLBACK, tags)
    assert path == tmp_path / sidecar_name(key) and read_table(path, key, texts) == tags
    assert [p.name for p in tmp_path.iterdir()] == [path.name]  # the temporary file was renamed into place
    # another tagger or other texts make another key: this file is not theirs
    assert table_key(texts, OTHER) != key and read_table(path, table_key(texts, OTHER), texts) is None
    assert read_table(path, table_key(texts - {"a"}, FALLBACK), texts - {"a"}) is None
    good = json.loads(path.read_text(encoding="ascii"))
    for bad in ({**good, "tags": {t: v for t, v in good["tags"].items() if t != "a"}},  # a text missing
                {**good, "tags": {**good["tags"], "extra": ["x"]}},  # a text added
                {**good, "tags": {**good["tags"], "a": "not a list"}},
                {**good, "format": "shopsim-nouns-0"}):
        path.write_text(json.dumps(bad), encoding="utf-8")
        assert read_table(path, key, texts) is None, bad
    for raw in (b"", b'{"format": "shopsim-nouns-1", "tag', b"\xff\xfe", b"[]"):  # cut short, not UTF-8, not a table
        path.write_bytes(raw)
        assert read_table(path, key, texts) is None, raw
    path.unlink()
    assert read_table(path, key, texts) is None


def test_the_cache_folder_follows_the_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "mine"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_dir() == tmp_path / "mine"
    monkeypatch.delenv(CACHE_ENV)
    assert cache_dir() == tmp_path / "xdg" / "shopsim"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cache_dir() == tmp_path / "home" / ".cache" / "shopsim"


@needs_spacy
def test_tags_are_saved_beside_the_data_then_read_without_the_model(tmp_path: Path, live: NounExtractor) -> None:
    folder = tmp_path / "data"
    texts = _catalog(folder)
    first = NounExtractor()
    path = load_catalog_tags(first, texts, folder)
    assert path is not None and path.parent == folder and first.model_loaded  # tagged once, in one batch
    again = NounExtractor()
    assert load_catalog_tags(again, texts, folder) == path
    assert {t: again.nouns(t) for t in texts} == {t: live.nouns(t) for t in texts}
    assert not again.model_loaded  # every title came from the file
    path.write_bytes(path.read_bytes()[:-40])  # damaged: ignored, tagged again and rewritten whole
    third = NounExtractor()
    assert load_catalog_tags(third, texts, folder) == path and third.model_loaded
    assert read_table(path, table_key(texts, third.tagger), texts) is not None
    assert sorted(p.name for p in folder.iterdir() if p.name.startswith(".shopsim")) == []  # no temporary left


@needs_spacy
def test_a_read_only_data_folder_keeps_its_tags_in_the_user_cache(tmp_path: Path, own_cache: Path) -> None:
    folder = tmp_path / "locked"
    texts = _catalog(folder, 30, seed=4)
    folder.chmod(0o555)  # no write bit: read-only, even for root
    try:
        path = load_catalog_tags(NounExtractor(), texts, folder)
        assert path is not None and path.parent == own_cache / "nouns"
        assert not any(p.name.startswith("shopsim-nouns") for p in folder.iterdir())
        reader = NounExtractor()
        assert load_catalog_tags(reader, texts, folder) == path and not reader.model_loaded
    finally:
        folder.chmod(0o755)


def test_the_bundled_catalog_ships_its_tags() -> None:
    titles = {p.title for p in Shop.load().product_list}
    shipped = sorted(default_catalog_dir().glob("shopsim-nouns-*.json"))
    assert len(shipped) == 1, shipped
    made_by = json.loads(shipped[0].read_text(encoding="ascii"))["tagger"]
    tagger = find_tagger()
    if tagger.version != made_by:
        pytest.skip(f"the bundled tags were made by {made_by!r}; this environment tags with {tagger.version!r}")
    found = find_table(default_catalog_dir(), table_key(titles, tagger), titles)
    assert found is not None and found[0] == shipped[0], (
        "the bundled tags are stale: run python -m shopsim.simsite.noun_table")


@pytest.fixture(scope="module")
def bundled_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from shopsim.simsite.store import prepare_store

    out = tmp_path_factory.mktemp("nouns") / "store"
    prepare_store(default_catalog_dir(), out, workers=1)
    return out


def _saved(source: str, store: Path) -> tuple[dict[str, tuple[str, ...]], list[str]]:
    """The saved tags of a catalog's titles (read, or tagged and saved the first time), and the titles."""
    if source == "store":
        tags, titles = StoreTags(store), [p.title for p in Shop.load(store).product_list]
        return {t: tags.get(t) for t in titles}, titles  # type: ignore[misc]
    folder = default_catalog_dir() if source == "bundled" else SMALL
    texts = {p.title for p in load_products(find_catalog_files(folder), num_products=1000)}
    path = load_catalog_tags(NounExtractor(), texts, folder)
    saved = read_table(path, table_key(texts, find_tagger()), texts) if path is not None else None
    assert saved is not None
    return saved, sorted(texts)


@needs_spacy
@pytest.mark.slow
@pytest.mark.parametrize("source", ["bundled", pytest.param("small", marks=needs_small), "store"])
def test_saved_tags_equal_tags_computed_live(source: str, bundled_store: Path, live: NounExtractor) -> None:
    saved, titles = _saved(source, bundled_store)
    assert len(saved) == len(titles) >= 600
    assert [t for t in titles if saved[t] != live.nouns(t)] == []  # one nlp(text) call each, as a purchase did


def test_a_prepared_store_records_its_tagger_and_finds_only_its_titles(bundled_store: Path) -> None:
    from shopsim.simsite.store.manifest import read_manifest

    assert read_manifest(bundled_store).nouns == find_tagger().version
    tags = StoreTags(bundled_store)
    title = Shop.load(bundled_store).product_list[7].title
    assert tags.get(title) == pickle.loads(pickle.dumps(tags)).get(title) is not None  # pickled by path
    assert tags.get(title + " ") is None and tags.get("") is None


def test_a_store_prepared_without_tags_tags_when_bought(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from shopsim.cli import main
    from shopsim.simsite.store.manifest import read_manifest

    assert main(["data", "prepare", "--data", str(default_catalog_dir()), "--out", str(tmp_path / "s"), "--no-nouns"]) == 0
    assert "noun tags" in capsys.readouterr().out
    assert read_manifest(tmp_path / "s").nouns is None and not (tmp_path / "s" / "nouns.bin").exists()
    shop = Shop.load(tmp_path / "s")  # opens as before; a purchase tags the titles it needs
    from shopsim.simsite.reward import score_purchase

    goal = shop.goal(3)
    bought = score_purchase(shop.products[goal.asin], goal, shop.prices[goal.asin], dict(goal.goal_options), shop.nouns)
    assert bought.r_type == 1.0 and bought.noun_source == find_tagger().source


def test_only_small_catalogs_keep_their_titles_for_tagging_unless_asked() -> None:
    from shopsim.simsite.noun_table import EAGER_LIMIT
    from shopsim.simsite.store.tags import titles_kept

    chunk = ["t"] * 1000
    kept: list[str] | None = []
    for _ in range(EAGER_LIMIT // 1000):
        kept = titles_kept(kept, chunk, None)
    assert kept is not None and len(kept) == EAGER_LIMIT
    assert titles_kept(kept, chunk, None) is None  # one chunk more: dropped, the store tags when bought
    assert len(titles_kept(list(chunk) * 6, chunk, True) or []) == 7000  # asked for: any size


@needs_spacy
@pytest.mark.slow
def test_tags_made_in_several_processes_equal_live_tags(tmp_path: Path, live: NounExtractor) -> None:
    from shopsim.simsite.store import prepare_store

    _catalog(tmp_path / "c", 120, seed=8)
    two = prepare_store(tmp_path / "c", tmp_path / "two", workers=2, nouns=True)  # nlp.pipe(n_process=2)
    assert two.files == prepare_store(tmp_path / "c", tmp_path / "one", workers=1).files
    tags = StoreTags(tmp_path / "two")
    assert [t for t in (p.title for p in Shop.load(tmp_path / "two").product_list) if tags.get(t) != live.nouns(t)] == []


def test_a_copy_for_another_process_carries_the_tags_not_the_model() -> None:
    ex = NounExtractor()
    ex.add_table("t", {"Blue rug": ("rug",)})
    assert ex.source == find_tagger().source and not ex.model_loaded  # the source is read, not loaded
    ex.nouns("a text no table holds")
    copy = pickle.loads(pickle.dumps(ex))
    assert copy.has_table("t") and copy.nouns("Blue rug") == ("rug",) and not copy.model_loaded
    assert copy.nouns("a text no table holds") == ex.nouns("a text no table holds")


_BUY = """
import sys
from shopsim.adapters.webshop_env import WebAgentTextEnv
from shopsim.simsite.nouns import default_extractor
from shopsim.simsite.session import ShopSession
from shopsim.simsite.shop import Shop

env = WebAgentTextEnv(observation_mode="text")  # the bundled catalog, through WebShop's API
sources = set()
for session in range(25):
    env.reset(session=session)
    env.step("search[" + env.instruction_text.split("Instruction: ", 1)[-1] + "]")
    link = next(t for t in env.get_available_actions()["clickables"] if env.text_to_clickable[t].name == "a")
    env.step(f"click[{link}]")
    _, reward, done, _ = env.step("click[buy now]")
    assert done
store = Shop.load(sys.argv[1])  # a prepared store: its own tags
for goal in range(25):
    s = ShopSession(store, store.goal(goal), f"s{goal}")
    s.step("search[" + store.goal(goal).instruction_text + "]")
    s.step("click[" + next(c.text for c in s.state.clickables if c.kind == "product") + "]")
    sources.add(s.step("click[buy now]").breakdown.noun_source)
ex = default_extractor()
print(sorted(sources), "spacy" in sys.modules, ex.model_loaded)
ex.nouns("a custom instruction: wool rug for the kitchen")  # a text no table holds: tagged as before
print(ex.model_loaded)
"""


@needs_spacy
def test_buying_catalog_products_never_loads_spacy(bundled_store: Path) -> None:
    out = subprocess.run([sys.executable, "-c", _BUY, str(bundled_store)], capture_output=True, text=True,
                         check=True, cwd=Path(__file__).resolve().parents[2]).stdout.splitlines()
    assert out == [f"[{find_tagger().source!r}] False False", "True"], out


def test_a_subset_of_the_bundled_catalog_saves_its_tags_in_the_user_cache(own_cache: Path) -> None:
    shipped = sorted(default_catalog_dir().glob("shopsim-nouns-*.json"))
    shop = Shop.load(None, num_products=37)
    if shop.nouns.source == FALLBACK:
        pytest.skip("no spaCy model installed: the fallback's tags are never saved")
    assert sorted(default_catalog_dir().glob("shopsim-nouns-*.json")) == shipped  # the package is not written to
    saved = list((own_cache / "nouns").glob("shopsim-nouns-*.json"))
    assert len(saved) == 1 and len(json.loads(saved[0].read_text())["tags"]) == len({p.title for p in shop.product_list})
