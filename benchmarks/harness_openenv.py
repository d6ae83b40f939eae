"""Median step time through OpenEnv beside the in-process step (issue 25).

    python benchmarks/harness_openenv.py [--goals N] [--rounds R] [--profile webshop|shopsim-v8] [--clock wall|cpu]

The heuristic agent's episodes on goals ``0..N-1`` of the bundled catalog are played once in
process to fix their actions; each round then replays those actions through the two paths, in
turn, so a load change on the machine touches both alike:

- ``in-process``: ``ShopEnv.step`` in this process;
- ``openenv``: openenv-core's own client (``ShopsimEnv(...).sync()``, one WebSocket) against
  ``create_openenv_app`` served by uvicorn on 127.0.0.1 in a thread of this process (the client's
  encode/decode, the socket, OpenEnv's session executor and our observation model included).

Prints, per path, steps timed, the median and 90th percentile µs per step over all rounds, and the
ratio of the medians. Figures are wall-clock (they include whatever else the machine runs), or with
``--clock cpu`` this process's CPU time: the server is a thread of this process, so a step's CPU
time is the client's and the server's work together, steadier on a busy machine.
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Any


def _actions(shop: Any, goals: range) -> dict[int, list[str]]:
    from shopsim.adapters.env import ShopEnv
    from shopsim.agents.episode import run_episode
    from shopsim.agents.registry import make_agent

    env = ShopEnv(shop)
    return {g: run_episode(env, make_agent("heuristic", 0, {}), g, max_steps=30).actions for g in goals}


CLOCKS = {"wall": time.perf_counter, "cpu": time.process_time}


def _in_process(shop: Any, plays: dict[int, list[str]], times: list[float], clock: Any) -> None:
    from shopsim.adapters.env import ShopEnv

    env = ShopEnv(shop)
    for goal, actions in plays.items():
        env.reset(seed=0, options={"goal": goal})
        for action in actions:
            t0 = clock()
            env.step(action)
            times.append(clock() - t0)


def _openenv(client: Any, plays: dict[int, list[str]], times: list[float], clock: Any) -> None:
    for goal, actions in plays.items():
        client.reset(goal=goal, seed=0)
        for action in actions:
            t0 = clock()
            client.step(action)
            times.append(clock() - t0)


def _row(name: str, times: list[float]) -> tuple[str, int, float, float]:
    ordered = sorted(times)
    return name, len(times), statistics.median(times) * 1e6, ordered[int(0.9 * (len(ordered) - 1))] * 1e6


def main() -> None:
    """Replay the fixed episodes through both paths, round after round; print the table."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--goals", type=int, default=20)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--profile", default="webshop", choices=["webshop", "shopsim-v8"])
    ap.add_argument("--clock", default="wall", choices=sorted(CLOCKS))
    a = ap.parse_args()

    from shopsim.adapters.openenv_client import ShopsimEnv
    from shopsim.adapters.openenv_env import create_openenv_app
    from shopsim.simsite.profiles import open_shop
    from shopsim.simsite.server import ServerThread
    from shopsim.simsite.shop import ShopConfig

    shop = open_shop(ShopConfig(profile=a.profile))
    plays = _actions(shop, range(a.goals))
    local: list[float] = []
    remote: list[float] = []
    with ServerThread(create_openenv_app(shop)) as srv, ShopsimEnv(base_url=srv.base_url).sync() as client:
        clock = CLOCKS[a.clock]
        _openenv(client, plays, [], clock)  # warm-up: the session, the search caches, the first encodes
        for _ in range(a.rounds):
            _in_process(shop, plays, local, clock)
            _openenv(client, plays, remote, clock)
    rows = [_row("in-process", local), _row("openenv", remote)]
    print(f"profile {a.profile}: {a.goals} goals x {a.rounds} rounds, heuristic agent's actions, {a.clock} clock")
    print(f"{'path':<12} {'steps':>7} {'median µs':>10} {'p90 µs':>10}")
    for name, n, median, p90 in rows:
        print(f"{name:<12} {n:>7} {median:>10.0f} {p90:>10.0f}")
    print(f"openenv / in-process median: {rows[1][2] / rows[0][2]:.1f}x")


if __name__ == "__main__":
    main()
