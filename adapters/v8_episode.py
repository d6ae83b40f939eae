"""A v8 episode as :class:`ShopEnv` drives it: the session, its texts and the ``info`` it reports,
and :class:`V8Source`, the page source that plays it (the ``shopsim-v8`` profile's ``episode_source``).

``info`` keeps the keys every shopsim agent and runner reads (``valid_actions``, ``page_state``,
``instruction``, ``reward_info``) and adds v8's own (``observation_state``, ``termination``,
``user_persona``, ``environment_version``, ``reward_detail``, ``interaction_mode``; in multi-turn
episodes ``shopper_reply`` and ``dialogue``), so agents built on PageState still work and v8-aware
agents get the contract's facts. ``private_goal`` is there only when the reset asked for it
(``include_private``: for a shopper simulator or an evaluator, never for the agent under test).
"""

from __future__ import annotations

from typing import Any, ClassVar

from shopsim.adapters.source_base import SourceBase, StepOut
from shopsim.errors import ConfigError, ResetNeeded
from shopsim.page import PageState
from shopsim.simsite.v8.environment import ENVIRONMENT
from shopsim.simsite.v8.records import public_persona
from shopsim.simsite.v8.session import V8Session, V8Step
from shopsim.simsite.v8.shop import V8Shop
from shopsim.simsite.v8.shopper import private_goal
from shopsim.v8.observation_state import ObservationState, page_state_from_observation

__all__ = ["V8Episode", "V8Source", "v8_episode_source", "v8_info"]


class V8Episode:
    """One v8 session for a Gymnasium step loop."""

    def __init__(self, shop: V8Shop, index: int, *, task_mode: str | None = None, max_actions: int | None = None,
                 interaction_mode: str = "single_turn", include_private: bool = False):
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
        self.include_private = include_private
        #: The public persona, stripped once per episode (every step's ``info`` shows it; read it, do not change it).
        self.persona = public_persona(self.task.user_persona) if self.mode == "persona" else None

    @property
    def page_state(self) -> PageState:
        """The current v8 observation state as a PageState, for agents built on PageState."""
        return page_state_from_observation(self.session.state, self.instruction)

    def step(self, action: str) -> tuple[float, bool]:
        """Play one action in the v8 session; returns its reward and whether the episode ended."""
        self.last = self.session.step(action)
        return self.last.reward, self.last.done

    def terminate(self, reason: str) -> tuple[float, bool]:
        """End the session for a runtime reason; returns a zero reward and done."""
        self.last = self.session.terminate(reason)
        return 0.0, True

    def observation(self) -> str:
        """The current page as v8's own text observation."""
        return self.session.observation()

    def info(self, state: PageState | None = None) -> dict[str, Any]:
        """The step's ``info``; pass the ``page_state`` already built for this step to reuse it."""
        s = self.session
        return v8_info(state if state is not None else self.page_state, s.state,
                       s.detail.model_dump(mode="json") if s.detail is not None else None,
                       instruction=self.instruction, task_id=self.task.task_id, task_mode=self.mode,
                       user_persona=self.persona,
                       actions_used=s.actions, max_actions=s.max_actions, interaction_mode=s.interaction_mode,
                       shopper_reply=s.reply, dialogue=[t.model_dump() for t in s.dialogue],
                       private=private_goal(self.task).model_dump(mode="json") if self.include_private else None)


def v8_info(state: PageState, obs: ObservationState, detail: dict[str, Any] | None, *, instruction: str,
            task_id: int, task_mode: str, user_persona: dict[str, Any] | None, actions_used: int,
            max_actions: int, interaction_mode: str, shopper_reply: str | None = None,
            dialogue: list[dict[str, Any]] | None = None, private: dict[str, Any] | None = None) -> dict[str, Any]:
    """A v8 step's ``info`` from its facts, wherever the episode runs (in process, or over HTTP), so the
    two give equal ``info`` for equal episodes.
    """
    purchased = detail is not None and obs.termination == "purchase"
    extra: dict[str, Any] = {}
    if interaction_mode == "multi_turn":
        extra.update(shopper_reply=shopper_reply, dialogue=dialogue or [])
    if private is not None:
        extra["private_goal"] = private
    return {
        "valid_actions": state.valid_actions(),
        "page_state": state,
        "feedback": state.feedback,
        "instruction": instruction,
        "reward_info": {**detail, "purchased_asin": obs.purchased_asin} if purchased and detail else None,
        "reward_detail": detail,
        "observation_state": obs,
        "termination": obs.termination,
        "task_id": task_id,
        "task_mode": task_mode,
        "user_persona": user_persona,
        "environment_version": ENVIRONMENT["environment_version"],
        "actions_used": actions_used,
        "max_actions": max_actions,
        "interaction_mode": interaction_mode,
        **extra,
    }


class V8Source(SourceBase):
    """v8 episodes in this process as a page source: ShopEnv steps it like any other source and asks it
    for the contract's own text observation and ``info`` (``render_observation``, ``episode_info``).
    """

    #: The per-episode ``reset`` options this source reads (ShopEnv passes them on from ``reset(options=)``).
    episode_options: ClassVar[tuple[str, ...]] = ("task_mode", "interaction_mode", "include_private")

    def __init__(self, shop: V8Shop, *, max_actions: int | None = None, task_mode: str | None = None,
                 interaction_mode: str = "single_turn"):
        self.shop, self.max_actions = shop, max_actions
        self.task_mode, self.interaction_mode = task_mode, interaction_mode
        self.episode: V8Episode | None = None

    def reset(self, goal_index: int, seed: int = 0, **options: Any) -> PageState:
        """Start task ``goal_index``; ``task_mode``/``interaction_mode`` in ``options`` override the source's."""
        self.episode = V8Episode(self.shop, goal_index, task_mode=options.get("task_mode", self.task_mode),
                                 max_actions=self.max_actions,
                                 interaction_mode=options.get("interaction_mode", self.interaction_mode),
                                 include_private=bool(options.get("include_private", False)))
        return self.episode.page_state

    def _playing(self, method: str) -> V8Episode:
        if self.episode is None:
            raise ResetNeeded(method)
        return self.episode

    def _out(self, reward: float, done: bool) -> StepOut:
        episode = self._playing("step")
        truncated = episode.session.termination not in (None, "purchase")
        return episode.page_state, float(reward), done, truncated

    def step(self, action: str) -> StepOut:
        """Play one action; truncated when the episode ended by anything but a purchase."""
        return self._out(*self._playing("step").step(action))

    def terminate(self, reason: str) -> StepOut:
        """End the episode for a runtime reason (``action_limit`` or ``generation_length``): the zero vector."""
        return self._out(*self._playing("terminate").terminate(reason))

    def render_observation(self, state: PageState, mode: str) -> str:
        """The contract's own text observation (v8 has one mode, ``text``)."""
        return self._playing("observe").observation()

    def episode_info(self, state: PageState) -> dict[str, Any]:
        """v8's ``info`` for the page ``state`` (built this step) instead of the generic one."""
        return self._playing("step").info(state)

    @property
    def goal_index(self) -> int | None:
        """The task in play as a goal index (after ``restore`` too)."""
        return self.shop.index_of(self.episode.task.task_id) if self.episode is not None else None

    def snapshot(self) -> str:
        """The session's state as a token (with the episode's task mode)."""
        episode = self._playing("snapshot")
        return episode.session.snapshot(task_mode=episode.mode)

    def restore(self, token: str) -> PageState:
        """Continue from a token: its task, task mode, limits and page."""
        session = V8Session.from_snapshot(self.shop, token)
        episode = V8Episode(self.shop, self.shop.index_of(session.task.task_id), task_mode=session.restored_task_mode,
                            max_actions=session.max_actions, interaction_mode=session.interaction_mode)
        episode.session = session
        self.episode = episode
        return episode.page_state


def v8_episode_source(shop: V8Shop, *, strict: bool = False, max_steps: int | None = None,
                      task_mode: str | None = None, interaction_mode: str = "single_turn") -> V8Source:
    """The ``shopsim-v8`` profile's ``episode_source``: ShopEnv's in-process v8 episodes."""
    return V8Source(shop, max_actions=max_steps, task_mode=task_mode, interaction_mode=interaction_mode)
