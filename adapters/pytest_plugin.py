"""pytest plugin (entry point ``pytest11``: on whenever shopsim is installed): a running shop for
tests of agents and shop UIs, plus Chromium for pytest-playwright.

* Options (group ``shopsim``; also ini keys ``shopsim_data``, ``shopsim_profile``, ``shopsim_seed``,
  ``shopsim_num_products``): ``--shopsim-data PATH``, ``--shopsim-profile webshop|shopsim-v8``,
  ``--shopsim-seed N``, ``--shopsim-num-products N``. A bad value is a usage error at start-up,
  before any test runs, rather than one failed fixture per test.
* Fixtures: ``shop_server`` (session scope, a :class:`RunningShop`), ``shop_base_url`` and
  ``shop_session_url`` (``shop_session_url(3)`` -> a fresh URL whose session has goal 3).
* Helpers: :func:`read_instruction` and :func:`read_reward` read a Playwright page or an HTML string.
* Chromium: when pytest-playwright is active and Playwright's own Chromium was never downloaded,
  its ``browser``/``page`` fixtures launch the Chromium ``scripts/setup`` installed (Debian's
  ``/usr/bin/chromium``, or ``$SHOPSIM_CHROMIUM``) instead of failing with "Executable doesn't exist".

This module imports only pytest and the standard library itself; the shop, server and Playwright
code load when an option, fixture or helper needs them (the ``shopsim.adapters`` package around it
still imports Gymnasium on load).
"""

from __future__ import annotations

import os
import re
import sys
import types
import uuid
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from playwright.sync_api import Page

    from shopsim.simsite.profiles import Profile, ShopLike

__all__ = [
    "CHROMIUM_PLUGIN",
    "RunningShop",
    "ShopOptions",
    "chromium_launch_args",
    "read_instruction",
    "read_reward",
]

_OPTIONS_KEY = pytest.StashKey["ShopOptions"]()
#: The name the Chromium override is registered under (see :func:`_chromium_plugin`).
CHROMIUM_PLUGIN = "shopsim-playwright-chromium"
_SID = re.compile(r"^[A-Za-z0-9_.\-]{1,100}$")
_LABEL = re.compile(r"^\s*Instruction:\s*", re.IGNORECASE)


# ---- options ----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ShopOptions:
    """The shop the ``--shopsim-*`` options (or ini keys) describe; ``data=None`` = the bundled catalog."""

    profile: str = "webshop"
    data: Path | None = None
    seed: int = 0
    num_products: int | None = None

    def shop_config(self) -> Any:
        """The :class:`~shopsim.simsite.shop.ShopConfig` to load this shop with."""
        from shopsim.simsite.shop import ShopConfig

        return ShopConfig(data_dir=self.data, num_products=self.num_products, seed=self.seed, profile=self.profile)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("shopsim", "shopsim: a simulated shop served for the tests (fixture shop_server)")
    group.addoption("--shopsim-data", dest="shopsim_data", metavar="PATH", default=None,
                    help="webshop: a folder of WebShop-format files; shopsim-v8: a products .json/.json.gz or a "
                         "prepared folder (default: the profile's bundled catalog; ini: shopsim_data)")
    group.addoption("--shopsim-profile", dest="shopsim_profile", metavar="NAME", default=None,
                    help="environment contract: webshop (default) or shopsim-v8 (ini: shopsim_profile)")
    group.addoption("--shopsim-seed", dest="shopsim_seed", metavar="N", type=int, default=None,
                    help="seed for prices, price limits and goal draws (default 0; ini: shopsim_seed)")
    group.addoption("--shopsim-num-products", dest="shopsim_num_products", metavar="N", type=int, default=None,
                    help="webshop: serve only the first N products (ini: shopsim_num_products)")
    parser.addini("shopsim_data", "shopsim: catalog path, relative to the ini file (like --shopsim-data)")
    parser.addini("shopsim_profile", "shopsim: profile, webshop or shopsim-v8 (like --shopsim-profile)")
    parser.addini("shopsim_seed", "shopsim: seed (like --shopsim-seed)")
    parser.addini("shopsim_num_products", "shopsim: first N products only (like --shopsim-num-products)")


def _setting(config: pytest.Config, name: str) -> tuple[Any, str]:
    """The command line's value, else the ini file's (with where it came from, for error messages)."""
    value = config.getoption(name)
    if value is not None:
        return value, "--" + name.replace("_", "-")
    ini = config.getini(name)
    return (ini.strip() if isinstance(ini, str) and ini.strip() else None), f"ini option {name}"


def _int(value: Any, where: str) -> int | None:
    if value is None or isinstance(value, int):
        return value
    try:
        return int(value)
    except ValueError:
        raise pytest.UsageError(f"shopsim: {where} must be an integer, got {value!r}") from None


def read_options(config: pytest.Config) -> ShopOptions:
    """Check the options once at start-up and say what is wrong as a usage error (not a traceback)."""
    from shopsim.errors import ConfigError
    from shopsim.simsite.profiles import get_profile

    profile_name, where = _setting(config, "shopsim_profile")
    try:
        profile = get_profile(profile_name)
    except ConfigError as exc:
        raise pytest.UsageError(f"shopsim: {where}: {exc}") from None
    data, where = _setting(config, "shopsim_data")
    path: Path | None = None
    if data is not None:
        base = config.invocation_params.dir if where.startswith("--") else (
            config.inipath.parent if config.inipath else config.rootpath)
        path = (Path(base) / Path(data).expanduser()).resolve()
        if not path.exists():
            raise pytest.UsageError(f"shopsim: {where}: no file or folder at {path}")
    seed_value, where = _setting(config, "shopsim_seed")
    seed = _int(seed_value, where)
    count, where = _setting(config, "shopsim_num_products")
    num_products = _int(count, where)
    if num_products is not None and num_products < 1:
        raise pytest.UsageError(f"shopsim: {where} must be at least 1, got {num_products}")
    if num_products is not None and "num_products" not in profile.shop_options:
        raise pytest.UsageError(f"shopsim: {where} is a webshop option; profile {profile.name} has its own tasks")
    return ShopOptions(profile=profile.name, data=path, seed=seed or 0, num_products=num_products)


def pytest_configure(config: pytest.Config) -> None:
    config.stash[_OPTIONS_KEY] = read_options(config)
    if _playwright_active(config.pluginmanager) and not config.pluginmanager.has_plugin(CHROMIUM_PLUGIN):
        # Registered now, after every entry-point, -p and initial-conftest plugin: pytest prefers
        # the fixture of the plugin registered last, so this override beats pytest-playwright's,
        # while a conftest's own browser_type_launch_args (registered later still) beats this one.
        config.pluginmanager.register(_chromium_plugin(), CHROMIUM_PLUGIN)


# ---- the shop ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class RunningShop:
    """A shop served on 127.0.0.1 for the test session.

    ``webshop`` serves WebShop's HTML pages: :meth:`session_url` opens a fresh session on any goal,
    ready for ``page.goto``. ``shopsim-v8`` is a JSON API (``/api/sessions``, ``/api/health``) plus
    ``/debug-ui``, a page that starts a session for a task id typed into ``#task-id`` and
    ``#start``; it has no per-session URLs, so :meth:`session_url` refuses and says so.
    """

    base_url: str
    shop: ShopLike
    """The served shop object: a :class:`~shopsim.simsite.shop.Shop`, or a ``V8Shop`` for v8."""
    profile: Profile
    options: ShopOptions

    @property
    def debug_ui_url(self) -> str | None:
        """v8's debug page (None for webshop, whose pages are the shop itself)."""
        return f"{self.base_url}/debug-ui" if self.profile.lease_policy == "queue" else None

    def session_url(self, goal: int | None = None, session_id: str | None = None) -> str:
        """A URL no test used before, whose session shops for goal ``goal`` (a seeded draw when None).

        ``session_id`` replaces the random part (``/fixed_<goal>_<session_id>``), to reproduce a URL.
        """
        from shopsim.errors import ConfigError

        if self.debug_ui_url is not None:
            task = f"task {self.shop.goal(goal).task_id}" if goal is not None else "a task"
            raise ConfigError(f"profile {self.profile.name} has no session pages: open {self.debug_ui_url} and start "
                              f"{task} there (fill #task-id, click #start), or open a session with its JSON API "
                              "(POST /api/sessions)")
        suffix = session_id if session_id is not None else uuid.uuid4().hex[:16]
        if not _SID.match(suffix):
            raise ConfigError(f"session_id must be 1-100 letters, digits, '_', '-' or '.'; got {suffix[:40]!r}")
        if goal is None:
            return f"{self.base_url}/session_{suffix}"
        self.shop.goal(goal)  # a clear error for a goal the shop does not have
        return f"{self.base_url}/fixed_{goal}_{suffix}"


def start_shop(options: ShopOptions) -> tuple[Any, Any, Profile]:
    """``(server, shop, profile)``: a ServerThread, not yet entered, serving the profile's app over the
    shop ``options`` describe.
    """
    from shopsim.simsite.profiles import get_profile, open_shop
    from shopsim.simsite.server import ServerThread

    profile = get_profile(options.profile)
    shop = open_shop(options.shop_config())
    factory = profile.part("app_factory")
    if profile.lease_policy == "queue":
        app = factory(shop)
    else:  # many sessions: every test opens its own
        app = factory(shop, max_sessions=10_000, seed=options.seed)
    return ServerThread(app), shop, profile


@pytest.fixture(scope="session")
def shop_server(pytestconfig: pytest.Config) -> Iterator[RunningShop]:
    """The shop the ``--shopsim-*`` options describe, served on 127.0.0.1 for the whole session."""
    from shopsim.errors import ShopsimError

    options = pytestconfig.stash[_OPTIONS_KEY]
    try:
        thread, shop, profile = start_shop(options)
        thread.__enter__()
    except ShopsimError as exc:  # a malformed catalog: one clear line, not a traceback into shopsim
        pytest.fail(f"shopsim: could not start the shop: {exc}", pytrace=False)
    try:
        yield RunningShop(base_url=thread.base_url, shop=shop, profile=profile, options=options)
    finally:
        thread.__exit__(None, None, None)


@pytest.fixture(scope="session")
def shop_base_url(shop_server: RunningShop) -> str:
    """The running shop's ``http://127.0.0.1:<port>``."""
    return shop_server.base_url


@pytest.fixture
def shop_session_url(shop_server: RunningShop) -> Callable[..., str]:
    """``shop_session_url(goal, session_id=None)``: a fresh session URL on goal ``goal`` (webshop)."""
    return shop_server.session_url


# ---- reading pages ----------------------------------------------------------------------------------
def _tree(page: Page | str) -> Any:
    from selectolax.lexbor import LexborHTMLParser

    if isinstance(page, str):
        return LexborHTMLParser(page)
    content = getattr(page, "content", None)
    if not callable(content):
        raise TypeError(f"expected a Playwright Page or an HTML string, got {type(page).__name__}")
    return LexborHTMLParser(content())


def read_instruction(page: Page | str) -> str | None:
    """The instruction the page shows in ``#instruction-text``, without its "Instruction:" label.

    None on a page without one (v8's debug UI, an error page).
    """
    tree = _tree(page)
    node = tree.css_first("#instruction-text h4") or tree.css_first("#instruction-text")
    if node is None:
        return None
    return _LABEL.sub("", node.text(deep=True), count=1).strip()


def read_reward(page: Page | str) -> float | None:
    """The reward WebShop's done page shows in ``#reward pre`` (0.0-1.0); None on any other page.

    On a Playwright page, wait for the done page first (``page.wait_for_url("**/done/**")``).
    """
    node = _tree(page).css_first("#reward pre")
    if node is None:
        return None
    try:
        return float(node.text(strip=True))
    except ValueError:
        return None


# ---- Chromium for pytest-playwright ------------------------------------------------------------------
def _playwright_active(pm: pytest.PytestPluginManager) -> bool:
    """pytest-playwright is registered (by its entry point, or by ``-p`` under its module name)."""
    module = sys.modules.get("pytest_playwright.pytest_playwright")
    return pm.has_plugin("playwright") or (module is not None and pm.is_registered(module))


def chromium_launch_args(launch_args: Mapping[str, Any], browser_name: str | None = "chromium",
                         connect: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """``launch_args`` plus ``executable_path`` of the Chromium ``find_browser`` picks, when one is needed.

    Unchanged when the user already chose (``executable_path``, ``channel`` e.g. via
    ``--browser-channel``), when the browser is not Chromium or is remote (``connect_options``), and
    when Playwright's own Chromium is installed or no Chromium exists at all (Playwright then says how to
    install one). ``$SHOPSIM_CHROMIUM`` names a Chromium explicitly, as in shopsim's own tests.
    """
    from shopsim.adapters.browser_source import find_browser
    from shopsim.errors import ConfigError

    args = dict(launch_args)
    if browser_name not in (None, "chromium") or connect or "executable_path" in args or "channel" in args:
        return args
    explicit = os.environ.get("SHOPSIM_CHROMIUM") or None
    try:
        path = find_browser(explicit, headless=bool(args.get("headless", True)))  # --headed: not the headless shell
    except ConfigError as exc:
        if explicit is not None:  # a setting that points nowhere is a mistake to report, not to skip
            pytest.fail(f"shopsim: SHOPSIM_CHROMIUM: {exc}", pytrace=False)
        return args
    if path is not None:
        args["executable_path"] = path
    return args


def _launch_args_fixture(browser_type_launch_args: dict[str, Any], browser_name: str | None,
                         connect_options: dict[str, Any] | None) -> dict[str, Any]:
    """pytest-playwright's launch options plus the Chromium to use (see :func:`chromium_launch_args`).

    The argument named like the fixture is the definition this one overrides: pytest-playwright's,
    with ``--headed``, ``--browser-channel``, ``--slowmo`` and indirect parametrization applied.
    """
    return chromium_launch_args(browser_type_launch_args, browser_name, connect_options)


def _chromium_plugin() -> types.ModuleType:
    """The override as a plugin of its own, registered only next to pytest-playwright.

    A module object, not a class instance: pytest 9 deprecates session fixtures that are instance
    methods, and defining it at this module's top level would register it with this plugin, in
    entry-point order, which does not guarantee it beats pytest-playwright's.
    """
    holder = types.ModuleType(CHROMIUM_PLUGIN, _launch_args_fixture.__doc__)
    holder.browser_type_launch_args = pytest.fixture(  # type: ignore[attr-defined]
        scope="session", name="browser_type_launch_args")(_launch_args_fixture)
    return holder
