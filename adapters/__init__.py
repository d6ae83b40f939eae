"""Page sources and environments: ``ShopEnv`` (Gymnasium) and the ``WebAgentTextEnv`` shim.

Importing this package registers three Gymnasium ids: ``shopsim/ShopEnv-v0`` (keyword arguments
as :class:`ShopEnv`'s), ``shopsim/WebAgentTextEnv-v0`` and WebShop's own ``WebAgentTextEnv-v0``
(WebShop's keyword arguments: ``observation_mode``, ``num_products``, ``file_path``, ...), unless
WebShop itself registered that id first. The shim's ids are made without Gymnasium's checker and
order wrapper, so ``gym.make(...)`` returns the env itself and WebShop code keeps calling
``env.get_available_actions()`` and ``env.server`` on it.

The names below load on first use: importing one module of this package (the WebShop shim, say)
must not pay for the others (the browser source, the Gymnasium env and their imports).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

import gymnasium as gym

__all__ = ["PageSource", "ShopEnv", "WebAgentTextEnv", "WebShopServer", "register_envs"]

#: Public name -> the module it is loaded from.
_NAMES = {
    "PageSource": "shopsim.adapters.env",
    "ShopEnv": "shopsim.adapters.env",
    "WebAgentTextEnv": "shopsim.adapters.webshop_env",
    "WebShopServer": "shopsim.adapters.webshop_server",
}

if TYPE_CHECKING:
    from shopsim.adapters.env import PageSource, ShopEnv
    from shopsim.adapters.webshop_env import WebAgentTextEnv
    from shopsim.adapters.webshop_server import WebShopServer


def __getattr__(name: str) -> Any:
    module = _NAMES.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = globals()[name] = getattr(importlib.import_module(module), name)  # later reads skip this hook
    return value


def register_envs() -> None:
    """Register shopsim's Gymnasium ids (idempotent; called on import)."""
    if "shopsim/ShopEnv-v0" not in gym.registry:
        gym.register(id="shopsim/ShopEnv-v0", entry_point="shopsim.adapters.env:ShopEnv")
    for env_id in ("shopsim/WebAgentTextEnv-v0", "WebAgentTextEnv-v0"):
        if env_id not in gym.registry:
            gym.register(id=env_id, entry_point="shopsim.adapters.webshop_env:WebAgentTextEnv",
                         order_enforce=False, disable_env_checker=True)


register_envs()
