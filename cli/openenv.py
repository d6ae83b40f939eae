"""``shopsim openenv``: the shop as an OpenEnv environment server, for RL trainers (TRL and others).

Options follow ``shopsim serve``'s (``--host`` 127.0.0.1, ``--port``, ``--session-ttl``, the shop
options); goals are numbered as ``shopsim run`` numbers them (synthetic unless ``--human-goals``).
"""

from __future__ import annotations

import argparse
from typing import Any

from shopsim.cli.options import listen_args, load_shop, run_server, shop_args
from shopsim.errors import ConfigError

__all__ = ["build_app", "register"]

#: What ``shopsim openenv`` listens on by default: OpenEnv's usual port, beside ``shopsim serve``'s 3000.
DEFAULT_PORT = 8000


def build_app(args: argparse.Namespace) -> tuple[Any, str]:
    """The OpenEnv app the command serves and its one-line banner."""
    if args.max_sessions < 1 or not args.session_ttl > 0:  # not "<= 0": nan would pass
        raise ConfigError("--max-sessions and --session-ttl must be positive")
    try:
        from shopsim.adapters.openenv_env import create_openenv_app
    except ModuleNotFoundError as exc:
        missing = (exc.name or "").split(".")[0]
        if missing not in ("openenv", "fastapi", "gradio"):  # the extra's packages; anything else is a real bug
            raise
        raise ConfigError(f"shopsim openenv needs openenv-core ({missing} is missing): "
                          "pip install 'shopsim[openenv]'") from exc
    shop = load_shop(args)
    app = create_openenv_app(shop, observation_mode=args.observation_mode, max_sessions=args.max_sessions,
                             session_ttl_s=args.session_ttl, web=args.web)
    web = f"; web interface: http://{args.host}:{args.port}/web/" if args.web else ""
    banner = (f"shopsim: OpenEnv environment, profile {shop.profile.name}: {len(shop.products)} products, "
              f"{len(shop.goals)} goals, up to {args.max_sessions} sessions on http://{args.host}:{args.port}/ "
              f"(WebSocket /ws; API docs /docs{web})")
    return app, banner


def cmd_openenv(args: argparse.Namespace) -> int:
    """Serve until SIGINT (exit 130) or SIGTERM (exit 0), as ``shopsim serve`` does."""
    app, banner = build_app(args)
    return run_server(app, banner, args, lifespan="on")  # the lifespan starts OpenEnv's idle-session reaper


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``openenv`` to the command line."""
    p = sub.add_parser("openenv", help="serve the shop as an OpenEnv environment (RL trainers: TRL, ...)",
                       description="Serve the shop as an OpenEnv environment: one environment per WebSocket "
                                   "session, reset(goal=N | task_id=T, seed=S), step('search[...]' | 'click[...]'). "
                                   "Needs pip install 'shopsim[openenv]'. Ctrl-C or SIGTERM stops it.")
    listen_args(p, port=DEFAULT_PORT)
    p.add_argument("--max-sessions", type=int, default=64,
                   help="WebSocket sessions (one environment each) open at once; one more is refused")
    p.add_argument("--session-ttl", type=float, default=900.0, metavar="S",
                   help="seconds an idle session lives before the server closes it")
    p.add_argument("--observation-mode", default="text", choices=["text", "text_rich", "url", "html"],
                   help="the observation text's mode (webshop; shopsim-v8 has text only)")
    p.add_argument("--web", action="store_true",
                   help="also serve OpenEnv's web interface (a Gradio playground) at /web/")
    p.add_argument("--access-log", action="store_true", help="print a line per request")
    shop_args(p)
    p.set_defaults(func=cmd_openenv)
