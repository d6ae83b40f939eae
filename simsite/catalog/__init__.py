"""The shop's bundled catalog: WebShop-format JSON files made by ``generator`` (seed 0, 600 products).

The files (``items_shuffle.json``, ``items_ins_v2.json``, ``items_human_ins.json``,
``reviews.json``) live next to this module so they ship as package data; regenerate them with
``python -m shopsim.simsite.catalog.generator``.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["default_catalog_dir"]


def default_catalog_dir() -> Path:
    """The folder holding the bundled catalog files (this package's own folder)."""
    return Path(__file__).resolve().parent
