"""shopsim: a WebShop-style simulated shop, a sim-to-real translator layer and a Playwright harness.

The code lives in four subpackages installed under this name:
``shopsim.simsite`` (the shop), ``shopsim.translators`` (page -> PageState -> text),
``shopsim.adapters`` (page sources and environments) and ``shopsim.agents``. This package's own
modules are the contract they share, and import none of them: among them ``page`` (PageState),
``actions`` (the action grammar), ``links`` (the sim's URLs), ``render`` (the text renderer) and
``errors``.
"""

from __future__ import annotations

__version__ = "0.1.0"
__all__ = ["__version__"]
