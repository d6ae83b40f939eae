"""Page sources and environments: ``ShopEnv`` (Gymnasium) and the ``WebAgentTextEnv`` shim."""

from shopsim.adapters.env import PageSource, ShopEnv, WebAgentTextEnv

__all__ = ["PageSource", "ShopEnv", "WebAgentTextEnv"]
