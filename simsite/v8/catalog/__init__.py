"""The bundled ShopSimulator v8 catalog: 2,000 generated products with their tasks (seed 0).

``shop_v8_products.json.gz`` is one JSON array in ShopSimulator's product format, written by
:mod:`shopsim.simsite.v8.catalog.generator`; regenerate it with
``python -m shopsim.simsite.v8.catalog.generator --products 2000 --seed 0``.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["CATALOG_FILE", "default_v8_catalog"]

CATALOG_FILE = "shop_v8_products.json.gz"


def default_v8_catalog() -> Path:
    """The path of the bundled v8 catalog (a gzipped JSON array of products)."""
    return Path(__file__).resolve().parent / CATALOG_FILE
