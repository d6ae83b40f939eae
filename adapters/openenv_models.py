"""The OpenEnv wire types of a shopsim episode: an action string in; the page, reward and done out.

One module for both ends: the server (:mod:`shopsim.adapters.openenv_env`) validates what it
receives and sends with these models, and the typed client (:mod:`shopsim.adapters.openenv_client`)
parses with the same ones, so a field renamed on one side fails at the boundary, not in a trainer.
Importing it needs ``openenv-core`` (``pip install shopsim[openenv]``).
"""

from __future__ import annotations

from typing import Any

from openenv.core.env_server.types import Action, Observation, State
from pydantic import Field

from shopsim.adapters.env import MAX_ACTION_CHARS
from shopsim.simsite.v8.environment import RuntimeTermination

__all__ = ["ShopAction", "ShopObservation", "ShopState"]


class ShopAction(Action):
    """One action, as the in-process env takes it: ``search[...]`` or ``click[...]`` (v8: ``click[axis=value]``).

    ``terminate`` is shopsim-v8's runtime end instead (``ShopEnv.terminate``): the trainer's policy
    ran out of tokens (``generation_length``) or turns (``action_limit``); the episode ends with the
    zero reward vector.
    """

    action: str = Field(default="", max_length=MAX_ACTION_CHARS,
                        description="search[query] or click[value]; shopsim-v8 options are click[axis=value]")
    terminate: RuntimeTermination | None = Field(
        default=None, description="shopsim-v8: end the episode for this runtime reason instead of acting")


class ShopObservation(Observation):
    """The page after a reset or step: the observation text and what ``ShopEnv``'s ``info`` holds.

    ``reward`` and ``done`` (inherited) are the step's reward and whether the episode ended, by a
    purchase or a truncation (``truncated`` says which). ``info`` holds what the profile adds (v8:
    ``task_id``, ``observation_state``, ``reward_detail``, ``termination``, ``user_persona``...).
    ``error`` is set, and the page unchanged, when the step could not be played at all (before a
    reset, after a v8 episode ended); a refused action is not an error but ``feedback``.
    """

    text: str = Field(default="", description="the observation text in the server's observation mode")
    instruction: str = ""
    page_type: str = ""
    valid_actions: dict[str, Any] = Field(default_factory=dict, description="{has_search_bar, clickables}")
    feedback: dict[str, str] = Field(default_factory=dict, description="{code, message} for the last action")
    goal_index: int | None = None
    truncated: bool = False
    reward_info: dict[str, Any] | None = Field(default=None, description="the reward's breakdown, after a purchase")
    info: dict[str, Any] = Field(default_factory=dict, description="the profile's own info keys, as JSON")
    error: str | None = None


class ShopState(State):
    """The session's episode: its id and step count (OpenEnv's), goal, page type, reward so far, done."""

    profile: str = "webshop"
    goal_index: int | None = None
    instruction: str = ""
    page_type: str | None = None
    reward: float = 0.0
    done: bool = False
