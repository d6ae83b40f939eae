"""``benchmarks/real_pages.py``: shop families, the shared scorer's accuracy, parse-time percentiles."""

from __future__ import annotations

import shutil
from pathlib import Path
from types import ModuleType

import pytest
from conftest import REAL_PAGES, SCORER, load_file, needs_shared

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "real_pages.py"


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    return load_file(BENCH, "real_pages_benchmark")


@pytest.mark.parametrize(("site", "shop", "family"), [
    ("amazon", "amazon.co.jp", "amazon"), ("ebay", None, "ebay"), ("other", "jd.com", "chinese"),
    ("other", "taobao", "chinese"), ("other", "tw.buy.yahoo.com", "chinese"), ("other", "item.tmall.com", "chinese"),
    ("other", "rakuten.co.jp", "japanese/korean"), ("other", "www.coupang.com", "japanese/korean"),
    ("other", "paypayfleamarket.yahoo.co.jp", "japanese/korean"), ("other", "carousell.sg", "other asian"),
    ("other", "kabum.com.br", "latin american"), ("other", "shopify:www.nobodyschild.com", "other western"),
    ("other", "zalando.de", "other western"), ("other", None, "other western"),
])
def test_shop_families(bench: ModuleType, site: str, shop: str | None, family: str) -> None:
    assert bench.family(site, shop) == family


def test_without_the_scorer_accuracy_is_skipped_with_a_line(bench: ModuleType, tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    page = tmp_path / "pages" / "other" / "item" / "cup.html"
    page.parent.mkdir(parents=True)
    page.write_text('<html><head><script type="application/ld+json">{"@type":"Product","name":"保温杯","sku":"1",'
                    '"offers":{"price":"59","priceCurrency":"CNY"}}</script></head><body><h1>保温杯</h1></body></html>',
                    encoding="utf-8")
    code = bench.main(["--pages", str(tmp_path / "pages"), "--runs", "1", "--scorer", str(tmp_path / "none.py")])
    out = capsys.readouterr().out
    assert code in (0, 2) and "accuracy: skipped" in out and "cup" in out
    assert "other western" in out and "parse time p95" in out


@needs_shared
def test_accuracy_comes_from_the_shared_scorer(bench: ModuleType, tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    """A page copied into a temporary folder at test time (never into the repository) scores as graders see it."""
    name = "webshop-mock_item_2022"
    target = tmp_path / "amazon" / "item"
    target.mkdir(parents=True)
    for suffix in (".html", ".expected.json"):
        shutil.copy(REAL_PAGES / "amazon" / "item" / f"{name}{suffix}", target / f"{name}{suffix}")
    bench.main(["--pages", str(tmp_path), "--runs", "1", "--scorer", str(SCORER), "--json", str(tmp_path / "r.json")])
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if line.startswith("amazon") and name in line)
    assert " 1.000 " in row and "accuracy: skipped" not in out
