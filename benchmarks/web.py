"""Server throughput: JSON-API steps/s at 1/8/32 clients, HTML requests/s, first purchase after start-up.

    python benchmarks/web.py [--data DIR] [--seconds S] [--rounds N] [--variant "SERVE ARGS" ...] [--browser]

Runs ``shopsim serve`` in its own process on 127.0.0.1 (a free port) and loads it from separate
client processes over keep-alive connections (raw asyncio HTTP/1.1, ``benchmarks/_http_load.py``),
so the figures are the server's, not the client's. Each ``--variant`` is one more server started
with those extra ``serve`` arguments (``--http h11 --loop asyncio``, ...); the variants are loaded
in alternating rounds and the table shows each figure's median. Targets: JSON API >= 2,000 steps/s
at 8 clients and no worse at 32; HTML >= 1,000 requests/s; the first purchase after start-up as fast
as the hundredth, on the JSON API and, on a second fresh server, as a browser's Buy Now (``POST
/done``). ``--browser`` adds browser steps/s (needs Chromium); ``--cold-only`` gives the start-up
figures alone (about 40 s).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shlex
import statistics
import time
from pathlib import Path
from typing import Any

from _http_load import Conn, Served, _query, json_episode, load

from shopsim.routes import done_path, index_path, item_path, results_path

SMALL = Path(__file__).resolve().parents[2] / "shared" / "data" / "webshop-small"
#: HTML pages are loaded by this many connections at once.
HTML_CONCURRENCY = 8


async def _purchases(port: int, n: int) -> list[float]:
    """Seconds of the ``click[buy now]`` step in ``n`` JSON-API episodes on goals 0..n-1, in order."""
    buys: list[float] = []
    conn = await Conn.open(port)
    for g in range(n):
        await json_episode(conn, g, lambda t, a, d: buys.append(d) if a == "click[buy now]" else None)
    conn.close()
    return buys


async def _html_paths(port: int, goals: int) -> dict[str, list[str]]:
    """Search, item and done paths of ``fixed_<g>`` sessions, from each goal's first results."""
    conn = await Conn.open(port)
    out: dict[str, list[str]] = {"index": [], "search": [], "item": [], "done": []}
    for g in range(goals):
        _, raw = await conn.request("POST", "/api/sessions", {"goal": g})
        created = json.loads(raw)
        sid, words = created["session_id"], _query(created["page_state"]["instruction"]).split(" ")
        _, raw = await conn.request("POST", f"/api/sessions/{sid}/step", {"action": f"search[{' '.join(words)}]"})
        results = json.loads(raw)["page_state"]["results"]
        await conn.request("DELETE", f"/api/sessions/{sid}")
        if not results:
            continue
        html_sid, asin = f"fixed_{g}", results[0]["id"]
        out["index"].append(index_path(html_sid))
        out["search"].append(results_path(html_sid, words, 1))
        out["item"].append(item_path(html_sid, asin, words, 1, {}))
        out["done"].append(done_path(html_sid, asin, {}))
    conn.close()
    return out


async def _done_pages(port: int, paths: dict[str, list[str]], n: int, method: str = "GET") -> list[float]:
    """Seconds of the done page in ``n`` HTML episodes (index, results, item, done), in order; ``method``
    is the done page's (``POST``: a browser's Buy Now form)."""
    conn = await Conn.open(port)
    times: list[float] = []
    for i in range(n):
        k = i % len(paths["done"])
        for page in ("index", "search", "item", "done"):
            t = time.perf_counter()
            status, _ = await conn.request(method if page == "done" else "GET", paths[page][k])
            if status != 200:
                raise RuntimeError(f"GET {paths[page][k]} answered {status}")
            if page == "done":
                times.append(time.perf_counter() - t)
    conn.close()
    return times


def cold_start(served: Served) -> dict[str, float]:
    """On a server that has answered nothing but health checks: the first purchase, then the 100th."""
    buys = asyncio.run(_purchases(served.port, 100))
    paths = asyncio.run(_html_paths(served.port, 20))
    dones = asyncio.run(_done_pages(served.port, paths, 100))
    return {"ready_s": served.ready_s, "buy_1_ms": 1000 * buys[0], "buy_100_ms": 1000 * buys[-1],
            "buy_med_ms": 1000 * statistics.median(buys[1:]), "done_1_ms": 1000 * dones[0],
            "done_100_ms": 1000 * dones[-1], "done_med_ms": 1000 * statistics.median(dones[1:])}


def cold_browser_buy(served: Served) -> dict[str, float]:
    """On a fresh server whose first purchase is a browser's: HTML episodes ending in Buy Now (``POST /done``),
    the first and the 100th (BrowserGym gives a click 500 ms)."""
    paths = asyncio.run(_html_paths(served.port, 20))  # searches only: nothing bought yet
    dones = asyncio.run(_done_pages(served.port, paths, 100, method="POST"))
    return {"post_1_ms": 1000 * dones[0], "post_100_ms": 1000 * dones[-1],
            "post_med_ms": 1000 * statistics.median(dones[1:])}


def throughput(served: Served, paths: dict[str, list[str]], seconds: float) -> dict[str, float]:
    """JSON-API steps/s at 1, 8 and 32 clients; HTML results and item pages per second at 8."""
    goals = len(paths["done"])
    row: dict[str, float] = {}
    for c in (1, 8, 32):
        got = load(served, "json", c, seconds, ids=list(range(goals)))
        row[f"json_{c}"], row[f"json_{c}_cpu"] = got.rate, got.cpu_us
    for page in ("search", "item"):
        got = load(served, "get", HTML_CONCURRENCY, seconds, paths=paths[page])
        row[f"html_{page}"], row[f"html_{page}_cpu"] = got.rate, got.cpu_us
    return row


LABELS = [
    ("ready_s", "start-up to ready (s, includes catalog load)", "", "{:.2f}"),
    ("buy_1_ms", "first purchase after start-up, JSON API (ms)", "= the 100th", "{:.1f}"),
    ("buy_100_ms", "100th purchase, JSON API (ms)", "", "{:.1f}"),
    ("buy_med_ms", "purchases 2-100, median (ms)", "", "{:.1f}"),
    ("done_1_ms", "first HTML done page, GET after those (ms)", "= the 100th", "{:.1f}"),
    ("done_100_ms", "100th HTML done page (ms)", "", "{:.1f}"),
    ("post_1_ms", "first Buy Now after start-up, HTML POST /done (ms)", "= the 100th", "{:.1f}"),
    ("post_100_ms", "100th Buy Now, HTML POST /done (ms)", "", "{:.1f}"),
    ("post_med_ms", "Buy Now 2-100, median (ms)", "", "{:.1f}"),
    ("json_1", "JSON API steps/s, 1 client", "", "{:,.0f}"),
    ("json_8", "JSON API steps/s, 8 clients", ">= 2,000", "{:,.0f}"),
    ("json_32", "JSON API steps/s, 32 clients", ">= the 8-client figure", "{:,.0f}"),
    ("html_search", f"HTML search results pages/s, {HTML_CONCURRENCY} clients", ">= 1,000", "{:,.0f}"),
    ("html_item", f"HTML item pages/s, {HTML_CONCURRENCY} clients", ">= 1,000", "{:,.0f}"),
    ("json_1_cpu", "server CPU per JSON step, 1 client (us)", "", "{:,.0f}"),
    ("json_8_cpu", "server CPU per JSON step, 8 clients (us)", "< 500", "{:,.0f}"),
    ("json_32_cpu", "server CPU per JSON step, 32 clients (us)", "", "{:,.0f}"),
    ("html_search_cpu", "server CPU per search results page (us)", "< 1,000", "{:,.0f}"),
    ("html_item_cpu", "server CPU per item page (us)", "< 1,000", "{:,.0f}"),
]


def print_table(names: list[str], rows: list[dict[str, float]]) -> None:
    width = max(len(label) for _, label, _, _ in LABELS)
    cols = [max(12, len(n)) for n in names]
    print(f"{'measure':<{width}}  " + "  ".join(f"{n:>{c}}" for n, c in zip(names, cols, strict=True)) + "  target")
    print("-" * (width + sum(cols) + 2 * len(cols) + 10))
    for key, label, target, fmt in LABELS:
        cells = "  ".join(f"{fmt.format(r[key]) if key in r else '-':>{c}}" for r, c in zip(rows, cols, strict=True))
        print(f"{label:<{width}}  {cells}  {target}")


def bench_browser(base: str, episodes: int, chromium: str) -> list[tuple[str, str]]:
    """Browser steps/s and median step in url and click mode (the browser adapter's own figures)."""
    from shopsim.adapters.browser_source import BrowserSource

    rows = []
    for mode in ("url", "click"):
        times: list[float] = []
        with BrowserSource(base, mode=mode, executable_path=chromium) as src:  # type: ignore[arg-type]
            for g in range(episodes):
                state, product = src.reset(g), None
                for template in ["search[{q}]", "click[{p}]", "click[buy now]"]:
                    if "{p}" in template and product is None:
                        break
                    action = template.replace("{q}", _query(state.instruction)).replace("{p}", product or "")
                    t = time.perf_counter()
                    state, _, done, _ = src.step(action)
                    times.append(time.perf_counter() - t)
                    if state.results and product is None:
                        product = state.results[0].id.lower()
                    if done:
                        break
        rows.append((f"browser steps/s ({mode}), median step", f"{len(times) / sum(times):.1f}, "
                     f"{1000 * statistics.median(times):.0f} ms"))
    BrowserSource.shutdown()
    return rows


def _served(common: list[str], variant: str) -> Served:
    """A server for one ``--variant``: extra ``serve`` arguments, and ``python=PATH`` to run another
    checkout's interpreter (an A/B against the code before a change)."""
    words = shlex.split(variant)
    python = [w.removeprefix("python=") for w in words if w.startswith("python=")]
    args = [w for w in words if not w.startswith("python=")]
    return Served([*common, *args], python=python[0]) if python else Served([*common, *args])


def bench_encoders(data: str | None, n: int = 300) -> list[tuple[str, str]]:
    """Microseconds to encode real step bodies (a results, an item and a done page) by each candidate:
    Starlette's JSONResponse (the standard library), orjson (FastJSONResponse), and pydantic's own
    JSON of the response model; and to build the body through the response model first, as before."""
    import timeit

    from starlette.responses import JSONResponse

    from shopsim.simsite.api_schema import StepResponse
    from shopsim.simsite.json_api import FastJSONResponse
    from shopsim.simsite.session import ShopSession
    from shopsim.simsite.shop import Shop, ShopConfig
    from shopsim.simsite.web_api import step_body
    from shopsim.simsite.web_state import Lease

    shop = Shop.from_config(ShopConfig(data_dir=data))
    lease = Lease(ShopSession(shop, shop.goal(0), "bench"), "text")
    session = lease.session
    results = session.step(f"search[{_query(session.state.instruction or '')}]")
    bodies = [step_body(lease, results)]
    bodies.append(step_body(lease, session.step(f"click[{results.state.results[0].id.lower()}]")))
    bodies.append(step_body(lease, session.step("click[buy now]")))
    candidates = {
        "stdlib json (Starlette JSONResponse)": lambda b: JSONResponse(b).body,
        "orjson (FastJSONResponse)": lambda b: FastJSONResponse(b).body,
        "pydantic model_dump_json": lambda b: StepResponse.model_validate(b).model_dump_json().encode(),
        "as before: model, model_dump, stdlib json": lambda b: JSONResponse(StepResponse(**b).model_dump()).body,
    }
    rows = []
    for name, fn in candidates.items():
        us = [min(timeit.repeat(lambda b=b, f=fn: f(b), number=n, repeat=5)) / n * 1e6 for b in bodies]
        rows.append((f"encode a step body, {name} (us: results / item / done)", " / ".join(f"{u:.1f}" for u in us)))
    return rows


def bench_parse(data: str | None, n: int = 200) -> list[tuple[str, str]]:
    """The translator's parse of a sim item page: from its embedded PageState, and from the markup alone."""
    from shopsim.simsite.html import render_html
    from shopsim.simsite.session import ShopSession
    from shopsim.simsite.shop import Shop, ShopConfig
    from shopsim.translators.sim_pages import SimsiteTranslator

    shop = Shop.from_config(ShopConfig(data_dir=data))
    session = ShopSession(shop, shop.goal(0), "fixed_0")
    session.step("search[shoes]")
    session.step(f"click[{session.state.results[0].id.lower()}]")
    html = render_html(session.state)
    bare = html.split('<script type="application/json"')[0]
    tr = SimsiteTranslator()
    ms = []
    for page in (html, bare):
        t = time.perf_counter()
        for _ in range(n):
            tr.parse(page)
        ms.append((time.perf_counter() - t) / n * 1000)
    return [("sim item page parse, embedded state / markup only", f"{ms[0]:.2f} / {ms[1]:.2f} ms")]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default=str(SMALL) if (SMALL / "items_shuffle_1000.json").exists() else None,
                    help="WebShop-format folder (default: ../shared/data/webshop-small, else the bundled catalog)")
    ap.add_argument("--seconds", type=float, default=3.0, help="measured seconds per figure and round")
    ap.add_argument("--rounds", type=int, default=3, help="alternating rounds over the variants; medians shown")
    ap.add_argument("--variant", action="append", default=None, metavar="ARGS",
                    help="extra `shopsim serve` arguments of one server to compare (repeatable; default: one, none)")
    ap.add_argument("--json", action="store_true", help="also print every round's figures as JSON")
    ap.add_argument("--cold-only", action="store_true", help="only the start-up figures (two fresh servers a variant)")
    ap.add_argument("--encoders", action="store_true", help="add the in-process cost of each JSON encoder")
    ap.add_argument("--browser", action="store_true", help="add browser steps/s (url, click) against the server")
    ap.add_argument("--browser-episodes", type=int, default=5)
    ap.add_argument("--chromium", default="/usr/bin/chromium")
    args = ap.parse_args()
    variants = args.variant or [""]
    common = ["--synthetic-goals", *(["--data", args.data] if args.data else [])]
    servers = [_served(common, v) for v in variants]
    rounds: list[list[dict[str, Any]]] = [[] for _ in variants]
    try:
        for i, s in enumerate(servers):  # one at a time: the others' start-up would load the machine
            s.__enter__()
            rounds[i].append(cold_start(s))
            with _served(common, variants[i]) as fresh:  # a second one, whose first purchase is a browser's
                rounds[i][-1].update(cold_browser_buy(fresh))
        paths = asyncio.run(_html_paths(servers[0].port, 20))
        for _ in range(0 if args.cold_only else args.rounds):
            for i, s in enumerate(servers):
                rounds[i].append(throughput(s, paths, args.seconds))
        extra = bench_browser(servers[0].base, args.browser_episodes, args.chromium) if args.browser else []
        extra += bench_encoders(args.data) if args.encoders else []
        extra += bench_parse(args.data) if not args.cold_only else []
    finally:
        for s in servers:
            s.__exit__(None, None, None)
    medians = [{k: statistics.median(r[k] for r in rs if k in r) for k in {k for r in rs for k in r}} for rs in rounds]
    print(f"data: {args.data or 'bundled catalog'}; {args.rounds} rounds of {args.seconds:g} s; medians")
    print_table([v or "default" for v in variants], medians)
    for label, value in extra:
        print(f"{label}: {value}")
    if args.json:
        print(json.dumps({v or "default": rs for v, rs in zip(variants, rounds, strict=True)}))


if __name__ == "__main__":
    main()
