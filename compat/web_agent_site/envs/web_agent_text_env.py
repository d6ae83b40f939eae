"""WebShop's ``web_agent_site.envs.web_agent_text_env``: ``WebAgentTextEnv``, ``SimServer``, ``SimBrowser``.

``WebAgentTextEnv`` is shopsim's in-process shim (:class:`shopsim.adapters.webshop_env.WebAgentTextEnv`)
with WebShop's defaults: ``file_path`` defaults to ``utils.DEFAULT_FILE_PATH`` (from ``$SHOPSIM_DATA``),
it is a legacy ``gym.Env`` with gym spaces when gym 0.21–0.26 is installed, and it has ``env.browser``.
``SimServer`` takes WebShop's constructor arguments; ``SimBrowser`` is the page-holding view WebShop's
clients read (``current_url``, ``page_source``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from shopsim.adapters.legacy_gym import legacy_gym, legacy_text_space
from shopsim.adapters.webshop_env import MAX_ACTION_CHARS, MAX_OBSERVATION_CHARS, load_shop
from shopsim.adapters.webshop_env import WebAgentTextEnv as _ShimEnv
from shopsim.adapters.webshop_server import WebShopServer
from shopsim.routes import DEFAULT_BASE_URL
from web_agent_site import utils
from web_agent_site.utils import default_file

__all__ = ["SimBrowser", "SimServer", "WebAgentTextEnv", "default_file", "tag_visible"]

_GYM = legacy_gym()
_BASES: tuple[type, ...] = (_ShimEnv,) if _GYM is None else (_ShimEnv, _GYM.Env)


def tag_visible(element: Any) -> bool:
    """WebShop's filter of BeautifulSoup text nodes: not inside style/script/head/title/meta, not a comment."""
    from bs4.element import Comment

    ignore = {"style", "script", "head", "title", "meta", "[document]"}
    return element.parent.name not in ignore and not isinstance(element, Comment)


class SimServer(WebShopServer):
    """WebShop's ``SimServer(base_url, file_path, filter_goals, limit_goals, num_products, human_goals,
    show_attrs)``: the goals, products, prices and ``user_sessions`` its clients read."""

    def __init__(self, base_url: str, file_path: str | Path | None, filter_goals: Any = None, limit_goals: int = -1,
                 num_products: int | None = None, human_goals: Any = 0, show_attrs: bool = False, **options: Any):
        shop = load_shop(default_file(file_path), {"num_products": num_products, "human_goals": bool(human_goals),
                                                   "show_attrs": show_attrs, **options})
        super().__init__(shop, filter_goals=filter_goals, limit_goals=limit_goals, base_url=base_url)
        self.search_time = self.render_time = self.sample_time = 0.0


class SimBrowser:
    """``env.browser``: the current page's URL and HTML, and WebShop's ``search``/``click`` wrappers."""

    def __init__(self, env: WebAgentTextEnv):
        self._env = env
        self.server = env.server

    @property
    def current_url(self) -> str:
        return self._env.state["url"]

    @property
    def page_source(self) -> str:
        from shopsim.simsite.html import render_html  # loaded when first asked: text-mode users never are

        return render_html(self._env._page())

    @property
    def session_id(self) -> str | None:
        return self._env.session

    def search(self, keywords: str | list[str]) -> dict[str, Any]:
        """Search on the current page; ``{reward, done}`` as WebShop's ``receive`` status."""
        words = keywords if isinstance(keywords, str) else " ".join(keywords)
        _, reward, done, _ = self._env.step(f"search[{words}]")
        return {"reward": reward, "done": done}

    def click(self, clickable_name: str, text_to_clickable: Any = None) -> dict[str, Any]:
        """Click a current clickable by its (lower-cased) text; ``{reward, done}``."""
        _, reward, done, _ = self._env.step(f"click[{clickable_name}]")
        return {"reward": reward, "done": done}


class WebAgentTextEnv(*_BASES):  # type: ignore[misc]
    """WebShop's text environment (see :class:`shopsim.adapters.webshop_env.WebAgentTextEnv` for the
    keywords and the few deliberate differences). ``reset`` also takes gym's ``seed``, ``return_info`` and
    ``options`` (``options={'session': ..., 'instruction_text': ...}``)."""

    def __init__(self, observation_mode: str = "html", file_path: str | Path | None = utils.DEFAULT_FILE_PATH,
                 server: Any = None, **kwargs: Any):
        if server is None:  # WebShop's env builds its SimServer; so does this one (same keywords)
            server = SimServer(DEFAULT_BASE_URL, file_path, kwargs.get("filter_goals"),
                               int(kwargs.get("limit_goals", -1)), kwargs.get("num_products"),
                               kwargs.get("human_goals"), bool(kwargs.get("show_attrs", False)),
                               **{k: kwargs[k] for k in ("attr_path", "seed", "data_dir", "freeze_gc") if k in kwargs})
        kwargs.setdefault("feat_conv", utils.FEAT_CONV)
        kwargs.setdefault("feat_ids", utils.FEAT_IDS)
        super().__init__(observation_mode=observation_mode, file_path=file_path, server=server, **kwargs)
        if _GYM is not None:
            self.observation_space = legacy_text_space(_GYM, MAX_OBSERVATION_CHARS)
            self.action_space = legacy_text_space(_GYM, MAX_ACTION_CHARS, min_length=1, actions=True)
        self.browser = SimBrowser(self)

    def reset(self, session: int | str | None = None, instruction_text: str | None = None, seed: int | None = None,
              return_info: bool = False, options: dict[str, Any] | None = None) -> Any:
        """WebShop's reset (``(obs, None)``); ``seed`` reseeds the session draws, ``return_info`` gives
        ``(obs, {})`` as gym asks."""
        if seed is not None:
            self.reseed(seed)
        if options:
            session = options.get("session", session)
            instruction_text = options.get("instruction_text", instruction_text)
        obs, info = super().reset(session=session, instruction_text=instruction_text)
        return (obs, {}) if return_info else (obs, info)
