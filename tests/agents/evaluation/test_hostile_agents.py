"""Hostile agents: wrong action types, exceptions, ``sys.exit``, ``os._exit``, endless loops and sleeps.

Each is that episode's failure (``agent_failure``: kind and reason, reward 0) and the run goes on to
a complete summary with exit 0; an agent that breaks the run itself (its constructor exits) ends it
with one line, exit 2 and an aborted summary. Run through the real CLI with agent modules written to
``tmp_path``, in this process (the Python API with a registered agent) and in worker processes.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from shopsim.agents.evaluation.config import EvalConfig
from shopsim.agents.evaluation.runner import run_eval
from shopsim.agents.registry import AGENTS, register_agent
from tests._cli_runs import cli_results, start_cli

# Goal N misbehaves as MISDEEDS[N]; other goals are played by the rule agent.
_MODULE = '''
import os, sys, time
from shopsim.agents.rule import RuleAgent

MISDEEDS = {0: "none", 1: "int", 2: "bytes", 3: "object", 4: "raise", 5: "sys.exit", 6: "os._exit",
            7: "spin", 8: "sleep"}


class Mixed:
    def __init__(self, seed=0):
        self.rule, self.goal = RuleAgent(), 0

    def reset(self, seed=None):
        self.goal = seed
        self.rule.reset(seed=seed)

    def act(self, observation, valid_actions, info):
        deed = MISDEEDS.get(self.goal)
        if deed == "none":
            return None
        if deed == "int":
            return 42
        if deed == "bytes":
            return b"search[shoes]"
        if deed == "object":
            return object()
        if deed == "raise":
            raise ValueError("the agent broke")
        if deed == "sys.exit":
            sys.exit(0)
        if deed == "os._exit":
            os._exit(0)
        if deed == "spin":
            while True:
                pass
        if deed == "sleep":
            time.sleep(10**6)
        return self.rule.act(observation, valid_actions, info)


class BrokenStats(Mixed):
    """Plays like the rule agent; its ``stats`` (where the runner reads an agent's counters) raises."""

    @property
    def stats(self):
        raise RuntimeError("no stats today")


class Dawdler(Mixed):
    """Each act is quick, the episode is not: only the episode limit catches it."""

    def act(self, observation, valid_actions, info):
        time.sleep(0.4)
        return "search[shoes]" if valid_actions.get("has_search_bar") else "click[back to search]"


class ExitsOnBuild:
    def __init__(self, seed=0):
        os._exit(0)


class SysExitsOnBuild:
    def __init__(self, seed=0):
        sys.exit(0)
'''

_KINDS = {0: "bad_action", 1: "bad_action", 2: "bad_action", 3: "bad_action", 4: "error", 5: "exit", 6: "exit",
          7: "step_timeout", 8: "step_timeout"}


def _episodes(out: Path) -> dict[int, dict]:
    return {r["goal_index"]: r for r in map(json.loads, (out / "episodes.jsonl").read_text().splitlines())}


def test_wrong_actions_exceptions_and_sys_exit_fail_their_episode_in_process(tmp_path: Path,
                                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(tmp_path))
    (tmp_path / "hostile_inproc.py").write_text(_MODULE)
    import hostile_inproc  # type: ignore[import-not-found]

    monkeypatch.setitem(AGENTS, "test-mixed", AGENTS["rule"])
    register_agent("test-mixed", lambda seed, opts: hostile_inproc.Mixed(seed))  # built in: played in this process
    out = tmp_path / "run"
    _, extra = run_eval(EvalConfig(agent="test-mixed", goals=[0, 1, 2, 3, 4, 5, 9], out=str(out)), progress=False)
    eps = _episodes(out)
    assert {g: r["agent_failure"]["kind"] for g, r in eps.items() if "agent_failure" in r} == \
        {g: _KINDS[g] for g in (0, 1, 2, 3, 4, 5)}
    assert "returned NoneType None, not an action string" in eps[0]["agent_failure"]["reason"]
    assert "returned bytes b'search[shoes]'" in eps[2]["agent_failure"]["reason"]
    assert eps[4]["agent_failure"]["reason"] == "the agent's act() raised ValueError: the agent broke"
    assert eps[5]["agent_failure"]["reason"] == "the agent called sys.exit(0) in act()"
    assert all(eps[g]["reward"] == 0.0 for g in range(6)) and eps[9]["steps"] > 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["status"] == "complete" and summary["episodes"] == 7
    assert summary["agent_failures"] == extra["agent_failures"] == \
        {"episodes": 6, "by_kind": {"bad_action": 4, "error": 1, "exit": 1}}
    register_agent("test-mixed", lambda seed, opts: hostile_inproc.BrokenStats(seed))
    _, extra = run_eval(EvalConfig(agent="test-mixed", goals=[9, 10], out=str(tmp_path / "stats")), progress=False)
    assert extra["status"] == "complete" and "agent_stats" not in extra and "agent_failures" not in extra


@pytest.mark.slow
def test_two_workers_outlive_exits_loops_and_sleeps(tmp_path: Path) -> None:
    (tmp_path / "hostile.py").write_text(_MODULE)
    out = tmp_path / "run"
    [(code, stdout, stderr)] = cli_results({"mixed": start_cli(
        "eval", "--agent", "hostile:Mixed", "--goals", "0:10", "--workers", "2", "--agent-timeout", "1.5,60",
        "--out", str(out), pythonpath=tmp_path)}, timeout=180).values()
    assert code == 0, stderr
    eps = _episodes(out)
    assert sorted(eps) == list(range(10))
    assert {g: r.get("agent_failure", {}).get("kind") for g, r in eps.items()} == {**_KINDS, 9: None}
    assert "ran past the 1.5 s step limit" in eps[7]["agent_failure"]["reason"]
    assert "exited with code 0 during the episode" in eps[6]["agent_failure"]["reason"]
    summary = json.loads((out / "summary.json").read_text())
    assert summary["status"] == "complete" and summary["agent_failures"]["episodes"] == 9
    assert "agent failures: 9 episodes (bad_action 4, error 1, exit 2, step_timeout 2)" in stdout


@pytest.mark.slow
def test_episode_limit_and_shopsim_run_with_a_step_limit(tmp_path: Path) -> None:
    (tmp_path / "hostile.py").write_text(_MODULE)
    out = tmp_path / "slow"
    results = cli_results({
        "episode limit": start_cli("eval", "--agent", "hostile:Dawdler", "--goals", "20:22", "--agent-timeout", ",1.2",
                                   "--out", str(out), "--json", pythonpath=tmp_path),
        "run": start_cli("run", "--agent", "hostile:Mixed", "--goals", "0:10", "--agent-timeout", "1.5", "--json",
                         pythonpath=tmp_path),
    }, timeout=180)
    code, stdout, stderr = results["episode limit"]
    assert code == 0, stderr
    assert json.loads(stdout)["agent_failures"] == {"episodes": 2, "by_kind": {"episode_timeout": 2}}
    assert all("ran past the 1.2 s episode limit" in r["agent_failure"]["reason"] for r in _episodes(out).values())
    code, stdout, stderr = results["run"]
    assert code == 0, stderr
    assert json.loads(stdout)["agent_failures"] == \
        {"episodes": 9, "by_kind": {"bad_action": 4, "error": 1, "exit": 2, "step_timeout": 2}}
    assert json.loads(stdout)["episodes"] == 10


@pytest.mark.slow
def test_an_agent_that_breaks_the_run_ends_it_with_one_line_and_exit_2(tmp_path: Path) -> None:
    (tmp_path / "hostile.py").write_text(_MODULE)
    cases = {"os._exit on build": "hostile:ExitsOnBuild", "sys.exit on build": "hostile:SysExitsOnBuild"}
    results = cli_results({case: start_cli("eval", "--agent", agent, "--goals", "0:2", "--out",
                                           str(tmp_path / case.split()[0]), pythonpath=tmp_path)
                           for case, agent in cases.items()}
                          | {"bad limit": start_cli("eval", "--agent", "rule", "--agent-timeout", "soon",
                                                    "--out", str(tmp_path / "bad"))}, timeout=180)
    for case, (code, _, stderr) in results.items():
        assert code == 2 and len(stderr.strip().splitlines()) == 1, (case, stderr)
    assert "stopped before finishing its goals (its process exited with code 0)" in results["os._exit on build"][2]
    assert "its constructor called sys.exit(0)" in results["sys.exit on build"][2]
    assert "--agent-timeout 'soon': give STEP[,EPISODE]" in results["bad limit"][2]
    summary = json.loads((tmp_path / "os._exit" / "summary.json").read_text())
    assert summary["status"] == "aborted" and summary["episodes_missing"] == 2


def test_an_agent_with_decorated_methods_plays_normally(bundled_shop) -> None:
    """The runner tells reset from act by which it calls, not by ``__name__``: a decorator that does not
    copy the name (no ``functools.wraps``) must not turn ``reset``'s None into a bad action."""
    from shopsim.adapters.env import ShopEnv
    from shopsim.agents.episode import run_episode
    from shopsim.agents.rule import RuleAgent

    def plain(method):
        def wrapper(*args, **kwargs):
            return method(*args, **kwargs)
        return wrapper

    class Decorated(RuleAgent):
        reset = plain(RuleAgent.reset)
        act = plain(RuleAgent.act)

    result = run_episode(ShopEnv(bundled_shop), Decorated(), 3)
    assert result.agent_failure is None and result.steps > 0
    assert result.model_dump() == run_episode(ShopEnv(bundled_shop), RuleAgent(), 3).model_dump()


@pytest.mark.slow
def test_an_agent_module_that_exits_while_imported_is_refused_in_one_line(tmp_path: Path) -> None:
    """``os._exit(0)`` at import time used to end ``shopsim eval`` with exit 0 and no summary: the
    module is now checked in a process of its own, and the run is refused with one line and exit 2."""
    (tmp_path / "exits_on_import.py").write_text("import os\nos._exit(0)\n")
    (tmp_path / "sys_exits_on_import.py").write_text("import sys\nsys.exit(0)\n")
    (tmp_path / "raises_on_import.py").write_text("raise RuntimeError('no agents today')\n")
    cases = {f"{cmd} {module}": start_cli(cmd, "--agent", f"{module}:Agent", "--goals", "0:2",
                                          *(["--out", str(tmp_path / module)] if cmd == "eval" else []),
                                          pythonpath=tmp_path)
             for cmd in ("eval", "run") for module in ("exits_on_import", "sys_exits_on_import", "raises_on_import")}
    results = cli_results(cases, timeout=180)
    for case, (code, _, stderr) in results.items():
        assert code == 2 and len(stderr.strip().splitlines()) == 1, (case, code, stderr)
    for cmd in ("eval", "run"):
        assert "importing it ended the process (exit code 0)" in results[f"{cmd} exits_on_import"][2]
        assert "called sys.exit(0)" in results[f"{cmd} sys_exits_on_import"][2]
        assert "raised RuntimeError: no agents today" in results[f"{cmd} raises_on_import"][2]
    assert not (tmp_path / "exits_on_import" / "summary.json").exists()  # refused before the run began


@pytest.mark.slow
def test_a_script_without_a_main_guard_is_told_so(tmp_path: Path) -> None:
    """A script that calls ``shopsim.cli.main`` at its top level is imported again by the spawned check, whose own
    call dies as it starts: that used to be blamed on the agent ("an agent's module must not exit when it is
    imported", about a module that does nothing of the kind); the line now names the missing guard."""
    (tmp_path / "quiet_agent.py").write_text("class Agent:\n    def reset(self, seed=None): pass\n"
                                             "    def act(self, observation, valid_actions, info=None):\n"
                                             "        return 'search[shoes]'\n")
    (tmp_path / "unguarded.py").write_text("from shopsim.cli import main\n"
                                           "raise SystemExit(main(['run', '--agent', 'quiet_agent:Agent', '--goals', '0:1']))\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "unguarded.py"], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=180)
    last = done.stderr.strip().splitlines()[-1]
    assert done.returncode == 2 and 'needs the call under `if __name__ == "__main__":`' in last, done.stderr
    assert "must not exit when it is imported" not in done.stderr
