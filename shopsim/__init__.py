"""shopsim: a WebShop-style simulated shop, a sim-to-real translator layer and a Playwright harness.

The main names are here, loaded on first use (so ``import shopsim`` stays cheap and the layers
below never import each other through it):

    from shopsim import ShopEnv, Shop, ShopConfig, PageState, translate, run_eval, EvalConfig
    from shopsim import Agent, make_agent, register_agent, agent_names    # the agent registry
    from shopsim import translate, translate_file, register_translator    # the translator registry

The code lives in subpackages installed under this name: ``shopsim.simsite`` (the shop),
``shopsim.translators`` (page -> PageState -> text), ``shopsim.adapters`` (page sources and
environments), ``shopsim.agents`` and the command line, ``shopsim.cli``. This package's own modules
are the contract they share, and import none of them: ``page`` (PageState), ``actions`` (the action
grammar), ``routes`` (the URL scheme), ``links`` (a page's links), ``text`` (shared text helpers),
``render`` (the text renderer), ``errors``, ``progress`` and ``v8`` (ShopSimulator v8's contract).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

#: Public name -> ``module:attribute`` it is loaded from.
_NAMES = {
    "ShopEnv": "shopsim.adapters.env:ShopEnv",
    "WebAgentTextEnv": "shopsim.adapters.webshop_env:WebAgentTextEnv",
    "Shop": "shopsim.simsite.shop:Shop",
    "ShopConfig": "shopsim.simsite.shop:ShopConfig",
    "open_shop": "shopsim.simsite.profiles:open_shop",
    "PageState": "shopsim.page:PageState",
    "observation": "shopsim.render:observation",
    "translate": "shopsim.translators.registry:translate_html",
    "translate_file": "shopsim.translators.registry:translate_file",
    "register_translator": "shopsim.translators.registry:register_translator",
    "run_eval": "shopsim.agents.evaluation.runner:run_eval",
    "EvalConfig": "shopsim.agents.evaluation.config:EvalConfig",
    "Agent": "shopsim.agents.base:Agent",
    "agent_names": "shopsim.agents.registry:agent_names",
    "make_agent": "shopsim.agents.registry:make_agent",
    "register_agent": "shopsim.agents.registry:register_agent",
    "ShopsimError": "shopsim.errors:ShopsimError",
}
__all__ = [
    "Agent", "EvalConfig", "PageState", "Shop", "ShopConfig", "ShopEnv", "ShopsimError", "WebAgentTextEnv",
    "__version__", "agent_names", "make_agent", "observation", "open_shop", "register_agent",
    "register_translator", "run_eval",
    "translate", "translate_file",
]

if TYPE_CHECKING:  # for type checkers and IDEs; at run time the names load lazily
    from shopsim.adapters.env import ShopEnv
    from shopsim.adapters.webshop_env import WebAgentTextEnv
    from shopsim.agents.base import Agent
    from shopsim.agents.evaluation.config import EvalConfig
    from shopsim.agents.evaluation.runner import run_eval
    from shopsim.agents.registry import agent_names, make_agent, register_agent
    from shopsim.errors import ShopsimError
    from shopsim.page import PageState
    from shopsim.render import observation
    from shopsim.simsite.profiles import open_shop
    from shopsim.simsite.shop import Shop, ShopConfig
    from shopsim.translators.registry import register_translator, translate_file
    from shopsim.translators.registry import translate_html as translate


def __getattr__(name: str) -> Any:
    """Load a public name on first use (PEP 562)."""
    target = _NAMES.get(name)
    if target is None:
        raise AttributeError(f"module 'shopsim' has no attribute {name!r}")
    module, _, attr = target.partition(":")
    value = getattr(importlib.import_module(module), attr)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    """The public names, so tab completion offers them before they are loaded."""
    return sorted(__all__)
