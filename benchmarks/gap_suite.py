"""The gap-suite table for the rule and heuristic agents, and what each perturbation costs to draw.

    python benchmarks/gap_suite.py [--goals 5] [--tasks 10] [--agents rule heuristic heuristic+max_candidates=1]

Gap table: :func:`run_gap_suite` over the bundled catalog's first ``--goals`` goals and the first
``--tasks`` real-page transfer tasks (``../shared/fixtures/real``; left out when absent): per agent the
score under each condition, the drop from the sim, the predicted drop (the mean over skins and
perturbations) and the measured real-page drop, then Spearman's correlation over the agents. Render
table: the pages of 10 seeded episodes drawn on the amazon skin with each perturbation alone, the
perturbations taking turns page by page (a busy machine slows all alike); median microseconds per page.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

from shopsim.adapters.skin_readback import seeded_episode
from shopsim.adapters.sources import InProcessSource
from shopsim.agents.transfer.gap_report import text_report
from shopsim.agents.transfer.gap_suite import run_gap_suite
from shopsim.agents.transfer.suite import load_tasks
from shopsim.simsite.perturb import PERTURBATIONS, parse_perturb, perturbed_skin
from shopsim.simsite.shop import Shop
from shopsim.simsite.skins import get_skin

REAL = Path(__file__).resolve().parents[1].parent / "shared" / "fixtures" / "real"


def render_table(shop: Shop, episodes: int = 10) -> None:
    src = InProcessSource(shop)
    pages = [s for ep in range(episodes) for s in seeded_episode(src, ep % len(shop.goals), seed=ep)]
    specs = ["none", *(n + ("=de" if n in ("locale", "labels") else "") for n in PERTURBATIONS), "random"]
    skins = {spec: perturbed_skin(get_skin("amazon"), parse_perturb(spec, 0)) for spec in specs}
    took: dict[str, list[float]] = defaultdict(list)
    for state in pages:
        for spec, skin in skins.items():
            t0 = time.perf_counter()
            skin.render(state, shop.products)
            took[spec].append((time.perf_counter() - t0) * 1e6)
    print(f"\nrender on the amazon skin, {len(pages)} pages of {episodes} seeded episodes (median us per page)")
    base = statistics.median(took["none"])
    for spec in specs:
        median = statistics.median(took[spec])
        print(f"  {spec:12} {median:8.0f}  {median - base:+7.0f}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--goals", type=int, default=5)
    ap.add_argument("--tasks", type=int, default=10, help="real-page tasks (0: leave the real pages out)")
    ap.add_argument("--agents", nargs="+", default=["rule", "heuristic"])
    args = ap.parse_args()
    shop = Shop.load()
    real = REAL if args.tasks > 0 and REAL.is_dir() else None
    if args.tasks > 0 and real is None:
        print(f"no real pages at {REAL}: the real-page drop is left out", file=sys.stderr)
    with tempfile.TemporaryDirectory(prefix="shopsim-gap-bench-") as tmp:
        report = run_gap_suite(args.agents, shop, goals=args.goals, real=real, work=Path(tmp),
                               tasks=load_tasks()[: args.tasks] if real is not None else None)
    print(text_report(report))
    render_table(shop)
    return 0


if __name__ == "__main__":
    sys.exit(main())
