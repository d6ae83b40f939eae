"""``webshop_minimal.env``: ``WebAgentTextEnv`` and ``SimServer`` reading the paths ``init_basedir`` set.

The fork ignores an empty ``file_path`` (its configs default to the path before ``init_basedir`` runs)
and reads ``utils.DEFAULT_FILE_PATH`` when the server is built; so does this one. Subclass it as the fork
allows: set attributes before calling ``__init__``, override ``reset`` (it may return None while
``__init__`` runs) and ``get_available_actions`` (``step`` reads ``text_to_clickable``, not its result).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from web_agent_site import utils as _site_utils
from web_agent_site.envs.web_agent_text_env import SimServer as _SiteServer
from web_agent_site.envs.web_agent_text_env import WebAgentTextEnv as _SiteEnv
from web_agent_site.utils import default_file
from webshop_minimal import utils

__all__ = ["SimServer", "WebAgentTextEnv"]


def _file(file_path: str | Path | None) -> str | Path | None:
    """The caller's file, else ``init_basedir``'s, else ``$SHOPSIM_DATA``'s (the bundled catalog, said in one
    line, when there is none)."""
    chosen = file_path or utils.DEFAULT_FILE_PATH or _site_utils.DEFAULT_FILE_PATH
    return default_file(chosen, defaults=(utils.DEFAULT_FILE_PATH,))


def _options(kwargs: dict[str, Any]) -> dict[str, Any]:
    if utils.DEFAULT_ATTR_PATH and "attr_path" not in kwargs and Path(utils.DEFAULT_ATTR_PATH).exists():
        kwargs = {**kwargs, "attr_path": utils.DEFAULT_ATTR_PATH}
    return kwargs


class SimServer(_SiteServer):
    """WebShop's ``SimServer`` arguments; an empty ``file_path`` means ``utils.DEFAULT_FILE_PATH``."""

    def __init__(self, base_url: str, file_path: str | Path | None, *args: Any, **kwargs: Any):
        super().__init__(base_url, _file(file_path), *args, **_options(kwargs))


class WebAgentTextEnv(_SiteEnv):
    """The fork's text env (WebShop's, with ``file_path`` read from ``init_basedir``'s paths)."""

    def __init__(self, observation_mode: str = "html", file_path: str | Path | None = None, server: Any = None,
                 **kwargs: Any):
        super().__init__(observation_mode=observation_mode, file_path=_file(file_path), server=server,
                         **_options(kwargs))
