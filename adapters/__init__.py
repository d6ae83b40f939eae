"""Page sources and environments: ``ShopEnv`` (Gymnasium) and the ``WebAgentTextEnv`` shim."""

from shopsim.adapters.env import PageSource, ShopEnv, WebAgentTextEnv
from shopsim.adapters.webshop_server import WebShopServer

__all__ = ["PageSource", "ShopEnv", "WebAgentTextEnv", "WebShopServer"]
