"""The rule agent through WebShop's own API (``web_agent_site.envs.WebAgentTextEnv``), from a cold start.

    python benchmarks/webshop_api.py [--data FILE] [--episodes N] [--rounds R] [--clock wall|cpu] [--json] [--compare-pages]

What a user who swaps WebShop for shopsim sees: a fresh interpreter imports ``web_agent_site.envs``,
builds the text env on WebShop's 1,000-product small set (``../shared`` when present, else the bundled
catalog) and plays the paper's rule agent (search the instruction, open the first result, click the
instruction's options, buy) on goals ``0..N-1``, round after round. Prints import, construction and
first-episode times, the first round's steps/s counting import and construction (a cold user's rate),
and the steady steps/s of the later rounds. Targets (issue 21): >= 15,000 steps/s steady, >= 5,000
including import and the first episode; first episode no slower than WebShop's (0.23 s).
``--clock cpu`` times the probe's own CPU seconds instead of the wall clock: figures that hold while
other work loads the machine (the process is single-threaded).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SMALL_ITEMS = ROOT.parent / "shared" / "data" / "webshop-small" / "items_shuffle_1000.json"

#: WebShop's own figures for the same workload, measured side by side on this machine class when issue 21
#: was filed (its ``WebAgentTextEnv`` at 64fa2a5 with Pyserini and spaCy; Java 21 is not on this image).
WEBSHOP_RECORDED = {"steady steps/s": 48.6, "first episode s": 0.23}


def episode(env: Any, session: int) -> int:
    """One rule-agent episode in WebShop's API shape; returns the steps taken."""
    env.reset(session=session)
    goal = env.instruction_text.split("Instruction: ", 1)[-1]
    env.step(f"search[{goal}]")
    links = [t for t in env.get_available_actions()["clickables"]
             if env.text_to_clickable[t].get("class") == ["product-link"]]
    if not links:
        return 1
    env.step(f"click[{links[0]}]")
    steps, chosen = 2, set()
    for text in env.get_available_actions()["clickables"]:
        element = env.text_to_clickable[text]
        axis = element.get("name")
        if element.name == "input" and axis not in chosen and f"{axis}: {element['value']}" in goal:
            env.step(f"click[{text}]")
            chosen.add(axis)
            steps += 1
    env.step("click[buy now]")
    return steps + 1


def probe(data: str | None, episodes: int, rounds: int, clock: str = "wall") -> dict[str, Any]:
    """Run in a fresh interpreter (``--probe``): every figure of one cold start, as a dict."""
    now = time.process_time if clock == "cpu" else time.perf_counter
    t0 = now()
    from web_agent_site.envs import WebAgentTextEnv

    t1 = now()
    env = WebAgentTextEnv(observation_mode="text", file_path=data, num_products=1000 if data else None)
    t2 = now()
    steps = episode(env, 0)
    t3 = now()
    steps += sum(episode(env, s) for s in range(1, episodes))
    t4 = now()
    steady, seconds = [], []
    for _ in range(rounds):
        start = now()
        n = sum(episode(env, s) for s in range(episodes))
        seconds.append(now() - start)
        steady.append(n / seconds[-1])
    return {
        "import s": t1 - t0, "construct s": t2 - t1, "first episode s": t3 - t2,
        "cold steps/s": steps / (t4 - t0), "first round steps/s": steps / (t4 - t2),
        "steady steps/s": statistics.median(steady), "later episode s": statistics.median(seconds) / episodes,
        "cold steps/s (all rounds)": (steps + sum(r * t for r, t in zip(steady, seconds, strict=True))) / (
            now() - t0),
        "episodes": episodes, "catalog": data or "bundled", "clock": clock,
    }


def compare_pages(data: str | None, episodes: int, rounds: int) -> dict[str, float]:
    """Steady steps/s of the shim's lazy pages against ``lazy_pages=False`` (every PageState built and
    read, the path before lazy pages), one env each over one server, rounds alternating in this process."""
    from web_agent_site.envs import WebAgentTextEnv

    lazy = WebAgentTextEnv(observation_mode="text", file_path=data, num_products=1000 if data else None)
    full = WebAgentTextEnv(observation_mode="text", server=lazy.server, lazy_pages=False)
    rates: dict[str, list[float]] = {"lazy pages": [], "full PageStates": []}
    for env in (lazy, full):  # the first round fills the ranking cache and the product parts
        sum(episode(env, s) for s in range(episodes))
    for _ in range(rounds):
        for name, env in (("lazy pages", lazy), ("full PageStates", full)):
            start = time.perf_counter()
            n = sum(episode(env, s) for s in range(episodes))
            rates[name].append(n / (time.perf_counter() - start))
    return {name: statistics.median(r) for name, r in rates.items()}


def measure(data: str | None, episodes: int = 200, rounds: int = 5, clock: str = "wall") -> dict[str, Any]:
    """:func:`probe` in a fresh interpreter, so imports and first-use costs are counted.

    The interpreter may write bytecode (``PYTHONDONTWRITEBYTECODE`` is dropped) and one import runs
    first: a user's second run finds its ``.pyc`` files, and compiling ~250 modules (~0.1 s) on every
    import is a property of a sandbox that forbids writing them, not of shopsim.
    """
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    subprocess.run([sys.executable, "-c", "import web_agent_site.envs"], capture_output=True, check=True, cwd=ROOT, env=env)
    cmd = [sys.executable, __file__, "--probe", "--episodes", str(episodes), "--rounds", str(rounds), "--clock", clock]
    if data:
        cmd += ["--data", data]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True, cwd=ROOT, env=env)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> int:
    """Print the table (or JSON)."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=str(SMALL_ITEMS) if SMALL_ITEMS.exists() else None)
    ap.add_argument("--episodes", type=int, default=200)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                    help="wall clock (default) or this process's CPU time (steady under other load)")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--compare-pages", action="store_true",
                    help="steady steps/s of lazy pages against full PageStates, alternating in one process")
    ap.add_argument("--probe", action="store_true", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.compare_pages:
        for name, rate in compare_pages(a.data, a.episodes, a.rounds).items():
            print(f"{name:>16}  {rate:>10,.0f} steps/s (steady, median of {a.rounds} rounds)")
        return 0
    if a.probe:
        print(json.dumps(probe(a.data, a.episodes, a.rounds, a.clock)))
        return 0
    row = measure(a.data, a.episodes, a.rounds, a.clock)
    if a.json:
        print(json.dumps(row))
        return 0
    print(f"catalog: {row['catalog']}; rule agent on goals 0..{a.episodes - 1}; {a.clock} clock\n")
    for key in ("import s", "construct s", "first episode s", "later episode s", "cold steps/s", "first round steps/s",
                "cold steps/s (all rounds)", "steady steps/s"):
        print(f"{key:>20}  {row[key]:>10,.3f}")
    ratio = row["steady steps/s"] / WEBSHOP_RECORDED["steady steps/s"]
    print(f"\nsteady vs WebShop's recorded {WEBSHOP_RECORDED['steady steps/s']} steps/s: {ratio:,.0f}x (target 300x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
