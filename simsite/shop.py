"""The shop: one catalog, its prices, a search engine and goals, shared by every session."""

from __future__ import annotations

import bisect
import itertools
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import ClassVar

import numpy as np

from shopsim.errors import ConfigError, DataError
from shopsim.simsite.catalog import default_catalog_dir
from shopsim.simsite.datafiles import find_catalog_files
from shopsim.simsite.goals import (
    generate_prices,
    human_goals,
    load_goal_file,
    load_price_file,
    shuffle_goals,
    synthetic_goals,
)
from shopsim.simsite.loader import load_products
from shopsim.simsite.models import Goal, Product
from shopsim.simsite.noun_table import EAGER_LIMIT, load_catalog_tags
from shopsim.simsite.nouns import NounExtractor, default_extractor
from shopsim.simsite.search import SearchEngine, make_engine
from shopsim.simsite.store.manifest import is_store

__all__ = ["Shop", "ShopConfig"]


@dataclass(frozen=True)
class ShopConfig:
    """How to build a shop. ``data_dir=None`` means the profile's bundled catalog.

    ``profile`` names the environment contract (``webshop`` or ``shopsim-v8``); build any profile's
    shop with :func:`shopsim.simsite.profiles.open_shop`. ``task_ids`` restricts a v8 shop's tasks.
    ``items_file`` and ``attributes_file`` pick those files in ``data_dir`` by name (WebShop's
    ``file_path`` and ``attr_path``), where a folder holds several (``items_shuffle.json`` beside
    ``items_shuffle_1000.json``).
    """

    data_dir: str | Path | None = None
    num_products: int | None = None
    human_goals: bool = False
    seed: int = 0
    goals_file: str | Path | None = None
    prices_file: str | Path | None = None
    show_attrs: bool = False
    extra: dict[str, str] = field(default_factory=dict)
    profile: str = "webshop"
    task_ids: tuple[int, ...] | None = None
    items_file: str | Path | None = None
    attributes_file: str | Path | None = None


class Shop:
    """Catalog + prices + search + goals. Read-only after construction, so sessions can share it.

    Built from lists (:meth:`from_config` on WebShop's files) or over a prepared store (a folder
    from ``shopsim data prepare``), whose products, prices and goals are read-only mappings and
    sequences that materialise one record when asked (``lazy`` is then true).
    """

    #: The profile this shop is (its name in ``PROFILES``).
    PROFILE: ClassVar[str] = "webshop"

    products: Mapping[str, Product]
    product_list: Sequence[Product]
    prices: Mapping[str, float]
    goals: Sequence[Goal]
    #: Set only on a store's shop (:meth:`from_parts`'s ``fingerprint``); read with ``getattr``.
    catalog_fingerprint: str

    def __init__(
        self,
        products: list[Product],
        prices: dict[str, float],
        goals: list[Goal],
        search: SearchEngine | None = None,
        *,
        nouns: NounExtractor | None = None,
        show_attrs: bool = False,
    ):
        if not products:
            raise DataError("the catalog has no products")
        self._setup({p.asin: p for p in products}, products, prices, goals,
                    search if search is not None else make_engine(products),
                    list(itertools.accumulate(g.weight for g in goals)), nouns, show_attrs)
        self.lazy = False

    def _setup(self, products: Mapping[str, Product], product_list: Sequence[Product], prices: Mapping[str, float],
               goals: Sequence[Goal], search: SearchEngine, cum_weights: Sequence[float],
               nouns: NounExtractor | None, show_attrs: bool) -> None:
        self.products = products
        self.product_list = product_list
        self.prices = prices
        self.goals = goals
        self.search_engine = search
        self.nouns = nouns or default_extractor()
        self.show_attrs = show_attrs
        self._cum_weights = cum_weights
        from shopsim.simsite.profiles import get_profile

        self.profile = get_profile(self.PROFILE)

    @classmethod
    def from_parts(
        cls,
        products: Mapping[str, Product],
        product_list: Sequence[Product],
        prices: Mapping[str, float],
        goals: Sequence[Goal],
        search: SearchEngine,
        *,
        cum_weights: Sequence[float],
        show_attrs: bool = False,
        nouns: NounExtractor | None = None,
        fingerprint: str | None = None,
    ) -> Shop:
        """A lazy shop over ready-made containers (a prepared store's views); nothing is copied.

        ``cum_weights`` are the goals' running weight sums (WebShop's draw order); ``fingerprint``
        names the catalog, prices and goals for session snapshots.
        """
        if not len(product_list):
            raise DataError("the catalog has no products")
        shop = cls.__new__(cls)
        shop._setup(products, product_list, prices, goals, search, cum_weights, nouns, show_attrs)
        shop.lazy = True
        if fingerprint is not None:
            shop.catalog_fingerprint = fingerprint
        return shop

    def __getstate__(self) -> dict[str, object]:
        state = dict(self.__dict__)
        if self._cum_weights is getattr(self.goals, "cum_weights", None):
            state["_cum_weights"] = None  # a store's mapped array: taken from the goals again, not copied
        return state

    def __setstate__(self, state: dict[str, object]) -> None:
        self.__dict__.update(state)
        if self._cum_weights is None:
            self._cum_weights = self.goals.cum_weights  # type: ignore[attr-defined]

    @classmethod
    def from_config(cls, config: ShopConfig, search: SearchEngine | None = None) -> Shop:
        """Load files, draw prices and goals with ``config.seed`` (WebShop's order of draws).

        A prepared store (``shopsim data prepare``) opens lazily instead, with the same products,
        prices, goals and rankings.
        """
        from shopsim.simsite.profiles import get_profile

        if get_profile(config.profile) is not get_profile(cls.PROFILE):
            raise ConfigError(f"Shop is the webshop profile's shop; open a {config.profile!r} shop with "
                              "shopsim.simsite.profiles.open_shop(config)")
        if is_store(config.data_dir):
            from shopsim.simsite.store.data import store_shop

            return store_shop(config, search)
        data_dir = Path(config.data_dir) if config.data_dir is not None else default_catalog_dir()
        files = find_catalog_files(data_dir, items=config.items_file)
        if config.attributes_file is not None:
            files = replace(files, attributes=Path(config.attributes_file))
        products = load_products(files, num_products=config.num_products, human_goals=config.human_goals)
        rng = random.Random(config.seed)
        prices = generate_prices(products, rng)
        if config.goals_file is not None:
            goals = load_goal_file(config.goals_file)
            if config.prices_file is not None:
                prices.update(load_price_file(config.prices_file))
        else:
            make = human_goals if config.human_goals else synthetic_goals
            goals = shuffle_goals(make(products, prices, rng))
        if not goals:
            raise DataError(f"{data_dir}: no goals could be made (no instructions in the attribute file?)")
        if search is None:
            search = make_engine(products, config.extra.get("engine", "lucene"), saved_in=files.items.parent)
        shop = cls(products, prices, goals, search, show_attrs=config.show_attrs)
        shop._load_noun_tags(files.items.parent)
        return shop

    def _load_noun_tags(self, folder: Path) -> None:
        """Every title's nouns from the file saved beside the data (tagged in one batch and saved the
        first time), so that no purchase waits for spaCy; goal names that are not titles (a goals
        file's) are tagged here too, in one batch.
        """
        if len(self.product_list) > EAGER_LIMIT or self.nouns.source == "fallback":
            return  # tagged when bought: too many to tag on open, or the fallback's microseconds
        titles = {p.title for p in self.product_list}
        load_catalog_tags(self.nouns, titles, folder)
        extra = {g.name for g in self.goals} - titles
        if extra and len(titles) + len(extra) <= EAGER_LIMIT:
            self.nouns.prime(extra)

    @classmethod
    def load(cls, data_dir: str | Path | None = None, **kw: object) -> Shop:
        """Shorthand for ``Shop.from_config(ShopConfig(data_dir, **kw))``."""
        return cls.from_config(ShopConfig(data_dir=data_dir, **kw))  # type: ignore[arg-type]

    def prime_nouns(self) -> None:
        """Tag every product title and goal name in one batch (fast rewards for long runs).

        A lazy (store) shop tags on demand instead: priming would materialise the whole catalog.
        """
        if self.lazy:
            return
        self.nouns.prime({p.title for p in self.product_list} | {g.name for g in self.goals})

    def goal(self, index: int) -> Goal:
        """Goal ``index``, with a clear error when it does not exist."""
        if not 0 <= index < len(self.goals):
            raise ConfigError(f"goal {index} does not exist: this shop has {len(self.goals)} goals (0..{len(self.goals) - 1})")
        return self.goals[index]

    def goal_indices(self, spec: str) -> list[int]:
        """Goal indices for ``--goals`` (``'0:500'``, ``'7'``, ``'1,5,9'``, ``test``/``eval``/``train``)."""
        from shopsim.simsite.goals import parse_goal_spec

        return parse_goal_spec(spec, len(self.goals))

    def draw_goal_index(self, rng: random.Random) -> int:
        """A goal index drawn by weight from the caller's seeded rng.

        WebShop's ``random_idx`` is off by one (it never draws goal 0); the ``WebAgentTextEnv`` shim
        reproduces that exactly, this draw does not.
        """
        cum = self._cum_weights
        x = rng.random() * float(cum[-1])
        i = int(np.searchsorted(cum, x, side="right")) if isinstance(cum, np.ndarray) else bisect.bisect_right(cum, x)
        return min(i, len(self.goals) - 1)

    def product(self, asin: str) -> Product | None:
        """The product with this ASIN (case-insensitive), if the catalog has it."""
        return self.products.get(asin) or self.products.get(asin.upper())
