"""WebShop's ``web_agent_site.envs.web_agent_site_env``: ``WebAgentSiteEnv``, the shop in a real browser.

WebShop drives Chrome through Selenium against its Flask app on ``localhost:3000``; here shopsim's
:class:`~shopsim.adapters.browser_source.BrowserSource` drives headless Chromium (Playwright) against
shopsim's web app, started on 127.0.0.1 for the environment (or a running ``shopsim serve`` given as
``base_url=``). Observations: ``html`` (the browser's DOM), ``text``/``text_rich``/``url`` as the text env.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from shopsim.adapters.browser_source import BrowserSource
from shopsim.adapters.legacy_gym import legacy_gym, legacy_text_space
from shopsim.adapters.webshop_env import MAX_ACTION_CHARS, MAX_OBSERVATION_CHARS, fixed_goal, load_shop
from shopsim.errors import ConfigError, ResetNeeded
from shopsim.page import PageState
from shopsim.render import observation as text_observation
from shopsim.simsite.server import ServerThread, serve_shop
from web_agent_site import utils
from web_agent_site.envs.web_agent_text_env import default_file

__all__ = ["WebAgentSiteEnv"]

_GYM = legacy_gym()
_BASES: tuple[type, ...] = (object,) if _GYM is None else (_GYM.Env,)
_MODES = ("html", "text", "text_rich", "url")


class WebAgentSiteEnv(*_BASES):  # type: ignore[misc]
    """WebShop's site env: ``step(action) -> (obs, reward, done, info)``, ``reset(session, instruction_text)``,
    ``get_available_actions()``, ``get_instruction_text()``, ``observation``, ``state``, ``close()``.

    ``render=True`` shows the browser window (headed Chromium); ``session`` (``fixed_<n>`` or n) picks goal
    n, else each reset draws a goal with ``seed``. Keywords for the shop are the text env's;
    ``executable_path`` picks the Chromium to drive.
    """

    def __init__(self, observation_mode: str = "html", render: bool = False,
                 file_path: str | Path | None = utils.DEFAULT_FILE_PATH, base_url: str | None = None, **kwargs: Any):
        if observation_mode not in _MODES:
            raise ConfigError(f"observation_mode {observation_mode!r}: use html, text, text_rich or url")
        self.observation_mode, self.kwargs = observation_mode, kwargs
        self._server: ServerThread | None = None
        self.shop: Any = None
        self.source: BrowserSource | None = None
        self._rng = random.Random(int(kwargs.get("seed", 0)))
        self._session_goals: dict[str, int] = {}
        self.session = kwargs.get("session")
        self._state: PageState | None = None
        self.instruction_text = ""
        if _GYM is not None:
            self.observation_space = legacy_text_space(_GYM, MAX_OBSERVATION_CHARS)
            self.action_space = legacy_text_space(_GYM, MAX_ACTION_CHARS, min_length=1, actions=True)
        try:  # whatever fails from here on, the server this env started stops again
            if base_url is None:
                self.shop = load_shop(default_file(file_path), kwargs)
                self._server = serve_shop(self.shop).__enter__()
                base_url = self._server.base_url
            self.base_url = base_url
            self.source = BrowserSource(base_url, mode="click", headless=not render,
                                        executable_path=kwargs.get("executable_path"))
            self.reset()
        except BaseException:
            self.close()
            raise

    def _goal_index(self, session: int | str | None) -> int:
        """Goal n for ``n`` or ``fixed_<n>``; another session id keeps the goal first drawn for it (as
        WebShop's server keeps a session's goal), and no id draws a new goal."""
        text = str(session or "")
        goal = fixed_goal(session if isinstance(session, int) else text)
        if goal is not None:
            return goal
        if self.shop is None:
            raise ConfigError("with base_url= the goal comes from the session: pass session='fixed_<n>' "
                              "(or reset(session=n)) for the server's goal n")
        if not text:
            return self.shop.draw_goal_index(self._rng)
        return self._session_goals.setdefault(text, self.shop.draw_goal_index(self._rng))

    def reset(self, session: int | str | None = None, instruction_text: str | None = None, seed: int | None = None,
              return_info: bool = False, options: dict[str, Any] | None = None) -> Any:
        """Open a new session (in the browser page, cleared of the last one) on goal ``session`` or a drawn goal."""
        if seed is not None:
            self._rng = random.Random(seed)
        assert self.source is not None
        self._state = self.source.reset(self._goal_index(session if session is not None else self.session))
        self.instruction_text = instruction_text if instruction_text is not None else (self._state.instruction or "")
        return (self.observation, {}) if return_info else (self.observation, None)

    def step(self, action: str) -> tuple[str, float, bool, None]:
        """``search[...]`` or ``click[...]`` in the browser; an action the page does not offer does nothing."""
        assert self.source is not None
        state, reward, done, _ = self.source.step(action)
        self._state = state
        return self.observation, reward, done, None

    def _page(self) -> PageState:
        if self._state is None:
            raise ResetNeeded("step")
        return self._state

    def get_available_actions(self) -> dict[str, Any]:
        """``{has_search_bar, clickables}`` of the page in the browser (lower-cased texts, as the text env's;
        WebShop's site env keeps the elements' own case)."""
        state = self._page()
        return {"has_search_bar": state.has_search_bar, "clickables": [c.arg for c in state.clickables]}

    def get_instruction_text(self) -> str:
        """The page's instruction (WebShop reads ``#instruction-text h4``)."""
        return self._page().instruction or ""

    @property
    def state(self) -> dict[str, Any]:
        """``{url, html, instruction_text}`` of the page in the browser."""
        assert self.source is not None
        page = self.source.page
        return {"url": page.url, "html": page.content(), "instruction_text": self.instruction_text}

    @property
    def observation(self) -> str:
        """The current page in ``observation_mode``."""
        assert self.source is not None
        if self.observation_mode == "html":
            return self.source.page.content()
        if self.observation_mode == "url":
            return self.source.page.url
        return text_observation(self._page(), self.observation_mode)  # type: ignore[arg-type]

    def render(self, mode: str = "human") -> None:
        """The window is Chromium's own (``render=True``)."""

    def close(self) -> None:
        """Close the browser context and stop the server this env started."""
        if self.source is not None:
            self.source.close()
        if self._server is not None:
            self._server.__exit__(None, None, None)
            self._server = None
