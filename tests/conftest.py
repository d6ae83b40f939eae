"""Shared test fixtures: where the shared real data lives, and shops built once per session."""

from __future__ import annotations

import importlib.util
import json
import os
from pathlib import Path
from types import ModuleType

import pytest

from shopsim.simsite.server import ServerThread
from shopsim.simsite.shop import Shop, ShopConfig

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
SMALL = SHARED / "data" / "webshop-small"
GOLDEN = SMALL / "golden"
REAL_PAGES = SHARED / "fixtures" / "real"
SCORER = SHARED / "tools" / "score_translation.py"

needs_small = pytest.mark.skipif(
    not (SMALL / "items_shuffle_1000.json").exists(),
    reason=f"WebShop's small data set is not at {SMALL} (it is not redistributed with shopsim)",
)
needs_golden = pytest.mark.skipif(
    not (GOLDEN / "episodes_seed0.jsonl").exists(),
    reason=f"WebShop's golden outputs are not at {GOLDEN}",
)


needs_shared = pytest.mark.skipif(
    not (REAL_PAGES.is_dir() and SCORER.is_file()),
    reason=f"shared real pages / scorer not found at {SHARED} (they are not part of the repository)",
)


def load_scorer() -> ModuleType:
    """The shared answer-key scorer (``score_translation.py``), imported from ``../shared``."""
    spec = importlib.util.spec_from_file_location("score_translation", SCORER)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def read_jsonl(path: Path) -> list[dict]:
    """All records of a JSONL file."""
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


@pytest.fixture(scope="session")
def bundled_shop() -> Shop:
    """The bundled default catalog, seed 0."""
    return Shop.from_config(ShopConfig())


@pytest.fixture(scope="session")
def small_shop() -> Shop:
    """WebShop's real 1,000-product set with seeded synthetic goals (seed 0 = WebShop's golden run)."""
    if not (SMALL / "items_shuffle_1000.json").exists():
        pytest.skip(f"WebShop's small data set is not at {SMALL}")
    return Shop.from_config(ShopConfig(data_dir=SMALL, num_products=1000, seed=0))


# ---- web app, server thread and browser (tests/test_web.py, test_browser_e2e.py, test_equivalence.py) ----


@pytest.fixture(scope="session")
def web_server(bundled_shop: Shop):
    """The web app over the bundled shop, served for the whole test session."""
    from shopsim.simsite.web import create_app

    with ServerThread(create_app(bundled_shop)) as srv:
        yield srv


@pytest.fixture(scope="session")
def chromium_path() -> str | None:
    """The Chromium to drive (None = Playwright's own). Browser tests never skip in CI."""
    from shopsim.adapters.sources import find_browser
    from shopsim.errors import ConfigError

    try:
        return find_browser(os.environ.get("SHOPSIM_CHROMIUM") or None)
    except ConfigError as exc:
        if os.environ.get("CI"):
            pytest.fail(f"CI must run the browser tests: {exc}")
        pytest.skip(str(exc))


@pytest.fixture(scope="session")
def browser_shutdown():
    """Close the process-wide Playwright browser at the end of the session."""
    yield
    from shopsim.adapters.sources import BrowserSource

    BrowserSource.shutdown()


@pytest.fixture
def no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fail any socket connection: replay must never fetch anything."""
    import socket

    def refuse(self: object, *args: object, **kw: object) -> None:
        raise AssertionError(f"replay tried to open a network connection: {args}")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse)
