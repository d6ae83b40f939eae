"""``shopsim serve``: the shop and its JSON API, for the chosen profile.

With the webshop profile it serves goals as WebShop's app does: human-written goals whenever the
data has human instructions (``fixed_<n>`` is human goal n; ``--synthetic-goals`` switches back),
and ``--log-dir`` records every session in WebShop's session-log format.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from shopsim.cli.options import listen_args, load_shop, run_server, shop_args
from shopsim.errors import ConfigError, DataError
from shopsim.simsite.perturb import parse_perturb
from shopsim.simsite.profiles import get_profile
from shopsim.simsite.skins import PLAIN_SKIN, SKIN_CHOICES

__all__ = ["build_app", "data_has_human_goals", "load_goals_shop", "register"]


def data_has_human_goals(data: str | Path | None) -> bool:
    """Whether a WebShop data folder (or prepared store; None: the bundled catalog) has human instructions."""
    from shopsim.simsite.catalog import default_catalog_dir
    from shopsim.simsite.datafiles import env_data_dir, find_catalog_files
    from shopsim.simsite.store.manifest import is_store, read_manifest

    folder = Path(data) if data is not None else (env_data_dir() or default_catalog_dir())
    if is_store(folder):
        return read_manifest(folder).human_goals > 0
    return find_catalog_files(folder).human_instructions is not None


def _use_human_goals(args: argparse.Namespace) -> bool:
    """WebShop's app serves human goals (``get_goals``' default); synthetic ones when asked or when there are none."""
    if args.human_goals and args.synthetic_goals:
        raise ConfigError("--human-goals and --synthetic-goals exclude each other")
    if "human_goals" not in get_profile(args.profile).shop_options:
        if args.synthetic_goals:
            raise ConfigError(f"--synthetic-goals is a webshop option; profile {args.profile} has its own tasks")
        return bool(args.human_goals)  # load_shop refuses it with the reason
    if args.synthetic_goals:
        return False
    return bool(args.human_goals) or data_has_human_goals(args.data)


def load_goals_shop(args: argparse.Namespace) -> Any:
    """The shop, with human goals by default; a hint when the default finds none to make."""
    explicit = args.human_goals
    args.human_goals = _use_human_goals(args)
    try:
        return load_shop(args)
    except DataError as exc:
        if args.human_goals and not explicit and "no goals" in str(exc):
            raise DataError(f"{exc}; serve uses the data's human goals by default: pass --synthetic-goals") from exc
        raise


def build_app(args: argparse.Namespace) -> tuple[Any, str]:
    """The app ``serve`` runs and its one-line banner (tests serve it on a loopback thread)."""
    from shopsim.agents.reports.viewer import viewer_routes
    if args.slots < 1 or args.max_sessions < 1 or args.session_ttl <= 0 or args.queue_timeout <= 0:
        raise ConfigError("--slots, --max-sessions, --session-ttl and --queue-timeout must be positive")
    if Path(args.runs).exists() and not Path(args.runs).is_dir():  # a missing folder is fine: it lists no runs
        raise ConfigError(f"--runs {args.runs}: not a folder (give the folder shopsim eval --out writes runs under)")
    profile = get_profile(args.profile)
    perturb = parse_perturb(args.perturb, args.seed)  # an unknown name fails here, in one line
    if (args.skin != PLAIN_SKIN or perturb.active) and profile.lease_policy == "queue":
        raise ConfigError("--skin draws WebShop's HTML pages; the shopsim-v8 profile serves no HTML shop")
    if args.log_dir is not None and profile.lease_policy == "queue":
        raise ConfigError("--log-dir records WebShop's HTML sessions; the shopsim-v8 profile has none")
    shop = load_goals_shop(args)
    viewer = viewer_routes(args.runs)
    factory = profile.part("app_factory")
    if profile.lease_policy == "queue":
        app = factory(shop, slots=args.slots, queue_timeout_s=args.queue_timeout, session_ttl_s=args.session_ttl,
                      extra_routes=viewer, runs_dir=args.runs)
        what = f"{len(shop.goals)} tasks, {args.slots} slots (queued when full)"
        pages = "debug UI: /debug-ui; replay UI: /replay-ui"
    else:
        app = factory(shop, extra_routes=viewer, max_sessions=args.max_sessions, session_ttl_s=args.session_ttl,
                      log_dir=args.log_dir, skin=args.skin, perturb=perturb)
        what = f"{len(shop.goals)} {'human' if args.human_goals else 'synthetic'} goals"
        pages = "API docs: /api/docs" + (f"; session logs in {args.log_dir}/" if args.log_dir is not None else "")
    banner = (f"shopsim: serving profile {profile.name}: {len(shop.products)} products and {what} on "
              f"http://{args.host}:{args.port}/ ({pages}; evaluation runs in {args.runs}/: /runs)")
    return app, banner


def cmd_serve(args: argparse.Namespace) -> int:
    """Serve the profile's app: WebShop's HTML shop + API, or the v8 API with leased slots.

    One SIGINT (Ctrl-C) or SIGTERM stops the server within about two seconds, however stuck its
    clients are (see ``ShopServer``); the exit status is 130 after SIGINT, as for any interrupted
    command, and 0 after SIGTERM, the ordinary way a supervisor asks a service to stop.
    """
    app, banner = build_app(args)
    return run_server(app, banner, args, lifespan="auto", http=args.http, loop=args.loop)


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``serve`` to the command line."""
    sv = sub.add_parser("serve", help="serve the shop (HTML, WebShop URL scheme) and the JSON API",
                        description="Serve the shop and its JSON API. One Ctrl-C (SIGINT) or SIGTERM stops it within "
                                    "about two seconds, cutting off clients that are still sending or waiting; the "
                                    "exit status is then 130 (SIGINT) or 0 (SIGTERM).")
    listen_args(sv, port=3000)
    sv.add_argument("--skin", default="webshop", choices=SKIN_CHOICES,
                    help="draw the shop's pages like a real site (amazon, ebay, a schema.org generic shop), or "
                         "random: one per session (docs/skins.md)")
    sv.add_argument("--perturb", default="none", help="seeded page variations over the skin, comma-separated: sponsored, count, order, price_range, "
                         "out_of_stock, lazy, banner, locale=de|fr, labels=de|fr, or random (docs/skins.md)")
    sv.add_argument("--runs", default="runs", metavar="DIR",
                    help="folder of evaluation runs to browse at /runs (and, shopsim-v8, to replay at /replay-ui); "
                         "default: runs/ (a missing folder lists no runs)")
    sv.add_argument("--slots", type=int, default=8, help="shopsim-v8: environment slots (env_idx 0..N-1)")
    sv.add_argument("--queue-timeout", type=float, default=60.0, metavar="S",
                    help="shopsim-v8: seconds a reset waits for a free slot before a 503")
    sv.add_argument("--max-sessions", type=int, default=1000, help="webshop: open API sessions before a 429")
    sv.add_argument("--session-ttl", type=float, default=900.0, metavar="S",
                    help="seconds an idle session (lease) lives before it expires and frees its slot")
    sv.add_argument("--log-dir", default=None, metavar="DIR",
                    help="webshop: write every session's pages to DIR/<session>.jsonl in WebShop's session-log "
                         "format (demonstrations: shopsim data demos --logs DIR)")
    sv.add_argument("--synthetic-goals", action="store_true",
                    help="webshop: serve synthetic goals even when the data has human-written ones (the default, "
                         "as in WebShop's app: fixed_<n> is human goal n)")
    sv.add_argument("--access-log", action="store_true",
                    help="print a line per request (off by default: it costs more than a JSON step's own HTTP handling)")
    sv.add_argument("--http", default="auto", choices=["auto", "httptools", "h11"],
                    help="uvicorn's HTTP parser (auto: httptools when installed; see docs/serving.md)")
    sv.add_argument("--loop", default="auto", choices=["auto", "uvloop", "asyncio"],
                    help="uvicorn's event loop (auto: uvloop when installed; see docs/serving.md)")
    shop_args(sv)
    sv.set_defaults(func=cmd_serve)
