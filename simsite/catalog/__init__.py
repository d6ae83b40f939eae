"""The shop's bundled catalog: WebShop-format JSON files made by ``generator`` (seed 0, 600 products).

The files (``shop_items.json``, ``shop_attributes.json``, ``shop_human_instructions.json``,
``shop_reviews.json``, in WebShop's formats) live next to this module so they ship as package data; regenerate them with
``python -m shopsim.simsite.catalog.generator``.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["default_catalog_dir"]


def default_catalog_dir() -> Path:
    """The folder holding the bundled catalog files (this package's own folder)."""
    return Path(__file__).resolve().parent
