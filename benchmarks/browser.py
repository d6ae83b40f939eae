"""Browser episodes/s per worker for the rule agent, url and click mode, old page path against new.

    python benchmarks/browser.py [--episodes N] [--rounds R] [--modes url click] [--variants old full new lean]

One process, one server thread (as ``shopsim eval --adapter browser`` with one worker runs), the
bundled catalog. Each round plays goals ``0..N-1`` once per variant, the variants taking turns, so
a machine loaded by other work slows all of them alike; each round starts with an empty HTTP cache
(goals of an evaluation are new ones); the table gives medians over rounds:

* ``old``: the page path before issue 21 (a fresh context per episode, every navigation waiting for
  the load event, the page read with ``page.content()``, Playwright's locator clicks) in the
  Chromium it found (Debian's full ``chromium`` where Playwright has none of its own);
* ``full``: :class:`BrowserSource` as it is (one context per worker, cleared between episodes;
  navigations wait for the DOM; one main-world read; clicks without the selector engine), in that
  same Chromium;
* ``new``: the same in the Chromium ``find_browser`` picks now (``chromium-headless-shell`` first);
* ``lean``: ``new`` with ``assets=False`` (the stylesheet and images blocked, and a browser that
  never draws, ``TEXT_ONLY_ARGS``: text modes only).

Per phase: median ms of the source's ``reset`` and of its steps by kind (search, click, buy). ``cpu
ms/ep`` is the CPU time of this process and every process under it (Playwright's driver, Chromium)
per episode, read from ``/proc``: it stays comparable when the machine is busy. Every variant must
end each goal with the same reward (checked, else the script fails).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from shopsim.adapters.browser_source import BrowserSource, find_browser
from shopsim.adapters.env import ShopEnv
from shopsim.agents.episode import run_episode
from shopsim.agents.registry import make_agent
from shopsim.errors import SourceError
from shopsim.page import Navigation
from shopsim.simsite.server import serve_shop
from shopsim.simsite.shop import Shop, ShopConfig

TARGETS = {"url": 5.0, "click": 3.0}


class OldPathSource(BrowserSource):
    """The pre-issue-21 path for the A/B: a fresh context per episode, load waits, ``page.content()``,
    a locator count and click per click."""

    def __init__(self, base_url: str, **kw: Any):
        super().__init__(base_url, reuse_context=False, wait_until="load", **kw)

    def _read(self) -> Any:
        return self.translator.parse(self.page.content(), self.page.url)

    def _click(self, nav: Navigation) -> None:
        page = self.page
        if nav.kind == "form" and "search_query" in nav.form:
            page.fill("#search_input", nav.form["search_query"])
            with page.expect_navigation():
                page.click("button.search-btn")
            return
        if not nav.selector or page.locator(nav.selector).count() == 0:
            raise SourceError(f"click mode: no element matches {nav.selector!r} on {page.url}")
        with page.expect_navigation():
            page.locator(nav.selector).first.click()


def tree_cpu_seconds() -> float | None:
    """CPU seconds of this process and its live descendants, reaped children included; None off Linux."""
    tick = os.sysconf("SC_CLK_TCK")
    parents: dict[int, int] = {}
    used: dict[int, int] = {}
    for entry in Path("/proc").glob("[0-9]*"):
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        pid = int(entry.name)
        parents[pid] = int(fields[1])
        used[pid] = sum(int(f) for f in fields[11:15])  # utime, stime, cutime, cstime
    if not used:
        return None
    mine, total = {os.getpid()}, 0
    grew = True
    while grew:
        grew = False
        for pid, ppid in parents.items():
            if ppid in mine and pid not in mine:
                mine.add(pid)
                grew = True
    for pid in mine:
        total += used.get(pid, 0)
    return total / tick


class Timed:
    """Wraps a source's reset and step to time each by phase."""

    def __init__(self, source: BrowserSource):
        self.source = source
        self.phases: dict[str, list[float]] = defaultdict(list)
        reset, step = source.reset, source.step

        def timed_reset(goal_index: int, seed: int = 0) -> Any:
            t0 = time.perf_counter()
            out = reset(goal_index, seed)
            self.phases["reset"].append(time.perf_counter() - t0)
            return out

        def timed_step(action: str) -> Any:
            t0 = time.perf_counter()
            out = step(action)
            kind = "search" if action.startswith("search[") else "buy" if action == "click[buy now]" else "click"
            self.phases[kind].append(time.perf_counter() - t0)
            return out

        source.reset, source.step = timed_reset, timed_step  # type: ignore[method-assign]


def make_source(variant: str, base_url: str, mode: Any, chromium: str | None) -> BrowserSource:
    """The variant's source; ``chromium`` is the explicit browser, if any."""
    # find_browser's order before the headless shell came first is its order for a headed browser
    before = find_browser(chromium, headless=False)
    if variant == "old":
        return OldPathSource(base_url, mode=mode, executable_path=before)
    now = before if variant == "full" else find_browser(chromium)
    return BrowserSource(base_url, mode=mode, executable_path=now, assets=variant != "lean")


def forget_cache(source: BrowserSource) -> None:
    """Empty a kept context's HTTP cache, so a round loads images as an evaluation's new goals do."""
    if source.page is not None:
        cdp = source.context.new_cdp_session(source.page)
        cdp.send("Network.clearBrowserCache")
        cdp.detach()


def play_round(source: Timed, goals: list[int]) -> tuple[float, float | None, list[float]]:
    """Wall seconds, CPU seconds and rewards of the goals through a ShopEnv and the rule agent."""
    forget_cache(source.source)
    env = ShopEnv(None, source=source.source)
    agent = make_agent("rule", 0, {})
    cpu0, t0 = tree_cpu_seconds(), time.perf_counter()
    rewards = [run_episode(env, agent, g).reward for g in goals]
    wall, cpu1 = time.perf_counter() - t0, tree_cpu_seconds()
    return wall, (cpu1 - cpu0) if cpu0 is not None and cpu1 is not None else None, rewards


def main() -> int:
    """Print mode, variant, episodes/s, target, CPU ms per episode and per-phase ms."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--episodes", type=int, default=10, help="goals per round and variant")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--modes", nargs="*", default=["url", "click"], choices=["url", "click"])
    ap.add_argument("--variants", nargs="*", default=["old", "full", "new", "lean"],
                    choices=["old", "full", "new", "lean"])
    ap.add_argument("--chromium", default=None, help="one Chromium for every variant (default: as each says)")
    ap.add_argument("--json", action="store_true", help="also print the rows as one JSON list (last line)")
    args = ap.parse_args()
    goals = list(range(args.episodes))
    shop = Shop.from_config(ShopConfig())
    rows = []
    with serve_shop(shop) as server:
        for mode in args.modes:
            sources = {v: Timed(make_source(v, server.base_url, mode, args.chromium)) for v in args.variants}
            for timed in sources.values():  # launch and warm (first context, first pages) outside the rounds
                play_round(timed, goals[:1])
                timed.phases.clear()
            walls: dict[str, list[float]] = defaultdict(list)
            cpus: dict[str, list[float]] = defaultdict(list)
            rewards: dict[str, list[float]] = {}
            for _ in range(args.rounds):
                for variant, timed in sources.items():
                    wall, cpu, got = play_round(timed, goals)
                    walls[variant].append(wall)
                    if cpu is not None:
                        cpus[variant].append(cpu)
                    if rewards.setdefault(variant, got) != got:
                        raise SystemExit(f"{mode}/{variant}: rewards differ between rounds")
            if len({tuple(r) for r in rewards.values()}) > 1:
                raise SystemExit(f"{mode}: the variants' rewards differ: {rewards}")
            for variant, timed in sources.items():
                timed.source.close()
                phases = {k: round(1000 * statistics.median(v), 1) for k, v in timed.phases.items()}
                cpu_ms = round(1000 * statistics.median(cpus[variant]) / len(goals), 1) if cpus[variant] else None
                rows.append({"mode": mode, "variant": variant,
                             "eps/s": round(len(goals) / statistics.median(walls[variant]), 2),
                             "target": TARGETS[mode], "cpu ms/ep": cpu_ms, **phases})
    BrowserSource.shutdown()
    cols = ["mode", "variant", "eps/s", "target", "cpu ms/ep", "reset", "search", "click", "buy"]
    print("  ".join(f"{c:>9}" for c in cols))
    for r in rows:
        print("  ".join(f"{r.get(c, '')!s:>9}" for c in cols))
    print(f"(medians of {args.rounds} rounds of {args.episodes} episodes; phases in ms; one worker, server thread "
          "in-process)")
    if args.json:
        print(json.dumps(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
