"""Helpers shared by the ``shopsim`` sub-commands (one module per command in this package)."""

from __future__ import annotations

import argparse
import signal
from typing import Any

from shopsim.errors import ConfigError
from shopsim.simsite.datafiles import env_data_dir
from shopsim.simsite.profiles import Profile, ShopLike
from shopsim.simsite.shop import ShopConfig
from shopsim.v8.runtime import MAX_ACTIONS

__all__ = ["agent_options", "agent_timeout_arg", "agent_timeouts", "engine_extra", "listen_args", "load_shop",
           "max_steps_for", "port_number", "print_table", "run_server", "seed_arg", "shop_args"]


def seed_arg(text: str) -> int:
    """``--seed``: an int of at least 0, refused by argparse in one line (gymnasium, numpy's generators and
    the perturbation spec refuse a negative seed with a traceback of their own).
    """
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, got {value}")
    return value


def shop_args(p: argparse.ArgumentParser) -> None:
    """The options that choose a profile, a catalog and its goals."""
    from shopsim.simsite.profiles import PROFILES

    p.add_argument("--profile", default="webshop", choices=sorted(PROFILES),
                   help="environment contract: webshop (default) or shopsim-v8 (ShopSimulator)")
    p.add_argument("--data", default=None,
                   help="webshop: folder with WebShop-format files or a prepared store; shopsim-v8: a products "
                        ".json/.json.gz or a prepared folder (default: webshop: $SHOPSIM_DATA, else the bundled "
                        "catalog; shopsim-v8: the bundled catalog)")
    p.add_argument("--num-products", type=int, default=None, help="use only the first N products")
    p.add_argument("--human-goals", action="store_true", help="use human-written goals instead of synthetic ones")
    p.add_argument("--seed", type=seed_arg, default=0, help="seed for prices, price limits and goal draws")
    p.add_argument("--engine", default=None,
                   help="search engine: webshop: lucene (default: WebShop's own rankings), bm25 or rank-bm25; "
                        "shopsim-v8: numpy (default) or fts5")


def port_number(text: str) -> int:
    """``--port``'s type: 0-65535. Past that, uvicorn binds the port modulo 65536 (70000 -> 4464) while
    the banner names the one asked for, so a client never finds the server.
    """
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid int value: {text!r}") from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"{port} is not a port (0-65535)")
    return port


def listen_args(p: argparse.ArgumentParser, *, port: int) -> None:
    """``--host`` (loopback unless asked: a shop server is for this machine's agents) and ``--port``, for the servers."""
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default: 127.0.0.1, this machine only)")
    p.add_argument("--port", type=port_number, default=port, help=f"port to listen on (default: {port})")


def run_server(app: Any, banner: str, args: argparse.Namespace, **server_kw: Any) -> int:
    """Print the banner and serve ``app`` on ``--host``/``--port`` until one SIGINT (exit 130) or SIGTERM (exit 0).

    SIGTERM is the ordinary way a supervisor asks a service to stop, hence 0; after Ctrl-C, 130, as
    for any interrupted command (see ``ShopServer``: stopped within about two seconds).
    """
    from shopsim.simsite.server import ShopServer

    print(banner, flush=True)
    server = ShopServer(app, host=args.host, port=args.port, log_level="info", access_log=args.access_log, **server_kw)
    server.run()
    return 130 if server.stop_signal == signal.SIGINT else 0


def engine_extra(engine: str | None) -> dict[str, str]:
    """``ShopConfig.extra`` for ``--engine`` (empty: the profile's default engine)."""
    return {"engine": engine} if engine else {}


def agent_options(pairs: list[str] | None) -> dict[str, str]:
    """``["model=gpt-x", "base_url=http://..."]`` -> ``{"model": "gpt-x", ...}`` for ``--agent-option``."""
    out: dict[str, str] = {}
    for pair in pairs or []:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise ConfigError(f"--agent-option {pair!r}: expected KEY=VALUE")
        out[key.strip()] = value
    return out


def max_steps_for(args: argparse.Namespace, profile: Profile) -> int:
    """Actions per episode: ``--max-steps``, else the profile's limit for the interaction mode (WebShop 15).

    ``--interaction-mode multi_turn`` is a shopsim-v8 mode: elsewhere it is refused, not ignored (it
    used to leave WebShop single-turn but give it 40 steps instead of 15).
    """
    if args.interaction_mode != "single_turn" and not profile.episode_rules:
        raise ConfigError(f"--interaction-mode {args.interaction_mode} is a shopsim-v8 mode; "
                          f"profile {profile.name} has single-turn episodes only")
    if args.max_steps is not None and args.max_steps < 1:  # 0 used to mean the default, -1 no step at all
        raise ConfigError(f"--max-steps {args.max_steps}: an episode needs at least 1 step")
    limit = MAX_ACTIONS[args.interaction_mode] if profile.episode_rules else profile.default_max_actions
    return int(args.max_steps or limit or 15)


def load_shop(args: argparse.Namespace) -> ShopLike:
    """The shop the options describe (a :class:`Shop`, or a ``V8Shop`` for ``--profile shopsim-v8``)."""
    from shopsim.simsite.profiles import get_profile, open_shop

    profile = getattr(args, "profile", None) or get_profile(None).name
    takes = get_profile(profile).shop_options
    if (args.num_products is not None and "num_products" not in takes) or (args.human_goals and "human_goals" not in takes):
        raise ConfigError(f"--num-products and --human-goals are webshop options; profile {profile} has its own tasks")
    data = args.data
    if data is None and get_profile(profile).data_from_env:
        data = env_data_dir()
    return open_shop(ShopConfig(data_dir=data, num_products=args.num_products, human_goals=args.human_goals,
                                seed=args.seed, profile=profile, extra=engine_extra(getattr(args, "engine", None))))


def print_table(rows: list[tuple[str, str]]) -> None:
    """Two aligned columns."""
    width = max(len(k) for k, _ in rows)
    for k, v in rows:
        print(f"  {k:<{width}}  {v}")


def agent_timeouts(text: str | None) -> tuple[float | None, float | None]:
    """``--agent-timeout STEP[,EPISODE]`` (seconds; either may be left empty) as ``(step, episode)``."""
    if text is None:
        return None, None
    parts = text.split(",")
    try:
        if len(parts) > 2 or not any(p.strip() for p in parts):
            raise ValueError
        limits = [float(p) if p.strip() else None for p in [*parts, ""][:2]]
    except ValueError:
        raise ConfigError(f"--agent-timeout {text!r}: give STEP[,EPISODE] in seconds, e.g. 30 or 30,600 or ,600") from None
    if any(x is not None and not 0 < x < float("inf") for x in limits):
        raise ConfigError(f"--agent-timeout {text!r}: limits are positive numbers of seconds")
    return limits[0], limits[1]


def agent_timeout_arg(parser: argparse.ArgumentParser) -> None:
    """``--agent-timeout STEP[,EPISODE]`` (``eval`` and ``run``)."""
    parser.add_argument("--agent-timeout", default=None, metavar="STEP[,EPISODE]",
                        help="seconds one act() of the agent may take, and one whole episode (e.g. 30,600; ,600 for the "
                             "episode only); past it the episode is the agent's failure and the run goes on. Episodes "
                             "then run in worker processes that can be killed, as they always do for agents that are "
                             "not built in (default: no limit)")
