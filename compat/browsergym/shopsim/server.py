"""The shop a task plays on: ``$SHOPSIM_URL`` when set, else ``shopsim serve``'s app started here
(v8 tasks: ``$SHOPSIM_V8_URL``, else ``shopsim serve --profile shopsim-v8`` plus ``$SHOPSIM_V8_SERVE_ARGS``).

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

__all__ = ["oracle_shop", "serve_args", "shop_url", "v8_local_shop", "v8_serve_args", "v8_shop_url"]

_LOCK = threading.Lock()
_LOCAL: dict[str, Any] = {}  # "server": the ServerThread, "shop": its shop, "remote_shop": loaded for $SHOPSIM_URL
_V8: dict[str, Any] = {}  # the same for the v8 service
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


def v8_serve_args() -> argparse.Namespace:
    """``shopsim serve --profile shopsim-v8`` on 127.0.0.1, plus ``$SHOPSIM_V8_SERVE_ARGS``."""
    from shopsim.cli import build_parser

    extra = shlex.split(os.environ.get("SHOPSIM_V8_SERVE_ARGS", ""))
    try:
        args = build_parser().parse_args(["serve", "--profile", "shopsim-v8", *extra, "--host", "127.0.0.1",
                                          "--port", "0"])
    except SystemExit:
        raise ConfigError(f"SHOPSIM_V8_SERVE_ARGS={' '.join(extra)!r}: not valid `shopsim serve` options") from None
    if not get_profile(args.profile).episode_rules:
        raise ConfigError("SHOPSIM_V8_SERVE_ARGS: browsergym.shopsim's v8 tasks serve the shopsim-v8 profile")
    return args


def _start_local(v8: bool = False) -> dict[str, Any]:
    from shopsim.cli.serve import build_app
    from shopsim.simsite.server import ServerThread

    local = _V8 if v8 else _LOCAL
    with _LOCK:
        if "server" not in local:
            app, _banner = build_app(v8_serve_args() if v8 else serve_args())
            server = ServerThread(app, start_timeout_s=START_TIMEOUT_S, lifespan="on").__enter__()
            atexit.register(server.__exit__, None, None, None)
            local.update(server=server, shop=app.state.shop)
    return local


def shop_url() -> str:
    """The base URL tasks open sessions under, without a trailing slash."""
    url = os.environ.get("SHOPSIM_URL", "").strip()
    if url:
        return url.rstrip("/")
    return str(_start_local()["server"].base_url)


def v8_shop_url() -> str:
    """The v8 service's base URL: ``$SHOPSIM_V8_URL``, else one started here (one per process)."""
    url = os.environ.get("SHOPSIM_V8_URL", "").strip()
    return url.rstrip("/") if url else str(_start_local(v8=True)["server"].base_url)


def v8_local_shop() -> Any:
    """The shop of the v8 service started here (None when ``$SHOPSIM_V8_URL`` names another one)."""
    return None if os.environ.get("SHOPSIM_V8_URL", "").strip() else _start_local(v8=True)["shop"]


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
