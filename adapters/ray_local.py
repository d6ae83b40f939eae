"""How shopsim starts a local Ray cluster: on the loopback interface, with the dashboard off unless asked.

Why: ``ray.init()`` with no address starts a GCS, a raylet and workers whose gRPC servers listen on
every interface (measured with Ray 2.60: ``*:PORT`` for ``gcs_server``, ``raylet`` and each worker)
under the machine's primary IP; a cluster shopsim starts for ``eval --executor ray`` or an
``EnvPool`` serves this machine only. Ray takes the node address from the loopback, and then binds
its servers there, when its cluster mode is off (``RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0``, what it does
by default on macOS and Windows); ``ray.init(_node_ip_address="127.0.0.1")`` alone is replaced by
the primary IP. So :func:`start_local` switches that mode off for the start (the environment of the
processes it spawns, and Ray's constant in this process, restored afterwards: joining another
cluster later is unaffected; :func:`join` does the same to join such a cluster from another
process) and binds the dashboard, when asked for, to ``127.0.0.1``.
``tests/adapters/test_ray_local.py`` checks the listening sockets of a real cluster, so a Ray release
that changes this is caught. To use Ray across machines, start a cluster yourself (``ray start
--head ...``) and join it (``--address``, or ``ray.init(address=...)`` before ``EnvPool``).
"""

from __future__ import annotations

import contextlib
import ipaddress
import os
from collections.abc import Iterator
from typing import Any

__all__ = ["CLUSTER_ENV", "LOOPBACK", "join", "local_init_kwargs", "start_local"]

LOOPBACK = "127.0.0.1"
CLUSTER_ENV = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"


def local_init_kwargs(num_cpus: int | None = None, *, dashboard: bool = False) -> dict[str, Any]:
    """The ``ray.init`` arguments for a cluster started here (``num_cpus`` None: Ray counts the cores)."""
    kwargs: dict[str, Any] = {"_node_ip_address": LOOPBACK, "include_dashboard": dashboard,
                              "dashboard_host": LOOPBACK}
    if num_cpus is not None:
        kwargs["num_cpus"] = num_cpus
    return kwargs


@contextlib.contextmanager
def _single_machine(ray: Any) -> Iterator[None]:
    """Ray's cluster mode off while a local cluster starts: its node address is then the loopback."""
    constants: Any = getattr(getattr(ray, "_private", None), "ray_constants", None)
    before_env, before_const = os.environ.get(CLUSTER_ENV), getattr(constants, "ENABLE_RAY_CLUSTER", None)
    os.environ[CLUSTER_ENV] = "0"
    if before_const is not None:
        constants.ENABLE_RAY_CLUSTER = False  # read when ray.init resolves the node address
    try:
        yield
    finally:
        if before_env is None:
            os.environ.pop(CLUSTER_ENV, None)
        else:
            os.environ[CLUSTER_ENV] = before_env
        if before_const is not None:
            constants.ENABLE_RAY_CLUSTER = before_const


def start_local(ray: Any, num_cpus: int | None = None, *, dashboard: bool = False, **init: Any) -> None:
    """``ray.init`` a cluster on this machine only: every Ray server on 127.0.0.1, no dashboard unless asked."""
    with _single_machine(ray):
        ray.init(**local_init_kwargs(num_cpus, dashboard=dashboard), **init)


def join(ray: Any, address: str, **init: Any) -> None:
    """``ray.init(address=...)``; a cluster on this machine's loopback (one :func:`start_local` started) is
    joined as a node of that loopback, which Ray otherwise waits for at the primary IP for ever.
    """
    host = address.removeprefix("ray://").rsplit(":", 1)[0].strip("[]")
    try:
        loopback = host == "localhost" or ipaddress.ip_address(host).is_loopback
    except ValueError:  # "auto", a host name
        loopback = False
    with _single_machine(ray) if loopback else contextlib.nullcontext():
        ray.init(address=address, **init)
