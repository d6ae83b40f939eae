"""Agents: the rule baseline, a seeded random policy, and the evaluation helpers."""

from shopsim.agents.base import Agent
from shopsim.agents.evaluate import EpisodeResult, Summary, run_episode, summarize
from shopsim.agents.random_agent import RandomAgent
from shopsim.agents.rule import RuleAgent

__all__ = ["Agent", "EpisodeResult", "RandomAgent", "RuleAgent", "Summary", "run_episode", "summarize"]
