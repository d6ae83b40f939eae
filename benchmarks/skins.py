"""Per skin: the HTML render time, the read-back time and the browser step time; ``--soak`` checks the loop.

    python benchmarks/skins.py [--pages-episodes 40] [--browser-episodes 4] [--modes url click]
    python benchmarks/skins.py --soak 200          # 200 seeded Chromium episodes per skin, read back at each step

Render: the pages of ``--pages-episodes`` seeded in-process episodes (:func:`seeded_episode`, every page
type), each rendered by every skin in turn (the skins taking turns page by page, so a busy machine slows
all alike); median microseconds per page, and per page read back by the skin's real-site translator.
Browser: ``BrowserSource`` against a server in each skin, ``--browser-episodes`` seeded episodes per mode;
median milliseconds per step. Soak: every step's page, as the browser holds it, must read back as the
sim's state (:func:`shopsim.adapters.skin_readback.mismatch`); the script fails on the first page that
does not.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import defaultdict

from shopsim.adapters.browser_source import BrowserSource
from shopsim.adapters.skin_readback import mismatch, read_back, seeded_episode
from shopsim.adapters.sources import InProcessSource
from shopsim.page import PageState
from shopsim.simsite.server import serve_shop
from shopsim.simsite.shop import Shop, ShopConfig
from shopsim.simsite.skins import SKINS, get_skin, session_skin


def _pages(shop: Shop, episodes: int) -> list[PageState]:
    src = InProcessSource(shop)
    return [s for ep in range(episodes) for s in seeded_episode(src, ep % len(shop.goals), seed=ep)]


def render_table(shop: Shop, episodes: int) -> None:
    pages = _pages(shop, episodes)
    render: dict[str, list[float]] = defaultdict(list)
    reading: dict[str, list[float]] = defaultdict(list)
    for state in pages:
        for name, skin in SKINS.items():
            t0 = time.perf_counter()
            html = skin.render(state, shop.products)
            t1 = time.perf_counter()
            read_back(skin, html, state.url)
            t2 = time.perf_counter()
            render[name].append((t1 - t0) * 1e6)
            reading[name].append((t2 - t1) * 1e6)
    print(f"render and read-back, {len(pages)} pages of {episodes} seeded episodes (median us per page)")
    print(f"  {'skin':8} {'render':>8} {'read-back':>10} {'bytes':>8}")
    for name, skin in SKINS.items():
        size = statistics.median(len(skin.render(s, shop.products)) for s in pages)
        print(f"  {name:8} {statistics.median(render[name]):8.0f} {statistics.median(reading[name]):10.0f} "
              f"{size:8.0f}")


def browser_table(shop: Shop, episodes: int, modes: list[str]) -> None:
    print(f"\nbrowser step, BrowserSource, {episodes} seeded episodes per skin and mode (median ms per step)")
    print(f"  {'skin':8} " + " ".join(f"{m:>8}" for m in modes))
    for name in SKINS:
        row = []
        with serve_shop(shop, skin=name) as srv:
            for mode in modes:
                times: list[float] = []
                with BrowserSource(srv.base_url, mode=mode, assets=False) as src:  # type: ignore[arg-type]
                    for ep in range(episodes):
                        t0 = time.perf_counter()
                        for _ in seeded_episode(src, ep % len(shop.goals), seed=ep):
                            t1 = time.perf_counter()
                            times.append((t1 - t0) * 1e3)
                            t0 = t1
                row.append(f"{statistics.median(times):8.1f}")
        print(f"  {name:8} " + " ".join(row))


def soak(shop: Shop, episodes: int, names: list[str]) -> int:
    print(f"closed loop in Chromium: {episodes} seeded episodes per skin, every step read back")
    print(f"  {'skin':8} {'pages':>6}  page types")
    for name in names:
        pages = 0
        kinds: dict[str, int] = defaultdict(int)
        with serve_shop(shop, skin=name) as srv, BrowserSource(srv.base_url, assets=False) as src:
            for ep in range(episodes):
                goal = ep % len(shop.goals)
                skin = session_skin(name, 0, str(goal)) if name == "random" else get_skin(name)
                for state in seeded_episode(src, goal, seed=ep):
                    pages += 1
                    kinds[state.page_type] += 1
                    html, _ = src.document()
                    bad = mismatch(state, html, skin)
                    if bad is not None:
                        print(f"MISMATCH {skin.name} episode {ep} {state.url}:\n  sim  {bad[0]}\n  read {bad[1]}")
                        return 1
        print(f"  {name:8} {pages:6}  {dict(sorted(kinds.items()))}")
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pages-episodes", type=int, default=40)
    ap.add_argument("--browser-episodes", type=int, default=4)
    ap.add_argument("--modes", nargs="+", default=["url", "click"], choices=["url", "click"])
    ap.add_argument("--soak", type=int, default=0, metavar="N", help="N Chromium episodes per skin, read back")
    ap.add_argument("--skins", nargs="+", default=[*SKINS, "random"], choices=[*SKINS, "random"],
                    help="the skins --soak drives (default: every skin and random)")
    args = ap.parse_args()
    shop = Shop.from_config(ShopConfig())
    try:
        if args.soak:
            return soak(shop, args.soak, args.skins)
        render_table(shop, args.pages_episodes)
        browser_table(shop, args.browser_episodes, args.modes)
        return 0
    finally:
        BrowserSource.shutdown()


if __name__ == "__main__":
    sys.exit(main())
