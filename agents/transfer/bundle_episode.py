"""Sim-to-real transfer: run an agent on a replayed real-site bundle and score its purchase.

At ``buy now`` the translated product page becomes a catalog :class:`Product` and WebShop's reward
(:func:`score_purchase`) scores it against a goal in WebShop's goal format, so a real-page episode
reports the same metrics as the sim (reward, r_strict, r_success and the breakdown).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel

from shopsim.adapters.bundle import Bundle
from shopsim.adapters.parity_source import ParitySource
from shopsim.adapters.replay import ReplaySource, Scorer
from shopsim.agents.base import Agent
from shopsim.page import PageState
from shopsim.render import format_price, render_simple
from shopsim.simsite.models import Goal, Product
from shopsim.simsite.nouns import NounExtractor
from shopsim.simsite.reward import score_purchase
from shopsim.translators.parity import ActionModel, sim_axis, sim_option

__all__ = ["ScriptedAgent", "TransferResult", "make_scorer", "product_from_state", "run_transfer"]


def product_from_state(state: PageState, query: str | None = None) -> tuple[Product, float]:
    """The product page as a catalog Product, and the price paid (the shown variant's, or a range's low end).

    ``query`` is the search that found the product: WebShop's catalog keeps the Amazon query each
    product was scraped with, which the type reward compares with the goal's query. A page without
    a price pays ``inf`` (it can never satisfy a price limit).
    """
    p = state.product
    if p is None:
        raise ValueError(f"page {state.url} shows no product to buy")
    if isinstance(p.price, tuple):
        pricing, price = [p.price[0], p.price[1]], p.price[0]
    elif p.price is not None:
        pricing, price = [p.price], p.price
    else:
        pricing, price = [], math.inf
    product = Product(
        asin=p.id, title=p.title, description=p.description, bullet_points=list(p.bullet_points),
        pricing=pricing, price_text=p.price_text or format_price(p.price),
        options={sim_axis(axis): [sim_option(v) for v in values] for axis, values in p.options.items()},
        attributes=[], query=query or "", product_category=" › ".join(p.category_path),
        rating=p.rating_text,
    )
    return product, price


def make_scorer(goal: Goal, nouns: NounExtractor | None = None) -> Scorer:
    """A ReplaySource scorer: WebShop's reward of the bought page against ``goal``."""

    def score(state: PageState, chosen: dict[str, str], context: dict[str, Any]) -> tuple[float, dict[str, Any]]:
        product, price = product_from_state(state, context.get("query"))
        # what is bought: the page's own selection (a real page shows its variant chosen), then the clicks
        shown = state.product.selected if state.product is not None else {}
        picked = {**{a: v for a, v in shown.items() if v}, **chosen}
        options = {sim_axis(axis): sim_option(value) for axis, value in picked.items()}
        b = score_purchase(product, goal, price, options, nouns)
        info = b.model_dump()
        info.update(price_paid=None if math.isinf(price) else price, options_chosen=options,
                    product_category=product.product_category, title=product.title)
        return b.reward, info

    return score


class ScriptedAgent:
    """Plays a fixed action list (for transfer checks); ``exhausted`` once every action was played."""

    name = "scripted"

    def __init__(self, actions: list[str]):
        self.actions = list(actions)
        self.i = 0

    @property
    def exhausted(self) -> bool:
        """Whether every scripted action has been played (``act`` then returns an empty action)."""
        return self.i >= len(self.actions)

    def reset(self, seed: int | None = None) -> None:
        """Start the script again from its first action (``seed`` is ignored)."""
        self.i = 0

    def act(self, observation: str, valid_actions: dict[str, Any], info: dict[str, Any]) -> str:
        """The next scripted action, whatever the page shows; empty once the script is exhausted."""
        action = self.actions[self.i] if not self.exhausted else ""
        self.i += 1
        return action


class TransferResult(BaseModel):
    """One replayed episode on real pages, with the sim's metrics."""

    agent: str
    bundle: str
    goal_asin: str
    instruction: str
    reward: float
    r_strict: float
    r_success: float
    purchased: bool
    purchased_id: str | None = None
    steps: int
    actions: list[str]
    feedback: list[str]
    breakdown: dict[str, Any] | None = None


def run_transfer(bundle: Bundle | str | Path, goal: Goal, agent: Agent, *, max_steps: int = 15,
                 nouns: NounExtractor | None = None, action_model: ActionModel = "sim",
                 start: Literal["page", "search"] = "page", any_search: bool = False,
                 card_pages: bool = False) -> TransferResult:
    """Replay ``bundle`` with ``goal``'s instruction, let ``agent`` shop, and score what it buys.

    The agent sees the parity view (:mod:`shopsim.translators.parity`): the sim's formats and, by
    default, its action model; ``start``, ``any_search`` and ``card_pages`` as in
    :class:`ParitySource` and :class:`ReplaySource`.
    """
    replay = ReplaySource(bundle, instruction=goal.instruction_text, scorer=make_scorer(goal, nouns),
                          any_search=any_search, card_pages=card_pages)
    source = ParitySource(replay, action_model=action_model, start=start)
    agent.reset(seed=0)
    state = source.reset()
    actions: list[str] = []
    codes: list[str] = []
    reward, done, steps = 0.0, False, 0
    while not done and steps < max_steps:
        if isinstance(agent, ScriptedAgent) and agent.exhausted:
            break
        info = {"page_state": state, "valid_actions": state.valid_actions(), "feedback": state.feedback,
                "instruction": state.instruction, "reward_info": state.reward_info}
        action = agent.act(render_simple(state), state.valid_actions(), info)
        actions.append(action)
        state, reward, done, _ = source.step(action)
        codes.append(state.feedback.code)
        steps += 1
    source.close()
    scores = state.reward_info if state.page_type == "done" else None
    return TransferResult(
        agent=getattr(agent, "name", type(agent).__name__), bundle=str(replay.bundle.root), goal_asin=goal.asin,
        instruction=goal.instruction_text, reward=float(reward),
        r_strict=float(scores["r_strict"]) if scores else 0.0, r_success=float(scores["r_success"]) if scores else 0.0,
        purchased=state.page_type == "done", purchased_id=state.purchase.id if state.purchase else None,
        steps=steps, actions=actions, feedback=codes, breakdown=scores)
