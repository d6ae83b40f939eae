"""v8 search (``shopsimulator-multifield-bm25-v3``): tokens, ranking, both engines, the index manifest,
search-eval and its command."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from shopsim.cli import main
from shopsim.errors import ConfigError, DataError
from shopsim.simsite.v8.records import V8Catalog, V8Product, load_v8_catalog, parse_v8_records
from shopsim.simsite.v8.search import (
    BM25_COLUMN_WEIGHTS,
    FTS_COLUMNS,
    PAGE_SIZE,
    RESULTS_N,
    SEARCH_VERSION,
    BM25Engine,
    Fts5Engine,
    catalog_sha256,
    load_index,
    make_engine,
    product_columns,
    query_tokens,
    save_index,
)
from shopsim.simsite.v8.search_eval import evaluate_search
from shopsim.text import TOKENIZER_VERSION, tokenize

SAMPLE = Path("/work/shared/data/shopsim-sample/products.json")
needs_sample = pytest.mark.skipif(not SAMPLE.exists(), reason="shared sample catalog not present")
KINDS = ["numpy", "fts5"]


@pytest.fixture(scope="module")
def sample() -> V8Catalog:
    if not SAMPLE.exists():
        pytest.skip("shared sample catalog not present")
    return load_v8_catalog(SAMPLE)


def _synthetic(n: int, seed: int) -> list[V8Product]:
    """Products from a tiny vocabulary, so scores tie often and every column gets hits."""
    rng = random.Random(seed)
    zh = ["小吃", "餐车", "不锈", "钢锅", "电饼", "烧水", "茶杯", "收纳", "大号", "双面", "加热", "青花"]
    en = ["steel", "cart", "black", "red", "mini", "pro", "x1", "qc45", "bamboo", "cork"]

    def text(k: int) -> str:
        return " ".join(rng.choice(zh + en) for _ in range(k))

    records = [{
        "asin": f"{rng.randrange(10**11, 10**12)}" if i % 3 else f"B0{i:08d}",
        "title": text(rng.randint(1, 6)), "brand": rng.choice(["鑫旺达", "Bose", "", "苏泊尔"]),
        "model": rng.choice(["", "QC45", "X1 Pro"]), "category": [text(1), text(1)],
        "attribute": {"材质": text(2), "颜色": text(1)} if i % 2 else [text(2)],
        "customization_options": {"颜色分类": [{"value": text(2), "price": 10 + i, "image": f"https://x.invalid/{i}.jpg"}]},
        "small_description": [text(rng.randint(0, 8))],
    } for i in range(n)]
    return parse_v8_records(records, "synthetic").products


# ---- tokenizer -----------------------------------------------------------------------------------
@pytest.mark.parametrize(("text", "want"), [
    ("可移动小吃车", ["可移", "移动", "动小", "小吃", "吃车"]),
    ("Bose QC45 耳机", ["bose", "qc45", "耳机"]),
    ("QC45耳机", ["qc45", "耳机"]),  # script change separates
    ("车", ["车"]),  # a one-character run is itself
    ("小 吃", ["小", "吃"]),
    ("三锅小吃车煮面炉＋关东煮", ["三锅", "锅小", "小吃", "吃车", "车煮", "煮面", "面炉", "关东", "东煮"]),
    ("ＱＣ４５　ＢＯＳＥ", ["qc45", "bose"]),  # full-width letters, digits and space fold (NFKC)
    ("价格：1,000元（左右）!", ["价格", "1", "000", "元", "左右"]),
    ("Café-au-lait", ["café", "au", "lait"]),
    ("アイス・クリーム 한국어", ["アイ", "イス", "クリ", "リー", "ーム", "한국", "국어"]),
    ("", []),
    ("  ，。!?-/  ", []),
])
def test_tokenize(text: str, want: list[str]) -> None:
    assert tokenize(text) == want


def test_query_tokens_are_distinct_in_order() -> None:
    assert query_tokens("小吃车 小吃 Bose bose") == ["小吃", "吃车", "bose"]
    assert TOKENIZER_VERSION == "cjk-bigram+latin-digit-v1"


# ---- ranking on the sample -----------------------------------------------------------------------
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize(("query", "asin"), [("可移动小吃车", "824100258497"), ("电饼铛", "588431290017"),
                                             ("烧水壶", "602118734456"), ("headphones", "B0CH7QLM2D")])
def test_single_hit_queries_rank_the_product_first(sample: V8Catalog, kind: str, query: str, asin: str) -> None:
    hits = make_engine(sample.products, kind).search(query)
    assert hits and hits[0][0] == asin


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("query", ["https://img.example.invalid/824100258497/b.jpg", "5012774410023", "jpg",
                                   "有货", "缺货", "1100", "680", "824100258497"])
def test_crawl_metadata_and_asin_are_not_searchable(sample: V8Catalog, kind: str, query: str) -> None:
    # option images, stock, SKU ids and prices are never indexed; the asin column is UNINDEXED
    assert make_engine(sample.products, kind).search(query) == []


def test_options_column_holds_only_axis_names_and_values(sample: V8Catalog) -> None:
    cart = sample.product("824100258497")
    assert cart is not None
    options = product_columns(cart)[FTS_COLUMNS.index("options")]
    assert "颜色分类" in options and "三锅小吃车煮面炉＋关东煮＋油炸" in options
    for leak in ("http", ".jpg", "5012774410023", "1100", "有货"):
        assert leak not in options


def test_contract_constants() -> None:
    assert SEARCH_VERSION == "shopsimulator-multifield-bm25-v3"
    assert FTS_COLUMNS == ("asin", "title", "brand", "category", "model", "attributes", "options", "bullets")
    assert len(BM25_COLUMN_WEIGHTS) == len(FTS_COLUMNS)
    assert BM25_COLUMN_WEIGHTS[0] == 0.0 and BM25_COLUMN_WEIGHTS[1] == 3.0
    assert (RESULTS_N, PAGE_SIZE) == (150, 20)


@pytest.mark.parametrize("kind", KINDS)
def test_weights_map_by_declared_position(kind: str) -> None:
    # the same token in the title beats it in the bullets (title 3.0 > bullets 0.5) at equal lengths
    recs = [{"asin": "A2", "title": "kettle", "small_description": ["steel"]},
            {"asin": "A1", "title": "steel", "small_description": ["kettle"]}]
    hits = make_engine(parse_v8_records(recs, "t").products, kind).search("kettle")
    assert [a for a, _ in hits] == ["A2", "A1"] and hits[0][1] > hits[1][1]


@pytest.mark.parametrize("kind", KINDS)
def test_ties_broken_by_asin_ascending(kind: str) -> None:
    recs = [{"asin": a, "title": "同款保温杯", "brand": "同牌"} for a in ["B3", "A9", "824", "B10", "A10"]]
    recs.append({"asin": "Z0", "title": "同款保温杯 保温杯", "brand": "同牌"})
    hits = make_engine(parse_v8_records(recs, "t").products, kind).search("保温杯")
    assert [a for a, _ in hits][1:] == ["824", "A10", "A9", "B10", "B3"]
    assert len({s for _, s in hits[1:]}) == 1


@pytest.mark.parametrize("kind", KINDS)
def test_or_semantics_limit_and_empty_query(sample: V8Catalog, kind: str) -> None:
    engine = make_engine(sample.products, kind)
    both = {a for a, _ in engine.search("电饼铛 烧水壶")}
    assert {"588431290017", "602118734456"} <= both
    assert len(engine.search("的 不锈钢 茶杯 收纳 headphones", n=2)) == 2
    assert engine.search("") == engine.search("，。") == engine.search("电饼铛", n=0) == []


# ---- both engines agree --------------------------------------------------------------------------
def _assert_same(a: BM25Engine | Fts5Engine, b: BM25Engine | Fts5Engine, queries: list[str]) -> None:
    for q in queries:
        ra, rb = a.search(q), b.search(q)
        assert [x for x, _ in ra] == [x for x, _ in rb], q
        assert all(abs(sa - sb) <= 1e-6 for (_, sa), (_, sb) in zip(ra, rb, strict=True)), q


def test_engines_agree_on_the_sample(sample: V8Catalog) -> None:
    queries = [q for t in sample.tasks for q in (t.simple_text, t.instruction)]
    queries += [p.title for p in sample.products] + ["不锈钢", "black", "的"]
    _assert_same(BM25Engine.build(sample.products), Fts5Engine.build(sample.products), queries)


def test_engines_agree_on_a_synthetic_catalog() -> None:
    products = _synthetic(400, seed=7)
    rng = random.Random(3)
    words = " ".join(product_columns(p)[1] for p in products).split()
    queries = [" ".join(rng.sample(words, rng.randint(1, 8))) for _ in range(150)] + ["小吃 QC45", "X1 Pro"]
    numpy_engine, fts5_engine = BM25Engine.build(products), Fts5Engine.build(products)
    _assert_same(numpy_engine, fts5_engine, queries)
    assert len(numpy_engine.search("小吃 steel 茶杯 black")) == RESULTS_N  # the cap applies


# ---- persistence and the manifest ----------------------------------------------------------------
@pytest.mark.parametrize("kind", KINDS)
def test_index_round_trip(sample: V8Catalog, kind: str, tmp_path: Path) -> None:
    engine = make_engine(sample.products, kind)
    manifest = json.loads(save_index(engine, tmp_path).read_text(encoding="utf-8"))
    assert manifest["search_version"] == SEARCH_VERSION and manifest["engine"] == kind
    assert manifest["fts_columns"] == list(FTS_COLUMNS)
    assert manifest["bm25_column_weights"] == list(BM25_COLUMN_WEIGHTS)
    assert manifest["tokenizer"] == TOKENIZER_VERSION and manifest["products"] == len(sample.products)
    assert manifest["catalog_sha256"] == catalog_sha256(sample.products)
    loaded = load_index(tmp_path, sample.products)
    assert loaded.kind == kind
    queries = [t.instruction for t in sample.tasks] + ["可移动小吃车"]
    assert [loaded.search(q) for q in queries] == [engine.search(q) for q in queries]


@pytest.mark.parametrize(("key", "value"), [
    ("bm25_column_weights", [3.0, 2.0, 1.5, 2.0, 1.0, 1.0, 0.5, 1.0]),  # the v2 shift
    ("search_version", "shopsimulator-multifield-bm25-v2"),
    ("fts_columns", ["title", "brand", "category", "model", "attributes", "options", "bullets", "asin"]),
    ("tokenizer", "jieba"),
    ("catalog_sha256", "0" * 64),
])
def test_loader_refuses_a_stale_manifest(sample: V8Catalog, tmp_path: Path, key: str, value: object) -> None:
    path = save_index(sample.products, tmp_path, kind="numpy")
    manifest = json.loads(path.read_text(encoding="utf-8"))
    manifest[key] = value
    path.write_text(json.dumps(manifest), encoding="utf-8")
    with pytest.raises(DataError, match=f"stale index: .*{key}.*rebuild with shopsim data prepare") as err:
        load_index(tmp_path, sample.products)
    assert "\n" not in str(err.value)


@pytest.mark.parametrize("kind", KINDS)
def test_loader_refuses_a_changed_catalog(sample: V8Catalog, tmp_path: Path, kind: str) -> None:
    save_index(sample.products, tmp_path, kind=kind)
    changed = list(sample.products)
    changed[0] = changed[0].model_copy(update={"title": changed[0].title + " 新款"})
    with pytest.raises(DataError, match=r"stale index: .*catalog_sha256"):
        load_index(tmp_path, changed)
    with pytest.raises(DataError, match=r"stale index: .*products"):
        load_index(tmp_path, changed[:-1])
    with pytest.raises(DataError, match="no search index manifest"):
        load_index(tmp_path / "missing", sample.products)


def test_make_engine_rejects_unknown_kind(sample: V8Catalog) -> None:
    with pytest.raises(ConfigError, match="unknown search engine"):
        make_engine(sample.products, "lucene")


# ---- search-eval ---------------------------------------------------------------------------------
@pytest.mark.parametrize("kind", KINDS)
def test_search_eval_on_the_sample(sample: V8Catalog, kind: str) -> None:
    rep = evaluate_search(sample, make_engine(sample.products, kind))
    assert rep.tasks == len(sample.tasks) == 10
    for row in rep.rows:
        values = [row.recall_at_1, row.recall_at_20, row.recall_at_150, row.mrr_at_150]
        assert all(0.0 <= v <= 1.0 for v in values)
        assert row.recall_at_1 <= row.recall_at_20 <= row.recall_at_150
        assert row.recall_at_150 == 1.0  # every gold product is retrieved on 12 products
    assert rep.gold_ranks[3538] == (1, 1) and rep.gold_ranks[5102] == (1, 1)


def test_search_eval_on_chosen_tasks(sample: V8Catalog) -> None:
    rep = evaluate_search(sample, make_engine(sample.products), [3538])
    assert rep.tasks == 1 and rep.simple.recall_at_1 == 1.0


@needs_sample
def test_cli_prints_the_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["search-eval", "--profile", "shopsim-v8", "--data", str(SAMPLE)]) == 0
    out = capsys.readouterr().out
    assert "Recall@1" in out and "MRR@150" in out and "instruction_simple" in out and "100.00%" in out
    assert main(["search-eval", "--data", str(SAMPLE.parent), "--goals", "task:3538", "--engine", "fts5", "--json"]) == 0
    rep = json.loads(capsys.readouterr().out)
    assert rep["tasks"] == 1 and rep["engine"] == "fts5" and rep["full"]["recall_at_1"] == 1.0


@needs_sample
def test_cli_errors_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["search-eval", "--data", str(tmp_path / "nope.json")]) == 2
    assert main(["search-eval", "--profile", "webshop", "--data", str(SAMPLE)]) == 2
    assert main(["search-eval", "--data", str(tmp_path)]) == 2  # a folder without a products file
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 3 and all(line.startswith("shopsim: error: ") for line in err)
    assert "search-eval is for the shopsim-v8 profile" in err[1]
