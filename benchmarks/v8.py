"""The shopsim-v8 profile: steps/s in-process, search quality, slot fairness, what asking the shopper is
worth, and budget-annotation throughput.

    python benchmarks/v8.py [--data FILE_OR_DIR] [--episodes N] [--seconds S] [--shopper-tasks N] [--json]
    python benchmarks/v8.py --only shopper            # just the four-scenario table (a few seconds)
    python benchmarks/v8.py --only client             # just the HTTP-client rollout rows (about a minute)

Prints one table. Targets (2-core machine): >= 4,000 steps/s in-process for the heuristic agent;
the JSON API (``shopsim serve --profile shopsim-v8`` in its own process, loaded by separate client
processes, see ``benchmarks/_http_load.py``) as fast from its first purchase on as later. Search latency on a
22,726-product catalog is measured by ``benchmarks/v8_search.py`` (target p95 < 5 ms). The
fairness run opens 2x as many sessions as there are slots, each holding its slot for a short
episode, and reports how long resets waited and whether they were served in arrival order. The
shopper table plays the heuristic agent in the four scenarios (single/multi-turn x standard/persona)
on the persona tasks whose request hides a target option (a seeded sample): the multi-turn agent
asks the rule-based shopper, the single-turn one cannot. The HTTP-client rows are what an RL
trainer sees: threads in one process, each playing heuristic rollouts through ``ShopEnv`` over
:class:`~shopsim.adapters.v8_http_source.V8HttpSource` (the :class:`~shopsim.adapters.v8_client.V8Client`)
against a served instance. The
annotation figure sends ``--annotation-items`` budget questions to the local fake model of
``tests/_fake_llm.py`` (50 ms a reply, no rate limit) at 1 and 8 workers: the pipeline's own overhead.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from shopsim.adapters.env import ShopEnv
from shopsim.agents.registry import make_agent
from shopsim.agents.shopper_eval import run_scenarios
from shopsim.simsite.v8.search_eval import evaluate_search
from shopsim.simsite.v8.shop import V8Shop
from shopsim.simsite.v8.shopper_tasks import hidden_constraint_tasks


def pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(q * len(s)))] if s else 0.0


def steps_per_second(shop: V8Shop, agent_name: str, episodes: int) -> dict[str, float]:
    env = ShopEnv(shop, max_steps=30)
    agent = make_agent(agent_name, 0)
    steps = 0
    t0 = time.perf_counter()
    for i in range(episodes):
        g = i % len(shop.goals)
        agent.reset(seed=i)
        obs, info = env.reset(seed=0, options={"goal": g})
        done = False
        while not done:
            obs, _, term, trunc, info = env.step(agent.act(obs, info["valid_actions"], info))
            steps += 1
            done = term or trunc
    dt = time.perf_counter() - t0
    return {"steps": steps, "seconds": dt, "steps_per_s": steps / dt}


def fairness(shop: V8Shop, slots: int = 4, factor: int = 2, hold_s: float = 0.6, gap_s: float = 0.05) -> dict[str, Any]:
    """2x oversubscription through the real app over HTTP on 127.0.0.1.

    Client ``i`` asks for a session ``i * gap_s`` after the start (clients are made beforehand, so
    arrival order is the index), holds its slot for ``hold_s`` and releases it; ``hold_s`` exceeds
    the arrival spread, so every client past the first ``slots`` has to queue.
    """
    import threading

    import httpx

    from shopsim.simsite.server import ServerThread
    from shopsim.simsite.v8.service import create_v8_app

    n = slots * factor
    task_ids = [shop.goals[i % len(shop.goals)].task_id for i in range(n)]
    clients = [httpx.Client(timeout=60) for _ in range(n)]
    log: list[tuple[int, float, float, int]] = []
    with ServerThread(create_v8_app(shop, slots=slots, queue_timeout_s=30)) as srv:
        for c in clients:  # warm the connections
            c.get(f"{srv.base_url}/api/health")
        start = time.perf_counter() + 0.2

        def run(i: int) -> None:
            time.sleep(max(0.0, start + i * gap_s - time.perf_counter()))
            t0 = time.perf_counter()
            r = clients[i].post(f"{srv.base_url}/api/sessions", json={"task_id": task_ids[i]}).json()
            got = time.perf_counter()
            clients[i].post(f"{srv.base_url}/api/sessions/{r['lease_id']}/step", json={"action": "search[test]"})
            time.sleep(hold_s)
            clients[i].delete(f"{srv.base_url}/api/sessions/{r['lease_id']}")
            log.append((i, t0, got, r["env_idx"]))

        threads = [threading.Thread(target=run, args=(i,)) for i in range(n)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    for c in clients:
        c.close()
    waits = [got - t0 for _, t0, got, _ in log]
    # The first ``slots`` clients hold their slots longer than all arrivals take, so the rest queue.
    queued = list(range(slots, n))
    grant_order = [i for i, _, got, _ in sorted(log, key=lambda x: x[2]) if i in queued]
    return {"sessions": n, "slots": slots, "served": len(log), "queued": len(queued),
            "in_order": grant_order == queued, "wait_p50_ms": 1000 * statistics.median(waits),
            "wait_max_ms": 1000 * max(waits)}


def json_api(shop: V8Shop, data: str | None, seconds: float) -> dict[str, float]:
    """The served v8 API: first and later purchases after start-up, steps/s and server CPU per step at 1/8/32."""
    import asyncio

    from _http_load import Conn, Served, load, v8_episode

    ids = [t.task_id for t in shop.goals[:100]]  # 100 tasks: the 100th purchase is of a task not seen before

    async def purchases(port: int, n: int) -> list[float]:
        conn, buys = await Conn.open(port), []
        for i in range(n):
            await v8_episode(conn, ids[i % len(ids)], lambda t, a, d: buys.append(d) if a == "click[buy now]" else None)
        conn.close()
        return buys

    out: dict[str, float] = {}
    with Served(["--profile", "shopsim-v8", "--slots", "40", *(["--data", data] if data else [])]) as served:
        buys = asyncio.run(purchases(served.port, 100))
        out.update(ready_s=served.ready_s, buy_1_ms=1000 * buys[0], buy_last_ms=1000 * buys[-1],
                   buy_med_ms=1000 * statistics.median(buys[1:]))
        for c in (1, 8, 32):
            got = load(served, "v8", c, seconds, ids=ids)
            out[f"steps_{c}"], out[f"cpu_{c}"] = got.rate, got.cpu_us
    return out


def shopper_table(shop: V8Shop, n: int) -> list[dict[str, Any]]:
    """The heuristic agent in the four scenarios on ``n`` hidden-option persona tasks (seed 0)."""
    ids = hidden_constraint_tasks(shop, n, seed=0)
    return [s.model_dump(exclude={"rewards"}) for s in run_scenarios(shop, "heuristic", ids)]


def print_shopper(rows: list[dict[str, Any]]) -> None:
    print(f"  heuristic agent, four scenarios, {rows[0]['episodes']} persona tasks with a hidden option (seed 0):")
    print(f"    {'scenario':<18} {'mean r_strict':>13} {'success':>8} {'asks/ep':>8} {'steps/ep':>9}")
    for r in rows:
        print(f"    {r['scenario']:<18} {r['mean_reward']:>13.3f} {100 * r['success_rate']:>7.1f}% "
              f"{r['asks_per_episode']:>8.2f} {r['mean_steps']:>9.2f}")


def client_rollouts(data: str | None, seconds: float) -> dict[str, float]:
    """Rollout steps/s through the HTTP client at 1/8/32 concurrent clients (threads), each on its own lease."""
    import threading

    from _http_load import Served

    from shopsim.adapters.v8_http_source import V8HttpSource

    def rate(base: str, clients: int, n_goals: int) -> float:
        counts = [0] * clients
        start = threading.Barrier(clients + 1)
        stop = threading.Event()

        def worker(i: int) -> None:
            env, agent = ShopEnv(None, source=V8HttpSource(base, max_actions=30)), make_agent("heuristic", i)
            with env:
                start.wait()
                for episode in range(10**9):
                    agent.reset(seed=episode)
                    obs, info = env.reset(seed=0, options={"goal": (i * 97 + episode) % n_goals})
                    done = False
                    while not done and not stop.is_set():
                        obs, _, term, trunc, info = env.step(agent.act(obs, info["valid_actions"], info))
                        counts[i] += 1
                        done = term or trunc
                    if stop.is_set():
                        return

        threads = [threading.Thread(target=worker, args=(i,)) for i in range(clients)]
        for t in threads:
            t.start()
        start.wait()
        t0 = time.perf_counter()
        time.sleep(seconds)
        stop.set()
        total, dt = sum(counts), time.perf_counter() - t0
        for t in threads:
            t.join()
        return total / dt

    with Served(["--profile", "shopsim-v8", "--slots", "40", *(["--data", data] if data else [])]) as served:
        n_goals = len(httpx_tasks(served.base))
        return {f"client_{c}": rate(served.base, c, n_goals) for c in (1, 8, 32)}


def httpx_tasks(base: str) -> list[int]:
    from shopsim.adapters.v8_client import V8Client

    with V8Client(base) as client:
        return client.tasks().task_ids


def print_clients(rows: dict[str, float]) -> None:
    for c in (1, 8, 32):
        print(f"  {f'HTTP client (V8Client) rollout steps/s, {c} clients':<44} {rows[f'client_{c}']:>18,.0f}")


def annotation_throughput(items: int, workers: tuple[int, ...] = (1, 8), delay_s: float = 0.05) -> dict[str, float]:
    """Budget annotations per second against the local fake model (the pipeline's overhead, not a model's)."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    from _fake_llm import FakeLLM  # type: ignore[import-not-found]

    from shopsim.simsite.v8.budget_annotation import Annotator, CacheKey, Item, RateGate, run_items

    def answer(body: dict[str, Any]) -> dict[str, Any]:
        ask = json.loads(body["messages"][-1]["content"])
        content = {"task_id": ask["task_id"], "kind": "upper_bound", "amount": 300, "evidence": "300元以内"}
        return {"role": "assistant", "content": json.dumps(content, ensure_ascii=False)}

    fake = FakeLLM()
    fake.default, fake.delay = answer, delay_s
    out: dict[str, float] = {}
    try:
        for n in workers:
            with tempfile.TemporaryDirectory() as tmp:
                key = CacheKey("0" * 64, fake.url, "fake")
                annotator = Annotator(fake.url, "fake", key, Path(tmp) / "cache.jsonl", RateGate(1e9))
                todo = [Item(i, "instruction_simple", f"想买一个电热水壶，300元以内 #{i}") for i in range(items)]
                t0 = time.perf_counter()
                done = run_items(annotator, todo, n)
                out[f"items_per_s_{n}"] = len(done) / (time.perf_counter() - t0)
                annotator.close()
    finally:
        fake.close()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default=None, help="a v8 catalog (default: the bundled one)")
    ap.add_argument("--episodes", type=int, default=300)
    ap.add_argument("--seconds", type=float, default=3.0, help="measured seconds per JSON-API load figure")
    ap.add_argument("--shopper-tasks", type=int, default=60, help="persona tasks in the four-scenario table")
    ap.add_argument("--only", choices=("shopper", "client"), default=None, help="run one table only")
    ap.add_argument("--annotation-items", type=int, default=64, help="budget questions per annotation figure")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    if args.only == "client":  # needs no shop in this process: the server loads its own
        clients = client_rollouts(args.data, args.seconds)
        print(json.dumps({"http_client": clients}) if args.json else "shopsim-v8 over HTTP, heuristic rollouts:")
        if not args.json:
            print_clients(clients)
        return
    t0 = time.perf_counter()
    shop = V8Shop.load(args.data)
    load_s = time.perf_counter() - t0
    if args.only == "shopper":
        table = shopper_table(shop, args.shopper_tasks)
        if args.json:
            print(json.dumps({"shopper": table}))
        else:
            print_shopper(table)
        return
    t0 = time.perf_counter()
    shop.prime_nouns()  # every title's reward terms, as `shopsim run` does for runs of more than 50 tasks
    rows: dict[str, Any] = {"products": len(shop.products), "tasks": len(shop.goals), "load_s": load_s,
                            "prime_s": time.perf_counter() - t0}
    for name in ("random", "heuristic"):
        rows[f"{name}"] = steps_per_second(shop, name, args.episodes)
    # the same episodes again: what a trainer's later epochs see (per-product and per-text caches filled)
    rows["heuristic_again"] = steps_per_second(shop, "heuristic", args.episodes)
    lat = []
    rng = random.Random(0)
    queries = [t.simple_text for t in rng.sample(shop.goals, min(300, len(shop.goals)))]
    for q in queries:
        t = time.perf_counter()
        shop.search_engine.search(q, 150)
        lat.append(1000 * (time.perf_counter() - t))
    rows["search_ms"] = {"p50": pct(lat, 0.5), "p95": pct(lat, 0.95)}
    rows["search_eval"] = evaluate_search(shop.catalog, shop.search_engine)
    rows["fairness"] = fairness(shop)
    rows["json_api"] = json_api(shop, args.data, args.seconds)
    rows["http_client"] = client_rollouts(args.data, args.seconds)
    rows["shopper"] = shopper_table(shop, args.shopper_tasks)
    rows["annotation"] = annotation_throughput(args.annotation_items)
    if args.json:
        rows["search_eval"] = rows["search_eval"].model_dump(exclude={"gold_ranks"})
        print(json.dumps(rows))
        return
    print_rows(rows)

def print_rows(rows: dict[str, Any]) -> None:
    """The full run's table (``main`` gathers it)."""
    print(f"shopsim-v8: {rows['products']} products, {rows['tasks']} tasks, load {rows['load_s']:.2f} s, "
          f"title terms primed in {rows['prime_s']:.2f} s")
    print(f"  {'measure':<44} {'result':>18}  target")
    for name in ("random", "heuristic"):
        r = rows[name]
        print(f"  {name + ' agent steps/s (in-process)':<44} {r['steps_per_s']:>18,.0f}  "
              f"{'>= 4,000' if name == 'heuristic' else ''}")
    print(f"  {'heuristic, the same episodes again':<44} {rows['heuristic_again']['steps_per_s']:>18,.0f}")
    print(f"  {'search p50 / p95 (ms, 300 simple queries)':<44} "
          f"{rows['search_ms']['p50']:>8.2f} / {rows['search_ms']['p95']:<7.2f}  p95 < 5 at 22,726 (v8_search.py)")
    for r in rows["search_eval"].rows:
        print(f"  {'search-eval, ' + r.query_kind + ' (R@1/20/150, MRR)':<44} "
              f"{100 * r.recall_at_1:5.1f} / {100 * r.recall_at_20:5.1f} / {100 * r.recall_at_150:5.1f} %, "
              f"{r.mrr_at_150:.3f}")
    f = rows["fairness"]
    print(f"  {'2x oversubscription: served / sessions':<44} {f['served']:>8} / {f['sessions']:<7}  all, no 429")
    print(f"  {'  resets that had to queue':<44} {f['queued']:>18}")
    print(f"  {'  queued resets served in arrival order':<44} {f['in_order']!s:>18}  True")
    print(f"  {'  reset wait p50 / max (ms)':<44} {f['wait_p50_ms']:>8.0f} / {f['wait_max_ms']:<7.0f}")
    j = rows["json_api"]
    print(f"  {'JSON API: start-up to ready (s)':<44} {j['ready_s']:>18.2f}")
    print(f"  {'JSON API: 1st / 100th purchase (ms)':<44} {j['buy_1_ms']:>8.1f} / {j['buy_last_ms']:<7.1f}  1st = 100th")
    for c in (1, 8, 32):
        print(f"  {f'JSON API steps/s, {c} clients (server CPU/step)':<44} {j[f'steps_{c}']:>8,.0f} / "
              f"{j[f'cpu_{c}']:<7,.0f}us")
    print_clients(rows["http_client"])
    print_shopper(rows["shopper"])
    a = rows["annotation"]
    print(f"  {'budget annotations/s, fake model 50 ms (1 / 8 workers)':<44} {a['items_per_s_1']:>8.1f} / "
          f"{a['items_per_s_8']:<7.1f}  8 workers ~ 8x")


if __name__ == "__main__":
    main()
