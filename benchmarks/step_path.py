"""Rule-agent steps/s through ``WebAgentTextEnv``, with and without the search (issue 21, the lean step path).

    python benchmarks/step_path.py [--data ITEMS_JSON] [--episodes N] [--rounds R] [--clock wall|cpu] [--profile N]

Each round plays ``benchmarks/webshop_compat.py``'s ``episode`` (reset, search the instruction, open
the first result, click the instruction's options, buy) on goals ``0..N-1`` through
``shopsim.adapters.webshop_env.WebAgentTextEnv(observation_mode="text")``, on WebShop's small set when
``../shared`` has it (else the bundled catalog). Rounds alternate two ways of
running the same env:

- ``full``: the env as shipped (every search runs the engine);
- ``no search``: the shop's search engine swapped for a query -> ranking memo for the round, so a
  round after the warm-up costs everything but the search (a query cache emulated here only: the
  step path's own cost, the figure the lean step path targets).

Prints steps/s and µs per episode per round, their medians, and with ``--profile N`` the cProfile
top N (by tottime) of one no-search round. Figures are wall-clock (``--clock cpu``: this process's CPU
time, steadier on a machine busy with other work, which wall-clock figures then include).
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from webshop_compat import SMALL, episode  # the one rule-agent episode both benchmarks play


class MemoSearch:
    """A search engine wrapper that remembers each query's ranking (benchmark only: emulates a warm cache)."""

    def __init__(self, engine: Any):
        self.engine = engine
        self.memo: dict[tuple[str, int], list[str]] = {}

    def search(self, query: str, k: int = 50) -> list[str]:
        """The wrapped engine's ranking, computed once per (query, k)."""
        key = (query, k)
        if key not in self.memo:
            self.memo[key] = self.engine.search(query, k)
        return list(self.memo[key])


CLOCKS = {"wall": time.perf_counter, "cpu": time.process_time}


def play(env: Any, goals: range, clock: Any = time.perf_counter) -> tuple[int, float]:
    """(steps, seconds) of one round."""
    t0 = clock()
    steps = sum(episode(env, g) for g in goals)
    return steps, clock() - t0


def main() -> None:
    """Alternate full and no-search rounds; print the table and the medians."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=str(SMALL / "items_shuffle_1000.json") if SMALL.is_dir() else None)
    ap.add_argument("--episodes", type=int, default=200)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--clock", choices=sorted(CLOCKS), default="wall")
    ap.add_argument("--profile", type=int, default=0, help="print the cProfile top N of one no-search round")
    a = ap.parse_args()

    from shopsim.adapters.webshop_env import WebAgentTextEnv

    kwargs: dict[str, Any] = {"observation_mode": "text", "file_path": a.data,
                              "num_products": 1000 if a.data else None}
    env = WebAgentTextEnv(**kwargs)
    shop = env.server.shop
    engine, memo = shop.search_engine, MemoSearch(shop.search_engine)
    goals = range(a.episodes)

    def round_(memoised: bool) -> tuple[int, float]:
        shop.search_engine = memo if memoised else engine
        try:
            return play(env, goals, CLOCKS[a.clock])
        finally:
            shop.search_engine = engine

    round_(False), round_(True)  # warm up (noun tags, the memo, per-product parts)
    print(f"catalog: {a.data or 'bundled'}; {a.episodes} episodes per round; {a.clock} clock\n")
    print(f"{'round':>5} | {'full steps/s':>12} | {'µs/episode':>10} | {'no-search steps/s':>17} | {'µs/episode':>10}")
    print(f"{'-' * 5}-|-{'-' * 12}-|-{'-' * 10}-|-{'-' * 17}-|-{'-' * 10}")
    rows: list[tuple[float, float, float, float]] = []
    for r in range(a.rounds):
        got = {m: round_(m) for m in ((False, True) if r % 2 == 0 else (True, False))}
        (fs, ft), (ls, lt) = got[False], got[True]
        row = (fs / ft, ft / a.episodes * 1e6, ls / lt, lt / a.episodes * 1e6)
        rows.append(row)
        print(f"{r + 1:>5} | {row[0]:>12,.0f} | {row[1]:>10,.0f} | {row[2]:>17,.0f} | {row[3]:>10,.0f}")
    med = [statistics.median(col) for col in zip(*rows, strict=True)]
    print(f"{'med':>5} | {med[0]:>12,.0f} | {med[1]:>10,.0f} | {med[2]:>17,.0f} | {med[3]:>10,.0f}")
    if a.profile:
        prof = cProfile.Profile()
        prof.runcall(round_, True)
        pstats.Stats(prof).sort_stats("tottime").print_stats(a.profile)


if __name__ == "__main__":
    main()
