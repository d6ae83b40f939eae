"""Parse time of every real Amazon/eBay page in the shared fixtures (median of N runs).

Run: ``python benchmarks/real_pages.py [--runs N] [--pages DIR]``. Reads pages from
``<repo>/../shared/fixtures/real`` by default; prints one row per page, then medians by site/kind
and overall. Target: median under 15 ms for a ~1.5 MB page.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

from shopsim.translators.amazon import AmazonTranslator
from shopsim.translators.documents import decode_html
from shopsim.translators.ebay import EbayTranslator

DEFAULT_PAGES = Path(__file__).resolve().parents[1].parent / "shared" / "fixtures" / "real"


def bench(pages: Path, runs: int) -> int:
    """Parse every page ``runs`` times; print wall and CPU medians per page, per group, overall."""
    translators = {"amazon": AmazonTranslator(), "ebay": EbayTranslator()}
    rows: list[tuple[str, str, str, float, float, float, str]] = []
    for path in sorted(pages.rglob("*.html")):
        site, kind = path.parent.parent.name, path.parent.name
        translator = translators.get(site)
        if translator is None:
            continue
        html = decode_html(path.read_bytes())
        wall, cpu = [], []
        state = None
        for _ in range(runs):
            t0, c0 = time.perf_counter(), time.process_time()
            state = translator.parse(html)
            wall.append((time.perf_counter() - t0) * 1000)
            cpu.append((time.process_time() - c0) * 1000)
        rows.append((site, kind, path.stem, len(html.encode("utf-8")) / 1e6, statistics.median(wall),
                     statistics.median(cpu), state.page_type if state else "?"))
    if not rows:
        print(f"no pages under {pages}", file=sys.stderr)
        return 1
    print(f"{'site':<7}{'kind':<8}{'MB':>6}{'wall ms':>9}{'cpu ms':>8}  {'parsed as':<9} page")
    for site, kind, name, mb, ms, cms, ptype in rows:
        print(f"{site:<7}{kind:<8}{mb:>6.2f}{ms:>9.2f}{cms:>8.2f}  {ptype:<9} {name}")
    print()
    print(f"{'group':<18}{'pages':>6}{'median wall':>13}{'median cpu':>12}{'max wall':>10}")
    groups: dict[str, list[tuple[float, float]]] = {}
    for site, kind, _, mb, ms, cms, _ in rows:
        groups.setdefault(f"{site}/{kind}", []).append((ms, cms))
        groups.setdefault("all", []).append((ms, cms))
        if 1.2 <= mb <= 2.0:
            groups.setdefault("1.2-2.0 MB pages", []).append((ms, cms))
    for key in [k for k in sorted(groups) if "/" in k] + [k for k in ("all", "1.2-2.0 MB pages") if k in groups]:
        vals = groups[key]
        print(f"{key:<18}{len(vals):>6}{statistics.median(v[0] for v in vals):>13.2f}"
              f"{statistics.median(v[1] for v in vals):>12.2f}{max(v[0] for v in vals):>10.2f}")
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=7, help="parses per page (median is reported)")
    ap.add_argument("--pages", type=Path, default=DEFAULT_PAGES, help="folder of <site>/<kind>/*.html")
    args = ap.parse_args(argv)
    if not args.pages.is_dir():
        print(f"pages folder not found: {args.pages}", file=sys.stderr)
        return 1
    return bench(args.pages, max(1, args.runs))


if __name__ == "__main__":
    sys.exit(main())
