"""Agents by registered name, ``module:Class`` or entry point, with typed ``--agent-option`` values."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from shopsim.agents.registry import agent_names, make_agent
from shopsim.errors import ConfigError

_AGENT = '''
class FirstResult:
    """Searches the instruction, opens the first result, buys; ``patience`` bounds its steps."""

    name = "first-result"

    def __init__(self, patience: int = 5, shout: bool = False, seed: int = 0):
        self.patience, self.shout, self.seed = patience, shout, seed

    def reset(self, seed=None):
        self.steps = 0

    def act(self, observation, valid_actions, info):
        self.steps += 1
        clicks = valid_actions["clickables"]
        if valid_actions["has_search_bar"]:
            return "search[" + (info.get("instruction") or "shoes") + "]"
        products = [c for c in clicks if c not in ("back to search", "next >", "< prev", "buy now")]
        if "buy now" in clicks or self.steps >= self.patience:
            return "click[buy now]"
        return "click[" + products[0] + "]"
'''


def test_builtin_options_are_converted_and_checked() -> None:
    llm = make_agent("llm", options={"timeout": "3", "max_tokens": "64", "base_url": "http://127.0.0.1:9",
                                     "model": "m", "api_key": "k"})
    assert llm.timeout == 3.0 and llm.max_tokens == 64
    with pytest.raises(ConfigError, match=r"no option 'timeot'\. Did you mean: `timeout`\? Its options: .*timeout \(float\)"):
        make_agent("llm", options={"timeot": "3"})
    with pytest.raises(ConfigError, match="timeout='abc': expected a number"):
        make_agent("llm", options={"timeout": "abc"})
    with pytest.raises(ConfigError, match="Its options: none"):
        make_agent("rule", options={"x": "1"})
    assert make_agent("heuristic", options={"max_candidates": "2"}).max_candidates == 2


def test_module_colon_class_names_an_agent(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "my_agents.py").write_text(_AGENT)
    monkeypatch.syspath_prepend(str(tmp_path))
    agent = make_agent("my_agents:FirstResult", seed=4, options={"patience": "7", "shout": "yes"})
    assert (agent.patience, agent.shout, agent.seed) == (7, True, 4)
    with pytest.raises(ConfigError, match="cannot import 'no_such_module'"):
        make_agent("no_such_module:X")
    with pytest.raises(ConfigError, match="has no 'Nope'"):
        make_agent("my_agents:Nope")


def _cli(args: list[str], pythonpath: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(pythonpath), os.environ.get("PYTHONPATH", "")])}
    return subprocess.run([sys.executable, "-m", "shopsim.cli", *args], capture_output=True, text=True,
                          timeout=120, env=env)


@pytest.mark.slow
def test_the_command_line_runs_third_party_agents(tmp_path: Path) -> None:
    (tmp_path / "my_agents.py").write_text(_AGENT)
    dist = tmp_path / "my_agents-0.1.dist-info"  # an installed package's entry point, as pip writes it
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: my-agents\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text("[shopsim.agents]\nfirst = my_agents:FirstResult\n")
    for name in ("my_agents:FirstResult", "first"):
        done = _cli(["run", "--agent", name, "--goals", "0:3", "--agent-option", "patience=4", "--json"], tmp_path)
        assert done.returncode == 0, done.stderr
        assert '"episodes": 3' in done.stdout
    bad = _cli(["run", "--agent", "first", "--goals", "0:1", "--agent-option", "patience=many"], tmp_path)
    assert bad.returncode == 2 and "patience='many': expected a whole number" in bad.stderr
    assert "Traceback" not in bad.stderr and len(bad.stderr.strip().splitlines()) == 1


def test_entry_points_are_listed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    dist = tmp_path / "more_agents-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: more-agents\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text("[shopsim.agents]\nbroken = more_agents_missing:Agent\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert "broken" in agent_names() and {"rule", "heuristic", "llm"} <= set(agent_names())
    with pytest.raises(ConfigError, match="entry point 'more_agents_missing:Agent' failed to load"):
        make_agent("broken")
