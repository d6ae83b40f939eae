"""Profiles: one object per environment contract, naming every part that differs between them.

``webshop`` is WebShop byte for byte (the default); ``shopsim-v8`` is ShopSimulator's
``shopsimulator-paper-aligned-v8``. Code that needs a part asks the profile for it instead of
branching on a flag, and a new contract (a later ShopSimulator, a shop of our own) is one more
entry here. Parts are named by import path and loaded on first use, so choosing a profile never
imports the other one's code.
"""

from __future__ import annotations

import importlib
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from shopsim.errors import ConfigError, did_you_mean

__all__ = ["PROFILES", "Profile", "ShopLike", "get_profile", "open_shop"]


def _resolve(path: str) -> Any:
    module, _, name = path.partition(":")
    return getattr(importlib.import_module(module), name)


@dataclass(frozen=True)
class Profile:
    """The parts of one environment contract (each a ``module:attribute`` path or a value)."""

    name: str
    environment_version: str
    description: str
    loader: str
    """``module:callable(config: ShopConfig)`` -> the shop object."""
    search_engine: str
    results_per_query: int
    page_size: int
    reward: str
    """``module:callable`` that scores a purchase."""
    top_level_reward: str
    renderer: str
    """``module:callable(state) -> str``: the default text observation."""
    action_grammar: str
    """``module:callable(action) -> parsed``: how action strings are read."""
    feedback_codes: tuple[str, ...]
    terminations: tuple[str, ...]
    default_max_actions: int | None
    lease_policy: str
    """``reject`` (a full pool answers 429) or ``queue`` (a fair queue, 503 on timeout)."""
    app_factory: str
    """``module:callable(shop, **kw)`` -> the ASGI app serving this profile."""
    episode_source: str
    """``module:callable(shop, *, strict, max_steps, task_mode, interaction_mode)`` -> the page source
    ``ShopEnv`` plays this profile's episodes through in-process."""
    observation_modes: tuple[str, ...]
    """The ``observation_mode`` values ``ShopEnv`` offers for this profile."""
    page_sources: bool
    """Whether ``ShopEnv`` takes other page sources (HTTP, browser, replay) for this profile."""

    def part(self, name: str) -> Any:
        """The object a ``module:attribute`` field names (imported on first use)."""
        value = getattr(self, name)
        if not isinstance(value, str) or ":" not in value:
            raise ConfigError(f"profile {self.name}: {name} is not an importable part")
        return _resolve(value)

    def load(self, config: Any) -> ShopLike:
        """This profile's shop for a :class:`~shopsim.simsite.shop.ShopConfig`."""
        return self.part("loader")(config)


class ShopLike(Protocol):
    """What every profile's shop offers (a :class:`~shopsim.simsite.shop.Shop`, a ``V8Shop``): the code
    above the shop (envs, runners, the CLI) uses only this, and asks ``profile`` for the rest."""

    profile: Profile
    products: Mapping[str, Any]
    goals: Sequence[Any]
    search_engine: Any
    nouns: Any

    def product(self, asin: str) -> Any:
        """The product with this ASIN, or ``None``."""
        ...

    def goal(self, index: int) -> Any:
        """Goal (task) ``index``; a ConfigError when out of range."""
        ...

    def goal_indices(self, spec: str) -> list[int]:
        """The goal indices a spec (``0-9``, ``test``, ...) names."""
        ...

    def draw_goal_index(self, rng: random.Random) -> int:
        """A weighted goal draw."""
        ...

    def prime_nouns(self) -> None:
        """Load the noun tagger now (before forking workers)."""
        ...


def _webshop_loader(config: Any) -> Any:
    from shopsim.simsite.shop import Shop

    return Shop.from_config(config)


def _v8_loader(config: Any) -> Any:
    from shopsim.simsite.v8.shop import V8Shop

    task_ids = list(config.task_ids) if config.task_ids is not None else None
    return V8Shop.load(config.data_dir, engine=config.extra.get("engine", "default"), task_ids=task_ids)


def open_shop(config: Any = None) -> ShopLike:
    """The shop ``config`` describes, for its profile (``ShopConfig()`` is WebShop's bundled shop)."""
    from shopsim.simsite.shop import ShopConfig

    config = config or ShopConfig()
    return get_profile(config.profile).load(config)


PROFILES: dict[str, Profile] = {
    "webshop": Profile(
        name="webshop",
        environment_version="webshop-1.0",
        description="WebShop (Yao et al., 2022) byte for byte: its data, goals, search, pages and reward.",
        loader="shopsim.simsite.profiles:_webshop_loader",
        search_engine="shopsim.simsite.search:make_engine",
        results_per_query=50,
        page_size=10,
        reward="shopsim.simsite.reward:score_purchase",
        top_level_reward="r_loose",
        renderer="shopsim.render:render_simple",
        action_grammar="shopsim.actions:parse_action",
        feedback_codes=("ok", "unknown_action", "not_available", "empty_query", "query_too_long",
                        "ambiguous_option", "options_incomplete", "episode_done", "action_limit"),
        terminations=("purchase", "action_limit"),
        default_max_actions=None,
        lease_policy="reject",
        app_factory="shopsim.simsite.web:create_app",
        episode_source="shopsim.adapters.sources:inprocess_episode_source",
        observation_modes=("text", "text_rich", "url", "html", "screenshot", "som", "axtree", "dom"),
        page_sources=True,
    ),
    "shopsim-v8": Profile(
        name="shopsim-v8",
        environment_version="shopsimulator-paper-aligned-v8",
        description="ShopSimulator v8: persona tasks, CJK multi-field search, SKU prices, r_strict, two tools.",
        loader="shopsim.simsite.profiles:_v8_loader",
        search_engine="shopsim.simsite.v8.search:make_engine",
        results_per_query=150,
        page_size=20,
        reward="shopsim.simsite.v8.reward:score_v8_purchase",
        top_level_reward="r_strict",
        renderer="shopsim.v8.observation_text:render_observation_text",
        action_grammar="shopsim.v8.tool_calls:parse_v8_action",
        feedback_codes=("ok", "invalid_format", "search_unavailable", "unavailable_action", "already_selected",
                        "incomplete_options"),
        terminations=("purchase", "action_limit", "generation_length"),
        default_max_actions=30,
        lease_policy="queue",
        app_factory="shopsim.simsite.v8.service:create_v8_app",
        episode_source="shopsim.adapters.v8_episode:v8_episode_source",
        observation_modes=("text",),
        page_sources=False,
    ),
}


def get_profile(name: str | Profile | None) -> Profile:
    """The profile called ``name`` (``None`` means ``webshop``)."""
    if isinstance(name, Profile):
        return name
    key = name or "webshop"
    try:
        return PROFILES[key]
    except KeyError:
        raise ConfigError(f"unknown profile {key!r}: use one of {', '.join(PROFILES)}."
                          + did_you_mean(key, list(PROFILES))) from None
