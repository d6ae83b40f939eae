"""WebShop's ``web_agent_site.envs``: the text and site environments, registered as WebShop registers them.

Importing this package registers ``WebAgentTextEnv-v0`` and ``WebAgentSiteEnv-v0`` in legacy gym's
registry when gym 0.21–0.26 is installed (Gymnasium's ids are shopsim's own, always registered).
The site env (a browser, a server) loads on first use, so text-env users do not pay for its imports.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from shopsim.adapters.legacy_gym import register_legacy_ids
from web_agent_site.envs.web_agent_text_env import WebAgentTextEnv

__all__ = ["WebAgentSiteEnv", "WebAgentTextEnv"]

if TYPE_CHECKING:
    from web_agent_site.envs.web_agent_site_env import WebAgentSiteEnv


def __getattr__(name: str) -> Any:
    if name == "WebAgentSiteEnv":
        return importlib.import_module("web_agent_site.envs.web_agent_site_env").WebAgentSiteEnv
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


register_legacy_ids()
