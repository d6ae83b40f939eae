"""``browsergym/shopsim.v8.*`` with the real browsergym-core: the ids exist in a fresh process without a
catalog load, and an episode on the v8 service's HTML view, driven by BrowserGym's bid actions (or by
``cheat``), earns the oracle's ``r_strict`` through ``validate``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from contextlib import closing

import pytest

gym = pytest.importorskip("gymnasium")
pytest.importorskip("browsergym.core", reason="browsergym-core is not installed: pip install 'shopsim[browsergym]'")

from browsergym.shopsim.ids import V8_TASKS, goal_index, split_names  # noqa: E402
from browsergym.shopsim.scripted import v8_oracle_moves  # noqa: E402
from browsergym.shopsim.v8_task import result_page  # noqa: E402

from shopsim.errors import ConfigError  # noqa: E402

TASK = "shopsim.v8.test.0"


def test_v8_ids_exist_in_a_fresh_process_without_loading_the_catalog():
    code = ("import json, sys, gymnasium as gym, browsergym.shopsim\n"
            "from browsergym.shopsim.ids import V8_TASKS\n"
            "env = gym.make('browsergym/shopsim.v8.test.0')\n"
            "ids = ('browsergym/shopsim.v8.test.499', 'browsergym/shopsim.v8.eval.999',\n"
            "       f'browsergym/shopsim.v8.train.{V8_TASKS - 1501}', 'browsergym/shopsim.v8.test.500')\n"
            "print(json.dumps({'env': type(env.unwrapped).__name__, 'ids': [i for i in ids if i in gym.registry],\n"
            "  'loaded': 'shopsim.simsite.v8.shop' in sys.modules}))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=120, check=True)
    got = json.loads(out.stdout.decode().strip().splitlines()[-1])
    assert got == {"env": "BrowserEnv", "loaded": False, "ids": [
        "browsergym/shopsim.v8.test.499", "browsergym/shopsim.v8.eval.999", f"browsergym/shopsim.v8.train.{V8_TASKS - 1501}"]}


def test_v8_ids_follow_the_eval_goal_splits():
    assert [len(split_names(s, v8=True)) for s in ("test", "eval", "train")] == [500, 1000, V8_TASKS - 1500]
    assert split_names("eval", v8=True)[2] == "shopsim.v8.eval.2" and goal_index("eval", 2, v8=True) == 502


@pytest.fixture(scope="module")
def env():
    """One v8 env for the module's episodes (its v8 service starts at the first reset, on 127.0.0.1)."""
    import browsergym.shopsim  # noqa: F401  (registers the ids)

    with closing(gym.make(f"browsergym/{TASK}")) as e:
        yield e


@pytest.mark.slow
@pytest.mark.browser
def test_bid_actions_earn_the_oracles_reward_through_validate(env):
    obs, info = env.reset(seed=0)
    task = env.unwrapped.task
    reach = task.oracle()
    assert obs["goal"] == reach.instruction and obs["url"].endswith(f"/shop/{info['task_info']['lease_id']}")
    reward, terminated = 0.0, False
    for move in v8_oracle_moves(reach.instruction, result_page(reach), str(reach.best_asin), reach.best_options):
        assert not terminated
        obs, reward, terminated, _truncated, step_info = env.step(move(obs))
        error = obs["last_action_error"]  # BrowserGym's 500 ms click wait may expire on busy cores; the page loads
        assert error == "" or error.startswith("TimeoutError: Locator.click: Timeout 500ms"), error
    assert terminated and reward == pytest.approx(reach.best_reward) and reward > 0
    detail = step_info["task_info"]["reward_detail"]
    assert step_info["task_info"]["termination"] == "purchase" and detail["r_strict"] == pytest.approx(reward)


@pytest.mark.slow
@pytest.mark.browser
def test_cheat_walks_the_check_goals_path(env):
    env.reset(seed=1)
    task = env.unwrapped.task
    task.cheat(env.unwrapped.page, [])
    _obs, reward, terminated, _truncated, _info = env.step("noop()")
    assert terminated and reward == pytest.approx(task.oracle().best_reward)


@pytest.mark.slow
@pytest.mark.browser
def test_a_task_the_catalog_lacks_is_refused_at_reset(env):
    import browsergym.shopsim  # noqa: F401

    e = gym.make(f"browsergym/shopsim.v8.train.{V8_TASKS - 1501}")
    try:
        with pytest.raises(ConfigError, match="is not served by"):
            e.reset(seed=0)
    finally:
        e.close()


@pytest.mark.slow
@pytest.mark.browser
def test_a_running_v8_service_at_shopsim_v8_url(bundled_v8_shop, monkeypatch):
    """A v8 service of another process at SHOPSIM_V8_URL: the task plays there; cheat says why it cannot."""
    import browsergym.shopsim  # noqa: F401

    from shopsim.simsite.server import ServerThread
    from shopsim.simsite.v8.service import create_v8_app

    with ServerThread(create_v8_app(bundled_v8_shop, slots=1)) as srv, closing(gym.make(f"browsergym/{TASK}")) as e:
        monkeypatch.setenv("SHOPSIM_V8_URL", srv.base_url + "/")
        obs, info = e.reset(seed=0)
        assert info["task_info"]["shop_url"] == srv.base_url and obs["url"].startswith(srv.base_url + "/shop/")
        _, reward, terminated, _, step_info = e.step("noop()")
        assert (reward, terminated, step_info["task_info"]["termination"]) == (0.0, False, None)
        with pytest.raises(ConfigError, match="unset SHOPSIM_V8_URL"):
            e.unwrapped.task.cheat(e.unwrapped.page, [])
