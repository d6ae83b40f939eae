"""The guard's tag scan, compiled and pure, on the largest real pages: CPU ms per page, same process.

Run: ``python benchmarks/guard_scan.py [--largest N | --match TEXT ...] [--runs N] [--only pure|compiled]``.
Reads the ``N`` largest pages of ``../shared/fixtures/real`` (or those whose names hold a ``--match``) and times, per page (median CPU ms of the runs):
the scan of the build that is loaded (compiled when ``setup.py`` could build it) and the pure-Python
scan (loaded beside it, :func:`shopsim.translators.scan_build.pure_modules`), and each one's
tokenizer alone (``Tags`` / ``RegexTags``). ``--only`` runs one scan ``--runs`` times and prints
nothing else, for instruction counts: ``valgrind --tool=callgrind`` at two ``--runs`` values, the
difference divided by the difference in runs, is the scan's cost with start-up taken out.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from real_pages import cpu_ms  # the same CPU timing as the page benchmark

from shopsim.translators import guard, tag_lexer
from shopsim.translators.documents import decode_html
from shopsim.translators.scan_build import pure_modules, scan_build

PAGES = Path(__file__).resolve().parents[1].parent / "shared" / "fixtures" / "real"


def _count(tokens: tag_lexer.Tags) -> int:
    return sum(1 for _ in tokens)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--largest", type=int, default=8, help="how many of the largest pages")
    ap.add_argument("--match", nargs="+", default=None, help="pages whose file names hold one of these instead")
    ap.add_argument("--runs", type=int, default=7, help="scans per page (the median is reported)")
    ap.add_argument("--only", choices=["pure", "compiled"], default=None, help="run one scan, print nothing")
    args = ap.parse_args(argv)
    if not PAGES.is_dir():
        print(f"real pages not found at {PAGES} (they live in ../shared): nothing to measure", file=sys.stderr)
        return 0
    paths = sorted(PAGES.glob("*/*/*.html"), key=lambda p: -p.stat().st_size)
    paths = [p for p in paths if any(m in p.name for m in args.match)] if args.match else paths[: args.largest]
    pages = [(p.stem, decode_html(p.read_bytes()).replace("\x00", "")) for p in paths]
    pure = pure_modules()
    compiled = scan_build() == "compiled (mypyc)"
    if args.only is not None:
        if args.only == "compiled" and not compiled:
            print(f"the scan is not compiled here: {scan_build()}", file=sys.stderr)
            return 1
        scan = guard.scan_markup if args.only == "compiled" else pure["guard"].scan_markup
        for _ in range(args.runs):
            for _, html in pages:
                scan(html)
        return 0
    print(f"tag scan loaded: {scan_build()}; CPU ms, median of {args.runs} runs")
    print(f"{'page':<44}{'chars':>10}{'tags':>8}{'pure':>8}{'loaded':>8}{'lex pure':>10}{'lex loaded':>11}")
    for name, html in pages:
        tags = _count(tag_lexer.RegexTags(html, 0))
        cols = [cpu_ms(lambda h=html: pure["guard"].scan_markup(h), args.runs),
                cpu_ms(lambda h=html: guard.scan_markup(h), args.runs),
                cpu_ms(lambda h=html: _count(pure["tag_lexer"].RegexTags(h, 0)), args.runs),
                cpu_ms(lambda h=html: _count(tag_lexer.tags(h, 0)), args.runs)]
        print(f"{name[:43]:<44}{len(html):>10,}{tags:>8,}{cols[0]:>8.1f}{cols[1]:>8.1f}{cols[2]:>10.1f}{cols[3]:>11.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
