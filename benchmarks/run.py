"""Speed and memory of the core: construct, reset, steps/s, search and reward latency.

    python benchmarks/run.py [--data DIR] [--json] [--scale N ...]

Prints a table for the bundled catalog and, when present, WebShop's real small set
(../shared/data/webshop-small). ``--scale`` also generates catalogs of N products with the
bundled generator and measures index build time, search latency and memory of each engine.
Targets (2-core machine): >= 1,000 env steps/s; search p95 < 1 ms and reward < 1 ms at 1k
products; import + construct < 1.5 s; search p95 < 20 ms and build < 60 s at 100k.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SMALL = ROOT.parent / "shared" / "data" / "webshop-small"

_CONSTRUCT = """
import time, resource, sys
t0 = time.perf_counter()
from shopsim.adapters import ShopEnv
from shopsim.simsite.shop import Shop, ShopConfig
env = ShopEnv(Shop.from_config(ShopConfig(data_dir={data!r})))
env.reset(options={{"goal": 0}})
print(time.perf_counter() - t0, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
"""


def pct(values: list[float], q: float) -> float:
    """The q-quantile (0..1) of values."""
    s = sorted(values)
    return s[min(len(s) - 1, int(q * len(s)))]


def construct(data: str | None) -> tuple[float, float]:
    """Import + construct + first reset, in a fresh interpreter: (seconds, peak RSS MB)."""
    out = subprocess.run([sys.executable, "-c", _CONSTRUCT.format(data=data)], capture_output=True, text=True, check=True)
    secs, rss = out.stdout.split()
    return float(secs), float(rss)


def measure(label: str, data: str | None) -> dict[str, float | str]:
    """All core figures for one catalog."""
    from shopsim.adapters import ShopEnv
    from shopsim.agents.random_agent import RandomAgent
    from shopsim.agents.rule import RuleAgent
    from shopsim.simsite.reward import score_purchase
    from shopsim.simsite.shop import Shop, ShopConfig

    secs, rss = construct(data)
    shop = Shop.from_config(ShopConfig(data_dir=data))
    env = ShopEnv(shop)
    t0 = time.perf_counter()
    shop.prime_nouns()  # tag all titles in one batch, as `shopsim run` does for long runs
    prime_s = time.perf_counter() - t0
    resets = []
    for g in range(200):
        t = time.perf_counter()
        env.reset(options={"goal": g % len(shop.goals)})
        resets.append(time.perf_counter() - t)

    def steps_per_s(agent, episodes: int) -> float:
        n, t0 = 0, time.perf_counter()
        for g in range(episodes):
            agent.reset(seed=g)
            obs, info = env.reset(options={"goal": g % len(shop.goals)})
            for _ in range(15):
                obs, _, term, trunc, info = env.step(agent.act(obs, info["valid_actions"], info))
                n += 1
                if term or trunc:
                    break
        return n / (time.perf_counter() - t0)

    rule_sps = steps_per_s(RuleAgent(), 300)
    random_sps = steps_per_s(RandomAgent(seed=0), 300)
    queries = [g.instruction_text for g in shop.goals[:500]]
    if hasattr(shop.search_engine, "cache"):
        shop.search_engine.cache.resize(0)  # the rule agent searched these goals: time scoring, not the cache
    lat = []
    for q in queries:
        t = time.perf_counter()
        shop.search_engine.search(q)
        lat.append(time.perf_counter() - t)
    rew = []
    for g in shop.goals[:500]:
        p = shop.products[g.asin]
        opts = {k: v[0] for k, v in p.options.items()}
        t = time.perf_counter()
        score_purchase(p, g, shop.prices[p.asin], opts, shop.nouns)
        rew.append(time.perf_counter() - t)
    return {
        "catalog": label, "products": len(shop.products), "goals": len(shop.goals),
        "import+construct s": secs, "peak RSS MB": rss, "reset median ms": 1e3 * statistics.median(resets),
        "rule steps/s": rule_sps, "random steps/s": random_sps,
        "search p50 ms": 1e3 * pct(lat, 0.5), "search p95 ms": 1e3 * pct(lat, 0.95),
        "reward p50 ms": 1e3 * pct(rew, 0.5), "noun tagger": shop.nouns.source, "tag all s": prime_s,
    }


def scale(n: int) -> list[dict[str, float | str]]:
    """Generate n products and time the search engines on them (rank-bm25 only up to 20k)."""
    import resource

    from shopsim.simsite.catalog.generator import generate
    from shopsim.simsite.datafiles import find_catalog_files
    from shopsim.simsite.loader import load_products
    from shopsim.simsite.search import BM25Index, LuceneEngine, RankBM25Engine

    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        generate(tmp, n_products=n, seed=1)
        products = load_products(find_catalog_files(tmp))
        queries = [f"{p.query} {p.title.split()[-1]}" for p in products[:: max(1, n // 300)]][:300]
        engines = [("lucene (default)", LuceneEngine), ("bm25 (numpy)", BM25Index.from_products)]
        if n <= 20_000:
            engines.append(("rank-bm25", RankBM25Engine))
        for name, build in engines:
            t0 = time.perf_counter()
            engine = build(products)
            built = time.perf_counter() - t0
            if hasattr(engine, "cache"):
                engine.cache.resize(0)  # products share queries: time scoring, not the ranking cache
            lat = []
            for q in queries:
                t = time.perf_counter()
                engine.search(q)
                lat.append(time.perf_counter() - t)
            rows.append({"engine": name, "products": n, "build s": built, "p50 ms": 1e3 * pct(lat, 0.5),
                         "p95 ms": 1e3 * pct(lat, 0.95),
                         "peak RSS MB": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024})
            del engine
    return rows


def table(rows: list[dict]) -> str:
    """A plain text table."""
    if not rows:
        return ""
    cols = list(rows[0])
    fmt = [[f"{r[c]:.3g}" if isinstance(r[c], float) else str(r[c]) for c in cols] for r in rows]
    widths = [max(len(c), *(len(f[i]) for f in fmt)) for i, c in enumerate(cols)]
    lines = ["  ".join(c.ljust(w) for c, w in zip(cols, widths, strict=True))]
    lines += ["  ".join(v.ljust(w) for v, w in zip(f, widths, strict=True)) for f in fmt]
    return "\n".join(lines)


def main() -> int:
    """Run the benchmark and print tables (or JSON)."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=None, help="another WebShop-format folder to measure")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--scale", type=int, nargs="*", default=[], help="also measure generated catalogs of these sizes")
    args = ap.parse_args()
    rows = [measure("bundled", None)]
    if (SMALL / "items_shuffle_1000.json").exists():
        rows.append(measure("webshop-small", str(SMALL)))
    if args.data:
        rows.append(measure(args.data, args.data))
    scaled = [r for n in args.scale for r in scale(n)]
    if args.json:
        print(json.dumps({"core": rows, "scale": scaled, "cpus": os.cpu_count()}))
    else:
        print(table(rows))
        if scaled:
            print()
            print(table(scaled))
        print("\nWebShop's own env on the small set (same machine class): 17-23 steps/s, reset 8 ms, "
              "search 13-18 ms, reward 21-30 ms, 11.7 s import.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
