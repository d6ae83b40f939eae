"""Helpers shared by the ``shopsim`` sub-commands (one module per command in this package)."""

from __future__ import annotations

import argparse

from shopsim.errors import ConfigError
from shopsim.simsite.shop import Shop, ShopConfig

__all__ = ["agent_options", "load_shop", "print_table", "shop_args"]


def shop_args(p: argparse.ArgumentParser) -> None:
    """The options that choose a catalog and its goals."""
    p.add_argument("--data", default=None, help="folder with WebShop-format files (default: the bundled catalog)")
    p.add_argument("--num-products", type=int, default=None, help="use only the first N products")
    p.add_argument("--human-goals", action="store_true", help="use human-written goals instead of synthetic ones")
    p.add_argument("--seed", type=int, default=0, help="seed for prices, price limits and goal draws")


def agent_options(pairs: list[str] | None) -> dict[str, str]:
    """``["model=gpt-x", "base_url=http://..."]`` -> ``{"model": "gpt-x", ...}`` for ``--agent-option``."""
    out: dict[str, str] = {}
    for pair in pairs or []:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise ConfigError(f"--agent-option {pair!r}: expected KEY=VALUE")
        out[key.strip()] = value
    return out


def load_shop(args: argparse.Namespace) -> Shop:
    """The shop the options describe."""
    return Shop.from_config(ShopConfig(data_dir=args.data, num_products=args.num_products,
                                       human_goals=args.human_goals, seed=args.seed))


def print_table(rows: list[tuple[str, str]]) -> None:
    """Two aligned columns."""
    width = max(len(k) for k, _ in rows)
    for k, v in rows:
        print(f"  {k:<{width}}  {v}")
