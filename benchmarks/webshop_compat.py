"""Steps/s of the rule agent through ``web_agent_site.envs.WebAgentTextEnv`` against the shim it wraps.

    python benchmarks/webshop_compat.py [--data DIR] [--episodes N] [--rounds R]

The façade (issue 19) must cost nothing: the same episodes (search the instruction, open the first
result, pick the instruction's options, buy) run through ``shopsim.adapters.webshop_env.WebAgentTextEnv``
and through ``web_agent_site``'s, in alternating rounds, on WebShop's small set when ``../shared`` has it
(else the bundled catalog). Prints steps/s per round and the median ratio (target: 1.0 within noise).
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path
from typing import Any

from webshop_api import episode  # the same rule agent, in WebShop's API shape

ROOT = Path(__file__).resolve().parents[1]
SMALL = ROOT.parent / "shared" / "data" / "webshop-small"


def rate(env: Any, sessions: range) -> float:
    t0 = time.perf_counter()
    steps = sum(episode(env, s) for s in sessions)
    return steps / (time.perf_counter() - t0)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=str(SMALL / "items_shuffle_1000.json") if SMALL.is_dir() else None)
    ap.add_argument("--episodes", type=int, default=200)
    ap.add_argument("--rounds", type=int, default=5)
    a = ap.parse_args()

    from shopsim.adapters.webshop_env import WebAgentTextEnv as Shim
    from web_agent_site.envs import WebAgentTextEnv as Facade

    kwargs = {"observation_mode": "text", "file_path": a.data, "num_products": 1000 if a.data else None}
    shim, facade = Shim(**kwargs), Facade(server=None, **kwargs)
    sessions = range(a.episodes)
    rate(shim, range(20)), rate(facade, range(20))  # warm both (noun tags, caches)
    print(f"catalog: {a.data or 'bundled'}; {a.episodes} episodes per round\n")
    print(f"{'round':>5} | {'shim steps/s':>12} | {'web_agent_site steps/s':>22} | ratio")
    print(f"{'-' * 5}-|-{'-' * 12}-|-{'-' * 22}-|------")
    ratios = []
    for r in range(a.rounds):
        first, second = (shim, facade) if r % 2 == 0 else (facade, shim)
        x = rate(first, sessions)
        y = rate(second, sessions)
        s, f = (x, y) if first is shim else (y, x)
        ratios.append(f / s)
        print(f"{r + 1:>5} | {s:>12,.0f} | {f:>22,.0f} | {f / s:.3f}")
    print(f"\nmedian web_agent_site / shim: {statistics.median(ratios):.3f} (target 1.0 within noise)")


if __name__ == "__main__":
    main()
