"""Environments: a Gymnasium ``ShopEnv``; WebShop's ``WebAgentTextEnv`` is in its shim.

``ShopEnv`` is the modern face (5-tuple ``step``, ``reset(seed=, options=)``); the shim
(:mod:`shopsim.adapters.webshop_env`) keeps existing WebShop agent code working unchanged (4-tuple
``step``, ``reset(session=)``, ``get_available_actions()``, ``env.server``). Both render
observations from PageState as :func:`observation` does.
"""

from __future__ import annotations

import random
from typing import Any, ClassVar, Protocol

import gymnasium as gym
import numpy as np

from shopsim.adapters.browser_obs import BROWSER_MODES, DEFAULT_VIEWPORT, BrowserMode, BrowserObservation
from shopsim.adapters.screenshots import decode_png
from shopsim.adapters.spaces import UnicodeText
from shopsim.errors import ConfigError, ResetNeeded, SessionError, SourceError
from shopsim.page import PageState
from shopsim.render import ObservationMode
from shopsim.render import observation as text_observation
from shopsim.simsite.html import render_html
from shopsim.simsite.perturb import PerturbSpec, parse_perturb, perturbed_skin
from shopsim.simsite.profiles import Profile, ShopLike, get_profile, open_shop
from shopsim.simsite.shop import ShopConfig
from shopsim.simsite.skins import PLAIN_SKIN, get_skin, session_skin
from shopsim.simsite.snapshots import SnapshotError, peek

__all__ = ["PageSource", "ShopEnv", "observation"]

#: Longest observation (characters) the spaces admit: sim pages are a few KB, real pages' rich text
#: and HTML can be long; shared-memory vector envs reserve this much per env.
MAX_OBSERVATION_CHARS = {"text": 100_000, "text_rich": 100_000, "url": 10_000, "html": 2_000_000,
                         "axtree": 1_000_000, "dom": 2_000_000}
#: Longest action: ``search[...]`` with a query at the limit, or a click.
MAX_ACTION_CHARS = 2_048


def observation(state: PageState, mode: ObservationMode = "text") -> str:
    """The observation string for a mode: ``html`` is the sim's own page, the rest are rendered text.

    Example:
        >>> observation(state, "text_rich")                                # doctest: +SKIP
    """
    if mode == "html":
        return render_html(state)
    return text_observation(state, mode)


class PageSource(Protocol):
    """Where pages come from: the in-process sim, a server over HTTP, a browser, a replay."""

    def reset(self, goal_index: int, seed: int) -> PageState:
        """Start an episode on goal ``goal_index`` and return the first page."""
        ...

    def step(self, action: str) -> tuple[PageState, float, bool, bool]:
        """Apply an action: ``(state, reward, done, truncated)``."""
        ...

    def close(self) -> None:
        """Release what the source holds (browser, connections)."""
        ...


class ShopEnv(gym.Env[Any, str]):
    """A Gymnasium env over a shop; ``info`` holds valid actions, the PageState and rewards.

    With a browser source (one with ``observe(mode)``, e.g. ``BrowserSource``), ``observation_mode``
    may also be ``screenshot`` or ``som`` (an ``(H, W, 3)`` uint8 RGB array of the source's viewport;
    ``info["screenshot_png"]`` holds the PNG) or ``axtree`` or ``dom`` (text); ``info["element_actions"]``
    then maps the element ids they show to actions (:func:`shopsim.adapters.browser_obs.action_for_id`).
    ``skin`` draws the ``html`` observation like a real site (:mod:`shopsim.simsite.skins`; ``random``: one
    per episode, from the reset seed and the goal); ``perturb`` (``"sponsored,locale=de"``, ``"random"`` or a
    PerturbSpec) varies it as real pages vary (:mod:`shopsim.simsite.perturb`), seeded by the reset seed.

    Example:
        >>> env = ShopEnv(Shop.load())                                     # doctest: +SKIP
        >>> obs, info = env.reset(seed=0, options={"goal": 3})             # doctest: +SKIP
        >>> obs, reward, terminated, truncated, info = env.step("search[red shoes]")  # doctest: +SKIP
    """

    # ``ansi`` renders on demand; a frame rate is declared because Gymnasium's checker asks for one.
    # (Gymnasium annotates ``metadata`` without ClassVar, so mypy takes it for an instance variable.)
    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi"], "render_fps": 1}  # type: ignore[misc]

    def __init__(
        self,
        shop: ShopLike | None = None,
        *,
        config: ShopConfig | None = None,
        observation_mode: ObservationMode | BrowserMode = "text",
        strict: bool = False,
        max_steps: int | None = None,
        source: PageSource | None = None,
        render_mode: str | None = None,
        task_mode: str | None = None,
        interaction_mode: str = "single_turn",
        skin: str = "webshop",
        perturb: str | PerturbSpec | None = None,
    ):
        if observation_mode not in ("text", "text_rich", "url", "html", *BROWSER_MODES):
            raise ConfigError(f"observation_mode {observation_mode!r}: use text, text_rich, url or html, or with a "
                              f"browser source {', '.join(BROWSER_MODES)}")
        if observation_mode in BROWSER_MODES and not callable(getattr(source, "observe", None)):
            raise ConfigError(f"observation_mode {observation_mode!r} needs a browser page source: "
                              f"ShopEnv(source=BrowserSource(base_url), observation_mode={observation_mode!r})")
        spec = perturb if isinstance(perturb, PerturbSpec) else parse_perturb(perturb)
        if (skin != PLAIN_SKIN or spec.active) and observation_mode != "html":
            what = f"skin={skin!r}" if skin != PLAIN_SKIN else f"perturb={spec.label()!r}"
            raise ConfigError(f"{what} draws the html observation; a browser source shows the skin its server "
                              "was started with (serve_shop(shop, skin=..., perturb=...) or `shopsim serve --skin`)")
        if skin != "random":
            get_skin(skin)  # an unknown name fails here, with the likely one
        #: The look of html observations (``random``: one per episode, drawn from the reset seed and the goal).
        self.skin, self._page_skin = skin, get_skin("webshop")
        #: Page variations of html observations (:mod:`shopsim.simsite.perturb`; seeded by the reset seed).
        self.perturb = spec
        # A page source that owns its goals (a replayed bundle) needs no shop.
        self.shop: ShopLike | None = shop if shop is not None or source is not None else open_shop(config or ShopConfig())
        self.observation_mode: ObservationMode | BrowserMode = observation_mode
        self.strict, self.max_steps = strict, max_steps
        self.render_mode = render_mode
        self.observation_space: gym.Space[Any]
        if observation_mode in ("screenshot", "som"):
            width, height = getattr(source, "viewport", DEFAULT_VIEWPORT)
            self.observation_space = gym.spaces.Box(0, 255, (height, width, 3), np.uint8)
        else:
            self.observation_space = UnicodeText(MAX_OBSERVATION_CHARS[observation_mode])
        self._browser_obs: BrowserObservation | None = None
        self.action_space = UnicodeText(MAX_ACTION_CHARS)
        self.state: PageState | None = None
        self.goal_index: int | None = None
        self._episode = 0
        # A replayed bundle brings its own goals and no shop: its pages follow WebShop's contract.
        # A source serving a contract's episodes from elsewhere (the v8 service over HTTP) names its profile.
        self.profile: Profile = (getattr(self.shop, "profile", None) or getattr(source, "profile", None)
                                 or get_profile(None))
        self.task_mode, self.interaction_mode = task_mode, interaction_mode
        if (source is not None and not self.profile.page_sources) or observation_mode not in self.profile.observation_modes:
            raise ConfigError(f"a {self.profile.name} ShopEnv runs in-process with observation_mode="
                              + " or ".join(repr(m) for m in self.profile.observation_modes))
        #: Where pages come from: the one given, else the profile's own in-process episodes.
        self.source: PageSource = source if source is not None else self.profile.part("episode_source")(
            self.shop, strict=strict, max_steps=max_steps, task_mode=task_mode, interaction_mode=interaction_mode)

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
        """Start an episode: ``options={"goal": n}`` picks goal n, else a seeded weighted draw."""
        super().reset(seed=seed)
        options = dict(options or {})
        if options.get("task_id") is not None and self.shop is not None and hasattr(self.shop, "index_of"):  # v8 tasks by task_id
            options["goal"] = self.shop.index_of(int(options["task_id"]))
        if "goal" in options and options["goal"] is not None:
            index = int(options["goal"])
            if self.shop is not None:
                self.shop.goal(index)  # raises ConfigError when out of range
        elif self.shop is None:
            raise ConfigError("this env has no shop to draw goals from: pass options={'goal': n}")
        else:
            index = self.shop.draw_goal_index(random.Random(int(self.np_random.integers(2**63))))
        self.goal_index = index
        page_seed = seed if seed is not None else 0
        spec = self.perturb.model_copy(update={"seed": page_seed}) if self.perturb.active else self.perturb
        self._page_skin = perturbed_skin(session_skin(self.skin, page_seed, str(index)), spec)
        self._episode += 1
        # the per-episode options this source reads (session_id, task_mode, ...), as given
        passed = {k: options[k] for k in getattr(self.source, "episode_options", ()) if k in options}
        self.state = self.source.reset(index, seed if seed is not None else 0, **passed)
        return self._obs(), self._info(None)

    def step(self, action: str) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """Apply ``search[...]`` or ``click[...]``; an invalid action changes nothing but ``feedback``."""
        if self.state is None:
            raise ResetNeeded("step")
        return self._out(*self.source.step(action))

    def _out(self, state: PageState, reward: float, done: bool, truncated: bool) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        self.state = state
        obs = self._obs()  # first: a browser observation's state goes into info
        reward_info = getattr(self.source, "reward_info", None)
        info = self._info(reward_info(state) if callable(reward_info) else state.reward_info)
        return obs, float(reward), done and not truncated, truncated, info

    def snapshot(self) -> str:
        """The episode's state as an opaque token; ``restore`` it (here or in another env on the same shop)
        as many times as you like to branch one state into several rollouts.
        """
        take = self._snapshot_source("snapshot")
        if self.state is None:
            raise ResetNeeded("snapshot")
        return take()

    def restore(self, token: str) -> tuple[Any, dict[str, Any]]:
        """Continue from a snapshot's state: ``(observation, info)`` as ``reset`` gives; later steps give the
        same observations and rewards as the episode the snapshot was taken from.
        """
        self.state = self._snapshot_source("restore")(token)
        if hasattr(self.source, "goal_index"):
            self.goal_index = self.source.goal_index
        else:
            self.goal_index = getattr(peek(token), "goal_index", None)  # the source's shop checked the token
        return self._obs(), self._info(self.state.reward_info)

    def _snapshot_source(self, name: str) -> Any:
        method = getattr(self.source, name, None)
        if not callable(method) or not getattr(self.source, "snapshots", True):
            raise SnapshotError(f"a {type(self.source).__name__} cannot {name}: snapshots need the session's state, which "
                                "only the in-process sim and HttpSource(api='json') expose; a browser or replay source "
                                "sees pages only")
        return method

    def terminate(self, reason: str) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """End an episode for a runtime reason (shopsim-v8's ``generation_length`` or ``action_limit``): the zero vector."""
        end = getattr(self.source, "terminate", None)
        if not callable(end):
            raise SessionError("terminate() is for shopsim-v8 episodes: this env's pages have no runtime end")
        if self.state is None:
            raise ResetNeeded("terminate")
        return self._out(*end(reason))

    def _obs(self) -> Any:
        assert self.state is not None
        own = getattr(self.source, "render_observation", None)
        if callable(own):  # a contract with its own observation text (shopsim-v8)
            return own(self.state, self.observation_mode)
        if self.observation_mode == "html":
            return self._page_skin.render(self.state, None)
        if self.observation_mode not in BROWSER_MODES:
            return observation(self.state, self.observation_mode)  # type: ignore[arg-type]
        # __init__ checked that a browser mode's source has observe(mode); PageSource does not declare it.
        got = self._browser_obs = self.source.observe(self.observation_mode)  # type: ignore[attr-defined]
        if got.text is not None:
            return got.text
        assert got.png is not None
        pixels = decode_png(got.png)
        want = tuple(self.observation_space.shape or ())
        if pixels.shape != want:
            raise SourceError(f"screenshot is {pixels.shape[1]}x{pixels.shape[0]}, the observation space "
                              f"{want[1]}x{want[0]}: keep the page's viewport at the source's viewport")
        return pixels

    def _info(self, reward_info: dict[str, Any] | None) -> dict[str, Any]:
        assert self.state is not None
        own = getattr(self.source, "episode_info", None)
        if callable(own):  # a contract with its own info (shopsim-v8)
            return {**own(self.state), "goal_index": self.goal_index}
        got = self._browser_obs if self.observation_mode in BROWSER_MODES else None
        state = got.state if got is not None and got.state is not None else self.state
        info = {
            "valid_actions": state.valid_actions(),
            "page_state": state,
            "feedback": state.feedback,
            "goal_index": self.goal_index,
            "instruction": state.instruction,
            "reward_info": reward_info,
        }
        if got is not None:
            # the state as observed: a browser source's per-episode session id reads as fixed_<goal>
            info["element_actions"] = dict(got.element_actions)
            if got.png is not None:
                info["screenshot_png"] = got.png
        return info

    def render(self) -> str | None:
        """``ansi``: the rich text of the current page (the v8 text for a shopsim-v8 episode)."""
        if self.state is None:
            return None
        own = getattr(self.source, "render_observation", None)
        return own(self.state, "text") if callable(own) else observation(self.state, "text_rich")

    def close(self) -> None:
        """Close the page source."""
        self.source.close()
