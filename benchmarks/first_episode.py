"""Cold start through the WebShop shim: import, env construction, the first episode, and a steady episode.

    python benchmarks/first_episode.py [--data ITEMS_FILE] [--runs N] [--episodes N]

Each run is a fresh interpreter (what a user pays once per process): it times importing
``shopsim.adapters.webshop_env``, building ``WebAgentTextEnv(observation_mode="text", ...)``, the first
rule-agent episode (``webshop_compat.episode``, session 0) and the median of the next ``--episodes``
episodes (steady). Run 1 starts from an empty ``$SHOPSIM_CACHE_DIR``, so on a folder without saved
noun tags it tags the titles and saves them (beside the data, or in that cache when the folder is
read-only); the later runs read them. The bundled catalog ships its tags. Runs on WebShop's small
set when ``../shared`` has it, else on the bundled catalog; prints one table.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
SMALL = HERE.parents[1] / "shared" / "data" / "webshop-small" / "items_shuffle_1000.json"


def child(data: str | None, episodes: int) -> dict[str, float | bool]:
    """One cold process's timings (seconds), and whether spaCy was imported by the end."""
    t0 = time.perf_counter()
    from shopsim.adapters.webshop_env import WebAgentTextEnv

    t1 = time.perf_counter()
    env = WebAgentTextEnv(observation_mode="text", file_path=data, num_products=1000 if data else None)
    t2 = time.perf_counter()
    sys.path.insert(0, str(HERE))
    from webshop_compat import episode

    episode(env, 0)
    t3 = time.perf_counter()
    steady = []
    for session in range(1, episodes + 1):
        s = time.perf_counter()
        episode(env, session)
        steady.append(time.perf_counter() - s)
    return {"import": t1 - t0, "construct": t2 - t1, "first": t3 - t2, "steady": statistics.median(steady),
            "spacy": "spacy" in sys.modules}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=str(SMALL) if SMALL.is_file() else None)
    ap.add_argument("--bundled", action="store_true", help="the bundled catalog, even where ../shared has data")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--episodes", type=int, default=100)
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.bundled:
        a.data = None
    if a.child:
        print(json.dumps(child(a.data, a.episodes)))
        return
    print(f"catalog: {a.data or 'bundled'}; steady = median of {a.episodes} episodes after the first\n")
    print(f"{'run':>3} | {'import s':>8} | {'construct s':>11} | {'first episode ms':>16} | "
          f"{'steady episode ms':>17} | spaCy imported")
    print(f"{'-' * 3}-|-{'-' * 8}-|-{'-' * 11}-|-{'-' * 16}-|-{'-' * 17}-|---------------")
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "SHOPSIM_CACHE_DIR": cache}
        for run in range(1, a.runs + 1):
            cmd = [sys.executable, __file__, "--child", "--episodes", str(a.episodes)]
            cmd += ["--data", a.data] if a.data else []
            r = json.loads(subprocess.run(cmd, env=env, check=True, capture_output=True, text=True).stdout)
            print(f"{run:>3} | {r['import']:>8.2f} | {r['construct']:>11.2f} | {1e3 * r['first']:>16.1f} | "
                  f"{1e3 * r['steady']:>17.2f} | {'yes' if r['spacy'] else 'no'}")
    print("\nrun 1 starts with an empty tag cache (a folder the first time); the later runs read the saved tags")


if __name__ == "__main__":
    main()
