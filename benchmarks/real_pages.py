"""Every saved real page through the translator registry: accuracy per shop family and parse time.

Run: ``python benchmarks/real_pages.py [--runs N] [--pages DIR] [--scorer FILE]``. Reads the pages
of ``<repo>/../shared/fixtures/real`` (``<site>/<kind>/<name>.html``, not redistributed) and
translates each with :func:`shopsim.translators.registry.translate_html`, as ``shopsim translate``
does. Prints one row per page (family, kind, size, median parse time, field accuracy), then per
family and overall: accuracy, p50/p95 and the largest page's time, against the targets (p95 under
30 ms, the largest page under 200 ms). It says which build of the guard's tag scan ran (compiled by
mypyc, or pure Python: ``shopsim --version``) and, beside a compiled one, times the pure scan of each
page in the same process (column ``pure``).

Accuracy is the shared scorer's own (``../shared/tools/score_translation.py``, imported from its
file), so the numbers match what graders see; without it the accuracy columns are skipped with a
line saying so.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

from selectolax.lexbor import LexborHTMLParser

from shopsim.translators.answer_key import to_annotation_json
from shopsim.translators.guard import forget_verdicts, scan_markup
from shopsim.translators.registry import read_page_file, translate_html
from shopsim.translators.scan_build import pure_modules, scan_build

#: The pure-Python scan beside a compiled one, to time both in this process (None: the pure one runs anyway).
PURE_SCAN = pure_modules()["guard"].scan_markup if scan_build() == "compiled (mypyc)" else None

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
DEFAULT_PAGES = SHARED / "fixtures" / "real"
DEFAULT_SCORER = SHARED / "tools" / "score_translation.py"
P95_TARGET_MS, MAX_TARGET_MS = 30.0, 200.0

#: Shop families, as issue 22 reports them: a shop name or domain suffix -> family.
_FAMILIES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("chinese", ("jd.com", "1688.com", "taobao", "tmall", "aliexpress", "momoshop.com.tw", "tw.buy.yahoo.com",
                 ".cn", ".tw", ".hk")),
    ("japanese/korean", ("rakuten", "mercari", "coupang", "gmarket", ".jp", ".kr")),
    ("other asian", ("flipkart", ".sg", ".id", ".in", ".my", ".th", ".vn", ".ph")),
    ("latin american", ("mercadolibre", ".br", ".mx", ".ar", ".pe", ".co", ".cl")),
)


def family(site: str, shop: str | None) -> str:
    """A page's shop family: amazon and ebay (any country), then by the shop's name or domain."""
    if site in ("amazon", "ebay"):
        return site
    name = (shop or "").removeprefix("shopify:").lower()
    for fam, marks in _FAMILIES:
        if any(name.endswith(m) if m.startswith(".") else m in name for m in marks):
            return fam
    return "other western"


def load_scorer(path: Path) -> ModuleType | None:
    """The shared scorer module, or None when it is not there."""
    if not path.is_file():
        return None
    spec = importlib.util.spec_from_file_location("score_translation", path)
    if spec is None or spec.loader is None:
        return None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _page(path: Path, runs: int, scorer: ModuleType | None) -> dict[str, Any]:
    """One page: its family and kind, size, median parse time and (with the scorer) field accuracy."""
    key = path.with_name(path.stem + ".expected.json")
    expected = json.loads(key.read_text(encoding="utf-8")) if key.is_file() else None
    url = (expected or {}).get("url") or None
    html = read_page_file(path)
    wall, cpu, state = [], [], None
    for _ in range(runs):
        forget_verdicts()  # each run reads the page afresh, the guard's scan included
        t0, c0 = time.perf_counter(), time.process_time()
        state = translate_html(html, url)
        wall.append((time.perf_counter() - t0) * 1000)
        cpu.append((time.process_time() - c0) * 1000)
    assert state is not None
    guard_ms, lexbor_ms = cpu_ms(lambda: scan_markup(html), runs), cpu_ms(lambda: LexborHTMLParser(html), runs)
    pure_ms = cpu_ms(lambda: PURE_SCAN(html), runs) if PURE_SCAN is not None else guard_ms
    accuracy = None
    if scorer is not None and expected is not None:
        checks = scorer.score_page(expected, json.loads(json.dumps(to_annotation_json(state))))
        accuracy = sum(c["score"] for c in checks) / len(checks)
    site, kind = path.parent.parent.name, path.parent.name
    return {"name": path.stem, "site": site, "kind": kind, "family": family(site, (expected or {}).get("shop")),
            "kb": path.stat().st_size / 1024, "wall_ms": statistics.median(wall), "ms": statistics.median(cpu), "accuracy": accuracy,
            "read_as": state.page_type, "guard_ms": guard_ms, "pure_ms": pure_ms, "lexbor_ms": lexbor_ms}


def cpu_ms(work: Callable[[], object], runs: int) -> float:
    """Median CPU milliseconds of ``work`` over ``runs`` calls: one part of a page's first read, alone."""
    times = []
    for _ in range(runs):
        c0 = time.process_time()
        work()
        times.append((time.process_time() - c0) * 1000)
    return statistics.median(times)


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def _acc(rows: list[dict[str, Any]]) -> str:
    scores = [r["accuracy"] for r in rows if r["accuracy"] is not None]
    return f"{statistics.mean(scores):.3f}" if scores else "-"


def report(rows: list[dict[str, Any]], scored: bool) -> bool:
    """Print the per-page, per-family and overall tables; True when both time targets are met."""
    print(f"{'family':<16}{'kind':<8}{'KB':>7}{'cpu ms':>8}{'guard':>7}{'pure':>7}{'lexbor':>7}{'wall ms':>9}{'acc':>7}  "
          f"{'read as':<8} page")
    for r in sorted(rows, key=lambda r: (r["family"], r["kind"], r["name"])):
        acc = f"{r['accuracy']:.3f}" if r["accuracy"] is not None else "-"
        print(f"{r['family']:<16}{r['kind']:<8}{r['kb']:>7.0f}{r['ms']:>8.2f}{r['guard_ms']:>7.2f}{r['pure_ms']:>7.2f}{r['lexbor_ms']:>7.2f}"
              f"{r['wall_ms']:>9.2f}{acc:>7}  {r['read_as']:<8} {r['name']}")
    print()
    if not scored:
        print(f"accuracy: skipped (the shared scorer is not at {DEFAULT_SCORER}; give --scorer FILE)")
    print("parse times are CPU time per page (median of the runs), each a first read of the page: the guard's scan,"
          " one parse, the translator; wall time on a shared machine adds others' work")
    print(f"the guard's tag scan ran {scan_build()}; column 'pure' times the pure-Python scan of the same page"
          + (" in this process" if PURE_SCAN is not None else " (the same: it is the one that ran)"))
    print(f"{'family':<16}{'pages':>6}{'accuracy':>10}{'p50 ms':>9}{'p95 ms':>9}{'max ms':>9}")
    groups: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        groups.setdefault(r["family"], []).append(r)
    for name, part in sorted(groups.items()) + [("all", rows)]:
        ms = [r["ms"] for r in part]
        print(f"{name:<16}{len(part):>6}{_acc(part):>10}{_percentile(ms, 0.5):>9.2f}{_percentile(ms, 0.95):>9.2f}"
              f"{max(ms):>9.2f}")
    parts = {"guard scan": [r["guard_ms"] for r in rows], "pure scan": [r["pure_ms"] for r in rows],
             "lexbor parse": [r["lexbor_ms"] for r in rows],
             "the rest (translator)": [r["ms"] - r["guard_ms"] - r["lexbor_ms"] for r in rows]}
    print("where it goes, p50 / p95 over the pages: " + "; ".join(
        f"{k} {_percentile(v, 0.5):.1f} / {_percentile(v, 0.95):.1f} ms" for k, v in parts.items()))
    p95 = _percentile([r["ms"] for r in rows], 0.95)
    largest = max(rows, key=lambda r: r["kb"])
    p95_ok, max_ok = p95 < P95_TARGET_MS, largest["ms"] < MAX_TARGET_MS
    print(f"\nparse time p95 {p95:.2f} ms (target < {P95_TARGET_MS:g}: {'met' if p95_ok else 'MISSED'}); largest page "
          f"{largest['name']} ({largest['kb']:.0f} KB) {largest['ms']:.2f} ms (target < {MAX_TARGET_MS:g}: "
          f"{'met' if max_ok else 'MISSED'})")
    ok = p95_ok and max_ok
    return ok


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=5, help="parses per page (the median is reported)")
    ap.add_argument("--pages", type=Path, default=DEFAULT_PAGES, help="folder of <site>/<kind>/*.html")
    ap.add_argument("--scorer", type=Path, default=DEFAULT_SCORER, help="the shared score_translation.py")
    ap.add_argument("--json", type=Path, default=None, help="also write the per-page rows to this file")
    args = ap.parse_args(argv)
    if not args.pages.is_dir():
        print(f"real pages not found at {args.pages} (they live in ../shared, not in the repository): "
              "nothing to measure", file=sys.stderr)
        return 0
    scorer = load_scorer(args.scorer)
    rows = [_page(p, max(1, args.runs), scorer) for p in sorted(args.pages.glob("*/*/*.html"))]
    if not rows:
        print(f"no pages under {args.pages}", file=sys.stderr)
        return 1
    ok = report(rows, scorer is not None)
    if args.json is not None:
        args.json.write_text(json.dumps(rows, ensure_ascii=False, indent=1), encoding="utf-8")
    return 0 if ok else 2


if __name__ == "__main__":
    sys.exit(main())
