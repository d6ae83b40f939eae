"""Lazy views of an opened store: products, prices and goals as read-only containers.

Each view reads one record when asked (a product is one slice of ``products.bin`` parsed by
pydantic's JSON parser, about 0.1 ms), keeps a small LRU of recent ones, and otherwise holds only
the store's arrays (read once on open, :mod:`.arrays`), which are not copied per view.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, overload

import numpy as np
from pydantic import ValidationError

from shopsim.simsite.goals import human_goal, option_combo, synthetic_goal
from shopsim.simsite.models import Goal, Product
from shopsim.simsite.store.memo import Memo

if TYPE_CHECKING:
    from shopsim.simsite.store.data import StoreData

__all__ = ["HumanGoals", "StorePrices", "StoreProductList", "StoreProducts", "SyntheticGoals"]

_CACHE = 4096


class StoreProducts(Mapping[str, Product]):
    """ASIN -> :class:`Product`, materialised on demand; ``in`` and ``len`` read no product."""

    def __init__(self, data: StoreData, human_goals: bool = False):
        self.data = data
        self.human_goals = human_goals
        self.memo: Memo[int, Product] = Memo(_CACHE)

    def __getstate__(self) -> dict[str, Any]:
        return {"data": self.data, "human_goals": self.human_goals}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["data"], state["human_goals"])  # type: ignore[misc]

    def at(self, doc: int) -> Product:
        """Document ``doc``'s product (the last few thousand asked are kept)."""
        return self.memo.get(doc, self._load)

    def _load(self, doc: int) -> Product:
        raw = self.data.product_bytes(doc)
        if self.human_goals:
            # the loader's human-goal mode: no synthetic instruction, the human records instead
            fields = json.loads(raw)
            fields.update(instruction_text=None, instruction_attributes=None,
                          human_instructions=self.data.human_records(doc))
            return Product.model_validate(fields)
        try:
            return Product.model_validate_json(raw)
        except ValidationError:  # a lone surrogate, stored as an escape pydantic's parser refuses
            return Product.model_validate(json.loads(raw))

    def __getitem__(self, asin: str) -> Product:
        doc = self.data.asins.doc_of(asin) if isinstance(asin, str) else None
        if doc is None:
            raise KeyError(asin)
        return self.at(doc)

    def __contains__(self, asin: object) -> bool:
        return isinstance(asin, str) and self.data.asins.doc_of(asin) is not None

    def __len__(self) -> int:
        return self.data.count

    def __iter__(self) -> Iterator[str]:
        return (self.data.asins.asin_at(d) for d in range(self.data.count))


class StoreProductList(Sequence[Product]):
    """The products in catalog order, materialised on demand (``Shop.product_list``)."""

    def __init__(self, products: StoreProducts):
        self._products = products

    @overload
    def __getitem__(self, i: int) -> Product: ...
    @overload
    def __getitem__(self, i: slice) -> list[Product]: ...

    def __getitem__(self, i: int | slice) -> Product | list[Product]:
        n = len(self)
        if isinstance(i, slice):
            return [self._products.at(d) for d in range(*i.indices(n))]
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError("product index out of range")
        return self._products.at(i)

    def __len__(self) -> int:
        return self._products.data.count


class StorePrices(Mapping[str, float]):
    """ASIN -> price from a price array by document, with optional overrides (``--prices-file``)."""

    def __init__(self, data: StoreData, prices: np.ndarray, overrides: dict[str, float] | None = None):
        self.data, self.array = data, prices
        self.overrides = dict(overrides or {})
        self._extra = [a for a in self.overrides if data.asins.doc_of(a) is None]

    def __getstate__(self) -> dict[str, Any]:
        stored = self.array is self.data.arrays["prices"]  # read again on unpickling, not pickled
        return {**self.__dict__, "array": None if stored else self.array}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        if self.array is None:
            self.array = self.data.arrays["prices"]

    def __getitem__(self, asin: str) -> float:
        if asin in self.overrides:
            return self.overrides[asin]
        doc = self.data.asins.doc_of(asin) if isinstance(asin, str) else None
        if doc is None:
            raise KeyError(asin)
        return float(self.array[doc])

    def __contains__(self, asin: object) -> bool:
        return asin in self.overrides or (isinstance(asin, str) and self.data.asins.doc_of(asin) is not None)

    def __len__(self) -> int:
        return self.data.count + len(self._extra)

    def __iter__(self) -> Iterator[str]:
        yield from (self.data.asins.asin_at(d) for d in range(self.data.count))
        yield from self._extra


class _LazyGoals(Sequence[Goal]):
    """A goal list that builds each :class:`Goal` when asked (with a small LRU)."""

    def __init__(self, count: int):
        self._count = count
        self.memo: Memo[int, Goal] = Memo(_CACHE)

    def __getstate__(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if k != "memo"}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self.memo = Memo(_CACHE)

    def at(self, i: int) -> Goal:
        """Goal ``i`` (the last few thousand asked are kept)."""
        return self.memo.get(i, self._load)

    def _load(self, i: int) -> Goal:
        raise NotImplementedError

    @overload
    def __getitem__(self, i: int) -> Goal: ...
    @overload
    def __getitem__(self, i: slice) -> list[Goal]: ...

    def __getitem__(self, i: int | slice) -> Goal | list[Goal]:
        if isinstance(i, slice):
            return [self.at(j) for j in range(*i.indices(self._count))]
        if i < 0:
            i += self._count
        if not 0 <= i < self._count:
            raise IndexError("goal index out of range")
        return self.at(i)

    def __len__(self) -> int:
        return self._count


class SyntheticGoals(_LazyGoals):
    """WebShop's synthetic goals, in their shuffled order, from the store's goal arrays.

    Goal ``i`` is option combination ``combo[i]`` of product ``doc[i]`` with the price limit drawn
    for that product (``uppers[inst[i]]``, one per product with an instruction, per seed).
    """

    def __init__(self, products: StoreProducts, uppers: np.ndarray):
        super().__init__(len(products.data.arrays["goal_doc"]))
        self.products = products
        self.uppers = uppers

    @property
    def cum_weights(self) -> np.ndarray:
        """The goals' running weight sums (the store's array; the same for every seed)."""
        return self.products.data.arrays["goal_cum"]

    def __getstate__(self) -> dict[str, Any]:
        stored = self.uppers is self.products.data.arrays["inst_upper"]
        return {**super().__getstate__(), "uppers": None if stored else self.uppers}

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        if self.uppers is None:
            self.uppers = self.products.data.arrays["inst_upper"]

    def _load(self, i: int) -> Goal:
        arrays = self.products.data.arrays
        p = self.products.at(int(arrays["goal_doc"][i]))
        return synthetic_goal(p, option_combo(p, int(arrays["goal_combo"][i])),
                              float(self.uppers[int(arrays["goal_inst"][i])]), float(arrays["goal_weight"][i]))


class HumanGoals(_LazyGoals):
    """WebShop's human goals, in their shuffled order: (document, record, price limit) per goal."""

    def __init__(self, products: StoreProducts, docs: list[int], records: list[int], uppers: list[float]):
        super().__init__(len(docs))
        self.products = products
        self.docs, self.records, self.uppers = docs, records, uppers

    def _load(self, i: int) -> Goal:
        p = self.products.at(self.docs[i])
        rec: dict[str, Any] = p.human_instructions[self.records[i]]
        return human_goal(p, rec, self.uppers[i])
