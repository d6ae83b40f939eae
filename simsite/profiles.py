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
from pathlib import Path
from typing import Any, Protocol

from shopsim.errors import ConfigError, did_you_mean
from shopsim.v8.runtime import MAX_ACTIONS, MAX_TOKENS_PER_TURN

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
    adapters: tuple[str, ...]
    """The page sources (``--adapter`` values) this profile's episodes can run through."""
    shop_options: tuple[str, ...]
    """The shop options (CLI ``--num-products`` ...) it takes beyond data and seed; the rest it refuses."""
    data_from_env: bool
    """Whether a missing ``--data`` falls back to ``$SHOPSIM_DATA`` (else the profile's bundled catalog)."""
    episode_rules: bool
    """Whether the contract runs its own episode rules: the env enforces ``max_steps`` and task modes and
    the records keep how each episode ended and the environment version (else the episode loop counts
    steps and records keep WebShop's shape)."""
    goal_kind: str
    """``goal`` (WebShop's goal files: export, human goals) or ``task`` (a product's request and persona:
    grouped with its product, persona splits)."""
    session_logs: bool
    """Whether its HTML sessions are logged and read back as WebShop session logs (``--log-dir``, demos)."""
    goal_checker: str
    """``module:callable(shop, goals, pages=)`` -> the ``check-goals`` report (oracle ceilings)."""
    catalog_files: str
    """``module:callable(data) -> list[Path]``: the files a run's catalog fingerprint hashes."""
    fingerprint_products: bool
    """Whether a snapshot's shop fingerprint hashes its product records (prices live in them) rather than
    its price table."""
    prepare_input: str
    """What ``data prepare`` reads for it: ``data`` (a folder of WebShop files) or ``archive`` (one file)."""
    engine_scored: bool
    """Whether ``shopsim search`` ranks with the engine's ``scored`` (WebShop's Lucene: Anserini's scores)
    rather than its ``search``."""
    search_eval: str | None
    """``module:callable`` that evaluates its index with oracle queries (``search-eval``), if it has one."""
    page_view: str | None = None
    """``module:callable(state: PageState, fmt: "json" | "text") -> str``: how ``shopsim translate`` prints a
    translated page under this contract; None: WebShop's (the answer-key JSON, or the parity text)."""
    transfer_tasks: str | None = None
    """``module:callable(path | None) -> tasks``: the real-page transfer tasks of this contract (``transfer-suite``)."""
    transfer_suite: str | None = None
    """``module:callable(agent, real, work, *, tasks, seed, max_steps, sim_goals, action_model, agent_options,
    sim_data)`` -> a report with ``tasks``, ``real_score``, ``real_success``, sim numbers and ``gap``."""
    http_source: str = "shopsim.adapters.sources:http_episode_source"
    """``module:callable(base_url, *, strict, max_steps, task_mode)`` -> the page source ``--adapter http``
    plays this profile's served episodes through."""
    llm_max_tokens: int = 256
    """The tokens an LLM agent may generate per model turn unless told otherwise (v8: the seed's 4,096)."""

    @property
    def page_sources(self) -> bool:
        """Whether ``ShopEnv`` takes page sources other than its own (HTTP, browser, replay)."""
        return any(a != "inprocess" for a in self.adapters)

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
    above the shop (envs, runners, the CLI) uses only this, and asks ``profile`` for the rest.
    """

    profile: Profile

    @property
    def products(self) -> Mapping[str, Any]:
        """The catalog by ASIN (read-only here, so a shop's ``dict`` of its own product type fits)."""
        ...

    @property
    def goals(self) -> Sequence[Any]:
        """The goals (tasks), in index order (read-only here, as ``products``)."""
        ...

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


def _webshop_catalog_files(data: str | Path | None) -> list[Path]:
    from shopsim.simsite.catalog import default_catalog_dir
    from shopsim.simsite.datafiles import find_catalog_files
    from shopsim.simsite.store import is_store

    if data and is_store(data):  # its manifest holds every file's and source's SHA-256
        return [Path(data) / "store.json"]
    files = find_catalog_files(Path(data) if data else default_catalog_dir())
    return [p for p in (files.items, files.attributes, files.human_instructions, files.reviews) if p is not None]


def _v8_catalog_files(data: str | Path | None) -> list[Path]:
    from shopsim.simsite.v8.shop import find_v8_catalog

    return [find_v8_catalog(data)]


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
        adapters=("inprocess", "http", "browser", "replay"),
        shop_options=("num_products", "human_goals", "synthetic_goals"),
        data_from_env=True,
        episode_rules=False,
        goal_kind="goal",
        session_logs=True,
        goal_checker="shopsim.agents.reachability:check_goals",
        catalog_files="shopsim.simsite.profiles:_webshop_catalog_files",
        fingerprint_products=False,
        prepare_input="data",
        engine_scored=True,
        search_eval=None,
        transfer_tasks="shopsim.agents.transfer.suite:load_tasks",
        transfer_suite="shopsim.agents.transfer.suite:run_suite",
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
        default_max_actions=MAX_ACTIONS["single_turn"],
        lease_policy="queue",
        app_factory="shopsim.simsite.v8.service:create_v8_app",
        episode_source="shopsim.adapters.v8_episode:v8_episode_source",
        observation_modes=("text",),
        adapters=("inprocess", "http"),
        shop_options=(),
        data_from_env=False,
        episode_rules=True,
        goal_kind="task",
        session_logs=False,
        goal_checker="shopsim.agents.reachability_v8:check_v8_goals",
        catalog_files="shopsim.simsite.profiles:_v8_catalog_files",
        fingerprint_products=True,
        prepare_input="archive",
        engine_scored=False,
        search_eval="shopsim.simsite.v8.search_eval:evaluate_search",
        page_view="shopsim.v8.observation_text:page_view",
        transfer_tasks="shopsim.agents.transfer.v8_suite:load_v8_tasks",
        transfer_suite="shopsim.agents.transfer.v8_suite:run_v8_suite",
        http_source="shopsim.adapters.v8_http_source:v8_http_episode_source",
        llm_max_tokens=MAX_TOKENS_PER_TURN,
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
