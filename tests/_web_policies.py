"""Seeded policies shared by the web tests: they act on PageState only, so equal pages give equal actions."""

from __future__ import annotations

import random
from typing import Any

from shopsim.adapters.env import ShopEnv
from shopsim.agents.episode import Step
from shopsim.agents.episode import run_episode as play
from shopsim.page import PageState
from shopsim.render import render_rich, render_simple

MAX_STEPS = 40


def search_words(instruction: str, n: int = 5) -> str:
    """A query from the first words of the instruction (what a simple agent types)."""
    filler = {"i", "am", "looking", "for", "a", "an", "need", "want", "find", "me", "show", "some", "the", "get", "please"}
    words = [w.strip(",.") for w in instruction.lower().split() if w.strip(",.") and w.strip(",.") not in filler]
    return " ".join(words[:n]) or "shoes"


class RulePolicy:
    """Search, open a product, choose an option per axis, read a sub-page, go back, buy."""

    def __init__(self, seed: int):
        self.rng = random.Random(seed)
        self.plan: list[str] = []

    def act(self, s: PageState) -> str:
        if s.has_search_bar:
            return f"search[{search_words(s.instruction or '', 3 + self.rng.randrange(4))}]"
        if s.page_type == "results":
            if s.page_num == 1 and self.rng.random() < 0.3:
                return "click[next >]"
            if (s.page_num or 1) > 1 and self.rng.random() < 0.5:
                return "click[< prev]"
            products = [c.arg for c in s.clickables if c.kind == "product"]
            return f"click[{self.rng.choice(products)}]" if products else "click[back to search]"
        if s.page_type == "item":
            if not self.plan:
                opts = [c.arg for c in s.clickables if c.kind == "option"]
                subs = [c.arg for c in s.clickables if c.kind == "sub_page"]
                self.plan = [self.rng.choice(opts) for _ in range(min(2, len(opts)))]
                self.plan += [self.rng.choice(subs), "buy now"]
            return f"click[{self.plan.pop(0)}]"
        if s.page_type == "item_detail":
            return "click[< prev]"
        return "click[back to search]"


class RandomPolicy:
    """Uniform over valid actions (search when there is a bar); buys after ``horizon`` steps."""

    def __init__(self, seed: int, horizon: int = 10):
        self.rng, self.horizon, self.t = random.Random(seed), horizon, 0

    def act(self, s: PageState) -> str:
        self.t += 1
        va = s.valid_actions()
        if va["has_search_bar"]:
            return f"search[{search_words(s.instruction or '', 2 + self.rng.randrange(5))}]"
        if self.t <= self.horizon:
            return f"click[{self.rng.choice(va['clickables'])}]"
        # Past the horizon, head for a purchase: item -> buy, detail -> back, results -> first product.
        if "buy now" in va["clickables"]:
            return "click[buy now]"
        if s.page_type == "item_detail":
            return "click[< prev]"
        products = [c.arg for c in s.clickables if c.kind == "product"]
        return f"click[{products[0]}]" if products else "click[back to search]"


def policy_for(goal: int, kind: str) -> RulePolicy | RandomPolicy:
    """The seeded policy of an equivalence episode: ``rule`` or ``random``."""
    return RulePolicy(goal) if kind == "rule" else RandomPolicy(goal)


class PageAgent:
    """A page policy as an :class:`~shopsim.agents.base.Agent`: it acts on the ``page_state`` in ``info``."""

    name = "page-policy"

    def __init__(self, policy: RulePolicy | RandomPolicy):
        self.policy = policy

    def reset(self, seed: int | None = None) -> None:
        """Nothing to forget: each episode gets a fresh policy, seeded by its goal."""

    def act(self, observation: str, valid_actions: dict[str, Any], info: dict[str, Any]) -> str:
        return self.policy.act(info["page_state"])


def run_episode(source: Any, goal: int, kind: str) -> list[tuple]:
    """One seeded episode as compared across page sources: each step's action, both renderings,
    valid actions, reward and end flags (played by the one episode loop, recorded by its step hook)."""
    trace: list[tuple] = []

    def record(step: Step) -> None:
        if step.index == 0:
            first = step.info["page_state"]
            trace.append((None, render_simple(first), render_rich(first), first.valid_actions(), 0.0, False))
        state = step.next_info["page_state"]
        trace.append((step.action, render_simple(state), render_rich(state), state.valid_actions(), step.reward,
                      step.terminated or step.truncated, step.truncated))

    play(ShopEnv(None, source=source), PageAgent(policy_for(goal, kind)), goal, max_steps=MAX_STEPS, on_step=record)
    return trace
