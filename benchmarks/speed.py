"""Issue 21's table: every speed figure beside its target, each measured by its own script in its own process.

    python benchmarks/speed.py [--only webshop,search,browser,servers,v8] [--stores DIR ...] [--quick]

Runs, each as a fresh interpreter so imports, first uses and servers are really cold:

- ``webshop_api.py``: the rule agent through ``web_agent_site.envs.WebAgentTextEnv`` (cold start, steady);
- ``search_topk.py``: search p50/p95 at 1k (WebShop's small set) and every prepared store given with
  ``--stores`` (the 100k and 1.18M stores ``scale.py --sizes 100k,1.18M --workdir DIR`` leaves);
- ``browser.py``: browser episodes/s per worker, url and click modes (needs Chromium);
- ``web.py``: the served JSON API and HTML pages (``shopsim serve`` in its own process, client processes);
- ``v8.py``: ShopSimulator v8 in-process and over its JSON API.

On WebShop's small set when ``../shared`` has it, else the bundled catalog. Figures move with whatever
else the machine runs; nothing here is asserted (tests assert behaviour, never timings).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from statistics import median
from typing import Any

HERE = Path(__file__).resolve().parent
Row = tuple[str, float | None, str, bool | None]
"""(figure, measured, target, met): ``met`` is None where the figure has no target."""

WEBSHOP_STEADY = 48.6  # WebShop's own steps/s on this workload (issue 21's side-by-side run)
WEBSHOP_FIRST_EPISODE_S = 0.23


def run_json(script: str, *args: str, timeout: int = 1800) -> Any:
    """Run one benchmark script with ``--json`` and return its last line, parsed."""
    out = subprocess.run([sys.executable, str(HERE / script), *args, "--json"], capture_output=True, text=True,
                         cwd=HERE.parent, timeout=timeout)
    if out.returncode != 0:
        raise RuntimeError(f"{script} failed: {(out.stderr.strip().splitlines() or ['?'])[-1]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def webshop_rows(quick: bool) -> list[Row]:
    """WebAgentTextEnv from a cold interpreter: steady and cold steps/s, the first episode."""
    r = run_json("webshop_api.py", "--rounds", "2" if quick else "5")
    steady, first, cold = r["steady steps/s"], r["first episode s"], r["cold steps/s (all rounds)"]
    return [
        ("WebAgentTextEnv rule agent, steps/s steady", steady, ">= 15,000", steady >= 15_000),
        ("  the same, vs WebShop's own 48.6 steps/s (x)", steady / WEBSHOP_STEADY, ">= 300", steady / WEBSHOP_STEADY >= 300),
        ("WebAgentTextEnv steps/s incl. import + first episode (all rounds)", cold, ">= 5,000", cold >= 5_000),
        ("  the first round alone, incl. import (steps/s)", r["cold steps/s"], "", None),
        ("  import web_agent_site.envs (s)", r["import s"], "", None),
        ("  construct on the small set (s)", r["construct s"], "", None),
        ("first episode (s)", first, "<= 0.23 (WebShop's)", first <= WEBSHOP_FIRST_EPISODE_S),
        ("  a later episode (s)", r["later episode s"], "", None),
    ]


def search_rows(stores: list[str], quick: bool) -> list[Row]:
    """Search p50/p95 per catalog size, instruction-length queries, uncached and cached."""
    got = run_json("search_topk.py", *stores, "--rounds", "1" if quick else "3")
    rows: list[Row] = []
    for r in got:
        if r["queries"] != "long" or r["search"] == "maxscore only":
            continue
        n, target = r["products"], r["target_p95_ms"]
        label = f"search {n:,} products, instruction queries, {r['search']}: p95 ms (p50 {r['p50_ms']:.2f})"
        rows.append((label, r["p95_ms"], f"< {target:g}" if target else "", r["p95_ms"] < target if target else None))
    return rows


def browser_rows(quick: bool) -> list[Row]:
    """Browser episodes/s per worker, url and click modes: text modes (no images or stylesheets, as
    ``shopsim eval`` runs them without screenshots) and with every asset, beside the old page path."""
    got = run_json("browser.py", "--episodes", "5" if quick else "10", "--rounds", "1" if quick else "3",
                   "--variants", "old", "new", "lean")
    targets = {"url": 5.0, "click": 3.0}
    names = {"lean": "text modes (no assets)", "new": "every asset", "old": "before issue 21"}
    return [(f"browser episodes/s per worker, {r['mode']} mode, {names[r['variant']]}", r["eps/s"],
             f">= {targets[r['mode']]:g}" if r["variant"] == "lean" else "",
             r["eps/s"] >= targets[r["mode"]] if r["variant"] == "lean" else None) for r in got]


def servers_rows(quick: bool) -> list[Row]:
    """The served WebShop app: JSON API steps/s, HTML pages/s, the first purchase after start-up."""
    rounds = run_json("web.py", "--seconds", "1.5" if quick else "3", "--rounds", "1" if quick else "3")["default"]
    m = {k: median(r[k] for r in rounds if k in r) for k in {k for r in rounds for k in r}}
    return [
        ("JSON API steps/s, 1 client", m["json_1"], "", None),
        ("JSON API steps/s, 8 clients", m["json_8"], ">= 2,000", m["json_8"] >= 2_000),
        ("JSON API steps/s, 32 clients", m["json_32"], ">= the 8-client figure", m["json_32"] >= 0.95 * m["json_8"]),
        ("HTML results pages/s", m["html_search"], ">= 1,000", m["html_search"] >= 1_000),
        ("HTML item pages/s", m["html_item"], ">= 1,000", m["html_item"] >= 1_000),
        ("first purchase after start-up (ms)", m["buy_1_ms"], f"~ later ones ({m['buy_med_ms']:.1f})",
         m["buy_1_ms"] <= max(3 * m["buy_med_ms"], m["buy_med_ms"] + 5)),
    ]


def v8_rows(quick: bool) -> list[Row]:
    """ShopSimulator v8: the heuristic agent in-process, its JSON API at 8 clients."""
    got = run_json("v8.py", "--episodes", "100" if quick else "300", "--seconds", "1.5" if quick else "3")
    sps, api = got["heuristic"]["steps_per_s"], got["json_api"]
    return [
        ("v8 heuristic agent steps/s in-process", sps, ">= 4,000", sps >= 4_000),
        ("v8 JSON API steps/s, 8 clients", api["steps_8"], "", None),
        ("v8 first purchase after start-up (ms)", api["buy_1_ms"], f"~ later ones ({api['buy_med_ms']:.1f})",
         api["buy_1_ms"] <= max(3 * api["buy_med_ms"], api["buy_med_ms"] + 5)),
    ]


def _fmt(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value:,.0f}" if value >= 100 else f"{value:.3g}"


def main() -> int:
    """Measure the sections asked for and print one table."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", default="webshop,search,browser,servers,v8", help="comma-separated sections")
    ap.add_argument("--stores", nargs="*", default=[], help="prepared stores for the search rows (100k, 1.18M)")
    ap.add_argument("--quick", action="store_true", help="fewer rounds and episodes (a smoke run)")
    a = ap.parse_args()
    sections: dict[str, Callable[[], list[Row]]] = {
        "webshop": lambda: webshop_rows(a.quick), "search": lambda: search_rows(a.stores, a.quick),
        "browser": lambda: browser_rows(a.quick), "servers": lambda: servers_rows(a.quick),
        "v8": lambda: v8_rows(a.quick),
    }
    rows: list[Row] = []
    for name in a.only.split(","):
        if name not in sections:
            print(f"speed.py: unknown section {name!r}; use {', '.join(sections)}", file=sys.stderr)
            return 2
        try:
            rows += sections[name]()
        except (RuntimeError, subprocess.TimeoutExpired, KeyError, json.JSONDecodeError) as e:
            rows.append((f"{name}: not measured ({e})", None, "", None))
    width = max(len(r[0]) for r in rows)
    print(f"| {'figure':<{width}} | {'measured':>10} | target | met |")
    print(f"|{'-' * (width + 2)}|{'-' * 12}|---|---|")
    for label, value, target, met in rows:
        print(f"| {label:<{width}} | {_fmt(value):>10} | {target} | {'' if met is None else 'yes' if met else 'NO'} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
