"""Build time and per-query latency of the v8 search engines (numpy BM25 and SQLite FTS5).

    python benchmarks/v8_search.py [--products 22726] [--queries 400] [--seed 0] [--source generator|synthetic] [--json]

The catalog comes from our v8 generator (``--source generator``, the default) or is synthesised
here (``--source synthetic``) by recombining random CJK and Latin words (Zipf-distributed, fixed
seed) into longer titles, brands, category paths, attributes, option axes (with crawl metadata that
must not be indexed) and bullets: a harder case for the index. Queries are the tasks' simple and full instructions, as an agent or
``search-eval`` sends them. Latencies are wall-clock per ``search(query, 150)`` call, one process.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from typing import Any

from shopsim.simsite.v8.records import V8Catalog, parse_v8_records
from shopsim.simsite.v8.search import RESULTS_N, load_index, make_engine, save_index

_HAN = [chr(c) for c in range(0x4E00, 0x4E00 + 2500)]
_LATIN = "abcdefghijklmnopqrstuvwxyz"


def _zipf_pick(rng: random.Random, words: list[str], k: int) -> list[str]:
    """``k`` words, word ``i`` drawn with weight ``1/(i+1)`` (a long tail, like product text)."""
    return rng.choices(words, cum_weights=_CUM[id(words)], k=k)


_CUM: dict[int, list[float]] = {}


def _vocab(rng: random.Random, n: int, cjk: bool) -> list[str]:
    words = ["".join(rng.choices(_HAN, k=rng.randint(2, 4))) if cjk
             else "".join(rng.choices(_LATIN, k=rng.randint(3, 9))) for _ in range(n)]
    acc, total = [], 0.0
    for i in range(n):
        total += 1.0 / (i + 1)
        acc.append(total)
    _CUM[id(words)] = acc
    return words


def synthesize(n_products: int, seed: int = 0, task_every: int = 10) -> list[dict[str, Any]]:
    """ShopSimulator-format records (80% Chinese, 20% English); one task per ``task_every`` products."""
    rng = random.Random(seed)
    zh, en = _vocab(rng, 20000, True), _vocab(rng, 8000, False)
    brands = ["".join(rng.choices(_HAN, k=3)) for _ in range(800)] + [w.title() for w in rng.sample(en, 300)]
    tree = [[rng.choice(zh) + rng.choice(zh) for _ in range(3)] for _ in range(600)]
    attr_names = rng.sample(zh, 60)
    axes = ["颜色分类", "规格", "尺寸", "容量", "套餐类型", "Color", "Size"]
    out: list[dict[str, Any]] = []
    for i in range(n_products):
        words = zh if rng.random() < 0.8 else en
        sep = "" if words is zh and rng.random() < 0.5 else " "
        asin = f"{rng.randrange(10**11, 10**12)}" if words is zh else f"B0{rng.randrange(16**8):08X}"
        title = sep.join(_zipf_pick(rng, words, rng.randint(8, 15)))
        model = f"{rng.choice(_LATIN).upper()}{rng.randint(1, 999)}" if rng.random() < 0.4 else None
        attrs = {name: " ".join(_zipf_pick(rng, words, rng.randint(1, 3)))
                 for name in rng.sample(attr_names, rng.randint(3, 8))}
        options = {axis: [{"value": sep.join(_zipf_pick(rng, words, rng.randint(1, 3))),
                           "price": round(rng.uniform(10, 2000), 2),
                           "image": f"https://img.example.invalid/{asin}/{k}.jpg",
                           "availability": "有货", "sku_id": str(rng.randrange(10**12, 10**13))}
                          for k in range(rng.randint(2, 6))]
                   for axis in rng.sample(axes, rng.choice((0, 1, 1, 2)))}
        rec: dict[str, Any] = {
            "asin": asin, "title": title, "shop_name": rng.choice(brands) + "旗舰店",
            "brand": rng.choice(brands), "model": model, "category": rng.choice(tree),
            "pricing": [round(rng.uniform(10, 2000), 2)], "customization_options": options,
            "attribute": attrs, "full_description": sep.join(_zipf_pick(rng, words, 60)),
            "small_description": [sep.join(_zipf_pick(rng, words, rng.randint(8, 20))) for _ in range(rng.randint(3, 5))],
            "instructions": [],
        }
        if i % task_every == 0:
            want = rng.sample(title.split(sep) if sep else [title[j:j + 3] for j in range(0, len(title), 3)], 3)
            budget = f"价格在{rng.randint(100, 500)}到{rng.randint(600, 2000)}元之间"
            opt = [o["value"] for opts in options.values() for o in opts[:1]]
            rec["instructions"].append({
                "task_id": 100000 + i, "instruction_simple": " ".join(want[:2]) + "，" + budget,
                "instruction": "我想买" + "".join(want) + "，" + "，".join(list(attrs.values())[:2] + opt) + "，" + budget,
                "attributes": [], "instruction_options": {}, "price_upper": None})
        out.append(rec)
    return out


def v8_catalog(n_products: int, seed: int, source: str = "generator") -> tuple[V8Catalog, str]:
    """The benchmark catalog: our v8 generator's (realistic shape), or the synthesiser's (long texts)."""
    if source == "generator":
        from shopsim.simsite.v8.catalog.generator import generate_v8

        return parse_v8_records(generate_v8(n_products, seed), "generate_v8"), "generate_v8"
    return parse_v8_records(synthesize(n_products, seed), "synthetic"), "synthesised here"


def _percentile(xs: list[float], q: float) -> float:
    return statistics.quantiles(xs, n=100, method="inclusive")[int(q) - 1]


def main() -> int:
    """Print engines x (build s, save+load s, p50 ms, p95 ms, max ms)."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--products", type=int, default=22726)
    ap.add_argument("--queries", type=int, default=400, help="queries timed (simple and full instructions)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--engines", nargs="*", default=["numpy", "fts5"])
    ap.add_argument("--source", choices=["generator", "synthetic"], default="generator",
                    help="catalog: generate_v8 (auto: when present and quick), or synthesised here")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    catalog, source = v8_catalog(args.products, args.seed, args.source)
    tasks = catalog.tasks
    queries = [q for t in tasks for q in (t.simple_text, t.instruction)][: args.queries]
    rows = []
    for kind in args.engines:
        t0 = time.perf_counter()
        engine = make_engine(catalog.products, kind)
        build = time.perf_counter() - t0
        with tempfile.TemporaryDirectory() as d:
            t0 = time.perf_counter()
            save_index(engine, d)
            engine = load_index(d, catalog.products)
            persist = time.perf_counter() - t0
        engine.search(queries[0], RESULTS_N)  # warm caches once
        times = []
        for q in queries:
            t0 = time.perf_counter()
            engine.search(q, RESULTS_N)
            times.append((time.perf_counter() - t0) * 1000)
        rows.append({"engine": kind, "products": len(catalog.products), "queries": len(queries),
                     "build s": round(build, 2), "save+load s": round(persist, 2),
                     "p50 ms": round(statistics.median(times), 3), "p95 ms": round(_percentile(times, 95), 3),
                     "max ms": round(max(times), 3)})
    if args.json:
        print(json.dumps({"catalog": source, "rows": rows}))
        return 0
    print(f"v8 search: {len(catalog.products)} products ({source}, seed {args.seed}), {len(queries)} queries, "
          f"top {RESULTS_N}")
    cols = list(rows[0])
    print("  ".join(f"{c:>11}" for c in cols))
    for r in rows:
        print("  ".join(f"{r[c]!s:>11}" for c in cols))
    return 0


if __name__ == "__main__":
    sys.exit(main())
