"""``shopsim serve``: the HTML shop (WebShop's URL scheme) and the JSON API."""

from __future__ import annotations

import argparse

from shopsim.commands import load_shop, shop_args

__all__ = ["register"]


def cmd_serve(args: argparse.Namespace) -> int:
    """Serve the HTML shop and the JSON API."""
    from shopsim.simsite.web import serve

    shop = load_shop(args)
    print(f"shopsim: serving {len(shop.products)} products and {len(shop.goals)} goals on "
          f"http://{args.host}:{args.port}/ (API docs: /api/docs; evaluation runs in {args.runs}/: /runs)",
          flush=True)
    serve(shop, host=args.host, port=args.port, runs_dir=args.runs)
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``serve`` to the command line."""
    sv = sub.add_parser("serve", help="serve the shop (HTML, WebShop URL scheme) and the JSON API")
    sv.add_argument("--host", default="127.0.0.1")
    sv.add_argument("--port", type=int, default=3000)
    sv.add_argument("--runs", default="runs", metavar="DIR", help="folder of evaluation runs to browse at /runs")
    shop_args(sv)
    sv.set_defaults(func=cmd_serve)


