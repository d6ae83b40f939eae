"""``EvalConfig``, everything an evaluation run depends on, and the shop it describes."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel

from shopsim.agents.redact import redact_mapping
from shopsim.simsite.shop import ShopConfig

__all__ = ["ADAPTERS", "EXECUTORS", "TRACE_MODES", "EvalConfig", "forget_shop", "run_shop"]

ADAPTERS = ("inprocess", "http", "browser", "replay")
TRACE_MODES = ("off", "failures", "all")
#: Where episodes run: worker processes on this machine, or Ray actors (``agents.evaluation.ray_executor``).
EXECUTORS = ("local", "ray")


class EvalConfig(BaseModel):
    """Everything an evaluation run depends on (saved as ``config.json`` in the run folder, secrets
    redacted: see :meth:`saved_json`).
    """

    agent: str = "rule"
    adapter: Literal["inprocess", "http", "browser", "replay"] = "inprocess"
    browser_mode: Literal["url", "click"] = "click"
    #: The look of the pages the browser adapter loads (:mod:`shopsim.simsite.skins`; ``random``: one per goal).
    skin: str = "webshop"
    #: Perturbations of those pages (``--perturb``: :mod:`shopsim.simsite.perturb`), seeded by ``seed``.
    perturb: str = "none"
    data: str | None = None
    num_products: int | None = None
    human_goals: bool = False
    goals: list[int]
    #: Worker processes (``local``) or Ray actors (``ray``).
    workers: int = 1
    executor: Literal["local", "ray"] = "local"
    #: Ray: an existing cluster (``auto``, ``ray://HOST:PORT``); None starts a local one sized by ``workers``.
    address: str | None = None
    seed: int = 0
    out: str
    max_steps: int = 15
    strict: bool = False
    base_url: str | None = None
    browser_path: str | None = None
    screenshots: bool = False
    agent_options: dict[str, str] = {}
    bundle: str | None = None
    goal_file: str | None = None
    bundle_map: str | None = None
    #: Replay: real pages with the sim's action model (``sim``) or the site's search bar everywhere.
    action_model: Literal["sim", "native"] = "sim"
    profile: str = "webshop"
    task_mode: Literal["standard", "persona"] | None = None
    #: shopsim-v8: ``multi_turn`` adds ``ask[question]``, answered by the shopper simulator.
    interaction_mode: Literal["single_turn", "multi_turn"] = "single_turn"
    engine: str | None = None
    #: Playwright traces per episode (browser adapter): none, failed episodes only (r_success 0), or all.
    trace: Literal["off", "failures", "all"] = "off"
    #: Prices of 1,000 prompt and 1,000 completion tokens: the run's cost from ``agent_stats``.
    price_per_1k_tokens: tuple[float, float] | None = None
    #: Seconds one ``act`` may take, and one whole episode (``--agent-timeout STEP[,EPISODE]``);
    #: past either, the worker process is killed and the episode recorded as the agent's failure.
    step_timeout: float | None = None
    episode_timeout: float | None = None

    def saved_json(self) -> str:
        """The config as ``config.json`` holds it: secret-looking agent options read ``"***"``."""
        return self.model_copy(update={"agent_options": redact_mapping(self.agent_options)}).model_dump_json(indent=2)


_cache: tuple[tuple[Any, ...], Any] | None = None


def run_shop(cfg: EvalConfig) -> Any:
    """The shop ``cfg`` describes (a ``Shop``, or a ``V8Shop``), loaded once per process and run.

    The parent reads goal kinds from it and, with one worker, the worker plays on the same object
    (a shop is read-only once built); :func:`forget_shop` drops it when the run ends.
    """
    global _cache
    from shopsim.simsite.profiles import open_shop

    key = (cfg.data, cfg.num_products, cfg.human_goals, cfg.seed, cfg.profile, cfg.engine)
    if _cache is None or _cache[0] != key:
        shop = open_shop(ShopConfig(data_dir=cfg.data, num_products=cfg.num_products, human_goals=cfg.human_goals,
                                    seed=cfg.seed, profile=cfg.profile,
                                    extra={"engine": cfg.engine} if cfg.engine else {}))
        _cache = (key, shop)
    return _cache[1]


def forget_shop() -> None:
    """Drop the cached shop (a finished run must not keep a large catalog alive)."""
    global _cache
    _cache = None
