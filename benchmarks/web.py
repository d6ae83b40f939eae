"""Web throughput: JSON-API steps/s at concurrency 1/8/32, browser steps/s (url and click), parse time.

Run: ``python benchmarks/web.py [--data DIR] [--episodes N]``. Starts a real uvicorn server on a
free local port in a background thread; browser rows need Chromium (skipped without it).
"""

from __future__ import annotations

import argparse
import statistics
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

from shopsim.adapters.browser_source import BrowserSource
from shopsim.simsite.html import render_html
from shopsim.simsite.server import serve_shop
from shopsim.simsite.session import ShopSession
from shopsim.simsite.shop import Shop, ShopConfig
from shopsim.translators.sim_pages import SimsiteTranslator

ACTIONS = ["search[{q}]", "click[{p}]", "click[< prev]", "click[next >]", "click[< prev]", "click[{p}]",
           "click[description]", "click[< prev]", "click[features]", "click[< prev]", "click[buy now]"]


def _episode_actions(state) -> list[str]:
    q = " ".join((state.instruction or "shoes").lower().split()[:4])
    return [a.replace("{q}", q) for a in ACTIONS]


def _http_worker(base: str, episodes: int, goal0: int) -> int:
    steps = 0
    with httpx.Client(base_url=base, timeout=60) as c:
        for i in range(episodes):
            out = c.post("/api/sessions", json={"goal": goal0 + i}).json()
            sid = out["session_id"]
            product = None
            for a in _episode_actions(type("S", (), {"instruction": out["page_state"]["instruction"]})()):
                if "{p}" in a:
                    if product is None:
                        break
                    a = a.replace("{p}", product)
                r = c.post(f"/api/sessions/{sid}/step", json={"action": a}).json()
                steps += 1
                results = r["page_state"]["results"]
                if results and product is None:
                    product = results[0]["id"].lower()
                if r["done"]:
                    break
            c.delete(f"/api/sessions/{sid}")
    return steps


def bench_http(base: str, concurrency: int, episodes: int) -> float:
    per = max(1, episodes // concurrency)
    t0 = time.perf_counter()
    with ThreadPoolExecutor(concurrency) as pool:
        total = sum(pool.map(lambda k: _http_worker(base, per, k * per), range(concurrency)))
    return total / (time.perf_counter() - t0)


def bench_browser(base: str, mode: str, episodes: int, chromium: str) -> tuple[float, float]:
    times: list[float] = []
    with BrowserSource(base, mode=mode, executable_path=chromium) as src:  # type: ignore[arg-type]
        for g in range(episodes):
            state = src.reset(g)
            product = None
            for a in _episode_actions(state):
                if "{p}" in a:
                    if product is None:
                        break
                    a = a.replace("{p}", product)
                t = time.perf_counter()
                state, _, done, _ = src.step(a)
                times.append(time.perf_counter() - t)
                if state.results and product is None:
                    product = state.results[0].id.lower()
                if done:
                    break
    return len(times) / sum(times), statistics.median(times)


def bench_parse(shop: Shop, n: int = 200) -> tuple[float, float]:
    session = ShopSession(shop, shop.goal(0), "fixed_0")
    session.step("search[shoes]")
    session.step(f"click[{session.state.results[0].id.lower()}]")
    html = render_html(session.state)
    tr = SimsiteTranslator()
    t = time.perf_counter()
    for _ in range(n):
        tr.parse(html)
    json_ms = (time.perf_counter() - t) / n * 1000
    bare = html.split('<script type="application/json"')[0]
    t = time.perf_counter()
    for _ in range(n):
        tr.parse(bare)
    return json_ms, (time.perf_counter() - t) / n * 1000


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    small = Path(__file__).resolve().parents[2] / "shared" / "data" / "webshop-small"
    ap.add_argument("--data", default=str(small) if small.exists() else None,
                    help="WebShop-format folder (default: ../shared/data/webshop-small, else the bundled catalog)")
    ap.add_argument("--num-products", type=int, default=None)
    ap.add_argument("--episodes", type=int, default=64, help="HTTP episodes per concurrency level")
    ap.add_argument("--browser-episodes", type=int, default=5)
    ap.add_argument("--chromium", default="/usr/bin/chromium")
    args = ap.parse_args()
    shop = Shop.from_config(ShopConfig(data_dir=args.data, num_products=args.num_products))
    rows: list[tuple[str, str]] = []
    with serve_shop(shop) as server:
        base = server.base_url
        for conc in (1, 8, 32):
            rows.append((f"HTTP JSON API steps/s (concurrency {conc})", f"{bench_http(base, conc, args.episodes):.0f}"))
        if Path(args.chromium).exists():
            for mode in ("url", "click"):
                rate, med = bench_browser(base, mode, args.browser_episodes, args.chromium)
                rows.append((f"browser steps/s ({mode})", f"{rate:.1f}"))
                rows.append((f"median browser step ({mode})", f"{med * 1000:.1f} ms"))
            BrowserSource.shutdown()
        else:
            rows.append(("browser", f"skipped: no Chromium at {args.chromium}"))
        json_ms, bare_ms = bench_parse(shop)
        rows.append(("sim item page parse (JSON block)", f"{json_ms:.2f} ms"))
        rows.append(("sim item page parse (markup only)", f"{bare_ms:.2f} ms"))
    width = max(len(k) for k, _ in rows)
    print(f"{'measure':<{width}}  value")
    print("-" * (width + 14))
    for k, v in rows:
        print(f"{k:<{width}}  {v}")


if __name__ == "__main__":
    main()
