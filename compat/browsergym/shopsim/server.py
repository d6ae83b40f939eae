"""The shop a task plays on: ``$SHOPSIM_URL`` when set, else ``shopsim serve``'s app started here.

The local server is the very app ``shopsim serve`` builds (same defaults: ``$SHOPSIM_DATA`` or the
bundled catalog, human goals where the data has them, seed 0; ``$SHOPSIM_SERVE_ARGS`` adds serve
options such as ``--data DIR --seed 1``), served on a free 127.0.0.1 port from a thread of this
process: started by the first task that needs it, shared by every later one, stopped at exit.
Running it in-process lets ``cheat`` read the served shop itself for the oracle's path.
"""

from __future__ import annotations

import argparse
import atexit
import os
import shlex
import threading
from typing import Any

from shopsim.errors import ConfigError
from shopsim.simsite.profiles import get_profile

__all__ = ["oracle_shop", "serve_args", "shop_url"]

_LOCK = threading.Lock()
_LOCAL: dict[str, Any] = {}  # "server": the ServerThread, "shop": its shop, "remote_shop": loaded for $SHOPSIM_URL
START_TIMEOUT_S = 300.0  # loading a large catalog and warming up may take minutes on busy cores


def serve_args() -> argparse.Namespace:
    """``shopsim serve``'s options on 127.0.0.1, plus ``$SHOPSIM_SERVE_ARGS``; a bad option is a ConfigError."""
    from shopsim.cli import build_parser

    extra = shlex.split(os.environ.get("SHOPSIM_SERVE_ARGS", ""))
    try:
        args = build_parser().parse_args(["serve", *extra, "--host", "127.0.0.1", "--port", "0"])
    except SystemExit:  # argparse has printed its one line
        raise ConfigError(f"SHOPSIM_SERVE_ARGS={' '.join(extra)!r}: not valid `shopsim serve` options") from None
    if "browser" not in get_profile(args.profile).adapters:
        raise ConfigError("SHOPSIM_SERVE_ARGS: browsergym.shopsim serves the webshop profile's HTML shop")
    return args


def _start_local() -> dict[str, Any]:
    from shopsim.cli.serve import build_app
    from shopsim.simsite.server import ServerThread

    with _LOCK:
        if "server" not in _LOCAL:
            app, _banner = build_app(serve_args())
            server = ServerThread(app, start_timeout_s=START_TIMEOUT_S, lifespan="on").__enter__()
            atexit.register(server.__exit__, None, None, None)
            _LOCAL.update(server=server, shop=app.state.shop)
    return _LOCAL


def shop_url() -> str:
    """The base URL tasks open sessions under, without a trailing slash."""
    url = os.environ.get("SHOPSIM_URL", "").strip()
    if url:
        return url.rstrip("/")
    return str(_start_local()["server"].base_url)


def oracle_shop() -> Any:
    """The shop behind :func:`shop_url`: the local server's own, or one loaded with the same options
    for ``$SHOPSIM_URL`` (which must then serve those options, checked by the caller).
    """
    if not os.environ.get("SHOPSIM_URL", "").strip():
        return _start_local()["shop"]
    from shopsim.cli.serve import load_goals_shop

    with _LOCK:
        if "remote_shop" not in _LOCAL:
            _LOCAL["remote_shop"] = load_goals_shop(serve_args())
    return _LOCAL["remote_shop"]
