"""The oracle's path as BrowserGym actions: what an agent reading the AXTree would send.

Each move reads the current observation, finds the element by its accessibility role and name
(as an AXTree agent does) and answers a BrowserGym action string over its bid: ``fill(bid, text)``
or ``click(bid)``. Tests and ``benchmarks/harness_browsergym.py`` play episodes with it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from browsergym.shopsim.oracle import OraclePlan

from shopsim.errors import ConfigError

__all__ = ["Move", "find_bid", "oracle_moves", "v8_oracle_moves"]

#: One step: the observation in, the BrowserGym action out.
Move = Callable[[dict[str, Any]], str]


def find_bid(obs: dict[str, Any], role: str, name: str) -> str:
    """The bid of the first element with this role and accessible name in ``obs["axtree_object"]``."""
    for node in obs["axtree_object"]["nodes"]:
        named = node.get("role", {}).get("value") == role and node.get("name", {}).get("value") == name
        if named and "browsergym_id" in node:
            return str(node["browsergym_id"])
    raise ConfigError(f"no {role} named {name!r} on {obs.get('url', 'the page')}")


def _click(role: str, name: str) -> Move:
    return lambda obs: f"click({find_bid(obs, role, name)!r})"


def oracle_moves(plan: OraclePlan) -> list[Move]:
    """Type the query, search, turn result pages, open the product, pick each option, buy."""
    def fill(obs: dict[str, Any]) -> str:
        return f"fill({find_bid(obs, 'textbox', 'Search...')!r}, {plan.query!r})"

    return [fill, _click("button", "Search"), *[_click("button", "Next >")] * (plan.page - 1),
            _click("link", plan.asin), *[_click("radio", value) for value in plan.options.values()],
            _click("button", "Buy Now")]


def v8_oracle_moves(query: str, page: int, asin: str, options: dict[str, str]) -> list[Move]:
    """The same on the v8 HTML view (``/shop/{lease}``): its buttons are named by the v8 click values."""
    def fill(obs: dict[str, Any]) -> str:
        return f"fill({find_bid(obs, 'textbox', 'Search...')!r}, {query!r})"

    return [fill, _click("button", "Search"), *[_click("button", "next >")] * (page - 1), _click("button", asin),
            *[_click("button", f"{axis}={value}") for axis, value in options.items()], _click("button", "buy now")]
