"""The gap suite: does an agent's drop on skinned and perturbed sim pages predict its drop on real pages?

Each agent plays the same sim goals under every condition: the sim itself (the text observation), each
skin, and each perturbation over one skin. On a skin the agent reads what our translator reads from the
skinned page, through the same parity view as on real pages (:class:`SkinnedSource` in a
:class:`ParitySource`); the sim keeps the session and the rewards. The real-page transfer suite
(:func:`shopsim.agents.transfer.suite.run_suite`) gives the measured gap. A condition's drop is the sim
score minus its score (points, with a seeded bootstrap interval); an agent's predicted drop is the mean
over the skin and perturbation conditions, and over the agents the suite reports Spearman's correlation
of predicted and real drops.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel

from shopsim.adapters.env import ShopEnv
from shopsim.adapters.parity_source import ParitySource
from shopsim.adapters.skinned_source import SkinnedSource
from shopsim.adapters.sources import inprocess_episode_source
from shopsim.agents.episode import EpisodeResult, run_episode
from shopsim.agents.registry import make_agent
from shopsim.agents.transfer.gap_stats import drop_interval, spearman
from shopsim.agents.transfer.suite import TaskSpec, run_suite
from shopsim.errors import ConfigError
from shopsim.simsite.perturb import PERTURBATIONS, parse_perturb, perturbed_skin
from shopsim.simsite.shop import Shop
from shopsim.simsite.skins import PLAIN_SKIN, SKINS, get_skin

__all__ = ["AgentGap", "Condition", "ConditionResult", "Drop", "GapReport", "agent_spec", "conditions", "run_gap_suite"]

#: An option value read as an int: ASCII digits only (``str.isdigit`` also takes ``²``, which ``int`` refuses).
_INT = re.compile(r"-?[0-9]+")

#: The agents the suite compares by default: the rule agent, the heuristic and a variant, random.
DEFAULT_AGENTS = ("rule", "heuristic", "heuristic+max_candidates=1", "random")


#: How a condition shows the sim: its own text, a skin, or a perturbation over a skin.
ConditionKind = Literal["sim", "skin", "perturb"]


class Condition(BaseModel):
    """One way of showing the sim: ``sim`` (its own text), a skin, or a perturbation over a skin."""

    name: str
    kind: ConditionKind
    skin: str | None = None
    perturb: str | None = None


class Drop(BaseModel):
    """A score drop in points and its 95% bootstrap interval."""

    points: float
    low: float
    high: float

    @classmethod
    def of(cls, base: list[float], other: list[float], *, paired: bool, seed: int) -> Drop:
        """``mean(base) - mean(other)`` in points (rewards in 0..1), unrounded: the predicted drop averages
        these and Spearman ranks them, and rounding first makes ties that are not there (the reports round).
        """
        points, low, high = drop_interval(base, other, paired=paired, seed=seed)
        return cls(points=points, low=low, high=high)


class ConditionResult(BaseModel):
    """An agent's numbers under one condition: score and success (percent), and the drop from the sim."""

    condition: str
    kind: ConditionKind
    score: float
    success: float
    drop: Drop


class AgentGap(BaseModel):
    """One agent: every condition, its predicted drop and the measured real-page score and drop."""

    agent: str
    goals: int
    rows: list[ConditionResult]
    predicted_drop: float
    real_score: float | None = None
    real: Drop | None = None


class GapReport(BaseModel):
    """The suite over every agent, and how well the predicted drops rank the real ones."""

    seed: int
    goals: int
    perturb_skin: str
    agents: list[AgentGap]
    spearman: float | None


def agent_spec(text: str) -> tuple[str, dict[str, Any]]:
    """``NAME[+KEY=VALUE...]`` (``heuristic+max_candidates=1``) as the agent's name and options."""
    name, *parts = text.split("+")
    options: dict[str, Any] = {}
    for part in parts:
        key, sep, value = part.partition("=")
        if not sep or not key:
            raise ConfigError(f"agent {text!r}: options are NAME+KEY=VALUE, got {part!r}")
        options[key] = int(value) if _INT.fullmatch(value) else value
    return name, options


def conditions(perturb_skin: str = "amazon", perturbs: list[str] | None = None) -> list[Condition]:
    """The sim, every skin but WebShop's own, and each perturbation (and ``random``) over ``perturb_skin``."""
    if perturb_skin == "random":  # a choice of --skin (a skin per session), not one skin to perturb
        raise ConfigError(f"--perturb-skin takes one skin, not 'random': use one of {', '.join(SKINS)}")
    get_skin(perturb_skin)
    out = [Condition(name="sim", kind="sim")]
    out += [Condition(name=f"skin:{s}", kind="skin", skin=s) for s in SKINS if s != PLAIN_SKIN]
    names = perturbs if perturbs is not None else [*(n if n not in ("locale", "labels") else f"{n}=de"
                                                    for n in PERTURBATIONS), "random"]
    for name in names:
        parse_perturb(name)  # an unknown name fails here, in one line
        out.append(Condition(name=f"{perturb_skin}+{name}", kind="perturb", skin=perturb_skin, perturb=name))
    return out


def _env(shop: Shop, condition: Condition, seed: int) -> ShopEnv:
    if condition.skin is None:
        return ShopEnv(shop)
    skin = perturbed_skin(get_skin(condition.skin), parse_perturb(condition.perturb, seed))
    inner = SkinnedSource(inprocess_episode_source(shop), skin, shop.products)
    return ShopEnv(shop, source=ParitySource(inner, start="search"))


def _success(r: EpisodeResult) -> float:
    info = r.reward_info or {}
    return float(info.get("r_success", 1.0 if r.reward >= 1.0 else 0.0) == 1.0)


def play(make: Callable[[], Any], shop: Shop, condition: Condition, goals: int, *, seed: int = 0,
         max_steps: int = 15) -> list[EpisodeResult]:
    """The agent's episodes on the first ``goals`` goals under ``condition``."""
    env = _env(shop, condition, seed)
    try:
        return [run_episode(env, make(), g, seed=seed, max_steps=max_steps) for g in range(goals)]
    finally:
        env.close()


def run_agent(spec: str, shop: Shop, conds: list[Condition], goals: int, *, seed: int = 0, max_steps: int = 15,
              real: str | Path | None = None, work: Path | None = None,
              tasks: list[TaskSpec] | None = None) -> AgentGap:
    """One agent under every condition, and on the real pages when ``real`` is given."""
    name, options = agent_spec(spec)

    def make() -> Any:
        return make_agent(name, seed, options)

    played = {c.name: play(make, shop, c, goals, seed=seed, max_steps=max_steps) for c in conds}
    base = [r.reward for r in played["sim"]]
    rows = []
    for c in conds:
        rewards = [r.reward for r in played[c.name]]
        rows.append(ConditionResult(condition=c.name, kind=c.kind, score=round(100 * sum(rewards) / len(rewards), 1),
                                    success=round(100 * sum(map(_success, played[c.name])) / len(rewards), 1),
                                    drop=Drop.of(base, rewards, paired=True, seed=seed)))
    predicted = [r.drop.points for r in rows if r.kind != "sim"]
    gap = AgentGap(agent=spec, goals=goals, rows=rows, predicted_drop=sum(predicted) / max(1, len(predicted)))
    if real is not None and work is not None:
        suite = run_suite(name, real, work / spec.replace("+", "_"), tasks=tasks, seed=seed, max_steps=max_steps,
                          sim_goals=0, agent_options=options)
        gap.real_score = suite.real_score
        gap.real = Drop.of(base, [t.reward for t in suite.tasks], paired=False, seed=seed)
    return gap


def run_gap_suite(agents: list[str], shop: Shop, *, goals: int = 5, seed: int = 0, max_steps: int = 15,
                  perturb_skin: str = "amazon", perturbs: list[str] | None = None, real: str | Path | None = None,
                  work: Path | None = None, tasks: list[TaskSpec] | None = None) -> GapReport:
    """Every agent under every condition (and on the real pages), with the rank correlation over agents."""
    if goals < 1:
        raise ConfigError("--goals must be at least 1")
    goals = min(goals, len(shop.goals))
    conds = conditions(perturb_skin, perturbs)
    rows = [run_agent(a, shop, conds, goals, seed=seed, max_steps=max_steps, real=real, work=work, tasks=tasks)
            for a in agents]
    measured = [(a.predicted_drop, a.real.points) for a in rows if a.real is not None]
    rho = spearman([m[0] for m in measured], [m[1] for m in measured])
    return GapReport(seed=seed, goals=goals, perturb_skin=perturb_skin, agents=rows,
                     spearman=None if rho is None else round(rho, 3))
