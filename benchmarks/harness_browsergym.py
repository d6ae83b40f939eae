"""Median step time through BrowserGym (``browsergym.shopsim``) beside shopsim's own ``BrowserSource``
and in-process steps, along the same oracle paths.

    python benchmarks/harness_browsergym.py [--goals N] [--rounds R]

One process: the task package's server thread (``shopsim serve``'s app: human goals of the bundled
catalog) serves every harness. For each of the test split's first N goals, every harness walks the
oracle's path (search the instruction, open the best product, pick its options, buy):

* ``in-process``: ``ShopEnv`` over the served shop object (no HTTP);
* ``BrowserSource``: ``ShopEnv`` over shopsim's Playwright source in click mode (real clicks);
* ``BrowserGym``: ``gym.make("browsergym/shopsim.test.<n>")`` stepping BrowserGym's own bid actions
  (``fill``, ``click``): its search is two steps (fill, then click), and each step includes its
  observation (AXTree, DOM, screenshot) and ``validate`` (one GET of the session);
* ``BrowserGym, no settle``: the same with ``pre_observation_delay=0`` (BrowserGym waits 0.5 s
  before every observation by default, for pages whose scripts keep changing; ours are static).

Rows give the median ms of a step and of a reset, and the mean final reward (equal for all harnesses,
checked). Wall-clock on a shared machine: compare rows of one run, not runs with each other.
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Any

import browsergym.shopsim  # noqa: F401  (registers the ids)
import gymnasium as gym
from browsergym.shopsim.oracle import OraclePlan, oracle_plan
from browsergym.shopsim.scripted import oracle_moves
from browsergym.shopsim.server import oracle_shop, shop_url

from shopsim.adapters.browser_source import BrowserSource
from shopsim.adapters.env import ShopEnv

SLOW_NAVIGATION = "TimeoutError: Locator.click: Timeout 500ms exceeded"


def text_actions(plan: OraclePlan) -> list[str]:
    """The oracle's path as WebShop action strings (results page turns included)."""
    return [f"search[{plan.query}]", *["click[next >]"] * (plan.page - 1), f"click[{plan.asin.lower()}]",
            *[f"click[{v}]" for v in plan.options.values()], "click[buy now]"]


def run_shopenv(env: ShopEnv, plans: list[OraclePlan], steps: list[float], resets: list[float]) -> list[float]:
    rewards = []
    for plan in plans:
        t0 = time.perf_counter()
        env.reset(options={"goal": plan.goal_index})
        resets.append(time.perf_counter() - t0)
        reward = 0.0
        for action in text_actions(plan):
            t0 = time.perf_counter()
            _, reward, *_ = env.step(action)
            steps.append(time.perf_counter() - t0)
        rewards.append(reward)
    return rewards


def run_browser_source(base: str, plans: list[OraclePlan], steps: list[float], resets: list[float]) -> list[float]:
    """One Playwright per thread: stop shopsim's before BrowserGym starts its own (both use the sync API)."""
    source = BrowserSource(base, mode="click")
    try:
        return run_shopenv(ShopEnv(None, source=source), plans, steps, resets)
    finally:
        source.close()
        BrowserSource.shutdown()


def run_browsergym(plans: list[OraclePlan], steps: list[float], resets: list[float], slow: list[int],
                   **kw: Any) -> list[float]:
    """BrowserGym's clicks wait at most 500 ms for the page they load (fixed in its action code): on a
    busy machine some report a TimeoutError although the click was made and the page loads; those
    are counted in ``slow`` (the next observation is of the new page, so the walk goes on).
    """
    rewards = []
    for plan in plans:
        env = gym.make(f"browsergym/shopsim.test.{plan.goal_index}", **kw)
        t0 = time.perf_counter()
        obs, _ = env.reset(seed=0)
        resets.append(time.perf_counter() - t0)
        moves = oracle_moves(plan)
        reward = 0.0
        for move in moves:
            action = move(obs)
            t0 = time.perf_counter()
            obs, reward, *_ = env.step(action)
            steps.append(time.perf_counter() - t0)
            error = obs["last_action_error"]
            if error and not error.startswith(SLOW_NAVIGATION):
                raise SystemExit(f"{action}: {error}")
            slow[0] += bool(error)
        rewards.append(float(reward))
        env.close()
    return rewards


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--goals", type=int, default=3, help="test-split goals 0..N-1")
    ap.add_argument("--rounds", type=int, default=1)
    args = ap.parse_args()
    base = shop_url()
    shop = oracle_shop()
    plans = [oracle_plan(shop, g) for g in range(args.goals)]
    harnesses = {
        "in-process": lambda s, r: run_shopenv(ShopEnv(shop), plans, s, r),
        "BrowserSource": lambda s, r: run_browser_source(base, plans, s, r),
        "BrowserGym": lambda s, r: run_browsergym(plans, s, r, slow),
        "BrowserGym, no settle": lambda s, r: run_browsergym(plans, s, r, slow, pre_observation_delay=0.0),
    }
    rows = []
    slow = [0]
    for name, run in harnesses.items():
        run([], [])  # warm: first launch, first pages
        slow[0] = 0
        steps: list[float] = []
        resets: list[float] = []
        rewards: list[float] = []
        for _ in range(args.rounds):
            rewards = run(steps, resets)
        rows.append((name, statistics.median(steps) * 1000, statistics.median(resets) * 1000, len(steps),
                     statistics.mean(rewards), slow[0]))
    if len({round(r[4], 9) for r in rows}) != 1:
        raise SystemExit(f"the harnesses' rewards differ: {rows}")
    print(f"{'harness':<22} {'step ms':>9} {'reset ms':>9} {'steps':>6} {'reward':>7} {'nav>500ms':>9}")
    for name, step, reset, n, reward, late in rows:
        print(f"{name:<22} {step:>9.1f} {reset:>9.1f} {n:>6} {reward:>7.3f} {late:>9}")
    print(f"(medians; {args.goals} goals x {args.rounds} round(s); one process, the task package's server thread)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
