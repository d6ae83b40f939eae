"""The ``web_agent_site`` and ``webshop_minimal`` façades, used the way public WebShop clients use them.

Each test is written in the shape of one client's use (its imports, calls, attributes, parsing):
verl-agent and AgentGym build the env with legacy ``gym.make``; AgentBench shares one server between
sessions with ``session_prefix`` and human goals; RAGEN subclasses ``webshop_minimal.WebAgentTextEnv``.
Real data from ``../shared`` where a test needs WebShop's catalog; the real ``gym`` 0.24 package.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
import warnings
from pathlib import Path

import pytest

from tests.conftest import ROOT, SMALL, needs_small

gym = pytest.importorskip("gym", reason="legacy gym is installed by the test extra (gym==0.24.1)")
import web_agent_site.envs  # noqa: E402,F401  (registers WebShop's gym ids)
from web_agent_site.engine.engine import (  # noqa: E402
    BACK_TO_SEARCH,
    END_BUTTON,
    NEXT_PAGE,
    PREV_PAGE,
    get_product_per_page,
    get_top_n_product_from_keywords,
    init_search_engine,
    load_products,
    parse_action,
)
from web_agent_site.engine.goal import get_goals, get_reward  # noqa: E402
from web_agent_site.envs import WebAgentTextEnv  # noqa: E402
from web_agent_site.envs.web_agent_text_env import SimServer  # noqa: E402
from web_agent_site.utils import random_idx  # noqa: E402

ITEMS = str(SMALL / "items_shuffle_1000.json")
ATTRS = str(SMALL / "items_ins_v2_1000.json")


def _run(code: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    full = {k: v for k, v in os.environ.items() if k != "SHOPSIM_DATA"}
    full.update(env or {})
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=full, cwd=ROOT,
                          timeout=120)


# ---- legacy gym (verl-agent, AgentGym) ---------------------------------------------------------
def test_webshop_ids_are_in_legacy_gyms_registry() -> None:
    assert {"WebAgentTextEnv-v0", "WebAgentSiteEnv-v0"} <= set(gym.envs.registration.registry)
    spec = gym.envs.registration.registry["WebAgentTextEnv-v0"]
    assert spec.entry_point == "web_agent_site.envs:WebAgentTextEnv"  # as WebShop registers it


def test_gym_spaces_pass_gyms_checks_without_warnings(bundled_env_kwargs: dict) -> None:
    from gym.utils.passive_env_checker import check_action_space, check_observation_space
    from gym.wrappers.env_checker import PassiveEnvChecker

    env = WebAgentTextEnv(**bundled_env_kwargs)
    assert isinstance(env, gym.Env)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_observation_space(env.observation_space)
        check_action_space(env.action_space)
        PassiveEnvChecker(env)
    obs, info = env.reset(session=3)
    assert env.observation_space.contains(obs) and info is None
    action = env.action_space.sample()
    assert env.action_space.contains(action) and action.startswith("search[")
    obs, reward, done, info = env.step(action)
    assert env.observation_space.contains(obs) and reward == 0.0 and done is False


@pytest.fixture
def bundled_env_kwargs() -> dict:
    return {"observation_mode": "text", "file_path": None}


@needs_small
def test_verl_agent_style_gym_make_with_webshop_kwargs() -> None:
    env_kwargs = {"observation_mode": "text", "num_products": None, "human_goals": True,
                  "file_path": ITEMS, "attr_path": ATTRS}
    env_kwargs = dict(env_kwargs)
    env_kwargs["seed"] = 0
    env = gym.make("WebAgentTextEnv-v0", disable_env_checker=True, **env_kwargs)
    goals = env.server.goals
    assert len(goals) >= 13 and all(isinstance(g["goal_options"], list) for g in goals)  # human goals
    obs, info = env.reset(session=12)
    assert env.session == "12" and env.server.user_sessions["12"]["goal"] is goals[12]
    assert goals[12]["instruction_text"] in obs
    obs, reward, done, info = env.step(f"search[{goals[12]['query']}]")
    info = dict(info or {})
    info["available_actions"] = env.get_available_actions()
    assert info["available_actions"]["has_search_bar"] is False
    first = next(c for c in info["available_actions"]["clickables"] if c.startswith("b0"))
    env.step(f"click[{first}]")
    obs, reward, done, info = env.step("click[buy now]")
    assert done is True and 0.0 <= reward <= 1.0 and env.server.user_sessions["12"]["done"] is True
    assert env.server.user_sessions["12"]["reward"] == reward


def test_reset_takes_gyms_keywords(bundled_env_kwargs: dict) -> None:
    env = WebAgentTextEnv(**bundled_env_kwargs)
    a, _ = env.reset(seed=7)
    sid_a = env.session
    b, _ = env.reset(seed=7)
    assert env.session == sid_a and a == b  # the same seed draws the same session and goal
    obs, info = env.reset(options={"session": 5}, return_info=True)
    assert env.session == "5" and info == {} and obs.split(" [SEP] ")[1] == "Instruction:"  # verl-agent parses this


# ---- AgentBench: one server shared by many sessions -------------------------------------------
@needs_small
def test_agentbench_style_shared_server_with_session_prefix() -> None:
    base = WebAgentTextEnv(observation_mode="text", num_products=1000, human_goals=True, file_path=ITEMS)
    assert isinstance(base.server, SimServer)  # the env builds WebShop's server class, as WebShop's does
    envs = [WebAgentTextEnv(observation_mode="text", server=base.server, session_prefix=f"worker{i}_")
            for i in range(2)]
    for env, goal in zip(envs, (11, 12), strict=True):
        env.reset(session=goal)
        assert env.session == f"{env.session_prefix}{goal}"
        assert base.server.user_sessions[env.session]["goal"] is base.server.goals[goal]
    envs[0].step("search[shoes]")
    assert base.server.user_sessions["worker0_11"]["keywords"] == ["shoes"]
    assert base.server.user_sessions["worker1_12"]["keywords"] is None


# ---- RAGEN: a subclass of webshop_minimal's env ------------------------------------------------
def test_ragen_style_subclass_of_webshop_minimal() -> None:
    from webshop_minimal import WebAgentTextEnv as MinimalEnv
    from webshop_minimal import init_basedir
    from webshop_minimal.engine import parse_action as minimal_parse
    from webshop_minimal.env import SimServer as MinimalServer
    from webshop_minimal.utils import DEFAULT_FILE_PATH, get_file_path

    assert DEFAULT_FILE_PATH == "" and minimal_parse("click[buy now]") == ("click", "buy now")
    assert issubclass(MinimalServer, SimServer)

    class RagenStyleEnv(MinimalEnv):
        def __init__(self, **kwargs):
            self.observation_mode = "text"
            self.file_path = DEFAULT_FILE_PATH  # "" at import time: the fork reads init_basedir's path
            self.server = None
            self.filter_goals, self.limit_goals, self.num_products = None, -1, None
            self.human_goals, self.show_attrs = False, False
            init_basedir("small")
            super().__init__(observation_mode=self.observation_mode, file_path=self.file_path, server=self.server,
                             filter_goals=self.filter_goals, limit_goals=self.limit_goals,
                             num_products=self.num_products, human_goals=self.human_goals,
                             show_attrs=self.show_attrs, session_prefix=str(uuid.uuid4().hex), **kwargs)

        def reset(self, seed=None, mode="train", session=None, instruction_text=None):
            if seed is None:
                return None  # called from __init__: RAGEN resets with a seed later
            obs, _ = MinimalEnv.reset(self, session=seed % len(self.server.goals))
            self.instruction = MinimalEnv.get_instruction_text(self)
            return obs

        def get_available_actions(self):
            orig = MinimalEnv.get_available_actions(self)
            actions = ["search[<content>]"] if orig["has_search_bar"] else []
            return actions + [f"click[{c}]" for c in orig["clickables"] if c != "search"]

    env = RagenStyleEnv()
    assert get_file_path().endswith("items_shuffle_1000.json")
    obs = env.reset(seed=3)
    assert env.instruction.startswith("Instruction:") and env.get_available_actions() == ["search[<content>]"]
    obs, reward, done, _ = env.step("search[shirt]")
    assert reward == 0.0 and done is False and "Page 1 (Total results:" in obs
    actions = env.get_available_actions()
    assert "click[back to search]" in actions and "click[next >]" in actions
    assert env.server.user_sessions[env.session]["goal"]["asin"]


# ---- engine, goal and utils functions ---------------------------------------------------------
def test_engine_constants_and_parse_action() -> None:
    assert (END_BUTTON, NEXT_PAGE, PREV_PAGE, BACK_TO_SEARCH) == ("Buy Now", "Next >", "< Prev", "Back to Search")
    assert parse_action("search[red shoes]") == ("search", "red shoes")
    assert parse_action("click[Buy Now]") == ("click", "Buy Now")
    assert parse_action("reset") == ("reset", None)
    assert parse_action("search[]") == ("search[]", None)  # WebShop's regex needs an argument
    assert get_product_per_page(list(range(25)), 3) == [20, 21, 22, 23, 24]


def test_random_idx_uses_the_global_random() -> None:
    import random

    random.seed(0)
    a = [random_idx([0, 1.0, 2.0, 3.0]) for _ in range(20)]
    random.seed(0)
    assert a == [random_idx([0, 1.0, 2.0, 3.0]) for _ in range(20)]
    assert set(a) <= {1, 2} and 0 not in a  # WebShop's quirk: goal 0 is never drawn


@needs_small
def test_load_products_search_and_reward_as_webshop_code_reads_them(monkeypatch: pytest.MonkeyPatch) -> None:
    import random

    import web_agent_site.utils

    monkeypatch.setattr(web_agent_site.utils, "DEFAULT_FILE_PATH", ITEMS)  # as WebShop users edit utils.py
    random.seed(0)
    all_products, product_item_dict, product_prices, attribute_to_asins = load_products(
        ITEMS, num_products=1000, human_goals=False)
    assert len(all_products) == len(product_item_dict) == len(product_prices)
    golden = json.loads((SMALL / "golden" / "product_prices_seed0.json").read_text())
    assert product_prices == golden  # the global random after seed(0): WebShop's own prices
    goals = get_goals(all_products, product_prices, human_goals=False)
    random.seed(233)
    random.shuffle(goals)
    with (SMALL / "golden" / "goals_synthetic_seed0.jsonl").open(encoding="utf-8") as f:
        first = json.loads(f.readline())
    assert goals[0]["asin"] == first["asin"] and goals[0]["instruction_text"] == first["instruction_text"]
    engine = init_search_engine(num_products=1000)
    with (SMALL / "golden" / "search_rankings_lucene.jsonl").open(encoding="utf-8") as f:
        ranking = json.loads(f.readline())
    hits = engine.search(ranking["query"].lower(), k=50)
    assert [h.docid for h in hits] == [asin for asin, _ in ranking["results"]]
    top = get_top_n_product_from_keywords(ranking["query"].lower().split(" "), engine, all_products,
                                          product_item_dict)
    assert [p["asin"] for p in top] == [asin for asin, _ in ranking["results"]]
    assert all(p["asin"] in attribute_to_asins[a] for p in all_products for a in p["Attributes"])
    goal = goals[0]
    product = product_item_dict[goal["asin"]]
    reward, info = get_reward(product, goal, price=product_prices[goal["asin"]],
                              options=goal["goal_options"], verbose=True)
    assert reward == 1.0 and info["r_att"] == 1.0


# ---- $SHOPSIM_DATA ----------------------------------------------------------------------------
@needs_small
@pytest.mark.slow
def test_shopsim_data_is_webshops_default_path() -> None:
    code = ("from web_agent_site.utils import DEFAULT_FILE_PATH, DEFAULT_ATTR_PATH\n"
            "from web_agent_site.envs import WebAgentTextEnv\n"
            "env = WebAgentTextEnv(observation_mode='text', num_products=1000)\n"
            "print(DEFAULT_FILE_PATH); print(DEFAULT_ATTR_PATH); print(len(env.server.product_item_dict))")
    out = _run(code, {"SHOPSIM_DATA": str(SMALL)})
    assert out.returncode == 0, out.stderr
    lines = out.stdout.split()
    assert lines[0] == ITEMS and lines[1] == ATTRS and lines[2] == "1000"


def test_without_data_one_line_then_the_bundled_catalog() -> None:
    code = ("from web_agent_site.envs import WebAgentTextEnv\n"
            "env = WebAgentTextEnv(observation_mode='text')\n"
            "print(len(env.server.product_item_dict))")
    out = _run(code)
    assert out.returncode == 0, out.stderr
    notes = [line for line in out.stderr.splitlines() if line.startswith("web_agent_site:")]
    assert len(notes) == 1 and "SHOPSIM_DATA" in notes[0] and "shopsim data fetch" in notes[0]
    assert out.stdout.strip() == "600"


@pytest.mark.slow
def test_a_missing_file_or_folder_is_refused_in_one_line(tmp_path: Path) -> None:
    out = _run("from web_agent_site.envs import WebAgentTextEnv\n"
               f"WebAgentTextEnv(file_path={str(tmp_path / 'nope.json')!r})")
    assert out.returncode != 0 and "nope.json" in out.stderr
    code = ("import web_agent_site.utils as u; print(u.DATA_FROM_ENV)\n"
            "from web_agent_site.envs import WebAgentTextEnv\n"
            "try:\n    WebAgentTextEnv(observation_mode='text')\nexcept Exception as e:\n    print(type(e).__name__, e)")
    bad = _run(code, {"SHOPSIM_DATA": str(tmp_path / "none")})
    lines = bad.stdout.splitlines()
    assert bad.returncode == 0 and lines[0] == "False"  # importing never fails ...
    assert lines[1].startswith("ConfigError SHOPSIM_DATA=") and "no such folder" in lines[1]  # ... the env refuses


@needs_small
@pytest.mark.slow
def test_cli_data_defaults_to_shopsim_data() -> None:
    out = subprocess.run([str(Path(sys.executable).parent / "shopsim"), "search", "pillow", "--num-products", "1000"],
                         capture_output=True, text=True, timeout=120, cwd=ROOT,
                         env={**os.environ, "SHOPSIM_DATA": str(SMALL)})
    assert out.returncode == 0, out.stderr
    assert "(webshop, 1000 products)" in out.stdout  # the bundled catalog has 600


@needs_small
def test_an_items_file_of_any_name(tmp_path: Path) -> None:
    import shutil

    shutil.copy(ITEMS, tmp_path / "my_items.json")
    shutil.copy(ATTRS, tmp_path / "items_ins_v2_1000.json")
    env = WebAgentTextEnv(observation_mode="text", file_path=str(tmp_path / "my_items.json"), num_products=1000)
    assert len(env.server.product_item_dict) == 1000
    assert len(load_products(str(tmp_path / "my_items.json"), human_goals=False)[0]) == 1000


@needs_small
def test_goals_without_prices_have_no_price_limit() -> None:
    all_products = load_products(ITEMS, num_products=200, human_goals=False)[0]
    goals = get_goals(all_products, None, human_goals=False)
    assert goals and all(g["price_upper"] == 1000000 and "price lower than" not in g["instruction_text"]
                         for g in goals)


@needs_small
@pytest.mark.slow
def test_webshop_minimal_reads_shopsim_data_without_init_basedir() -> None:
    out = _run("from webshop_minimal import WebAgentTextEnv\n"
               "env = WebAgentTextEnv(observation_mode='text', num_products=1000)\n"
               "print(len(env.server.product_item_dict))", {"SHOPSIM_DATA": str(SMALL)})
    assert out.returncode == 0 and out.stdout.strip() == "1000", out.stderr


@needs_small
@pytest.mark.slow
def test_a_prepared_store_as_shopsim_data(tmp_path: Path) -> None:
    store = tmp_path / "store"
    prep = subprocess.run([str(Path(sys.executable).parent / "shopsim"), "data", "prepare", "--data", str(SMALL),
                           "--out", str(store)], capture_output=True, text=True, timeout=300)
    assert prep.returncode == 0, prep.stderr
    code = ("from web_agent_site.envs import WebAgentTextEnv\n"
            "from web_agent_site.engine.engine import init_search_engine\n"
            "from webshop_minimal import init_basedir\n"
            "from webshop_minimal import WebAgentTextEnv as Minimal\n"
            "env = WebAgentTextEnv(observation_mode='text')\n"
            "hits = init_search_engine().search('pillow', k=3)\n"
            "init_basedir('small')\n"
            "print(len(env.server.product_item_dict), len(hits), len(Minimal(observation_mode='text').server.goals))")
    out = _run(code, {"SHOPSIM_DATA": str(store)})
    assert out.returncode == 0, out.stderr
    products, hits, goals = out.stdout.split()
    assert products == "1000" and hits == "3" and int(goals) > 1000


def test_site_env_stops_its_server_when_the_browser_fails(tmp_path: Path) -> None:
    import threading

    from shopsim.errors import ConfigError
    from web_agent_site.envs import WebAgentSiteEnv

    before = threading.active_count()
    for _ in range(2):
        with pytest.raises(ConfigError, match="browser not found"):
            WebAgentSiteEnv(observation_mode="text", file_path=None, executable_path=str(tmp_path / "no-chromium"))
    assert threading.active_count() == before
