"""WebShop's ``web_agent_site.envs``: the text and site environments, registered as WebShop registers them.

Importing this package registers ``WebAgentTextEnv-v0`` and ``WebAgentSiteEnv-v0`` in legacy gym's
registry when gym 0.21–0.26 is installed (Gymnasium's ids are shopsim's own, always registered).
"""

from shopsim.adapters.legacy_gym import register_legacy_ids
from web_agent_site.envs.web_agent_site_env import WebAgentSiteEnv
from web_agent_site.envs.web_agent_text_env import WebAgentTextEnv

__all__ = ["WebAgentSiteEnv", "WebAgentTextEnv"]

register_legacy_ids()
