"""The prepared store at scale: prepare, open, memory, search and step rates per catalog size.

    python benchmarks/scale.py [--sizes 1k,100k,1.18M] [--steps 10000] [--workdir DIR] [--json] [--sqlite] [--no-eval]

For each size a seeded catalog is generated (``shopsim data generate``, reused from ``--workdir``
when it is already there), prepared into a store (``shopsim data prepare``, timed, peak RSS of
its largest process), and then, in a fresh interpreter per size: open (imports included) and
the first search; ``--steps`` in-process environment steps (rule and seeded random agents in
turn) and the resident memory after them, split into private (anonymous) and file-backed pages
(shared libraries: the store is read with ``pread``, not mapped); search latency over goal
instructions, uncached and from the ranking cache; and ``shopsim eval`` episodes/s with the local
executor and with Ray (when installed; its local cluster's start included) at 1 and 2 workers
(``--no-eval`` skips those: minutes at 1.18M). ``--sqlite`` also times the same product and
postings reads from a SQLite copy, the measurement behind the store's choice of plain files (see
:mod:`shopsim.simsite.store`).

Targets at 1,180,000 products (issue 13): open + first search < 2 s, RSS after 10,000 steps
< 1.5 GB, search p95 < 10 ms, prepare < 3 min. Nothing here is asserted: these are measurements.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

_CHILD = r"""
import json, random, statistics, sys, time
t0 = time.perf_counter()
from shopsim.simsite.shop import Shop
shop = Shop.load(sys.argv[1])
t_open = time.perf_counter() - t0
first_query = shop.goals[0].instruction_text
shop.search_engine.search(first_query, 50)
t_first = time.perf_counter() - t0

from shopsim.adapters import ShopEnv
from shopsim.agents.random_agent import RandomAgent
from shopsim.agents.rule import RuleAgent

def rss():
    out = {}
    with open("/proc/self/status") as f:
        for line in f:
            key, _, value = line.partition(":")
            if key in ("VmRSS", "RssAnon", "RssFile", "VmHWM"):
                out[key] = int(value.split()[0]) / 1024
    return out

steps_target = int(sys.argv[2])
env = ShopEnv(shop)
agents = [RuleAgent(), RandomAgent(seed=0)]
rng = random.Random(0)
n = episodes = 0
t = time.perf_counter()
while n < steps_target:
    agent = agents[episodes % 2]
    agent.reset(seed=episodes)
    obs, info = env.reset(options={"goal": rng.randrange(len(shop.goals))})
    for _ in range(15):
        obs, _, term, trunc, info = env.step(agent.act(obs, info["valid_actions"], info))
        n += 1
        if term or trunc or n >= steps_target:
            break
    episodes += 1
steps_s = n / (time.perf_counter() - t)
memory = rss()

cache_size = shop.search_engine.cache.size
shop.search_engine.cache.resize(0)  # latency of scoring: repeated queries would be cache hits

def latency(queries, clock=time.perf_counter):
    for q in queries[:20]:
        shop.search_engine.search(q, 50)
    lat = []
    for q in queries:
        t = clock()
        shop.search_engine.search(q, 50)
        lat.append((clock() - t) * 1000)
    lat.sort()
    return lat[len(lat) // 2], lat[int(0.95 * len(lat))]

# short: a product's query and a title word (benchmarks/run.py --scale's queries); long: goal instructions
# (what the rule agent searches), whose common words ("color", "size", "price") reach most documents
picked = [shop.product_list[rng.randrange(len(shop.products))] for _ in range(300)]
short = latency([f"{p.query} {p.title.split()[-1]}" for p in picked])
instructions = [shop.goals[rng.randrange(len(shop.goals))].instruction_text for _ in range(300)]
long = latency(instructions)
long_cpu = latency(instructions, time.process_time)  # CPU clock: what other jobs' load does not inflate
shop.search_engine.cache.resize(cache_size)  # cached: the same instructions again, each already seen once
for q in instructions:
    shop.search_engine.search(q, 50)
cached = latency(instructions)
print(json.dumps({"open_s": t_open, "open_first_search_s": t_first, "steps": n, "episodes": episodes,
                  "steps_per_s": steps_s, "rss_mb": memory.get("VmRSS"), "rss_anon_mb": memory.get("RssAnon"),
                  "rss_file_mb": memory.get("RssFile"), "peak_rss_mb": memory.get("VmHWM"),
                  "search_p50_ms": short[0], "search_p95_ms": short[1],
                  "search_long_p50_ms": long[0], "search_long_p95_ms": long[1],
                  "search_long_cpu_p50_ms": long_cpu[0], "search_long_cpu_p95_ms": long_cpu[1],
                  "search_cached_p50_ms": cached[0], "search_cached_p95_ms": cached[1],
                  "products": len(shop.products), "goals": len(shop.goals)}))
"""


def parse_size(text: str) -> int:
    """``1k`` -> 1000, ``1.18M`` -> 1180000, ``5000`` -> 5000."""
    text = text.strip().lower()
    mult = {"k": 1_000, "m": 1_000_000}.get(text[-1:], 1)
    number = float(text[:-1] if mult != 1 else text)
    return round(number * mult)


def label(n: int) -> str:
    """1000 -> ``1k``, 1180000 -> ``1.18M``."""
    if n >= 1_000_000:
        return f"{n / 1e6:g}M"
    return f"{n / 1e3:g}k" if n >= 1000 else str(n)


def shopsim(*args: str) -> subprocess.CompletedProcess[str]:
    """Run the ``shopsim`` command line in a child interpreter (its own memory, its own pool)."""
    return subprocess.run([sys.executable, "-m", "shopsim.cli", *args], capture_output=True, text=True, check=True,
                          cwd=ROOT)


def generate(n: int, seed: int, workdir: Path) -> Path:
    """A generated catalog of ``n`` products in ``workdir``, made once and reused."""
    out = workdir / f"catalog-{n}-seed{seed}"
    marker = out / "generated.json"
    if not marker.exists():
        shopsim("data", "generate", "--products", str(n), "--seed", str(seed), "--out", str(out), "--json")
        marker.write_text(json.dumps({"products": n, "seed": seed}))
    return out


def prepare(catalog: Path, store: Path) -> dict[str, float]:
    """Prepare ``catalog`` into ``store`` in a child process: seconds, store size, peak RSS of its
    main process, and the 1-minute load average before it started (this machine is shared)."""
    if store.exists():
        shutil.rmtree(store)
    load = os.getloadavg()[0]
    t0 = time.perf_counter()
    out = shopsim("data", "prepare", "--data", str(catalog), "--out", str(store), "--json")
    seconds = time.perf_counter() - t0
    report = json.loads(out.stdout)
    return {"prepare_s": seconds, "load_before": load, "store_mb": report["bytes"] / 1e6,
            "prepare_peak_rss_mb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024}


def measure(store: Path, steps: int) -> dict[str, float]:
    """Open, first search, steps, memory and search latency, in a fresh interpreter."""
    out = subprocess.run([sys.executable, "-c", _CHILD, str(store), str(steps)], capture_output=True, text=True,
                         check=True, cwd=ROOT)
    return json.loads(out.stdout.strip().splitlines()[-1])


def eval_rate(store: Path, workers: int, episodes: int, workdir: Path, executor: str = "local") -> float:
    """``shopsim eval`` episodes/s (rule agent, in-process adapter), start-up included (for Ray: the
    local cluster's start too; ``benchmarks/ray_eval.py`` separates it)."""
    out = workdir / f"eval-{store.name}-{executor}-w{workers}"
    if out.exists():
        shutil.rmtree(out)
    t0 = time.perf_counter()
    shopsim("eval", "--agent", "rule", "--adapter", "inprocess", "--data", str(store), "--goals", f"0:{episodes}",
            "--workers", str(workers), "--executor", executor, "--out", str(out))
    return episodes / (time.perf_counter() - t0)


_SQLITE = r"""
import json, os, random, sqlite3, sys, tempfile, time
import numpy as np
from shopsim.simsite.store.data import StoreData

d = StoreData.open(sys.argv[1])
idx = d.index
asins = [d.asins.asin_at(i) for i in range(d.count)]
db = os.path.join(tempfile.mkdtemp(), "store.sqlite")
con = sqlite3.connect(db)
con.execute("CREATE TABLE p (asin TEXT PRIMARY KEY, data BLOB) WITHOUT ROWID")
con.execute("CREATE TABLE t (term BLOB PRIMARY KEY, docs BLOB, denom BLOB) WITHOUT ROWID")
t = time.perf_counter()
with con:
    con.executemany("INSERT INTO p VALUES (?, ?)", ((asins[i], d.product_bytes(i)) for i in range(d.count)))
write_s = time.perf_counter() - t
with con:
    for ti in range(idx.term_count):
        a, b = int(idx._starts[ti]), int(idx._starts[ti + 1])
        con.execute("INSERT INTO t VALUES (?, ?, ?)", (idx._term(ti), idx._docs.read(a, b).tobytes(), idx._denom.read(a, b).tobytes()))
rng = random.Random(0)
sample = [asins[rng.randrange(d.count)] for _ in range(20000)]
terms = [idx._term(rng.randrange(idx.term_count)) for _ in range(5000)]
cur = con.cursor()

def per_call(fn, items):
    t = time.perf_counter()
    for x in items:
        fn(x)
    return (time.perf_counter() - t) / len(items) * 1e6

def mmap_product(a):
    d.asins._recent.clear()
    return d.product_bytes(d.asins.doc_of(a))

def mmap_term(tb):
    ti = idx._term_index(tb.decode("utf-8", "surrogatepass"))
    a, b = int(idx._starts[ti]), int(idx._starts[ti + 1])
    return idx._docs.read(a, b).sum() + idx._denom.read(a, b).sum()

def sql_term(tb):
    r = cur.execute("SELECT docs, denom FROM t WHERE term=?", (tb,)).fetchone()
    return np.frombuffer(r[0], np.int32).sum() + np.frombuffer(r[1], np.float32).sum()

print(json.dumps({
    "product_mmap_us": per_call(mmap_product, sample),
    "product_sqlite_us": per_call(lambda a: cur.execute("SELECT data FROM p WHERE asin=?", (a,)).fetchone(), sample),
    "postings_mmap_us": per_call(mmap_term, terms),
    "postings_sqlite_us": per_call(sql_term, terms),
    "sqlite_write_products_s": write_s, "sqlite_mb": os.path.getsize(db) / 1e6,
}))
"""


def sqlite_comparison(store: Path) -> dict[str, float]:
    """The store's product and postings reads against the same data in SQLite (why the store is mmap)."""
    out = subprocess.run([sys.executable, "-c", _SQLITE, str(store)], capture_output=True, text=True, check=True,
                         cwd=ROOT)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1k,100k", help="catalog sizes, e.g. 1k,100k,1.18M (default 1k,100k)")
    parser.add_argument("--steps", type=int, default=10_000, help="in-process steps before reading RSS (default 10000)")
    parser.add_argument("--episodes", type=int, default=200, help="episodes per eval run (default 200)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workdir", default=None, help="keep generated catalogs and stores here (default: a temp dir)")
    parser.add_argument("--json", action="store_true", help="print one JSON line per size instead of the table")
    parser.add_argument("--reuse-stores", action="store_true",
                        help="measure stores already in --workdir instead of preparing them again")
    parser.add_argument("--no-eval", action="store_true",
                        help="skip the `shopsim eval` episodes/s runs (local and Ray): minutes at 1.18M")
    parser.add_argument("--sqlite", action="store_true",
                        help="also time the same reads from SQLite (random product lookups, term postings)")
    args = parser.parse_args(argv)
    sizes = [parse_size(s) for s in args.sizes.split(",") if s.strip()]
    workdir = Path(args.workdir) if args.workdir else Path(tempfile.mkdtemp(prefix="shopsim-scale-"))
    workdir.mkdir(parents=True, exist_ok=True)
    ray = importlib.util.find_spec("ray") is not None
    rows = []
    try:
        for n in sizes:
            catalog = generate(n, args.seed, workdir)
            store = workdir / f"store-{n}-seed{args.seed}"
            made = {"prepare_s": float("nan"), "load_before": float("nan"), "store_mb": float("nan"),
                    "prepare_peak_rss_mb": float("nan")} if args.reuse_stores and store.exists() else prepare(catalog, store)
            row: dict[str, float | str] = {"size": label(n), **made, **measure(store, args.steps)}
            if args.sqlite:
                row.update(sqlite_comparison(store))
            if args.no_eval:
                row["eval_local_1w"] = row["eval_local_2w"] = row["eval_ray_1w"] = row["eval_ray_2w"] = "skipped"
            else:
                row["eval_local_1w"] = eval_rate(store, 1, args.episodes, workdir)
                row["eval_local_2w"] = eval_rate(store, 2, args.episodes, workdir)
            if ray and not args.no_eval:
                row["eval_ray_1w"] = eval_rate(store, 1, args.episodes, workdir, "ray")
                row["eval_ray_2w"] = eval_rate(store, 2, args.episodes, workdir, "ray")
            elif not args.no_eval:
                row["eval_ray_1w"] = row["eval_ray_2w"] = "n/a (ray not installed: pip install shopsim[ray])"
            rows.append(row)
            if args.json:
                print(json.dumps(row), flush=True)
            else:
                print(f"  measured {label(n)} products", file=sys.stderr, flush=True)
    finally:
        if not args.workdir:
            shutil.rmtree(workdir, ignore_errors=True)
    if not args.json:
        print_table(rows, args.steps)
        if args.sqlite:
            print("\n| products | product lookup: store / SQLite | term postings: store / SQLite | SQLite write |")
            print("|---|---|---|---|")
            for r in rows:
                print(f"| {r['size']} | {r['product_mmap_us']:.0f} / {r['product_sqlite_us']:.0f} us | "
                      f"{r['postings_mmap_us']:.0f} / {r['postings_sqlite_us']:.0f} us | "
                      f"{r['sqlite_write_products_s']:.1f} s ({r['sqlite_mb']:.0f} MB) |")
    return 0


def print_table(rows: list[dict[str, float | str]], steps: int) -> None:
    """The figures as a Markdown table."""
    head = ["products", "prepare (load before)", "store", "prepare peak RSS", "open", "open + 1st search",
            f"RSS after {steps:,} steps (private + file)", "search p50 / p95 short", "long (instructions)",
            "long, CPU clock", "long, cached",
            "steps/s", "eval ep/s local 1w / 2w", "eval ep/s Ray 1w / 2w"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for r in rows:
        print("| " + " | ".join([
            str(r["size"]), f"{r['prepare_s']:.1f} s ({r['load_before']:.1f})", f"{r['store_mb']:.0f} MB",
            f"{r['prepare_peak_rss_mb']:.0f} MB", f"{r['open_s']:.2f} s", f"{r['open_first_search_s']:.2f} s",
            f"{r['rss_mb']:.0f} MB ({r['rss_anon_mb']:.0f} + {r['rss_file_mb']:.0f})",
            f"{r['search_p50_ms']:.2f} / {r['search_p95_ms']:.2f} ms",
            f"{r['search_long_p50_ms']:.1f} / {r['search_long_p95_ms']:.1f} ms",
            f"{r['search_long_cpu_p50_ms']:.1f} / {r['search_long_cpu_p95_ms']:.1f} ms",
            f"{r['search_cached_p50_ms']:.3f} / {r['search_cached_p95_ms']:.3f} ms", f"{r['steps_per_s']:,.0f}",
            _pair(r["eval_local_1w"], r["eval_local_2w"]), _pair(r["eval_ray_1w"], r["eval_ray_2w"]),
        ]) + " |")


def _pair(a: float | str, b: float | str) -> str:
    return f"{a:.1f} / {b:.1f}" if isinstance(a, float) and isinstance(b, float) else str(a)


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    sys.exit(main())
