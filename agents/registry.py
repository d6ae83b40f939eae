"""Agents by name, for the command line and the evaluation runner."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from shopsim.agents.base import Agent
from shopsim.errors import ConfigError, did_you_mean

__all__ = ["AGENTS", "make_agent", "register_agent"]

AgentFactory = Callable[[int, dict[str, Any]], Agent]
AGENTS: dict[str, AgentFactory] = {}


def register_agent(name: str, factory: AgentFactory) -> None:
    """Make ``factory(seed, options)`` available as agent ``name``."""
    AGENTS[name] = factory


def make_agent(name: str, seed: int = 0, options: dict[str, Any] | None = None) -> Agent:
    """Build agent ``name`` with ``seed`` and agent-specific ``options``."""
    if name not in AGENTS:
        raise ConfigError(f"unknown agent {name!r}; available: {', '.join(sorted(AGENTS))}.{did_you_mean(name, AGENTS)}")
    return AGENTS[name](seed, options or {})


def _builtin() -> None:
    from shopsim.agents.heuristic import HeuristicAgent
    from shopsim.agents.random_agent import RandomAgent
    from shopsim.agents.rule import RuleAgent

    register_agent("rule", lambda seed, opts: RuleAgent())
    register_agent("random", lambda seed, opts: RandomAgent(seed=seed))
    register_agent("heuristic", lambda seed, opts: HeuristicAgent(seed=seed, **opts))
    register_agent("llm", _make_llm)
    register_agent("human", _make_human)


def _make_llm(seed: int, opts: dict[str, Any]) -> Agent:
    """The LLM agent; options: base_url, model, api_key (else the SHOPSIM_LLM_* env vars), and the rest."""
    from shopsim.agents.llm import LLMAgent

    return LLMAgent(seed=seed, **opts)


def _make_human(seed: int, opts: dict[str, Any]) -> Agent:
    """A person at the terminal."""
    from shopsim.agents.human import HumanAgent

    return HumanAgent(**opts)


_builtin()
