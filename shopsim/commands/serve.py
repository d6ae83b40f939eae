"""``shopsim serve``: the shop and its JSON API, for the chosen profile."""

from __future__ import annotations

import argparse
import signal

from shopsim.commands import load_shop, shop_args
from shopsim.errors import ConfigError

__all__ = ["register"]


def cmd_serve(args: argparse.Namespace) -> int:
    """Serve the profile's app: WebShop's HTML shop + API, or the v8 API with leased slots.

    One SIGINT (Ctrl-C) or SIGTERM stops the server within about two seconds, however stuck its
    clients are (see ``ShopServer``); the exit status is 130 after SIGINT, as for any interrupted
    command, and 0 after SIGTERM, the ordinary way a supervisor asks a service to stop.
    """
    from shopsim.simsite.profiles import get_profile
    from shopsim.simsite.server import ShopServer

    if args.slots < 1 or args.max_sessions < 1 or args.session_ttl <= 0 or args.queue_timeout <= 0:
        raise ConfigError("--slots, --max-sessions, --session-ttl and --queue-timeout must be positive")
    from shopsim.agents.viewer import viewer_routes

    profile = get_profile(args.profile)
    shop = load_shop(args)
    viewer = viewer_routes(args.runs)
    factory = profile.part("app_factory")
    if profile.lease_policy == "queue":
        app = factory(shop, slots=args.slots, queue_timeout_s=args.queue_timeout, session_ttl_s=args.session_ttl,
                      extra_routes=viewer)
        what = f"{len(shop.goals)} tasks, {args.slots} slots (queued when full)"
        pages = "debug UI: /debug-ui"
    else:
        app = factory(shop, extra_routes=viewer, max_sessions=args.max_sessions, session_ttl_s=args.session_ttl)
        what = f"{len(shop.goals)} goals"
        pages = "API docs: /api/docs"
    print(f"shopsim: serving profile {profile.name}: {len(shop.products)} products and {what} on "
          f"http://{args.host}:{args.port}/ ({pages}; evaluation runs in {args.runs}/: /runs)", flush=True)
    server = ShopServer(app, host=args.host, port=args.port, log_level="info", lifespan="auto")
    server.run()
    return 130 if server.stop_signal == signal.SIGINT else 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``serve`` to the command line."""
    sv = sub.add_parser("serve", help="serve the shop (HTML, WebShop URL scheme) and the JSON API",
                        description="Serve the shop and its JSON API. One Ctrl-C (SIGINT) or SIGTERM stops it within "
                                    "about two seconds, cutting off clients that are still sending or waiting; the "
                                    "exit status is then 130 (SIGINT) or 0 (SIGTERM).")
    sv.add_argument("--host", default="127.0.0.1")
    sv.add_argument("--port", type=int, default=3000)
    sv.add_argument("--runs", default="runs", metavar="DIR", help="folder of evaluation runs to browse at /runs")
    sv.add_argument("--slots", type=int, default=8, help="shopsim-v8: environment slots (env_idx 0..N-1)")
    sv.add_argument("--queue-timeout", type=float, default=60.0, metavar="S",
                    help="shopsim-v8: seconds a reset waits for a free slot before a 503")
    sv.add_argument("--max-sessions", type=int, default=1000, help="webshop: open API sessions before a 429")
    sv.add_argument("--session-ttl", type=float, default=900.0, metavar="S",
                    help="seconds an idle session (lease) lives before it expires and frees its slot")
    shop_args(sv)
    sv.set_defaults(func=cmd_serve)
