"""The v8 shop: a catalog, its search engine and its tasks, shared read-only by every session."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from shopsim.errors import ConfigError, DataError
from shopsim.simsite.v8.records import V8Catalog, V8Product, V8Task
from shopsim.simsite.v8.reward import TitleTerms, default_title_terms

__all__ = ["V8Shop", "find_v8_catalog"]


def find_v8_catalog(data: str | Path | None) -> Path:
    """A v8 catalog file: the path itself, or the one ``*.json[.gz]`` products file in a folder."""
    if data is None:
        from shopsim.simsite.v8.catalog import default_v8_catalog

        return default_v8_catalog()
    p = Path(data)
    if p.is_file():
        return p
    if p.is_dir():
        for pattern in ("products*.json.gz", "products*.json", "shop_v8_products*.json*", "*.json.gz", "*.json"):
            found = sorted(x for x in p.glob(pattern) if "manifest" not in x.name and "split" not in x.name
                           and "exclusion" not in x.name and "environment" not in x.name)
            if found:
                return found[0]
        raise DataError(f"{p}: no ShopSimulator products file (*.json or *.json.gz) in this folder")
    raise DataError(f"{p}: no such file or folder")


class V8Shop:
    """Catalog + search + tasks of the shopsim-v8 profile."""

    def __init__(self, catalog: V8Catalog, engine: Any = None, *, terms: TitleTerms | None = None,
                 task_ids: list[int] | None = None):
        from shopsim.simsite.v8.search import make_engine

        self.catalog = catalog
        self.products = {p.asin: p for p in catalog.products}
        self.search_engine = engine if engine is not None else make_engine(catalog.products)
        self.terms = terms or default_title_terms()
        self.nouns = self.terms  # what the runners report as the tagger (``.source``)
        self.facts_cache: dict[str, Any] = {}  # ProductFacts by ASIN, filled by sessions
        self.entry_cache: dict[str, tuple[Any, ...]] = {}  # a results card's product parts by ASIN, filled by sessions
        tasks = [t for t in catalog.tasks if t.asin in self.products]
        if task_ids is not None:
            by_id = {t.task_id: t for t in tasks}
            missing = [i for i in task_ids if i not in by_id]
            if missing:
                raise ConfigError(f"task ids not in this catalog: {', '.join(map(str, missing[:10]))}")
            tasks = [by_id[i] for i in task_ids]
        self.goals: list[V8Task] = tasks
        self._index = {t.task_id: i for i, t in enumerate(tasks)}
        from shopsim.simsite.profiles import get_profile

        self.profile = get_profile("shopsim-v8")

    @classmethod
    def load(cls, data: str | Path | None = None, *, engine: str = "default", task_ids: list[int] | None = None) -> V8Shop:
        """Load a catalog file or a prepared folder (its saved index is used when it is current)."""
        from shopsim.simsite.v8.store import open_v8_data

        return open_v8_data(data, engine=engine, task_ids=task_ids)

    def product(self, asin: str) -> V8Product | None:
        """The product with this ASIN, or None."""
        return self.products.get(asin)

    def goal(self, index: int) -> V8Task:
        """Task number ``index`` in task order (``task_by_id`` addresses tasks by ``task_id``)."""
        if not 0 <= index < len(self.goals):
            raise ConfigError(f"goal {index} does not exist: this shop has {len(self.goals)} tasks (0..{len(self.goals) - 1})")
        return self.goals[index]

    def task_by_id(self, task_id: int) -> V8Task:
        """The task with this id; a ``ConfigError`` when the catalog has none."""
        index = self._index.get(task_id)
        if index is None:
            raise ConfigError(f"task {task_id} does not exist in this catalog")
        return self.goals[index]

    def index_of(self, task_id: int) -> int:
        """The index of task ``task_id`` in the catalog's task list."""
        self.task_by_id(task_id)
        return self._index[task_id]

    def goal_indices(self, spec: str) -> list[int]:
        """Task indices for ``--goals``: ``splits.json:test``, ``task:3538,5102``, ``hidden-options:N[:SEED]``
        (persona tasks whose request hides a target option, for the multi-turn shopper), or WebShop's forms.
        """
        from shopsim.simsite.goals import parse_goal_spec
        from shopsim.simsite.v8.splits import parse_goal_spec as split_spec
        from shopsim.simsite.v8.splits import read_split_file

        spec = spec.strip()
        if (found := split_spec(spec)) is not None:
            path, name = found
            splits = read_split_file(path)
            if name not in splits:
                raise ConfigError(f"{path}: no split {name!r}; it has {', '.join(splits)}")
            return [self.index_of(i) for i in splits[name]]
        if spec.startswith("hidden-options:"):
            from shopsim.simsite.v8.shopper_tasks import hidden_constraint_tasks

            n, _, seed = spec.removeprefix("hidden-options:").partition(":")
            if not n.isdigit() or not (seed.isdigit() or not seed):
                raise ConfigError(f"bad goal spec {spec!r}: hidden-options:N[:SEED] takes a count and a seed")
            return [self.index_of(i) for i in hidden_constraint_tasks(self, int(n), int(seed or 0))]
        if spec.startswith("task:"):
            try:
                ids = [int(x) for x in spec[5:].split(",") if x.strip()]
            except ValueError as exc:
                raise ConfigError(f"bad goal spec {spec!r}: task:ID[,ID...] takes task ids") from exc
            return [self.index_of(i) for i in ids]
        return parse_goal_spec(spec, len(self.goals))

    def draw_goal_index(self, rng: random.Random) -> int:
        """A uniformly drawn task index, from the caller's seeded rng (v8 tasks carry no weights)."""
        return rng.randrange(len(self.goals))

    def prime_nouns(self) -> None:
        """Cut every product title into its type-reward terms now (jieba; ~1 ms a title, 2 s for the 2,000
        bundled), so no purchase pays for a title it has not seen: the server's warm-up and long runs
        (before they fork workers) call this. The terms are cached per title; rewards do not change.
        """
        for product in self.products.values():
            self.terms(product.title)
        from shopsim.simsite.v8.session import prime_session_caches

        prime_session_caches(self)

