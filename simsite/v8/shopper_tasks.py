"""The upstream paper's four scenarios, and the bundled persona tasks a shopper can help with.

A scenario is an interaction mode and a task mode: single-turn or multi-turn (``ask`` allowed,
40 actions) by standard (the full instruction) or persona (the simple request plus the public
persona). :func:`hidden_constraint_tasks` picks, deterministically by seed, the persona tasks whose
visible request leaves out a target option value: only a shopper who is asked can supply it.
"""

from __future__ import annotations

import random
from typing import NamedTuple

from shopsim.simsite.v8.records import TaskMode, V8Task
from shopsim.simsite.v8.shop import V8Shop

__all__ = ["SCENARIOS", "Scenario", "hidden_constraint_tasks", "hidden_options"]


class Scenario(NamedTuple):
    """One of the four scenarios: how the agent may interact and what it is shown."""

    interaction_mode: str
    task_mode: TaskMode


SCENARIOS: dict[str, Scenario] = {
    "single_standard": Scenario("single_turn", "standard"),
    "single_persona": Scenario("single_turn", "persona"),
    "multi_standard": Scenario("multi_turn", "standard"),
    "multi_persona": Scenario("multi_turn", "persona"),
}


def hidden_options(task: V8Task) -> list[str]:
    """Target option values the persona request (``instruction_simple``) does not state."""
    shown = task.simple_text.casefold()
    return [v for v in task.option_values if v.casefold() not in shown]


def hidden_constraint_tasks(shop: V8Shop, n: int | None = None, seed: int = 0) -> list[int]:
    """Ids of up to ``n`` persona tasks with a hidden target option, a seeded sample in catalog order."""
    ids = [t.task_id for t in shop.goals if t.task_mode == "persona" and t.user_persona is not None
           and hidden_options(t)]
    if n is not None and n < len(ids):
        chosen = set(random.Random(seed).sample(ids, n))
        ids = [i for i in ids if i in chosen]
    return ids
