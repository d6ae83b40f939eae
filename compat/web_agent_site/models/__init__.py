"""WebShop's ``web_agent_site.models``: the example policies."""

from web_agent_site.models.models import BasePolicy, HumanPolicy, RandomPolicy

__all__ = ["BasePolicy", "HumanPolicy", "RandomPolicy"]
