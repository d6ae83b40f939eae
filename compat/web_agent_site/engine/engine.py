"""WebShop's ``web_agent_site.engine.engine``: catalog loading, the search engine, action parsing.

``load_products`` returns WebShop's four values (product dicts, ``asin -> dict``, prices, attribute ->
asins) from shopsim's loader; ``init_search_engine`` returns a Pyserini-``LuceneSearcher``-shaped
object over shopsim's own Lucene BM25 (the same rankings as WebShop's index, without Java), so
``get_top_n_product_from_keywords`` reads hits exactly as WebShop does.
"""

from __future__ import annotations

import ast
import itertools
import json
import random
import re
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from shopsim.adapters.webshop_server import product_dict
from shopsim.simsite.datafiles import find_catalog_files
from shopsim.simsite.goals import generate_prices
from shopsim.simsite.loader import load_products as sim_load_products
from shopsim.simsite.models import Product
from shopsim.simsite.search import make_engine, product_document
from shopsim.simsite.shop import Shop
from shopsim.simsite.store.manifest import is_store
from web_agent_site import utils
from web_agent_site.engine.goal import to_product

__all__ = [
    "ACTION_TO_TEMPLATE",
    "BACK_TO_SEARCH",
    "END_BUTTON",
    "NEXT_PAGE",
    "PREV_PAGE",
    "PRODUCT_WINDOW",
    "SEARCH_RETURN_N",
    "TOP_K_ATTR",
    "LuceneSearcher",
    "convert_web_app_string_to_var",
    "generate_product_prices",
    "get_product_per_page",
    "get_top_n_product_from_keywords",
    "init_search_engine",
    "load_products",
    "parse_action",
]

SEARCH_RETURN_N = 50
PRODUCT_WINDOW = 10
TOP_K_ATTR = 10
END_BUTTON = "Buy Now"
NEXT_PAGE = "Next >"
PREV_PAGE = "< Prev"
BACK_TO_SEARCH = "Back to Search"
ACTION_TO_TEMPLATE = {
    "Description": "description_page.html",
    "Features": "features_page.html",
    "Reviews": "review_page.html",
    "Attributes": "attributes_page.html",
}
_ACTION = re.compile(r"(.+)\[(.+)\]")


def parse_action(action: str) -> tuple[str, str | None]:
    """WebShop's split of ``name[arg]`` (its regex, quirks included: no match gives ``(action, None)``)."""
    m = _ACTION.match(action)
    if m is None:
        return action, None
    name, arg = m.groups()
    return name, arg


def convert_web_app_string_to_var(name: str, string: str) -> Any:
    """A URL segment of WebShop's web app as a value: ``keywords`` (a list) or ``page`` (an int)."""
    if name == "keywords":
        return ast.literal_eval(string) if string.startswith("[") else [string]
    if name == "page":
        return int(string)
    raise ValueError("Name of variable not recognized.")


def _products(filepath: str | Path, num_products: int | None, human_goals: bool) -> list[Product]:
    """The products of an items file (its side files beside it), a data folder, or a prepared store."""
    path = Path(filepath)
    if is_store(path):
        products = Shop.load(path, human_goals=human_goals).product_list
        return list(itertools.islice(products, num_products))
    files = find_catalog_files(path, None) if path.is_dir() else find_catalog_files(path.parent, items=path)
    return sim_load_products(files, num_products=num_products, human_goals=human_goals)


def load_products(filepath: str | Path, num_products: int | None = None, human_goals: bool = True
                  ) -> tuple[list[dict[str, Any]], dict[str, dict[str, Any]], dict[str, float], dict[str, set[str]]]:
    """``(all_products, product_item_dict, product_prices, attribute_to_asins)`` as WebShop's ``load_products``.

    The attribute, human-instruction and review files are the ones beside ``filepath``. Prices are
    drawn from the global ``random`` (WebShop's draw order).
    """
    products = _products(filepath, num_products, human_goals)
    all_products = [product_dict(p, human_goals) for p in products]
    attribute_to_asins: dict[str, set[str]] = defaultdict(set)
    for p in all_products:
        for a in p["Attributes"]:
            attribute_to_asins[a].add(p["asin"])
    prices = generate_prices(products, random)  # type: ignore[arg-type]  # the module has Random's methods
    return all_products, {p["asin"]: p for p in all_products}, prices, attribute_to_asins


def generate_product_prices(all_products: Sequence[Mapping[str, Any]]) -> dict[str, float]:
    """A price per product from the global ``random``: a range's uniform draw, a single price, or 100."""
    return generate_prices([to_product(p) for p in all_products], random)  # type: ignore[arg-type]


@dataclass(frozen=True)
class _Hit:
    docid: str
    score: float


@dataclass(frozen=True)
class _Document:
    """What ``LuceneSearcher.doc`` returns: ``raw()`` is the indexed JSON (``id`` is the ASIN)."""

    _docid: str
    _contents: str

    def docid(self) -> str:
        """The document's id (the ASIN)."""
        return self._docid

    def contents(self) -> str:
        """The indexed text."""
        return self._contents

    def raw(self) -> str:
        """The indexed JSON."""
        return json.dumps({"id": self._docid, "contents": self._contents})


class LuceneSearcher:
    """Pyserini's ``LuceneSearcher`` surface (``search(q, k)`` -> hits with ``docid``/``score``, ``doc(id)``)
    over shopsim's Lucene-equivalent BM25 of a catalog's products."""

    def __init__(self, products: Sequence[Product]):
        self._engine = make_engine(products, "lucene")
        self._contents = {p.asin: product_document(p) for p in products}

    def search(self, q: str, k: int = 10) -> list[_Hit]:
        """The top ``k`` hits, best first, as Lucene ranks them (k1=0.9, b=0.4)."""
        return [_Hit(asin, score) for asin, score in self._engine.scored(q, k)]

    def doc(self, docid: str) -> _Document | None:
        """The document with that id, or None."""
        return _Document(docid, self._contents[docid]) if docid in self._contents else None

    @property
    def num_docs(self) -> int:
        return len(self._contents)


def init_search_engine(num_products: int | None = None) -> LuceneSearcher:
    """A searcher over the first ``num_products`` products of ``utils.DEFAULT_FILE_PATH`` (any size, not
    only WebShop's prebuilt 100 / 1k / 100k / all indexes)."""
    path = utils.default_file(utils.DEFAULT_FILE_PATH)
    if path is None:
        return LuceneSearcher(Shop.load(num_products=num_products).product_list)
    return LuceneSearcher(_products(path, num_products, human_goals=False))


def get_top_n_product_from_keywords(
    keywords: list[str],
    search_engine: LuceneSearcher,
    all_products: Sequence[dict[str, Any]],
    product_item_dict: Mapping[str, dict[str, Any]],
    attribute_to_asins: Mapping[str, set[str]] | None = None,
) -> list[dict[str, Any]]:
    """WebShop's result list: ``<r>`` random 50, ``<a> attr``, ``<c> category``, ``<q> query``, else a search."""
    head = keywords[0]
    if head == "<r>":
        return random.sample(list(all_products), k=SEARCH_RETURN_N)
    if head == "<a>":
        asins = (attribute_to_asins or {})[" ".join(keywords[1:]).strip()]
        return [p for p in all_products if p["asin"] in asins]
    if head == "<c>":
        return [p for p in all_products if p["category"] == keywords[1].strip()]
    if head == "<q>":
        query = " ".join(keywords[1:]).strip()
        return [p for p in all_products if p["query"] == query]
    hits = search_engine.search(" ".join(keywords), k=SEARCH_RETURN_N)
    docs = [search_engine.doc(hit.docid) for hit in hits]
    hit_asins = [json.loads(doc.raw())["id"] for doc in docs if doc is not None]
    return [product_item_dict[a] for a in hit_asins if a in product_item_dict]


def get_product_per_page(top_n_products: Sequence[Any], page: int) -> list[Any]:
    """Page ``page`` (1-based) of ``PRODUCT_WINDOW`` results."""
    return list(top_n_products[(page - 1) * PRODUCT_WINDOW : page * PRODUCT_WINDOW])
