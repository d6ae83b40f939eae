"""The bundled default catalog: generated, seeded files in WebShop's formats (see ``generator``)."""

from __future__ import annotations

from pathlib import Path

__all__ = ["default_catalog_dir"]


def default_catalog_dir() -> Path:
    """The folder holding the bundled catalog's JSON files."""
    return Path(__file__).resolve().parent
