"""``shopsim eval --executor ray`` and ``shopsim.adapters.ray`` on a real local Ray cluster.

One cluster (``ray.init(num_cpus=2)``) serves the whole module: starting one takes 10-30 s. The
Ray executor must write what the local executor writes (byte-identical ``episodes.jsonl`` and
``traces.jsonl``), resume the same way, survive a killed actor and stop after bounded retries;
the env pool must give what a local ``ShopEnv`` gives. Without Ray, ``--executor ray`` says how
to install it in one line, and nothing in the core imports Ray.
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from conftest import read_jsonl

from shopsim.adapters.env import ShopEnv
from shopsim.adapters.ray_local import start_local
from shopsim.agents.evaluation.config import EvalConfig
from shopsim.agents.evaluation.runner import run_eval
from shopsim.agents.rule import RuleAgent
from shopsim.errors import ConfigError, DataError, SourceError
from shopsim.simsite.shop import Shop

ROOT = Path(__file__).resolve().parents[3]
SMALL = ROOT.parent / "shared" / "data" / "webshop-small"


@pytest.fixture(scope="module")
def cluster() -> Any:
    """A local two-CPU Ray cluster for the module (one joined, if this process already has one)."""
    ray = pytest.importorskip("ray", reason="Ray is not installed: pip install shopsim[ray]")
    started = not ray.is_initialized()
    if started:
        start_local(ray, 2, logging_level=logging.ERROR)
    yield ray
    if started:
        ray.shutdown()


@pytest.fixture(scope="module")
def small_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """WebShop's real 1,000-product set as a prepared store (what Ray actors share on one machine)."""
    if not (SMALL / "items_shuffle_1000.json").exists():
        pytest.skip(f"WebShop's small set is not in {SMALL} (see ../shared/data/README.md)")
    from shopsim.simsite.store import prepare_store

    store = tmp_path_factory.mktemp("ray") / "store"
    prepare_store(SMALL, store, workers=1)
    return store


def _run(tmp_path: Path, name: str, goals: list[int], **kw: Any) -> tuple[Path, dict[str, Any]]:
    out = tmp_path / name
    _, extra = run_eval(EvalConfig(agent="rule", goals=goals, out=str(out), **kw), progress=False)
    return out, extra


@pytest.mark.slow  # starts or joins a Ray cluster
def test_ray_writes_what_local_writes_and_resumes_the_same_way(tmp_path: Path, cluster: Any) -> None:
    local, _ = _run(tmp_path, "local", list(range(8)))
    ray_out, extra = _run(tmp_path, "ray", list(range(8)), executor="ray", workers=2)
    assert extra["executor"] == "ray" and extra["ray"]["actors"] == 2 and extra["ray"]["episode_retries"] == 0
    for name in ("episodes.jsonl", "traces.jsonl"):
        assert (ray_out / name).read_bytes() == (local / name).read_bytes(), name
    summaries = [json.loads((d / "summary.json").read_text()) for d in (local, ray_out)]
    skip = {"seconds", "run", "executor", "ray"}
    assert [{k: v for k, v in s.items() if k not in skip} for s in summaries[:1]] == \
        [{k: v for k, v in s.items() if k not in skip} for s in summaries[1:]]
    assert not list(ray_out.glob("traces.part*"))

    # Resume: a longer goal list reruns only what is new, and ends where a fresh local run ends.
    local12, _ = _run(tmp_path, "local12", list(range(12)))
    _, again = _run(tmp_path, "ray", list(range(12)), executor="ray", workers=2)
    assert again["episodes_run_now"] == 4 and again["resume"]["episodes_done"] == 8
    for name in ("episodes.jsonl", "traces.jsonl"):
        assert (ray_out / name).read_bytes() == (local12 / name).read_bytes(), name


def _kill(ray: Any, actor: Any) -> None:
    """Kill an actor and return once it is dead. ``ray.kill`` only asks: on a busy machine the actor
    could otherwise still play every goal queued on it, leaving nothing to fail."""
    from ray.exceptions import GetTimeoutError, RayActorError

    ray.kill(actor)
    deadline = time.monotonic() + 120
    while True:
        try:
            ray.get(actor.__ray_ready__.remote(), timeout=5)  # runs after the goals queued on it
        except RayActorError:
            return
        except GetTimeoutError:
            pass
        assert time.monotonic() < deadline, "the killed actor is still alive"
        time.sleep(0.05)


@pytest.mark.slow  # starts or joins a Ray cluster
def test_a_killed_actor_costs_a_retry_not_the_run(tmp_path: Path, cluster: Any, small_store: Path) -> None:
    from shopsim.agents.evaluation.ray_executor import RayExecutor

    goals = list(range(10))
    local, _ = _run(tmp_path, "local", goals, data=str(small_store))
    out = tmp_path / "ray"
    out.mkdir()
    cfg = EvalConfig(agent="rule", goals=goals, out=str(out), data=str(small_store), executor="ray", workers=2)
    executor, got, killed = RayExecutor(cfg), [], []

    def take(rec: dict[str, Any]) -> None:
        got.append(rec)
        if not killed:  # the actor's queued goals fail and go to the other actor or its replacement
            killed.append(executor.actors[0])
            _kill(cluster, executor.actors[0])

    stats = executor.run(goals, take)
    assert stats.episode_retries >= 1 and stats.actors_replaced == 1
    assert sorted(r["goal_index"] for r in got) == goals  # each goal once, none lost, none twice
    want = read_jsonl(local / "episodes.jsonl")
    assert sorted(got, key=lambda r: r["goal_index"]) == [{k: v for k, v in r.items() if k != "goal_groups"}
                                                          for r in want]
    steps = sorted((r["goal_index"], r["step"]) for r in read_jsonl(out / "traces.part0.jsonl"))
    assert steps == sorted((r["goal_index"], r["step"]) for r in read_jsonl(local / "traces.jsonl"))


@pytest.mark.slow  # starts or joins a Ray cluster
def test_a_goal_whose_actor_keeps_dying_stops_the_run_in_one_line(tmp_path: Path, cluster: Any) -> None:
    from shopsim.agents.evaluation.ray_executor import RayExecutor

    cfg = EvalConfig(agent="rule", goals=[0, 1, 2, 3], out=str(tmp_path), executor="ray", workers=1)
    executor = RayExecutor(cfg, max_attempts=1)

    def take(rec: dict[str, Any]) -> None:
        _kill(cluster, executor.actors[0])

    with pytest.raises(SourceError, match=r"^goal \d: the Ray actor playing it died, 1 of 1 attempts \(last: .*\); "
                                          r"finished episodes are kept in .*; run the same command again to resume$"):
        executor.run([0, 1, 2, 3], take)
    assert executor.actors == []  # every actor ended


@pytest.mark.slow  # starts or joins a Ray cluster
def test_an_actor_that_cannot_start_reports_why(tmp_path: Path, cluster: Any) -> None:
    from shopsim.agents.evaluation.ray_executor import RayExecutor

    cfg = EvalConfig(agent="rule", goals=[0], out=str(tmp_path), executor="ray", data=str(tmp_path / "missing"))
    with pytest.raises((DataError, ConfigError), match="missing"):
        RayExecutor(cfg).run([0], lambda rec: None)


@pytest.mark.slow  # starts or joins a Ray cluster
def test_http_actors_serve_their_own_shop(tmp_path: Path, cluster: Any) -> None:
    local, _ = _run(tmp_path, "local", [0, 1, 2], adapter="http")
    ray_out, _ = _run(tmp_path, "ray", [0, 1, 2], adapter="http", executor="ray")
    assert (ray_out / "episodes.jsonl").read_bytes() == (local / "episodes.jsonl").read_bytes()


@pytest.mark.slow  # starts or joins a Ray cluster
@pytest.mark.browser
def test_browser_actors_send_their_screenshots_and_playwright_traces_home(tmp_path: Path, cluster: Any,
                                                                        chromium_path: str | None) -> None:
    out, _ = _run(tmp_path, "ray", [0], adapter="browser", browser_path=chromium_path, executor="ray",
                  screenshots=True, trace="all")
    (rec,) = read_jsonl(out / "episodes.jsonl")
    assert rec["trace"] == "traces/goal-0.zip" and (out / rec["trace"]).stat().st_size > 0
    shots = sorted(p.name for p in (out / "screenshots").iterdir())
    assert shots == sorted(f"0-{n}.{ext}" for n in range(1, rec["steps"] + 1) for ext in ("html", "png"))
    assert [p.name for p in (out / "traces").iterdir()] == ["goal-0.zip"]


@pytest.mark.slow  # starts or joins a Ray cluster
def test_cli_joins_a_running_cluster_by_address(tmp_path: Path, cluster: Any) -> None:
    address = cluster.get_runtime_context().gcs_address
    local, _ = _run(tmp_path, "local", list(range(4)))
    out = tmp_path / "cli"
    got = subprocess.run([str(Path(sys.executable).parent / "shopsim"), "eval", "--agent", "rule", "--goals", "0:4",
                          "--executor", "ray", "--address", address, "--workers", "2", "--out", str(out), "--json"],
                         capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert got.returncode == 0, got.stderr
    summary = json.loads(got.stdout.strip().splitlines()[-1])
    assert summary["ray"]["address"] == address and summary["episodes"] == 4
    assert (out / "episodes.jsonl").read_bytes() == (local / "episodes.jsonl").read_bytes()


_NO_RAY = """
import sys
sys.modules["ray"] = None  # `import ray` raises ImportError, as without the package
import shopsim, shopsim.agents.evaluation.runner, shopsim.agents.evaluation.ray_executor, shopsim.cli.eval, shopsim.adapters
from shopsim.cli import main
sys.exit(main(sys.argv[1:]))
"""

_IMPORTS = """
import sys
import shopsim, shopsim.cli, shopsim.agents.evaluation.runner, shopsim.agents.evaluation.ray_executor, shopsim.cli.eval
import shopsim.adapters, shopsim.adapters.env
print(sorted(m for m in sys.modules if m == "ray" or m.startswith("ray.")))
"""


@pytest.mark.slow  # a fresh interpreter imports everything
def test_without_ray_the_executor_says_how_to_install_it(tmp_path: Path) -> None:
    got = subprocess.run([sys.executable, "-c", _NO_RAY, "eval", "--goals", "0:2", "--executor", "ray",
                          "--out", str(tmp_path / "run")], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert got.returncode != 0
    lines = got.stderr.strip().splitlines()
    assert len(lines) == 1 and "pip install shopsim[ray]" in lines[0], got.stderr
    assert not (tmp_path / "run").exists()
    imported = subprocess.run([sys.executable, "-c", _IMPORTS], capture_output=True, text=True, cwd=ROOT,
                              timeout=300, env={**os.environ, "PYTHONWARNINGS": "ignore"})
    assert imported.stdout.strip() == "[]", imported.stderr


def test_address_needs_the_ray_executor(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="--address auto names a Ray cluster: it needs --executor ray"):
        _run(tmp_path, "x", [0], address="auto")


@pytest.mark.slow  # starts or joins a Ray cluster
def test_env_pool_steps_like_local_envs_and_branches_snapshots(bundled_shop: Shop, cluster: Any) -> None:
    from shopsim.adapters.ray import EnvPool

    goals = [3, 5]
    # What a local env gives, step by step, for the rule agent's actions.
    local, actions = [], []
    for g in goals:
        env, agent = ShopEnv(bundled_shop), RuleAgent()
        agent.reset(seed=g)
        obs, info = env.reset(seed=7, options={"goal": g})
        rows, acts = [(obs, info)], []
        for _ in range(3):
            act = agent.act(obs, info["valid_actions"], info)
            obs, reward, term, trunc, info = env.step(act)
            rows.append((obs, reward, term, trunc, info))
            acts.append(act)
        local.append(rows)
        actions.append(acts)
    with EnvPool(2, num_cpus=0.5) as pool:
        assert len(pool) == 2
        assert pool.reset(goals, seeds=[7, 7]) == [rows[0] for rows in local]
        for t in range(3):
            assert pool.step([acts[t] for acts in actions]) == [rows[t + 1] for rows in local]
        # Branch env 0's state into both envs: the same action gives the same page in each.
        env0 = ShopEnv(bundled_shop)
        env0.reset(seed=7, options={"goal": 3})
        env0.step(actions[0][0])
        token = env0.snapshot()
        starts = pool.restore([token, token])
        assert starts[0] == starts[1] == env0.restore(token)
        again = pool.step([actions[0][1], None])
        assert again[1] is None and again[0] == env0.step(actions[0][1])
        assert pool.snapshot()[1] == token  # env 1 did not move
        with pytest.raises(ConfigError, match="EnvPool of 2 envs got 1 actions"):
            pool.step(["click[back to search]"])
