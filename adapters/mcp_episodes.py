"""The episodes an MCP server plays: one per MCP session, each an in-process :class:`ShopEnv`.

Kept free of the ``mcp`` SDK so the rules (which tool may run when, what counts as a bad action,
which session may touch which episode) are plain Python; :mod:`shopsim.adapters.mcp_server` only
maps them onto MCP tools. Every refusal is a :class:`ShopsimError` with a one-line message, which
the server returns as a tool error.

WebShop's rules: an action the page does not offer is refused and changes nothing. shopsim-v8's
(the tool protocol of seeds 003/004): a well-formed ``search``/``click``/``ask`` goes to the
environment even off the page's enum, counts as a step, and the page says why it was refused; the
server reports that refusal as a tool error too, saying that the step counted.
"""

from __future__ import annotations

import secrets
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, Literal

from pydantic import BaseModel

from shopsim.adapters.env import ShopEnv
from shopsim.errors import ActionError, ConfigError, SessionError
from shopsim.simsite.profiles import PROFILES, ShopLike, get_profile
from shopsim.v8.tool_calls import canonical_action, tool_schemas

__all__ = ["MAX_EPISODES", "EpisodeStore", "EpisodeView", "McpEpisode"]

#: Episodes kept at once; the least recently used one is dropped beyond this (a client that
#: opens sessions and never closes them must not grow the server without bound).
MAX_EPISODES = 1024
ProfileName = Literal["webshop", "shopsim-v8"]


class EpisodeView(BaseModel):
    """What every tool answers with: the page as the agent sees it and where the episode stands."""

    episode_id: str
    profile: str
    goal_index: int | None
    task_id: int | None = None
    instruction: str | None
    observation: str
    valid_actions: dict[str, Any]
    reward: float
    done: bool
    steps: int
    feedback: str = ""
    #: shopsim-v8 only: the page's tools as OpenAI-style function schemas (``click`` enumerates the page).
    tools: list[dict[str, Any]] | None = None


class McpEpisode:
    """One episode: its env, the last step's observation and info, and who may play it."""

    def __init__(self, env: ShopEnv, profile: str, episode_id: str, owner: str | None):
        self.env, self.profile, self.episode_id, self.owner = env, profile, episode_id, owner
        self.observation: str = ""
        self.info: dict[str, Any] = {}
        self.reward, self.done, self.steps = 0.0, False, 0
        self.lock = threading.Lock()

    @property
    def v8(self) -> bool:
        """Whether this episode follows shopsim-v8's tool protocol."""
        return get_profile(self.profile).episode_rules

    def view(self) -> EpisodeView:
        """The episode as the tools report it."""
        info, valid = self.info, self.info.get("valid_actions") or {}
        feedback = info.get("feedback")
        tools = None
        if self.v8 and not self.done:
            tools = tool_schemas(bool(valid.get("has_search_bar")), list(valid.get("clickables") or []),
                                 ask=info.get("interaction_mode") == "multi_turn")
        return EpisodeView(episode_id=self.episode_id, profile=self.profile, goal_index=self.env.goal_index,
                           task_id=info.get("task_id"), instruction=info.get("instruction"),
                           observation=self.observation, valid_actions=dict(valid), reward=self.reward,
                           done=self.done, steps=self.steps,
                           feedback=getattr(feedback, "message", "") or "", tools=tools)

    def act(self, tool: str, argument: str) -> EpisodeView:
        """Play ``tool[argument]``; an ActionError (one line) when it was refused."""
        if self.done:
            raise SessionError(f"episode {self.episode_id} is over (reward {self.reward:g}): call start_episode "
                               "to play another")
        action = canonical_action(tool, {_ARGUMENT[tool]: argument})
        valid = self.info.get("valid_actions") or {}
        if not self.v8:
            _check_webshop(tool, argument, valid)
        with self.lock:
            self.observation, reward, terminated, truncated, self.info = self.env.step(action)
            self.reward, self.done = float(reward), bool(terminated or truncated)
            self.steps += 1
        feedback = self.info.get("feedback")
        code = getattr(feedback, "code", "ok")
        if code != "ok":
            counted = " (the step counted, as shopsim-v8's runtime counts it)" if self.v8 else ""
            raise ActionError(f"{tool} {_quoted(argument)} refused: {getattr(feedback, 'message', '') or code}{counted}")
        return self.view()


_ARGUMENT = {"search": "query", "click": "value", "ask": "question"}


def _quoted(text: str, limit: int = 80) -> str:
    """``text`` quoted for an error line, cut at ``limit`` characters: a client's 100 kB argument is not echoed."""
    return repr(text[:limit]) + ("..." if len(text) > limit else "")


def _check_webshop(tool: str, argument: str, valid: dict[str, Any]) -> None:
    """WebShop's rule: only what the page offers (checked here so a refused action changes nothing)."""
    if tool == "ask":
        raise ActionError("ask is a shopsim-v8 multi_turn tool; this is a webshop episode: use search or click")
    if tool == "search":
        if not valid.get("has_search_bar"):
            raise ActionError("search is not available on this page: click 'back to search' first")
        if not argument.strip():
            raise ActionError("search needs a non-empty query")
        return
    clicks = list(valid.get("clickables") or [])
    if argument.lower() not in (c.lower() for c in clicks):
        shown = ", ".join(repr(c) for c in clicks[:20]) + (" ..." if len(clicks) > 20 else "")
        raise ActionError(f"click {_quoted(argument)} is not on this page; clickable: {shown or 'nothing'}")


class EpisodeStore:
    """Episodes by id, each owned by the MCP session that started it; one current episode per session.

    ``owner`` is the session's key (None where the transport has no session: then the caller must
    name the episode by id). Shops are loaded once per profile and shared: an env holds its own session.
    """

    def __init__(self, shop_for: Callable[[str], ShopLike], *, default_profile: str = "webshop",
                 max_steps: int | None = None, max_episodes: int = MAX_EPISODES):
        if default_profile not in PROFILES:
            raise ConfigError(f"unknown profile {default_profile!r}: use one of {', '.join(PROFILES)}")
        self._shop_for, self.default_profile, self.max_steps = shop_for, default_profile, max_steps
        self._shops: dict[str, ShopLike] = {}
        self._episodes: OrderedDict[str, McpEpisode] = OrderedDict()
        self._current: dict[str, str] = {}
        self._lock = threading.Lock()
        self.max_episodes = max_episodes

    def shop(self, profile: str) -> ShopLike:
        """The shop of ``profile``, loaded on first use."""
        with self._lock:
            if profile not in self._shops:
                self._shops[profile] = self._shop_for(profile)
            return self._shops[profile]

    def start(self, owner: str | None, *, profile: str | None = None, goal: int | None = None,
              task_id: int | None = None, seed: int = 0, interaction_mode: str = "single_turn") -> McpEpisode:
        """A new episode for ``owner`` (replacing its current one): goal index or v8 task id."""
        profile = profile or self.default_profile
        if profile not in PROFILES:
            raise ConfigError(f"unknown profile {profile!r}: use webshop or shopsim-v8")
        if task_id is not None and get_profile(profile).goal_kind != "task":
            raise ConfigError("task_id names a shopsim-v8 task: pass profile='shopsim-v8', or goal for webshop")
        if goal is not None and task_id is not None:
            raise ConfigError("pass goal or task_id, not both")
        if seed < 0:  # the env's own refusal is not a ShopsimError: the SDK would hide its message
            raise ConfigError(f"seed must be a non-negative integer (got {seed})")
        if interaction_mode != "single_turn" and get_profile(profile).goal_kind != "task":
            raise ConfigError(f"interaction_mode {interaction_mode!r} is a shopsim-v8 mode; webshop is single-turn")
        shop = self.shop(profile)
        if task_id is not None:
            try:
                goal = shop.index_of(int(task_id))  # type: ignore[attr-defined]  # a V8Shop: profile checked above
            except (KeyError, ValueError):
                raise ConfigError(f"unknown shopsim-v8 task_id {task_id}") from None
        env = ShopEnv(shop, max_steps=self.max_steps, interaction_mode=interaction_mode)
        episode = McpEpisode(env, profile, secrets.token_urlsafe(12), owner)
        options = {"goal": goal} if goal is not None else {}
        episode.observation, episode.info = env.reset(seed=seed, options=options)
        with self._lock:
            self._episodes[episode.episode_id] = episode
            if owner is not None:
                old = self._current.get(owner)
                if old is not None:
                    self._episodes.pop(old, None)
                self._current[owner] = episode.episode_id
            while len(self._episodes) > self.max_episodes:
                self._forget(next(iter(self._episodes)))
        return episode

    def _forget(self, episode_id: str) -> None:
        gone = self._episodes.pop(episode_id, None)
        if gone is not None and gone.owner is not None and self._current.get(gone.owner) == episode_id:
            del self._current[gone.owner]

    def get(self, owner: str | None, episode_id: str | None = None) -> McpEpisode:
        """The episode a tool call means: the one named (if this session may play it), else the session's."""
        with self._lock:
            if episode_id is None:
                if owner is None:
                    raise SessionError("this connection has no MCP session (stateless HTTP): pass the episode_id "
                                       "that start_episode returned")
                episode_id = self._current.get(owner)
                if episode_id is None:
                    raise SessionError("no episode in this MCP session: call start_episode first")
            episode = self._episodes.get(episode_id)
            if episode is None or (episode.owner is not None and episode.owner != owner):
                raise SessionError(f"unknown episode_id {_quoted(episode_id)}: call start_episode (episodes belong to the "
                                   "session that started them)")
            self._episodes.move_to_end(episode_id)
            return episode
