"""An opened store: its checked manifest, arrays and blobs, and the shop built over them.

Opening reads the manifest and the arrays (into memory: a truncated file can then fail a request,
never kill the process); nothing is parsed per product. Prices and goals for
the stored seed are read as they are; another seed redraws them from the stored price ranges in
WebShop's order (a fraction of a second of rng draws per 100k products), and ``human_goals``
draws the human goals' limits the same way, so every config ``Shop.load(DIR)`` accepts gives the
same goals and prices from a store.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import random
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from shopsim.errors import ConfigError, DataError
from shopsim.simsite.goals import GOAL_SHUFFLE_SEED, load_goal_file, load_price_file, price_limit
from shopsim.simsite.store.arrays import load_array
from shopsim.simsite.store.asins import AsinTable
from shopsim.simsite.store.blob import Blob
from shopsim.simsite.store.index import StoreIndex
from shopsim.simsite.store.manifest import StoreManifest, check_store, verify_files, write_stamp
from shopsim.simsite.store.tags import NOUN_FILES, StoreTags
from shopsim.simsite.store.views import (
    HumanGoals,
    StorePrices,
    StoreProductList,
    StoreProducts,
    SyntheticGoals,
)

if TYPE_CHECKING:
    from shopsim.simsite.search import SearchEngine
    from shopsim.simsite.shop import Shop, ShopConfig

__all__ = ["ARRAYS", "StoreData", "store_shop", "verify_store"]

#: Array files (``NAME.npy``) every store holds, besides the blobs and the index.
ARRAYS = ("products_offsets", "human_offsets", "asins", "asins_sorted", "asins_sorted_docs", "id_rank", "prices",
          "price_lo", "price_hi", "price_is_range", "inst_docs", "inst_upper", "goal_doc", "goal_combo", "goal_inst",
          "goal_weight", "goal_cum", "hgoal_doc", "hgoal_rec")
BLOBS = ("products.bin", "human.bin")


class StoreData:
    """The files of one store: its arrays read into memory, its blobs and postings read as needed
    (open with :meth:`open`; nothing is mapped, see :mod:`.arrays`).
    """

    def __init__(self, root: Path, manifest: StoreManifest):
        self.root, self.manifest = root, manifest
        self.arrays: dict[str, np.ndarray] = {name: load_array(root / f"{name}.npy") for name in ARRAYS}
        self._products = Blob(root / "products.bin")
        self._human = Blob(root / "human.bin")
        self._offsets = self.arrays["products_offsets"]
        self._human_offsets = self.arrays["human_offsets"]
        self.asins = AsinTable(self.arrays["asins"], self.arrays["asins_sorted"], self.arrays["asins_sorted_docs"])
        self.count = self.asins.count
        self.index = StoreIndex(root, self.asins, self.arrays["id_rank"], self)

    @classmethod
    def open(cls, root: str | Path) -> StoreData:
        """Check the store (format, sizes, stamps: see :mod:`.manifest`) and open it."""
        path = Path(root)
        return cls(path, check_store(path))

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        # pickled by path: another process on this host re-opens (and re-checks) the store and
        # shares its page cache, instead of receiving pickled copies of its arrays
        return StoreData.open, (str(self.root),)

    # ---- products ---------------------------------------------------------------------------------
    def product_bytes(self, doc: int) -> bytes:
        """Document ``doc``'s product, as the JSON stored."""
        return self._products.read(int(self._offsets[doc]), int(self._offsets[doc + 1]))

    def human_records(self, doc: int) -> list[dict[str, Any]]:
        """Document ``doc``'s human-written instruction records (``[]`` for none)."""
        raw = self._human.read(int(self._human_offsets[doc]), int(self._human_offsets[doc + 1]))
        return json.loads(raw) if raw else []

    # ---- prices and goals ----------------------------------------------------------------------
    def prices_for(self, seed: int) -> tuple[np.ndarray, random.Random]:
        """Prices drawn with ``seed`` (WebShop's order), and the rng as the draws leave it."""
        if seed == self.manifest.seed:
            rng = random.Random(seed)
            for _ in range(self.manifest.range_prices):  # uniform() is one random() call
                rng.random()
            return self.arrays["prices"], rng
        return self.draw_prices(seed)

    def draw_prices(self, seed: int) -> tuple[np.ndarray, random.Random]:
        """Prices drawn now from the stored ranges (what :meth:`prices_for` gives for another seed)."""
        rng = random.Random(seed)
        lo, hi = self.arrays["price_lo"], self.arrays["price_hi"]
        prices = np.array(lo, dtype=np.float64)
        for d in np.flatnonzero(self.arrays["price_is_range"]):
            prices[d] = rng.uniform(float(lo[d]), float(hi[d]))
        return prices, rng

    def synthetic_uppers(self, seed: int, prices: np.ndarray, rng: random.Random) -> np.ndarray:
        """The price limit of each product with an instruction, in catalog order, for ``seed``."""
        if seed == self.manifest.seed:
            return self.arrays["inst_upper"]
        return self.draw_uppers(prices, rng)

    def draw_uppers(self, prices: np.ndarray, rng: random.Random) -> np.ndarray:
        """The synthetic goals' price limits drawn now (what :meth:`synthetic_uppers` gives for another seed)."""
        return np.array([price_limit(float(prices[d]), rng)[0] for d in self.arrays["inst_docs"]], dtype=np.float64)

    def fingerprint(self, *parts: str) -> str:
        """A digest of the store's files and the config parts given (goal and price choices)."""
        h = hashlib.sha256(self.manifest.format.encode())
        for name in sorted(self.manifest.files):
            h.update(f"\n{name}={self.manifest.files[name].sha256}".encode())
        for part in parts:
            h.update(f"\n{part}".encode())
        return h.hexdigest()


def _settings_problem(data: StoreData) -> str | None:
    """What disagrees between the manifest's recorded settings and the arrays (None when all agree):
    counts, the seed (prices and goal limits are drawn again with it), and values no store holds
    (NaN, negative prices, document numbers outside the catalog).
    """
    m, a = data.manifest, data.arrays
    counts = {"products": (m.products, len(a["asins"])), "goals": (m.goals, len(a["goal_doc"])),
              "human_goals": (m.human_goals, len(a["hgoal_doc"])),
              "range_prices": (m.range_prices, int(np.count_nonzero(a["price_is_range"]))),
              "terms": (m.terms, data.index.term_count), "postings": (m.postings, data.index.posting_count)}
    for field, (want, found) in counts.items():
        if want != found:
            return f"store.json says {field}={want}, the arrays hold {found}"
    for name in ("prices", "price_lo", "price_hi", "inst_upper", "goal_weight", "goal_cum"):
        if not bool(np.all(np.isfinite(a[name]))) or bool(np.any(a[name] < 0)):
            return f"{name}.npy holds NaN, infinite or negative values"
    for name in ("goal_doc", "hgoal_doc", "inst_docs", "asins_sorted_docs"):
        if len(a[name]) and (int(a[name].min()) < 0 or int(a[name].max()) >= data.count):
            return f"{name}.npy holds document numbers outside the catalog"
    problem = data.index.problem()
    if problem:
        return problem
    prices, rng = data.draw_prices(m.seed)
    if not np.array_equal(prices, a["prices"]):
        return f"prices.npy are not the prices seed={m.seed} draws (store.json's seed or the array changed)"
    if not np.array_equal(data.draw_uppers(prices, rng), a["inst_upper"]):
        return f"inst_upper.npy are not the goal limits seed={m.seed} draws (store.json's seed or the array changed)"
    return None


def verify_store(root: str | Path) -> StoreManifest:
    """The full check (``shopsim data verify``): every file's SHA-256 and every recorded setting;
    re-stamps the modification times when all agree (a store copied without them opens again).
    """
    path = Path(root)
    manifest = verify_files(path)
    problem = _settings_problem(StoreData(path, manifest))
    if problem:
        raise DataError(f"{path}: altered store: {problem}; prepare it again")
    write_stamp(path, manifest)
    return manifest


def _file_digest(path: str | Path | None) -> str:
    if path is None:
        return "-"
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError:
        return "?"


def store_shop(config: ShopConfig, search: SearchEngine | None = None) -> Shop:
    """The :class:`Shop` ``config`` describes, over the store at ``config.data_dir``."""
    from shopsim.simsite.search import LuceneEngine, make_engine
    from shopsim.simsite.shop import Shop

    data = StoreData.open(Path(str(config.data_dir)))
    manifest = data.manifest
    if config.num_products is not None and config.num_products < manifest.records:
        raise ConfigError(f"--num-products {config.num_products}: a prepared store cannot be cut (its index covers "
                          f"all {manifest.records} records); prepare one with --num-products {config.num_products}")
    products = StoreProducts(data, human_goals=config.human_goals)
    price_array, rng = data.prices_for(config.seed)
    prices = StorePrices(data, price_array)
    goals: Any
    if config.goals_file is not None:
        goals = load_goal_file(config.goals_file)
        if config.prices_file is not None:
            prices = StorePrices(data, price_array, load_price_file(config.prices_file))
        cum: Any = list(itertools.accumulate(g.weight for g in goals))
    elif config.human_goals:
        docs = [int(d) for d in data.arrays["hgoal_doc"]]
        uppers = [price_limit(float(price_array[d]), rng)[0] for d in docs]
        order = list(range(len(docs)))
        random.Random(GOAL_SHUFFLE_SEED).shuffle(order)
        records = [int(r) for r in data.arrays["hgoal_rec"]]
        goals = HumanGoals(products, [docs[i] for i in order], [records[i] for i in order], [uppers[i] for i in order])
        cum = list(itertools.accumulate(1.0 for _ in order))
    else:
        uppers_array = data.synthetic_uppers(config.seed, price_array, rng)
        goals = SyntheticGoals(products, uppers_array)
        cum = goals.cum_weights
    if not len(goals):
        raise DataError(f"{config.data_dir}: no goals could be made (no instructions in the attribute file?)")
    if search is None:
        kind = config.extra.get("engine", "lucene")
        search = LuceneEngine.from_index(data.index) if kind == "lucene" else make_engine(StoreProductList(products), kind)
    fingerprint = data.fingerprint(f"seed={config.seed}", f"human_goals={config.human_goals}",
                                   f"goals_file={_file_digest(config.goals_file)}",
                                   f"prices_file={_file_digest(config.prices_file if config.goals_file else None)}")
    shop = Shop.from_parts(products, StoreProductList(products), prices, goals, search, cum_weights=cum,
                           show_attrs=config.show_attrs, fingerprint=fingerprint)
    if manifest.nouns is not None and manifest.nouns == shop.nouns.tagger.version:  # else tagged when bought
        shop.nouns.add_table(f"store:{manifest.files[NOUN_FILES[0]].sha256}", StoreTags(data.root))
    return shop
