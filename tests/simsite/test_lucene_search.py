"""WebShop's Lucene search without Java: tokenizer, stemmer, norms, scores and the golden rankings."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shopsim.simsite.lucene import LuceneBM25, analyze
from shopsim.simsite.lucene.bm25 import anserini_scores, byte4_to_int, int_to_byte4
from shopsim.simsite.lucene.porter import porter_stem
from shopsim.simsite.lucene.tokenizer import MAX_TOKEN_LENGTH, longest_match, standard_tokens
from shopsim.simsite.search import LuceneEngine
from shopsim.simsite.shop import Shop
from tests.conftest import GOLDEN, SMALL, needs_golden, read_jsonl

pytestmark = pytest.mark.slow  # a costly module fixture, or every test is long

RANKINGS = GOLDEN / "search_rankings_lucene.jsonl"


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        ("Size: 28\" x 28\", and price", ["Size", "28", "x", "28", "and", "price"]),
        ("don't e.g. U.S.A. 3.5mm 1,000 $19.99", ["don't", "e.g", "U.S.A", "3.5mm", "1,000", "19.99"]),
        ("x-ray snake_case __init__ _ a.5 5.a", ["x", "ray", "snake_case", "__init__", "a", "5", "5", "a"]),
        ("color:black size:s:m 100cm/39.37''", ["color:black", "size:s:m", "100cm", "39.37"]),
        ("women’s décor naïve", ["women’s", "décor", "naïve"]),
        ("锅巴 カタカナ ひら ภาษาไทย 한국어", ["锅", "巴", "カタカナ", "ひ", "ら", "ภาษาไทย", "한국어"]),
        ("❤❤✿★☞ ™ ® © ● ☆ ✔️ 1️⃣ #️⃣", ["❤", "❤", "★", "☞", "™", "®", "©", "✔️", "1️⃣", "#️⃣"]),
        ("👨\u200d💼 👍🏽 🇺🇸 👨\u200d x", ["👨\u200d💼", "👍🏽", "🇺🇸", "👨\u200d", "x"]),
        ("", []),
    ],
)
def test_standard_tokenizer_follows_lucenes_word_break_grammar(text: str, tokens: list[str]) -> None:
    assert standard_tokens(text) == tokens


def test_tokens_longer_than_255_characters_are_cut_into_pieces() -> None:
    assert standard_tokens("a" * 600 + " b") == ["a" * MAX_TOKEN_LENGTH] * 2 + ["a" * 90, "b"]


_TRICKY = "aZé9_ .,;:'’\"-/x1٣·\u0301\u00ad\u200d\ufe0f\u20e3❤★👍🏽🇺🇸锅カひภ한א"


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet=_TRICKY, max_size=40))
def test_fast_tokenizer_equals_the_longest_match_reference(text: str) -> None:
    """Python's regex engines take the first match; JFlex the longest. Our patterns agree with it."""
    assert standard_tokens(text) == longest_match().findall(text)


@pytest.mark.parametrize(
    ("word", "stem"),
    [
        ("caresses", "caress"), ("ponies", "poni"), ("cats", "cat"), ("feed", "feed"), ("agreed", "agre"),
        ("plastered", "plaster"), ("motoring", "motor"), ("sing", "sing"), ("conflated", "conflat"),
        ("troubled", "troubl"), ("sized", "size"), ("hopping", "hop"), ("falling", "fall"), ("hissing", "hiss"),
        ("filing", "file"), ("happy", "happi"), ("sky", "sky"), ("relational", "relat"), ("conditional", "condit"),
        ("rational", "ration"), ("digitizer", "digit"), ("operator", "oper"), ("feudalism", "feudal"),
        ("decisiveness", "decis"), ("hopefulness", "hope"), ("formaliti", "formal"), ("sensitiviti", "sensit"),
        ("triplicate", "triplic"), ("formative", "form"), ("electrical", "electr"), ("goodness", "good"),
        ("revival", "reviv"), ("allowance", "allow"), ("inference", "infer"), ("airliner", "airlin"),
        ("adjustable", "adjust"), ("irritant", "irrit"), ("replacement", "replac"), ("dependent", "depend"),
        ("adoption", "adopt"), ("communism", "commun"), ("effective", "effect"), ("probate", "probat"),
        ("cease", "ceas"), ("controll", "control"), ("roll", "roll"), ("washable", "washabl"), ("pillows", "pillow"),
        # Lucene's (Porter's reference code's) departures from the 1980 paper:
        ("possibly", "possibl"), ("technology", "technolog"), ("as", "as"), ("is", "is"), ("1990s", "1990"),
    ],
)
def test_porter_stemmer_as_lucene_applies_it(word: str, stem: str) -> None:
    assert porter_stem(word) == stem


def test_analyzer_drops_possessives_and_stop_words_then_stems() -> None:
    assert analyze("The Women's SHOES, and a Man’s batteries") == ["women", "shoe", "man", "batteri"]


def test_document_lengths_keep_four_significant_bits() -> None:
    assert [byte4_to_int(int_to_byte4(n)) for n in (0, 7, 23, 24, 31, 32, 100, 343, 1000)] == [
        0, 7, 23, 24, 31, 32, 96, 312, 984]
    lengths = [byte4_to_int(int_to_byte4(n)) for n in range(5000)]
    assert lengths == sorted(lengths) and all(m <= n for n, m in enumerate(lengths))


def test_ties_go_to_the_smaller_id_and_repeated_query_terms_weigh_more() -> None:
    idx = LuceneBM25(["B3", "B1", "B2", "B4"], ["red shoe", "red shoe", "red shoe", "blue hat"])
    assert [a for a, _ in idx.scored("red shoe", 3)] == ["B1", "B2", "B3"]
    assert idx.scored("green", 5) == [] and idx.scored("", 5) == []
    two = LuceneBM25(["A", "B"], ["red red", "shoe"])
    once, twice = dict(two.scored("red shoe", 2)), dict(two.scored("red red shoe", 2))
    assert twice["A"] > once["A"] and twice["B"] == once["B"]


def test_anserini_rounds_and_separates_ties() -> None:
    expected = [float(np.float32(x)) for x in (14.3372, 9.0, 8.999999, 8.999998, 7.5)]
    assert anserini_scores([14.33724, 9.00004, 9.00001, 9.0, 7.5]) == expected


@pytest.fixture(scope="module")
def webshop_engine() -> LuceneEngine:
    if not (SMALL / "items_shuffle_1000.json").exists():
        pytest.skip(f"WebShop's small data set is not at {SMALL}")
    return LuceneEngine(Shop.load(SMALL, num_products=1000).product_list)


@needs_golden
def test_every_golden_query_gets_webshops_ranking_and_scores(webshop_engine: LuceneEngine) -> None:
    """All 2,500 queries: WebShop's top 50 in order, and Pyserini's scores to five decimals."""
    rows = read_jsonl(RANKINGS)
    assert len(rows) == 2500
    for row in rows:
        hits = webshop_engine.scored(row["query"].lower(), 50)
        expected = [tuple(r) for r in row["results"]]
        got = [(a, round(s, 5)) for (a, _), s in zip(hits, anserini_scores([s for _, s in hits]), strict=True)]
        assert got == expected, row["query"]


def _shopsim(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "shopsim.cli", *args], capture_output=True, text=True, timeout=120)


@needs_golden
def test_search_command_writes_the_golden_file_and_compares(tmp_path: Path) -> None:
    out = tmp_path / "ours.jsonl"
    done = _shopsim("search", "--data", str(SMALL), "--queries", str(RANKINGS), "--out", str(out),
                    "--compare", str(RANKINGS))
    assert done.returncode == 0, done.stderr
    assert "identical rankings    2500/2500 (100.00%)" in done.stdout
    assert [json.loads(line)["results"] for line in out.read_text().splitlines()] == [
        r["results"] for r in read_jsonl(RANKINGS)]
    other = _shopsim("search", "--data", str(SMALL), "--engine", "bm25", "--queries", str(RANKINGS),
                     "--out", str(tmp_path / "bm25.jsonl"), "--compare", str(RANKINGS))
    assert other.returncode == 1 and "same top-10 in order" in other.stdout


def test_search_command_prints_a_table_and_fails_cleanly(tmp_path: Path) -> None:
    table = _shopsim("search", "red running shoes")
    assert table.returncode == 0 and table.stdout.startswith("shopsim search: ")
    assert table.stdout.splitlines()[1].split()[0] == "1"
    queries = tmp_path / "v8.jsonl"
    queries.write_text(json.dumps({"query": "小吃车"}, ensure_ascii=False) + "\n")
    v8 = _shopsim("search", "--profile", "shopsim-v8", "--queries", str(queries), "--k", "3")
    line = json.loads(v8.stdout.splitlines()[0])
    assert v8.returncode == 0 and line["query"] == "小吃车" and len(line["results"]) == 3
    assert [s for _, s in line["results"]] == sorted((s for _, s in line["results"]), reverse=True)
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"query": "ok"}\n{"q": 1}\n')
    for args, message in [(["--queries", str(bad)], "bad.jsonl:2: expected an object"),
                          (["--queries", str(tmp_path / "none.jsonl")], "no such file"),
                          ([], "give one QUERY or --queries"),
                          (["x", "--engine", "lucen"], "Did you mean: `lucene`")]:
        done = _shopsim("search", *args)
        assert done.returncode == 2 and message in done.stderr and "Traceback" not in done.stderr
        assert len(done.stderr.strip().splitlines()) == 1
