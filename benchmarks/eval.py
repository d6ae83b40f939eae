"""Episodes per second of ``shopsim eval`` per adapter, with 1 and 2 worker processes.

    python benchmarks/eval.py [--episodes N] [--browser-episodes N] [--agent rule] [--adapters ...]

Each cell is a fresh run folder (nothing resumed); the time includes starting the workers, their
shops and browsers, and (for http/browser) the shop server, as a user sees it.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time

from shopsim.agents.evaluation.config import EvalConfig
from shopsim.agents.evaluation.runner import run_eval


def main() -> int:
    """Print a table of episodes/s (and steps/s) per adapter and worker count."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--episodes", type=int, default=300, help="episodes per in-process/http cell")
    ap.add_argument("--browser-episodes", type=int, default=40, help="episodes per browser cell")
    ap.add_argument("--agent", default="rule")
    ap.add_argument("--adapters", nargs="*", default=["inprocess", "http", "browser"])
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    rows = []
    for adapter in args.adapters:
        for workers in (1, 2):
            with tempfile.TemporaryDirectory() as out:
                n = args.browser_episodes if adapter == "browser" else args.episodes
                cfg = EvalConfig(agent=args.agent, adapter=adapter, goals=list(range(n)),
                                 workers=workers, out=out)
                t0 = time.perf_counter()
                summary, _ = run_eval(cfg, progress=False)
                secs = time.perf_counter() - t0
            rows.append({"adapter": adapter, "workers": workers, "episodes": summary.episodes,
                         "seconds": round(secs, 2), "episodes/s": round(summary.episodes / secs, 2),
                         "steps/s": round(summary.episodes * summary.avg_steps / secs, 1)})
    if args.json:
        print(json.dumps(rows))
        return 0
    cols = list(rows[0])
    print("  ".join(f"{c:>10}" for c in cols))
    for r in rows:
        print("  ".join(f"{r[c]!s:>10}" for c in cols))
    return 0


if __name__ == "__main__":
    sys.exit(main())
