"""Hostile data files: every malformed catalog, goal or price file is one DataError line, never a traceback.

Explicit cases (issue 9's list and a few more) run through the Python API and through the CLI, one
process a command (exit 2, one ``shopsim: error:`` line on stderr, no traceback); hypothesis then
writes random malformed variants of small valid files (random JSON values at random places,
truncations, random bytes, wrong top-level types) and checks the loaders either load them or
raise DataError. The valid files are cut from the bundled catalogs, so no shared data is needed.
"""

from __future__ import annotations

import copy
import gzip
import json
import math
import os
import subprocess
import sys
import tempfile
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shopsim.errors import DataError
from shopsim.simsite.catalog import default_catalog_dir
from shopsim.simsite.datafiles import find_catalog_files
from shopsim.simsite.goals import load_goal_file, load_price_file
from shopsim.simsite.loader import DataWarning, load_products
from shopsim.simsite.records import parse_pricing
from shopsim.simsite.shop import Shop, ShopConfig
from shopsim.simsite.v8.catalog import default_v8_catalog
from shopsim.simsite.v8.records import load_v8_catalog, read_v8_json

pytestmark = pytest.mark.slow  # a costly module fixture, or every test is long

ITEMS, ATTRS, HUMAN, REVIEWS = ("items_shuffle_t.json", "items_ins_v2_t.json", "items_human_ins_t.json",
                                "reviews_t.json")
FILES = (ITEMS, ATTRS, HUMAN, REVIEWS)
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# ---- valid base files ------------------------------------------------------------------------------
def _webshop_base() -> dict[str, Any]:
    """Six bundled products in WebShop's four files: instructions, options, human goals and reviews."""
    src = default_catalog_dir()
    items = json.loads((src / "shop_items.json").read_text(encoding="utf-8"))
    attrs = json.loads((src / "shop_attributes.json").read_text(encoding="utf-8"))
    human = json.loads((src / "shop_human_instructions.json").read_text(encoding="utf-8"))
    reviews = json.loads((src / "shop_reviews.json").read_text(encoding="utf-8"))
    reviewed = {r["asin"] for r in reviews if r["reviews"]}
    picked = [p for p in items if p["asin"] in human][:1]
    picked += [p for p in items if "instruction" in attrs.get(p["asin"], {}) and p["customization_options"]
               and p["asin"] in reviewed and p not in picked][:3]
    picked += [p for p in items if p not in picked and isinstance(p["small_description"], list)][:2]
    asins = [p["asin"] for p in picked]
    return {
        ITEMS: picked,
        ATTRS: {a: attrs[a] for a in asins if a in attrs},
        HUMAN: {a: human[a] for a in asins if a in human},
        REVIEWS: [r for r in reviews if r["asin"] in asins],
    }


BASE = _webshop_base()
BASE_TEXT = {name: json.dumps(doc) for name, doc in BASE.items()}
ASIN0 = BASE[ITEMS][0]["asin"]


def _write_webshop(folder: Path, docs: dict[str, Any] | None = None, raw: dict[str, bytes] | None = None) -> Path:
    """The four files in ``folder``: ``raw`` bytes where given, else ``docs`` (default: the valid base)."""
    folder.mkdir(parents=True, exist_ok=True)
    for name in FILES:
        if raw and name in raw:
            (folder / name).write_bytes(raw[name])
        elif docs is not None and name in docs:
            (folder / name).write_text(json.dumps(docs[name]), encoding="utf-8")
        else:
            (folder / name).write_text(BASE_TEXT[name], encoding="utf-8")
    return folder


def _v8_base() -> list[dict[str, Any]]:
    """Eight bundled v8 products, most with tasks (some with personas)."""
    data, _ = read_v8_json(default_v8_catalog())
    return [p for p in data if p.get("instructions")][:6] + [p for p in data if not p.get("instructions")][:2]


V8_BASE = _v8_base()


# ---- explicit cases --------------------------------------------------------------------------------
def _docs(edit: Callable[[dict[str, Any]], None]) -> Callable[[Path], None]:
    """A case that edits the parsed base files."""
    def make(folder: Path) -> None:
        docs = copy.deepcopy(BASE)
        edit(docs)
        _write_webshop(folder, docs)
    return make


def _text(name: str, old: str, new: str) -> Callable[[Path], None]:
    """A case that rewrites the text of one base file (for what ``json.dumps`` cannot write, like 1e999)."""
    def make(folder: Path) -> None:
        assert old in BASE_TEXT[name]
        _write_webshop(folder, raw={name: BASE_TEXT[name].replace(old, new, 1).encode("utf-8")})
    return make


def _raw(name: str, data: bytes) -> Callable[[Path], None]:
    return lambda folder: _write_webshop(folder, raw={name: data})


def _folder_instead_of(name: str) -> Callable[[Path], None]:
    def make(folder: Path) -> None:
        _write_webshop(folder)
        (folder / name).unlink()
        (folder / name).mkdir()
    return make


def _set(name: str, index: int | str, field: str, value: Any) -> Callable[[Path], None]:
    return _docs(lambda d: d[name][index].__setitem__(field, value))


def _latin1_items(folder: Path) -> None:
    """A product name starting with Latin-1 ``é`` (the lone byte 0xE9): once a UnicodeDecodeError traceback."""
    _write_webshop(folder, raw={ITEMS: BASE_TEXT[ITEMS].encode().replace(b'"name": "', b'"name": "\xe9', 1)})


_PRICING0 = json.dumps(BASE[ITEMS][0]["pricing"])
_SCORE0 = '"score": ' + json.dumps(BASE[REVIEWS][0]["reviews"][0]["score"])

_ASIN1 = BASE[ITEMS][1]["asin"]

#: (id, how to write the broken folder, fragments the one-line error must hold, also run through the CLI)
CASES: list[tuple[str, Callable[[Path], None], list[str], bool]] = [
    # issue 9's list
    ("attributes-file-is-a-list", _docs(lambda d: d.__setitem__(ATTRS, list(d[ATTRS].values()))),
     [ATTRS, "expected a JSON object", "got a list"], True),
    ("items-not-utf8", _latin1_items, [ITEMS, "not UTF-8", "0xe9"], True),
    ("negative-price", _set(ITEMS, 0, "pricing", "$-5.00"),
     [ITEMS, f"record 0 (asin {ASIN0})", "'pricing'", "negative"], True),
    ("reviews-asin-is-a-number", _set(REVIEWS, 0, "asin", 5), [REVIEWS, "record 0", "'asin'", "got a number"], True),
    ("small-description-object", _set(ITEMS, 1, "small_description", {"a": 1}),
     [ITEMS, "record 1", "'small_description'"], True),
    ("items-truncated", _raw(ITEMS, BASE_TEXT[ITEMS].encode()[: len(BASE_TEXT[ITEMS]) // 2]),
     [ITEMS, "not valid JSON"], True),
    ("items-empty", _raw(ITEMS, b""), [ITEMS, "empty file"], True),
    ("attributes-file-is-a-folder", _folder_instead_of(ATTRS), [ATTRS, "cannot read"], True),
    ("price-1e999", _text(ITEMS, f'"pricing": {_PRICING0}', '"pricing": [1e999]'),
     [ITEMS, "record 0", "'pricing[0]'", "finite"], True),
    ("price-nan", _text(ITEMS, f'"pricing": {_PRICING0}', '"pricing": [NaN]'),
     [ITEMS, "record 0", "'pricing[0]'", "nan"], True),
    # more of the same kinds
    ("negative-price-before-dollar", _set(ITEMS, 1, "pricing", "-$5.00"), ["record 1", "'pricing'", "negative"], False),
    ("negative-price-in-range", _set(ITEMS, 1, "pricing", "$1.00 - $-5.00"), ["record 1", "'pricing'", "negative"],
     False),
    ("price-400-digits", _set(ITEMS, 0, "pricing", "$" + "9" * 400), ["record 0", "'pricing'", "too large"], False),
    ("review-score-1e999", _text(REVIEWS, _SCORE0, '"score": 1e999'), [REVIEWS, "record 0", "reviews[0]", "'score'"],
     False),
    ("review-score-nan", _text(REVIEWS, _SCORE0, '"score": NaN'), [REVIEWS, "'score'", "finite"], False),
    ("small-description-numbers", _set(ITEMS, 1, "small_description", ["ok", 7]),
     ["record 1", "'small_description[1]'"], False),
    ("items-file-is-a-folder", _folder_instead_of(ITEMS), [ITEMS, "cannot read"], False),
    ("items-asin-is-a-number", _set(ITEMS, 2, "asin", 12345), [ITEMS, "record 2", "'asin'"], False),
    ("items-not-a-list", _docs(lambda d: d.__setitem__(ITEMS, {"asin": "B0"})),
     [ITEMS, "expected a JSON list", "got an object"], False),
    ("items-record-not-an-object", _docs(lambda d: d[ITEMS].insert(0, "B000000000")),
     [ITEMS, "record 0", "expected an object"], False),
    ("name-missing", _docs(lambda d: d[ITEMS][1].pop("name")), ["record 1", "'name'", "missing"], False),
    ("options-a-list", _set(ITEMS, 1, "customization_options", ["red"]), ["record 1", "'customization_options'"], False),
    ("option-values-a-string", _set(ITEMS, 1, "customization_options", {"Color": "red"}),
     ["'customization_options.Color'"], False),
    ("option-image-a-number", _set(ITEMS, 1, "customization_options", {"Color": [{"value": "red", "image": 3}]}),
     ["'customization_options.Color[0].image'"], False),
    ("images-a-number", _set(ITEMS, 1, "images", 3), ["record 1", "'images'"], False),
    ("attribute-record-a-list", _docs(lambda d: d[ATTRS].__setitem__(ASIN0, ["soft"])),
     [ATTRS, f"record {ASIN0}", "expected an object"], False),
    ("instruction-attributes-a-string", _docs(lambda d: d[ATTRS][_ASIN1].__setitem__("instruction_attributes", "soft")),
     [ATTRS, f"record {_ASIN1}", "'instruction_attributes'"], False),
    ("instruction-without-attributes", _docs(lambda d: d[ATTRS][_ASIN1].pop("instruction_attributes")),
     [ATTRS, f"record {_ASIN1}", "'instruction_attributes'"], False),
    ("human-file-is-a-list", _docs(lambda d: d.__setitem__(HUMAN, [])), [HUMAN, "expected a JSON object"], False),
    ("reviews-not-a-list", _docs(lambda d: d[REVIEWS][0].__setitem__("reviews", "great")), [REVIEWS, "'reviews'"],
     False),
    ("integer-past-4300-digits", _text(ITEMS, '"page": ', '"page": ' + "7" * 5000 + ', "x": '),
     [ITEMS, "not valid JSON"], False),
    ("nested-past-recursion-limit", _raw(ATTRS, b"[" * 200_000), [ATTRS, "not valid JSON"], False),
    ("asin-with-a-line-break", _docs(lambda d: d[REVIEWS][0].update(asin="B0\nX", reviews="great")),
     [REVIEWS, r"(asin 'B0\nX')", "'reviews'"], False),
]


CLI_CASES = [c for c in CASES if c[3]]


def _assert_one_line_naming(message: str, fragments: list[str]) -> None:
    assert "\n" not in message and "\r" not in message, message
    for fragment in fragments:
        assert fragment in message, f"{fragment!r} not in {message!r}"


@pytest.mark.parametrize(("case", "make", "fragments"), [c[:3] for c in CASES], ids=[c[0] for c in CASES])
def test_malformed_webshop_files_raise_one_line_data_error(tmp_path: Path, case: str, make: Callable[[Path], None],
                                                           fragments: list[str]) -> None:
    make(tmp_path)
    with pytest.raises(DataError) as err:
        Shop.from_config(ShopConfig(data_dir=tmp_path))
    _assert_one_line_naming(str(err.value), fragments)


def test_valid_base_loads_in_both_goal_modes(tmp_path: Path) -> None:
    _write_webshop(tmp_path)
    assert len(Shop.from_config(ShopConfig(data_dir=tmp_path)).goals) > 0
    assert len(Shop.from_config(ShopConfig(data_dir=tmp_path, human_goals=True)).goals) > 0


def test_human_instruction_records_are_checked(tmp_path: Path) -> None:
    docs = copy.deepcopy(BASE)
    docs[HUMAN][ASIN0][0]["instruction_attributes"] = "soft"
    _write_webshop(tmp_path, docs)
    Shop.from_config(ShopConfig(data_dir=tmp_path))  # synthetic goals never read the human file's records
    with pytest.raises(DataError) as err:
        Shop.from_config(ShopConfig(data_dir=tmp_path, human_goals=True))
    _assert_one_line_naming(str(err.value), [HUMAN, f"record {ASIN0}[0]", "'instruction_attributes'"])


def test_duplicate_asins_first_wins_with_one_counting_warning(tmp_path: Path) -> None:
    docs = copy.deepcopy(BASE)
    first, second = docs[ITEMS][0], docs[ITEMS][1]
    docs[ITEMS] += [dict(first, name="Second copy"), dict(first, name="Third copy"), dict(second, name="Copy")]
    _write_webshop(tmp_path, docs)
    with pytest.warns(DataWarning) as caught:
        products = load_products(find_catalog_files(tmp_path))
    assert len(caught) == 1
    assert str(caught[0].message) == (f"{tmp_path / ITEMS}: 3 duplicate ASINs skipped (first wins): "
                                      f"{first['asin']}, {second['asin']}")
    assert len(products) == len(BASE[ITEMS]) and products[0].title == first["name"]


def test_price_rules_keep_webshop_semantics() -> None:
    assert parse_pricing("$19.99 - $27.99", "x") == ([19.99, 27.99], "$19.99 to $27.99")
    assert parse_pricing("$1e999", "x") == ([1999.0], "$1999.0")  # WebShop keeps digits and dots only
    assert parse_pricing(0, "x") == ([100.0], "$100.0")  # WebShop's `not pricing`
    for bad in ("$-5.00", "−$5", [-1.0], [math.inf], [True], ["x"], [10**400]):
        with pytest.raises(DataError, match="pricing"):
            parse_pricing(bad, "x")


# ---- goal and price files --------------------------------------------------------------------------
GOAL = {"asin": ASIN0, "instruction_text": "find me a chair", "attributes": ["soft"], "price_upper": 30.0,
        "goal_options": {"color": "red"}, "weight": 0.5}


@pytest.mark.parametrize(("text", "fragments"), [
    ('{"asin": 5, "instruction_text": "x"}\n', ["line 1", "'asin'"]),
    (json.dumps(GOAL) + "\n" + json.dumps({**GOAL, "price_upper": -3}) + "\n", ["line 2", "'price_upper'"]),
    (json.dumps(GOAL) + "\n" + json.dumps(GOAL).replace("30.0", "NaN") + "\n", ["line 2", "'price_upper'"]),
    (json.dumps(GOAL).replace("30.0", "1e999") + "\n", ["line 1", "'price_upper'"]),
    (json.dumps({**GOAL, "price_upper": "30"}) + "\n", ["line 1", "'price_upper'"]),
    (json.dumps({**GOAL, "weight": True}) + "\n", ["line 1", "'weight'"]),
    (json.dumps(GOAL)[:20] + "\n", ["line 1", "not valid JSON"]),
    ("[1, 2]\n", ["line 1", "expected an object"]),
    ("", ["no goals"]),
    ("\n\n", ["no goals"]),
])
def test_malformed_goal_files(tmp_path: Path, text: str, fragments: list[str]) -> None:
    path = tmp_path / "goals.jsonl"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(DataError) as err:
        load_goal_file(path)
    _assert_one_line_naming(str(err.value), ["goals.jsonl", *fragments])


def test_goal_file_not_utf8_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "goals.jsonl"
    path.write_bytes(json.dumps(GOAL).encode() + b"\n" + json.dumps(GOAL).replace("chair", "chaise \xe9").encode("latin-1"))
    with pytest.raises(DataError) as err:
        load_goal_file(path)
    _assert_one_line_naming(str(err.value), ["goals.jsonl", "line 2", "not UTF-8"])


@pytest.mark.parametrize(("text", "fragments"), [
    ('{"B0": -5.0}', ["record 'B0'", "'price'"]),
    ('{"B0": NaN}', ["record 'B0'", "nan"]),
    ('{"B0": 1e999}', ["record 'B0'", "inf"]),
    ('{"B0": true}', ["record 'B0'", "got a boolean"]),
    ('{"B0": "cheap"}', ["record 'B0'", "cheap"]),
    ('{"B0": null}', ["record 'B0'", "got null"]),
    ('[1.0]', ["expected an object"]),
    ("", ["empty file"]),
])
def test_malformed_price_files(tmp_path: Path, text: str, fragments: list[str]) -> None:
    path = tmp_path / "prices.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(DataError) as err:
        load_price_file(path)
    _assert_one_line_naming(str(err.value), ["prices.json", *fragments])


def test_price_file_numbers_and_numeric_strings_load(tmp_path: Path) -> None:
    path = tmp_path / "prices.json"
    path.write_text('{"B0": 12.5, "B1": "7", "B2": 0}', encoding="utf-8")
    assert load_price_file(path) == {"B0": 12.5, "B1": 7.0, "B2": 0.0}


# ---- v8 catalog ------------------------------------------------------------------------------------
def _v8_text(edit: Callable[[list[dict[str, Any]]], None] | None = None) -> str:
    docs = copy.deepcopy(V8_BASE)
    if edit:
        edit(docs)
    return json.dumps(docs, ensure_ascii=False)


_V8_GZ = gzip.compress(_v8_text().encode("utf-8"))
V8_CASES: list[tuple[str, bytes, str, list[str]]] = [
    ("not-utf8", _v8_text().encode("utf-8").replace(b'"title": "', b'"title": "\xe9', 1), "p.json", ["not UTF-8"]),
    ("truncated-gzip", _V8_GZ[: len(_V8_GZ) // 2], "p.json.gz", ["not a valid gzip"]),
    ("corrupt-deflate", _V8_GZ[:10] + b"\xff" * 64 + _V8_GZ[74:], "p.json.gz", ["not a valid gzip"]),
    ("integer-past-float-range", _v8_text(lambda d: d[0].__setitem__("pricing", 10**400)).encode(), "p.json",
     ["product 0", "'pricing'", "not a number"]),
    ("price-1e999", _v8_text(lambda d: d[0].__setitem__("pricing", "__X__")).replace('"__X__"', "1e999").encode(),
     "p.json", ["product 0", "'pricing'", "finite"]),
    ("price-nan", _v8_text(lambda d: d[0].__setitem__("pricing", "__X__")).replace('"__X__"', "[1, NaN]").encode(),
     "p.json", ["product 0", "'pricing'", "finite"]),
    ("negative-price", _v8_text(lambda d: d[0].__setitem__("pricing", -5)).encode(), "p.json", ["'pricing'", "-5"]),
    ("task-id-superscript", _v8_text(lambda d: d[0]["instructions"][0].__setitem__("task_id", "²")).encode(),
     "p.json", ["instructions[0]", "'task_id'"]),
    ("option-value-true", _v8_text(lambda d: d[0]["instructions"][0].__setitem__("instruction_options", [True])).encode(),
     "p.json", ["instructions[0]", "'instruction_options'"]),
    ("small-description-number", _v8_text(lambda d: d[1].__setitem__("small_description", 5)).encode(), "p.json",
     ["product 1", "'small_description'"]),
    ("asin-a-number-list", _v8_text(lambda d: d[1].__setitem__("asin", [5])).encode(), "p.json", ["product 1", "'asin'"]),
    ("persona-a-list", _v8_text(lambda d: d[0].__setitem__("user_persona", ["x"])).encode(), "p.json", ["'user_persona'"]),
    ("top-level-object", b'{"products": []}', "p.json", ["expected a JSON array"]),
    ("empty", b"", "p.json", ["not valid JSON"]),
]


V8_CLI_CASES = [c for c in V8_CASES if c[0] == "corrupt-deflate"]  # once a zlib.error traceback


@pytest.mark.parametrize(("case", "data", "name", "fragments"), V8_CASES, ids=[c[0] for c in V8_CASES])
def test_malformed_v8_catalogs_raise_one_line_data_error(tmp_path: Path, case: str, data: bytes, name: str,
                                                         fragments: list[str]) -> None:
    path = tmp_path / name
    path.write_bytes(data)
    with pytest.raises(DataError) as err:
        load_v8_catalog(path)
    _assert_one_line_naming(str(err.value), [name, *fragments])


def test_valid_v8_base_loads(tmp_path: Path) -> None:
    path = tmp_path / "p.json"
    path.write_text(json.dumps(V8_BASE), encoding="utf-8")
    assert len(load_v8_catalog(path).products) == len(V8_BASE)


def test_v8_folder_in_place_of_file(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="cannot read"):
        load_v8_catalog(tmp_path)


# ---- the CLI ---------------------------------------------------------------------------------------
#: Runs each ``shopsim`` command line of a job list in its own process, forked from one interpreter that
#: has imported the CLI once (a cold start costs about 1.5 s of CPU a command): stdout and stderr go to
#: ``<case>.out``/``<case>.err``, and the exit status is main()'s, or 1 after a traceback, as with the
#: console script. Prints ``{case: exit status}``.
_FORKED_CLI = """
import json, os, sys, traceback
from shopsim.cli import build_parser, main

build_parser()  # imports every command module (and the agents behind them) before the first fork
jobs, folder = json.loads(sys.argv[1]), sys.argv[2]
codes = {}
for case, argv in jobs.items():
    sys.stdout.flush()
    pid = os.fork()
    if pid == 0:
        for fd, suffix in ((1, ".out"), (2, ".err")):
            os.dup2(os.open(os.path.join(folder, case + suffix), os.O_WRONLY | os.O_CREAT | os.O_TRUNC), fd)
        sys.stdout, sys.stderr = open(1, "w", closefd=False), open(2, "w", closefd=False)
        try:
            code = main(argv)
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else int(exc.code is not None)
        except BaseException:
            traceback.print_exc()
            code = 1
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    codes[case] = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
print(json.dumps(codes))
"""


def _shopsim() -> list[str]:
    script = Path(sys.executable).with_name("shopsim")
    return [str(script)] if script.exists() else [sys.executable, "-m", "shopsim.cli"]


@pytest.fixture(scope="module")
def cli_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, subprocess.CompletedProcess]]:
    """Each CLI case's folder and finished ``shopsim run``.

    The duplicate-ASIN run and the first error case go through the real console script; the other
    error cases through forked processes of one warm interpreter (``_FORKED_CLI``), all at once.
    """
    root = tmp_path_factory.mktemp("cli")
    jobs: dict[str, tuple[Path, list[str]]] = {}
    for case, make, _, _ in CLI_CASES:
        make(root / case)
        jobs[case] = (root / case, ["run", "--data", str(root / case), "--goals", "0:1"])
    for case, data, name, _ in V8_CLI_CASES:
        (root / f"v8-{case}").mkdir()
        (root / f"v8-{case}" / name).write_bytes(data)
        jobs[f"v8-{case}"] = (root / f"v8-{case}", ["run", "--profile", "shopsim-v8", "--data",
                                                    str(root / f"v8-{case}" / name), "--goals", "0:1"])
    docs = copy.deepcopy(BASE)
    docs[ITEMS].append(dict(docs[ITEMS][1]))
    _write_webshop(root / "duplicates", docs)
    jobs["duplicates"] = (root / "duplicates", ["run", "--data", str(root / "duplicates"), "--goals", "0:1", "--json"])

    real = ["duplicates", CLI_CASES[0][0]] if hasattr(os, "fork") else list(jobs)
    procs = {case: subprocess.Popen([*_shopsim(), *jobs[case][1]], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                    text=True) for case in real}
    forked = {case: argv for case, (_, argv) in jobs.items() if case not in procs}
    codes: dict[str, int] = {}
    if forked:
        driver = subprocess.run([sys.executable, "-c", _FORKED_CLI, json.dumps(forked), str(root)],
                                capture_output=True, text=True, timeout=300, check=True)
        codes = json.loads(driver.stdout)
    out = {}
    for case, (folder, argv) in jobs.items():
        if case in procs:
            stdout, stderr = procs[case].communicate(timeout=300)
            result = subprocess.CompletedProcess(argv, procs[case].returncode, stdout, stderr)
        else:
            result = subprocess.CompletedProcess(argv, codes[case], (root / f"{case}.out").read_text(),
                                                 (root / f"{case}.err").read_text())
        out[case] = (folder, result)
    return out


_CLI_EXPECT = [(c[0], c[2]) for c in CLI_CASES] + [(f"v8-{c[0]}", [c[2], *c[3]]) for c in V8_CLI_CASES]


@pytest.mark.parametrize(("case", "fragments"), _CLI_EXPECT, ids=[c[0] for c in _CLI_EXPECT])
def test_cli_prints_one_error_line_and_exits_2(cli_runs: dict[str, tuple[Path, subprocess.CompletedProcess]],
                                               case: str, fragments: list[str]) -> None:
    _, result = cli_runs[case]
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("shopsim: error: "), result.stderr
    _assert_one_line_naming(lines[0], fragments)


def test_cli_duplicate_asins_warn_in_one_line_and_run(
        cli_runs: dict[str, tuple[Path, subprocess.CompletedProcess]]) -> None:
    folder, result = cli_runs["duplicates"]
    assert result.returncode == 0, result.stderr
    assert result.stderr.splitlines() == [f"shopsim: warning: {folder / ITEMS}: 1 duplicate ASIN skipped (first wins): "
                                          f"{BASE[ITEMS][1]['asin']}"]
    assert json.loads(result.stdout)["catalog_products"] == len(BASE[ITEMS])


# ---- hypothesis: random malformed variants ---------------------------------------------------------
_scalars = (st.none() | st.booleans() | st.integers(min_value=-(10**30), max_value=10**30)
            | st.sampled_from([10**400, -(10**400), 0, -1])
            | st.floats(allow_nan=True, allow_infinity=True) | st.text(max_size=12)
            | st.sampled_from(["", "$-5.00", "$1e999", "$", "$1 - $2", "nan", "B000000000X", "−$3", "²", "\n"]))
json_values = st.recursive(_scalars, lambda kids: st.lists(kids, max_size=4)
                           | st.dictionaries(st.text(max_size=8), kids, max_size=4), max_leaves=8)


def _mutate_json(data: st.DataObject, doc: Any) -> Any:
    """Walk a random path into ``doc`` and replace, delete or add there (the root: a wrong top-level type)."""
    doc = copy.deepcopy(doc)
    parent: Any = None
    key: Any = None
    node = doc
    for _ in range(data.draw(st.integers(0, 5), label="depth")):
        if isinstance(node, dict) and node:
            k = data.draw(st.sampled_from(sorted(node)), label="key")
        elif isinstance(node, list) and node:
            k = data.draw(st.integers(0, len(node) - 1), label="index")
        else:
            break
        parent, key, node = node, k, node[k]
    action = data.draw(st.sampled_from(["replace", "delete", "add"]), label="action")
    if parent is None:
        return data.draw(json_values, label="top level")
    if action == "delete":
        del parent[key]
    elif action == "add" and isinstance(node, dict):
        node[data.draw(st.text(max_size=20), label="new key")] = data.draw(json_values, label="new value")
    elif action == "add" and isinstance(node, list):
        node.insert(data.draw(st.integers(0, len(node)), label="at"), data.draw(json_values, label="new value"))
    else:
        parent[key] = data.draw(json_values, label="value")
    return doc


def _mutate_bytes(data: st.DataObject, raw: bytes) -> bytes:
    """Truncate, overwrite or insert random bytes, or replace the whole file with random bytes."""
    kind = data.draw(st.sampled_from(["truncate", "overwrite", "insert", "random"]), label="bytes")
    if kind == "random":
        return data.draw(st.binary(max_size=64), label="file")
    at = data.draw(st.integers(0, len(raw)), label="at")
    if kind == "truncate":
        return raw[:at]
    chunk = data.draw(st.binary(min_size=1, max_size=8), label="chunk")
    return raw[:at] + chunk + raw[at + (len(chunk) if kind == "overwrite" else 0):]


def _check_data_error(err: DataError, folder: Path) -> None:
    message = str(err)
    assert "\n" not in message and "\r" not in message, message
    assert str(folder) in message, message  # names a file in the folder (or the folder)


@SETTINGS
@given(data=st.data())
def test_webshop_loader_random_malformed_files(data: st.DataObject) -> None:
    name = data.draw(st.sampled_from(FILES), label="file")
    if data.draw(st.booleans(), label="as JSON"):
        raw = json.dumps(_mutate_json(data, BASE[name])).encode("utf-8")
    else:
        raw = _mutate_bytes(data, BASE_TEXT[name].encode("utf-8"))
    human = data.draw(st.booleans(), label="human goals")
    with tempfile.TemporaryDirectory() as tmp:
        folder = _write_webshop(Path(tmp), raw={name: raw})
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DataWarning)
                shop = Shop.from_config(ShopConfig(data_dir=folder, human_goals=human))
        except DataError as err:
            _check_data_error(err, folder)
        else:
            assert shop.products and shop.goals


@SETTINGS
@given(data=st.data(), gz=st.booleans())
def test_v8_loader_random_malformed_files(data: st.DataObject, gz: bool) -> None:
    if data.draw(st.booleans(), label="as JSON"):
        raw = json.dumps(_mutate_json(data, V8_BASE), ensure_ascii=False).encode("utf-8")
        raw = gzip.compress(raw, mtime=0) if gz else raw
    else:
        text = json.dumps(V8_BASE, ensure_ascii=False).encode("utf-8")
        raw = _mutate_bytes(data, gzip.compress(text, mtime=0) if gz else text)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / ("products.json.gz" if gz else "products.json")
        path.write_bytes(raw)
        try:
            catalog = load_v8_catalog(path)
        except DataError as err:
            _check_data_error(err, Path(tmp))
        else:
            assert catalog.products


_GOAL_LINES = [json.dumps({**GOAL, "index": i}) for i in range(3)]
_PRICES = {ASIN0: 12.5, "B000000002": 100.0}


@settings(max_examples=100, deadline=None)
@given(data=st.data())
def test_goal_and_price_files_random_malformed(data: st.DataObject) -> None:
    if data.draw(st.booleans(), label="as JSON"):
        lines = list(_GOAL_LINES)
        k = data.draw(st.integers(0, len(lines) - 1), label="line")
        lines[k] = json.dumps(_mutate_json(data, json.loads(lines[k])))
        goals = "\n".join(lines).encode("utf-8")
        prices = json.dumps(_mutate_json(data, _PRICES)).encode("utf-8")
    else:
        goals = _mutate_bytes(data, "\n".join(_GOAL_LINES).encode("utf-8"))
        prices = _mutate_bytes(data, json.dumps(_PRICES).encode("utf-8"))
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "g.jsonl").write_bytes(goals)
        (Path(tmp) / "p.json").write_bytes(prices)
        for load, name in ((load_goal_file, "g.jsonl"), (load_price_file, "p.json")):
            try:
                load(Path(tmp) / name)
            except DataError as err:
                _check_data_error(err, Path(tmp))
