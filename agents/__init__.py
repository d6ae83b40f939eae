"""Agents: the rule baseline, a seeded random policy, a heuristic, an LLM and a human player."""

from shopsim.agents.base import Agent
from shopsim.agents.evaluate import EpisodeResult, Summary, run_episode, summarize
from shopsim.agents.heuristic import HeuristicAgent
from shopsim.agents.human import HumanAgent
from shopsim.agents.llm import LLMAgent
from shopsim.agents.random_agent import RandomAgent
from shopsim.agents.rule import RuleAgent

__all__ = [
    "Agent",
    "EpisodeResult",
    "HeuristicAgent",
    "HumanAgent",
    "LLMAgent",
    "RandomAgent",
    "RuleAgent",
    "Summary",
    "run_episode",
    "summarize",
]
