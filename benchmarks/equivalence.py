"""Soak: seeded episodes through every page source must give identical pages, actions and rewards.

    python benchmarks/equivalence.py                    # tests/adapters/test_equivalence.py's 30 episodes, all sources
    python benchmarks/equivalence.py --episodes 200     # goals 0, 5, 10, ... with the rule and random policies
    python benchmarks/equivalence.py --sources http-json http-html --json

The test suite runs every episode through the HTTP sources but only six through Chromium (the six
that take every kind of step the 30 take); this runs all of them through both browser modes too,
with the suite's own policies (``tests/_web_policies.py``). One row per source: episodes, steps,
episodes that differ from in-process, seconds and steps/s. Exits 1 when any episode differs.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from shopsim.adapters.browser_source import BrowserSource
from shopsim.adapters.sources import HttpSource, InProcessSource
from shopsim.simsite.server import ServerThread
from shopsim.simsite.shop import Shop, ShopConfig
from shopsim.simsite.web import create_app

# The suite's own policies, not a copy of them.
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from _web_policies import run_episode

SOURCES = ("http-json", "http-html", "browser-url", "browser-click")


def make_source(name: str, base_url: str, browser: str | None) -> Any:
    if name.startswith("http-"):
        return HttpSource(base_url, api=name.removeprefix("http-"))
    return BrowserSource(base_url, mode=name.removeprefix("browser-"), executable_path=browser)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--episodes", type=int, default=30, help="goals 0, 5, 10, ...; rule and random alternate")
    ap.add_argument("--sources", nargs="*", default=list(SOURCES), choices=SOURCES)
    ap.add_argument("--browser", default=None, help="Chromium to drive (default: Playwright's, else the system one)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    episodes = [(5 * i, "rule" if i % 2 == 0 else "random") for i in range(args.episodes)]
    shop = Shop.from_config(ShopConfig())
    with InProcessSource(shop) as src:
        refs = {ep: run_episode(src, *ep) for ep in episodes}
    rows, differ = [], []
    with ServerThread(create_app(shop)) as srv:
        for name in args.sources:
            t0, steps, bad = time.perf_counter(), 0, 0
            for ep in episodes:
                with make_source(name, srv.base_url, args.browser) as source:
                    got = run_episode(source, *ep)
                steps += len(got) - 1
                if got != refs[ep]:
                    bad += 1
                    differ.append(f"{name}: goal {ep[0]} ({ep[1]})")
            secs = time.perf_counter() - t0
            rows.append({"source": name, "episodes": len(episodes), "steps": steps, "differ": bad,
                         "seconds": round(secs, 2), "steps/s": round(steps / secs, 1)})
    BrowserSource.shutdown()
    if args.json:
        print(json.dumps({"rows": rows, "differ": differ}, indent=2))
    else:
        print(f"{'source':<14} {'episodes':>8} {'steps':>6} {'differ':>6} {'seconds':>8} {'steps/s':>8}")
        for r in rows:
            print(f"{r['source']:<14} {r['episodes']:>8} {r['steps']:>6} {r['differ']:>6} {r['seconds']:>8} {r['steps/s']:>8}")
        for line in differ:
            print("differs from in-process:", line)
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
