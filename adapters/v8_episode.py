"""A v8 episode as :class:`ShopEnv` drives it: the session, its texts and the ``info`` it reports.

``info`` keeps the keys every shopsim agent and runner reads (``valid_actions``, ``page_state``,
``instruction``, ``reward_info``) and adds v8's own (``observation_state``, ``termination``,
``user_persona``, ``environment_version``, ``reward_detail``), so agents built on PageState still
work and v8-aware agents get the contract's facts.
"""

from __future__ import annotations

from typing import Any

from shopsim.errors import ConfigError
from shopsim.page import PageState
from shopsim.simsite.v8.environment import ENVIRONMENT
from shopsim.simsite.v8.records import public_persona
from shopsim.simsite.v8.session import V8Session, V8Step
from shopsim.simsite.v8.shop import V8Shop
from shopsim.v8.observation_state import page_state_from_observation

__all__ = ["V8Episode"]


class V8Episode:
    """One v8 session for a Gymnasium step loop."""

    def __init__(self, shop: V8Shop, index: int, *, task_mode: str | None = None, max_actions: int | None = None,
                 interaction_mode: str = "single_turn"):
        if interaction_mode not in ("single_turn", "multi_turn"):
            raise ConfigError(f"interaction_mode {interaction_mode!r}: use single_turn or multi_turn")
        self.task = shop.goal(index)
        self.mode = task_mode or self.task.task_mode
        if self.mode not in ("standard", "persona"):
            raise ConfigError(f"task_mode {self.mode!r}: use standard or persona")
        if self.mode == "persona" and self.task.user_persona is None:
            raise ConfigError(f"task {self.task.task_id} has no persona (on the task or its product): use task_mode standard, or persona tasks only "
                              "(`shopsim data split` lists them)")
        self.session = V8Session(shop, self.task, max_actions=max_actions,
                                 interaction_mode=interaction_mode)  # type: ignore[arg-type]
        self.instruction = self.task.instruction_for(self.mode)  # type: ignore[arg-type]
        self.last: V8Step | None = None

    @property
    def page_state(self) -> PageState:
        return page_state_from_observation(self.session.state, self.instruction)

    def step(self, action: str) -> tuple[float, bool]:
        self.last = self.session.step(action)
        return self.last.reward, self.last.done

    def terminate(self, reason: str) -> tuple[float, bool]:
        self.last = self.session.terminate(reason)
        return 0.0, True

    def observation(self) -> str:
        return self.session.observation()

    def info(self, state: PageState | None = None) -> dict[str, Any]:
        """The step's ``info``; pass the ``page_state`` already built for this step to reuse it."""
        s = self.session
        detail = s.detail.model_dump(mode="json") if s.detail is not None else None
        state = state if state is not None else self.page_state
        return {
            "valid_actions": state.valid_actions(),
            "page_state": state,
            "feedback": state.feedback,
            "instruction": self.instruction,
            "reward_info": {**detail, "purchased_asin": s.state.purchased_asin} if detail and s.termination == "purchase" else None,
            "reward_detail": detail,
            "observation_state": s.state,
            "termination": s.termination,
            "task_id": self.task.task_id,
            "task_mode": self.mode,
            "user_persona": public_persona(self.task.user_persona) if self.mode == "persona" else None,
            "environment_version": ENVIRONMENT["environment_version"],
            "actions_used": s.actions,
            "max_actions": s.max_actions,
        }
