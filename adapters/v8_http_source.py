"""v8 episodes over the HTTP service as a page source: what ``shopsim eval --profile shopsim-v8 --adapter
http`` plays through.

It is :class:`~shopsim.adapters.v8_episode.V8Source` with the session on a server: the same PageState,
text observation and ``info`` (built by the same :func:`~shopsim.adapters.v8_episode.v8_info`), so an
agent sees the same episode either way. Goal indices map to task ids through ``GET /api/tasks``.
"""

from __future__ import annotations

from typing import Any, ClassVar

from shopsim.adapters.source_base import SourceBase, StepOut
from shopsim.adapters.v8_client import V8Client
from shopsim.adapters.v8_episode import v8_info
from shopsim.errors import ConfigError, ResetNeeded
from shopsim.page import PageState
from shopsim.simsite.profiles import Profile, get_profile
from shopsim.simsite.v8.openapi import V8ResetResponse, V8StepResponse
from shopsim.v8.observation_state import page_state_from_observation

__all__ = ["V8HttpSource", "v8_http_episode_source"]


class V8HttpSource(SourceBase):
    """A v8 service's sessions as a page source (one lease at a time, released on reset and close)."""

    #: The per-episode ``reset`` options this source reads (ShopEnv passes them on from ``reset(options=)``).
    episode_options: ClassVar[tuple[str, ...]] = ("task_mode", "interaction_mode", "include_private")

    #: The contract its episodes follow, for ShopEnv (which has no shop to ask): the runner's turn rules apply.
    profile: ClassVar[Profile] = get_profile("shopsim-v8")

    def __init__(self, base_url: str, *, max_actions: int | None = None, task_mode: str | None = None,
                 interaction_mode: str = "single_turn", client: V8Client | None = None):
        self.client = client or V8Client(base_url)
        self.max_actions, self.task_mode, self.interaction_mode = max_actions, task_mode, interaction_mode
        self.opened: V8ResetResponse | None = None
        self.current: V8StepResponse | None = None

    def reset(self, goal_index: int, seed: int = 0, **options: Any) -> PageState:
        """Open a session on task number ``goal_index``; ``task_mode``/``interaction_mode`` override the source's."""
        ids = self.client.tasks().task_ids
        if not 0 <= goal_index < len(ids):
            raise ConfigError(f"goal {goal_index} does not exist: the service has {len(ids)} tasks "
                              f"(0..{len(ids) - 1})")
        self.opened = self.client.reset(ids[goal_index], task_mode=options.get("task_mode", self.task_mode),
                                        interaction_mode=options.get("interaction_mode", self.interaction_mode),
                                        max_actions=self.max_actions,
                                        include_private=bool(options.get("include_private", False)))
        self.current = self.opened
        return self._page()

    def _playing(self, what: str) -> tuple[V8ResetResponse, V8StepResponse]:
        if self.opened is None or self.current is None:
            raise ResetNeeded(what)
        return self.opened, self.current

    def _page(self) -> PageState:
        opened, current = self._playing("observe")
        return page_state_from_observation(current.observation_state, opened.task_instruction)

    def _out(self, answer: V8StepResponse) -> StepOut:
        self.current = answer
        truncated = answer.termination not in (None, "purchase")
        return self._page(), float(answer.reward), answer.done, truncated

    def step(self, action: str) -> StepOut:
        """Play one action on the server; truncated when the episode ended by anything but a purchase."""
        self._playing("step")
        return self._out(self.client.step(action))

    def terminate(self, reason: str) -> StepOut:
        """End the episode for a runtime reason (``action_limit`` or ``generation_length``): the zero vector."""
        self._playing("terminate")
        return self._out(self.client.terminate(reason))  # type: ignore[arg-type]  # the server checks the reason

    def render_observation(self, state: PageState, mode: str) -> str:
        """The service's text observation (v8 has one mode, ``text``)."""
        return self._playing("observe")[1].observation

    def episode_info(self, state: PageState) -> dict[str, Any]:
        """v8's ``info`` for the page ``state``: the same dict the in-process source gives."""
        opened, current = self._playing("step")
        return v8_info(state, current.observation_state,
                       current.reward_detail.model_dump(mode="json") if current.reward_detail is not None else None,
                       instruction=opened.task_instruction, task_id=opened.task_id, task_mode=opened.task_mode,
                       user_persona=opened.user_persona, actions_used=current.actions_used,
                       max_actions=current.max_actions, interaction_mode=opened.interaction_mode,
                       shopper_reply=current.shopper_reply, dialogue=[t.model_dump() for t in current.dialogue or []],
                       private=opened.private_goal.model_dump(mode="json") if opened.private_goal is not None else None)

    @property
    def goal_index(self) -> int | None:
        """The task in play as a goal index (after ``restore`` too)."""
        return self.client.tasks().task_ids.index(self.opened.task_id) if self.opened is not None else None

    def snapshot(self) -> str:
        """The server session's state as a token."""
        self._playing("snapshot")
        return self.client.snapshot()

    def restore(self, token: str) -> PageState:
        """Continue from a token in a new session (its task, task mode, limits and page; the old one released)."""
        self.opened = self.current = self.client.reset_from(token)
        return self._page()

    def close(self) -> None:
        """Release the lease and close the client."""
        self.client.close()


def v8_http_episode_source(base_url: str, *, strict: bool = False, max_steps: int | None = None,
                           task_mode: str | None = None, interaction_mode: str = "single_turn") -> V8HttpSource:
    """The ``shopsim-v8`` profile's ``http_source``: sessions of a served v8 shop (the service counts actions)."""
    return V8HttpSource(base_url, max_actions=max_steps, task_mode=task_mode, interaction_mode=interaction_mode)
