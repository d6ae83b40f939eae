"""The pytest plugin as a user meets it: small test suites run by pytest in a subprocess, with the
plugin loaded by its entry point (as after ``pip install shopsim``), next to pytest-playwright."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

# pytester's in-process runs unload every module first imported during them. httpx imports httpcore
# on its first request and keeps a map of httpcore's exception classes: were that first request made
# inside a run, later tests in this process would meet a second httpcore whose ConnectError httpx no
# longer maps (it escaped test_shutdown's retry loop under xdist). Imported here, it stays loaded.
import httpcore  # noqa: F401
import pytest

from shopsim.adapters.pytest_plugin import (
    CHROMIUM_PLUGIN,
    chromium_launch_args,
    read_instruction,
    read_reward,
)
from shopsim.simsite.catalog import default_catalog_dir
from shopsim.simsite.html import render_html
from shopsim.simsite.session import ShopSession
from shopsim.simsite.shop import Shop
from tests.conftest import SMALL

pytest_plugins = ["pytester"]
pytestmark = pytest.mark.slow  # every test runs pytest in a fresh process

#: pytester points HOME at a temporary folder; Playwright looks for its own browsers under the real one.
PLAYWRIGHT_CACHE = os.environ.get("PLAYWRIGHT_BROWSERS_PATH") or str(Path.home() / ".cache" / "ms-playwright")

#: The README's example test ("Testing your agent or UI with pytest"), verbatim.
README_EXAMPLE = '''
from playwright.sync_api import Page

from shopsim.adapters.pytest_plugin import read_instruction, read_reward


def test_buying_the_first_result_scores(page: Page, shop_session_url) -> None:
    page.goto(shop_session_url(3))                      # a fresh session on goal 3
    instruction = read_instruction(page)
    assert instruction

    page.fill("#search_input", instruction)
    page.click("button.search-btn")
    page.locator("a.product-link").first.click()
    page.get_by_role("button", name="Buy Now").click()
    page.wait_for_url("**/done/**")

    reward = read_reward(page)
    assert reward is not None and 0.0 <= reward <= 1.0
'''

#: The same purchase checked against the shop itself: the page shows the goal's instruction, and the
#: done page's reward is the one an in-process session gives for the same three actions.
SAME_AS_IN_PROCESS = '''
from shopsim.adapters.pytest_plugin import read_instruction, read_reward
from shopsim.adapters.sources import InProcessSource


def test_the_page_agrees_with_the_shop(page, shop_server) -> None:
    page.goto(shop_server.session_url(7))
    instruction = read_instruction(page)
    assert instruction == shop_server.shop.goal(7).instruction_text
    page.fill("#search_input", instruction)
    page.click("button.search-btn")
    asin = page.locator("a.product-link").first.get_attribute("data-asin")
    page.locator("a.product-link").first.click()
    assert read_reward(page) is None
    page.get_by_role("button", name="Buy Now").click()
    page.wait_for_url("**/done/**")

    source = InProcessSource(shop_server.shop)
    source.reset(7)
    source.step(f"search[{instruction}]")
    source.step(f"click[{asin}]")
    _, reward, done, _ = source.step("click[buy now]")
    assert done and read_reward(page) == reward
'''


@pytest.fixture
def user_env(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    """A pytester whose subprocess still finds Playwright's own browsers (HOME is moved)."""
    monkeypatch.setenv("PLAYWRIGHT_BROWSERS_PATH", PLAYWRIGHT_CACHE)
    return pytester


def _run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    """A fresh interpreter: what a user's ``pytest`` run is (about 5 s of CPU for the imports)."""
    return pytester.runpytest_subprocess("-p", "no:cacheprovider", *args, timeout=240)


def _run_here(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    """In this process, for checks that need neither a fresh interpreter nor pytest-playwright (which
    cannot run inside itself: its soft-assertion scope does not nest). Much faster."""
    return pytester.runpytest_inprocess("-p", "no:cacheprovider", "-p", "no:playwright", *args)


# ---- a user's browser test -------------------------------------------------------------------------------
@pytest.mark.browser
@pytest.mark.slow
def test_user_suite_buys_in_chromium(user_env: pytest.Pytester, chromium_path: str | None) -> None:
    """pytest-playwright's own ``page`` fixture, on the Chromium scripts/setup installs."""
    user_env.makepyfile(test_readme=README_EXAMPLE, test_same=SAME_AS_IN_PROCESS)
    result = _run(user_env)
    result.assert_outcomes(passed=2)


# ---- the Chromium override -----------------------------------------------------------------------------------
LAUNCH_ARGS_TEST = '''
def test_launch_args(browser_type_launch_args, pytestconfig):
    print("LAUNCH", sorted(browser_type_launch_args.items()))
'''


def _launch_args(result: pytest.RunResult) -> list[str]:
    return [line[line.index("LAUNCH"):] for line in result.outlines if "LAUNCH [" in line]


@pytest.fixture
def fake_chromium(user_env: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> str:
    """A file standing in for a system Chromium: what the override picks is then the same on any machine."""
    path = user_env.path / "fake-chromium"
    path.write_text("#!/bin/sh\n")
    monkeypatch.setenv("SHOPSIM_CHROMIUM", str(path))
    return str(path)


def test_override_beats_pytest_playwright_and_user_settings_beat_it(user_env: pytest.Pytester,
                                                                    fake_chromium: str) -> None:
    user_env.makepyfile(test_default=LAUNCH_ARGS_TEST, test_param='''
        import pytest

        @pytest.mark.parametrize("browser_type_launch_args", [{"executable_path": "/param"}], indirect=True)
        def test_launch_args(browser_type_launch_args):
            print("LAUNCH", sorted(browser_type_launch_args.items()))
    ''')
    mine = user_env.mkpydir("mine")
    (mine / "conftest.py").write_text(textwrap.dedent('''
        import pytest

        @pytest.fixture(scope="session")
        def browser_type_launch_args():
            return {"executable_path": "/mine"}
    '''))
    (mine / "test_mine.py").write_text(LAUNCH_ARGS_TEST)
    extend = user_env.mkpydir("extend")
    (extend / "conftest.py").write_text(textwrap.dedent('''
        import pytest

        @pytest.fixture(scope="session")
        def browser_type_launch_args(browser_type_launch_args):
            return {**browser_type_launch_args, "slow_mo": 5}
    '''))
    (extend / "test_extend.py").write_text(LAUNCH_ARGS_TEST)
    result = _run(user_env, "-s", "-v", "-W", "error::pytest.PytestDeprecationWarning")
    result.assert_outcomes(passed=4)
    launched = "\n".join(result.outlines)
    assert f"test_default.py::test_launch_args[chromium] LAUNCH [('executable_path', '{fake_chromium}')]" in launched
    assert "test_param.py::test_launch_args[chromium-browser_type_launch_args0] LAUNCH [('executable_path', '/param')]" in launched
    assert "test_mine.py::test_launch_args LAUNCH [('executable_path', '/mine')]" in launched
    assert (f"test_extend.py::test_launch_args[chromium] LAUNCH [('executable_path', '{fake_chromium}'), "
            "('slow_mo', 5)]") in launched


def test_browser_channel_wins(user_env: pytest.Pytester, fake_chromium: str) -> None:
    user_env.makepyfile(LAUNCH_ARGS_TEST)
    result = _run(user_env, "-s", "--browser-channel", "chrome")
    result.assert_outcomes(passed=1)
    assert _launch_args(result) == ["LAUNCH [('channel', 'chrome')]"]


def test_launch_args_only_gain_a_chromium_that_is_needed(fake_chromium: str) -> None:
    assert chromium_launch_args({}) == {"executable_path": fake_chromium}
    assert chromium_launch_args({"headless": False}, "chromium") == {"headless": False, "executable_path": fake_chromium}
    for args, browser, connect in [({"executable_path": "/mine"}, "chromium", None), ({"channel": "msedge"}, "chromium", None),
                                   ({}, "firefox", None), ({}, "webkit", None), ({}, "chromium", {"ws_endpoint": "ws://x"})]:
        assert chromium_launch_args(args, browser, connect) == args


def test_a_shopsim_chromium_that_is_not_there_is_reported(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("SHOPSIM_CHROMIUM", str(tmp_path / "nothing"))
    with pytest.raises(pytest.fail.Exception, match="SHOPSIM_CHROMIUM: browser not found at"):
        chromium_launch_args({})


@pytest.mark.parametrize("order", [("shopsim.adapters.pytest_plugin", "pytest_playwright.pytest_playwright"),
                                   ("pytest_playwright.pytest_playwright", "shopsim.adapters.pytest_plugin")],
                         ids=["shopsim-first", "playwright-first"])
def test_override_wins_whatever_the_load_order(user_env: pytest.Pytester, fake_chromium: str,
                                               monkeypatch: pytest.MonkeyPatch, order: tuple[str, str]) -> None:
    """Entry points load in no promised order; the override is registered after both, either way."""
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    user_env.makepyfile(LAUNCH_ARGS_TEST)
    result = _run(user_env, "-s", "-p", order[0], "-p", order[1])
    result.assert_outcomes(passed=1)
    assert _launch_args(result) == [f"LAUNCH [('executable_path', '{fake_chromium}')]"]


def test_without_pytest_playwright_the_shop_fixtures_still_work(user_env: pytest.Pytester) -> None:
    user_env.makepyfile(f'''
        import httpx

        def test_shop(shop_base_url, shop_session_url, pytestconfig):
            assert not pytestconfig.pluginmanager.has_plugin("{CHROMIUM_PLUGIN}")
            assert httpx.get(shop_base_url + "/api/health").json()["ok"]
            assert httpx.get(shop_session_url(0)).status_code == 200
    ''')
    result = _run_here(user_env, "-p", "no:playwright")
    result.assert_outcomes(passed=1)


# ---- options -------------------------------------------------------------------------------------------------
def test_data_seed_and_num_products_options(user_env: pytest.Pytester) -> None:
    data = SMALL if (SMALL / "items_shuffle_1000.json").exists() else default_catalog_dir()
    expected = Shop.load(data).products if data != SMALL else None
    count = 1000 if expected is None else len(expected)
    user_env.makepyfile(f'''
        import httpx
        from shopsim.adapters.pytest_plugin import read_instruction

        def test_options(shop_server, shop_base_url):
            assert shop_server.options.seed == 7 and shop_server.options.num_products == {count}
            assert str(shop_server.options.data) == {str(Path(data).resolve())!r}
            assert httpx.get(shop_base_url + "/api/health").json()["products"] == {count}
            assert shop_server.profile.name == "webshop" and shop_server.debug_ui_url is None
            html = httpx.get(shop_server.session_url(2, session_id="repro")).text
            assert read_instruction(html) == shop_server.shop.goal(2).instruction_text
            assert shop_server.session_url(2, session_id="repro") == shop_base_url + "/fixed_2_repro"
            assert shop_server.session_url(2) != shop_server.session_url(2)
    ''')
    result = _run_here(user_env, "--shopsim-data", str(data), "--shopsim-seed", "7", "--shopsim-num-products", str(count))
    result.assert_outcomes(passed=1)


def test_ini_options(user_env: pytest.Pytester) -> None:
    """ini keys work like the options, and a command-line option beats its ini key."""
    user_env.makeini("[pytest]\nshopsim_seed = 3\nshopsim_num_products = 40\nshopsim_profile = webshop\n")
    user_env.makepyfile('''
        def test_options(shop_server):
            assert shop_server.options.seed == 5 and shop_server.options.num_products == 40
            assert len(shop_server.shop.products) == 40
    ''')
    result = _run_here(user_env, "--shopsim-seed", "5")
    result.assert_outcomes(passed=1)


def test_v8_profile_serves_its_api(user_env: pytest.Pytester) -> None:
    user_env.makepyfile('''
        import httpx
        import pytest
        from shopsim.errors import ConfigError

        def test_v8(shop_server, shop_session_url):
            assert shop_server.profile.name == "shopsim-v8"
            health = httpx.get(shop_server.base_url + "/api/health")
            assert health.status_code == 200
            assert httpx.get(shop_server.debug_ui_url).status_code == 200
            task = shop_server.shop.goal(0).task_id
            with pytest.raises(ConfigError, match=f"debug-ui and start task {task}"):
                shop_session_url(0)
            lease = httpx.post(shop_server.base_url + "/api/sessions", json={"task_id": task})
            assert lease.status_code == 201
    ''')
    result = _run_here(user_env, "--shopsim-profile", "shopsim-v8")
    result.assert_outcomes(passed=1)


@pytest.mark.parametrize(("args", "ini", "message"), [
    (("--shopsim-data", "no/such/folder"), "", "shopsim: --shopsim-data: no file or folder at "),
    (("--shopsim-profile", "webshopp"), "", "shopsim: --shopsim-profile: unknown profile 'webshopp'"),
    ((), "shopsim_seed = abc", "shopsim: ini option shopsim_seed must be an integer, got 'abc'"),
    (("--shopsim-num-products", "0"), "", "shopsim: --shopsim-num-products must be at least 1, got 0"),
    (("--shopsim-profile", "shopsim-v8", "--shopsim-num-products", "5"), "",
     "shopsim: --shopsim-num-products is a webshop option"),
], ids=["missing-data", "unknown-profile", "bad-ini-seed", "zero-products", "v8-num-products"])
def test_bad_options_are_usage_errors(user_env: pytest.Pytester, args: tuple[str, ...], ini: str,
                                      message: str) -> None:
    user_env.makeini(f"[pytest]\n{ini}\n")
    user_env.makepyfile("def test_never_runs(shop_server):\n    pass\n")
    fresh = "--shopsim-data" in args  # the brief's case, in a fresh interpreter; the rest in this one
    result = (_run if fresh else _run_here)(user_env, *args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    errors = "\n".join(result.errlines)
    assert f"ERROR: {message}" in errors
    assert "Traceback" not in errors and "Traceback" not in "\n".join(result.outlines)


def test_a_broken_catalog_fails_the_fixture_in_one_line(user_env: pytest.Pytester) -> None:
    broken = user_env.mkdir("broken")
    (broken / "items_shuffle_1000.json").write_text("[{]")
    user_env.makepyfile("def test_shop(shop_server):\n    pass\n")
    result = _run_here(user_env, "--shopsim-data", str(broken))
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*shopsim: could not start the shop: *"])
    assert "Traceback" not in result.stdout.str()


# ---- the helpers on HTML strings -----------------------------------------------------------------------------
def test_helpers_read_the_instruction_and_the_reward(bundled_shop: Shop) -> None:
    goal = bundled_shop.goal(5)
    session = ShopSession(bundled_shop, goal, "fixed_5")
    search = render_html(session.state)
    assert read_instruction(search) == goal.instruction_text and read_reward(search) is None
    results = session.step(f"search[{goal.instruction_text}]").state.results
    session.step(f"click[{results[0].id}]")
    done = session.step("click[buy now]")
    assert done.done
    page = render_html(done.state)
    assert read_reward(page) == done.reward and read_instruction(page) is None  # WebShop's done page has none
    assert read_instruction("<html><body><p>no shop here</p></body></html>") is None
    assert read_reward("<div id='reward'><pre>None</pre></div>") is None
    with pytest.raises(TypeError, match="Playwright Page or an HTML string"):
        read_reward(42)  # type: ignore[arg-type]
