"""Replay throughput: steps/s from a bundle in-process (cold and warm parse cache) and in Chromium.

Run: ``python benchmarks/replay.py [--bundle DIR ...] [--episodes N] [--browser-episodes N]``.
Defaults: the sim bundles in ``fixtures/bundles/`` plus, when ``../shared/fixtures/real`` exists, an
Amazon bundle assembled in a temp folder from WebShop's 2022 mocks (never copied into the repo).
Each episode replays the bundle's own recorded actions.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from shopsim.adapters.browser_replay import BrowserReplaySource
from shopsim.adapters.bundle import Bundle, BundleWriter
from shopsim.adapters.replay import ReplaySource
from shopsim.errors import ConfigError, SourceError
from shopsim.render import render_simple

ROOT = Path(__file__).resolve().parents[1]
REAL = ROOT.parent / "shared" / "fixtures" / "real" / "amazon"


def _amazon_bundle(tmp: Path) -> Path | None:
    results, item = REAL / "search" / "webshop-mock_results_2022.html", REAL / "item" / "webshop-mock_item_2022.html"
    if not (results.exists() and item.exists()):
        return None
    search = "https://www.amazon.com/s?k=red+basketball+shoes&page=1"
    w = BundleWriter(tmp / "amazon-2022", site="amazon", start_url=search, instruction="i want a bed frame")
    w.add_page(None, search, results.read_bytes())
    w.add_page("click[b083qcwf61]", "https://www.amazon.com/dp/B083QCWF61", item.read_bytes(),
               final_url="https://www.amazon.com/dp/B073WRF565")
    w.add_page("click[full]", "https://www.amazon.com/dp/B073WRF565", item.read_bytes())
    w.add_purchase("click[buy now]")
    return w.finish()


def _episode(src: ReplaySource, actions: list[str]) -> int:
    render_simple(src.reset())
    for a in actions:
        state, _, done, _ = src.step(a)
        render_simple(state)
        if done:
            break
    return len(actions) + 1  # reset counts as a step (it loads a page)


def _rate(make: object, actions: list[str], episodes: int, fresh: bool) -> float:
    src = make()  # type: ignore[operator]
    steps, t0 = 0, time.perf_counter()
    for _ in range(episodes):
        if fresh:
            src.close()
            src = make()  # type: ignore[operator]
        steps += _episode(src, actions)
    elapsed = time.perf_counter() - t0
    src.close()
    return steps / elapsed


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--bundle", action="append", default=None, help="bundle folder (repeatable)")
    ap.add_argument("--episodes", type=int, default=50)
    ap.add_argument("--browser-episodes", type=int, default=3)
    ap.add_argument("--browser", default=None, help="Chromium executable")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        paths = [Path(p) for p in args.bundle] if args.bundle else sorted((ROOT / "fixtures" / "bundles").iterdir())
        paths = [p for p in paths if (p / "manifest.json").exists()]
        if not args.bundle:
            amazon = _amazon_bundle(Path(tmp))
            if amazon is not None:
                paths.append(amazon)
        rows = []
        for path in paths:
            bundle = Bundle.load(path)
            actions = [s.action or "" for s in bundle.manifest.steps[1:]]
            kb = sum(len(b) for b in bundle.pages.values()) / 1024
            cold = _rate(lambda b=bundle: ReplaySource(b), actions, max(1, args.episodes // 5), fresh=True)
            warm = _rate(lambda b=bundle: ReplaySource(b), actions, args.episodes, fresh=False)
            try:
                browser = _rate(lambda b=bundle: BrowserReplaySource(b, executable_path=args.browser), actions,
                                args.browser_episodes, fresh=False)
                browser_text = f"{browser:10.1f}"
            except (ConfigError, SourceError) as exc:
                browser_text = f"skipped ({exc})"[:40]
            rows.append((path.name, len(bundle.pages), f"{kb:.0f}", f"{cold:10.1f}", f"{warm:10.1f}", browser_text))
        from shopsim.adapters.browser_source import BrowserSource

        BrowserSource.shutdown()
    head = ("bundle", "pages", "KB", "cold steps/s", "warm steps/s", "browser steps/s")
    widths = [max(len(str(r[i])) for r in [head, *rows]) for i in range(len(head))]
    for r in [head, *rows]:
        print("  ".join(str(c).rjust(w) if i else str(c).ljust(w) for i, (c, w) in enumerate(zip(r, widths, strict=True))))
    print("cold: a new ReplaySource per episode (pages parsed again); warm: one source, parsed pages cached;"
          " browser: BrowserReplaySource in headless Chromium, every request from the bundle or aborted.")


if __name__ == "__main__":
    main()
