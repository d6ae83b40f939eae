"""A Ray cluster that shopsim starts itself listens on 127.0.0.1 only, with no dashboard unless asked.

The real check starts a cluster the way ``eval --executor ray`` does (``connect`` of the Ray executor),
in a child process, and reads the listening TCP sockets of that process and every Ray process under
it from ``/proc`` (Linux). Before: ``gcs_server``, ``raylet`` and the workers listened on ``*``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from shopsim.adapters.ray_local import LOOPBACK, local_init_kwargs

ROOT = Path(__file__).resolve().parents[2]
LOOPBACKS = {"0100007F", "0000000000000000FFFF00000100007F", "00000000000000000000000001000000"}  # /proc/net hex

_CHILD = """
import logging, sys, tempfile
from shopsim.agents.evaluation.config import EvalConfig
from shopsim.agents.evaluation.ray_executor import connect
import ray
connect(EvalConfig(goals=[0], out=tempfile.mkdtemp(), executor="ray", workers=1))
ray.get(ray.remote(lambda: 1).remote())  # a worker process too
print("ready", flush=True)
sys.stdin.readline()
ray.shutdown()
"""


def test_init_arguments_keep_the_cluster_on_this_machine() -> None:
    assert local_init_kwargs(2) == {"num_cpus": 2, "_node_ip_address": LOOPBACK, "include_dashboard": False,
                                    "dashboard_host": LOOPBACK}
    assert local_init_kwargs(dashboard=True)["dashboard_host"] == LOOPBACK  # asked for: still loopback only


def _descendants(root: int) -> set[int]:
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                parents[int(entry)] = int(Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
    found, grew = {root}, True
    while grew:
        new = {pid for pid, ppid in parents.items() if ppid in found} - found
        found |= new
        grew = bool(new)
    return found


def _listening(pids: set[int]) -> list[tuple[str, str]]:
    """(hex local address, owner pid) of every listening TCP socket the processes hold."""
    owner: dict[str, int] = {}
    for pid in pids:
        try:
            for fd in os.listdir(f"/proc/{pid}/fd"):
                link = os.readlink(f"/proc/{pid}/fd/{fd}")
                if link.startswith("socket:["):
                    owner[link[8:-1]] = pid
        except OSError:
            continue
    found = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            fields = line.split()
            if fields[3] == "0A" and fields[9] in owner:  # 0A: LISTEN
                found.append((fields[1].split(":")[0], Path(f"/proc/{owner[fields[9]]}/comm").read_text().strip()))
    return found


@pytest.mark.slow  # starts a Ray cluster (5-10 s)
@pytest.mark.skipif(not Path("/proc/net/tcp").exists(), reason="reads listening sockets from /proc (Linux)")
def test_a_local_cluster_listens_on_loopback_only() -> None:
    pytest.importorskip("ray", reason="Ray is not installed: pip install shopsim[ray]")
    child = subprocess.Popen([sys.executable, "-c", _CHILD], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, text=True, cwd=ROOT)
    try:
        assert child.stdout is not None and child.stdout.readline().strip() == "ready"
        sockets = _listening(_descendants(child.pid))
    finally:
        child.communicate("\n", timeout=120)
    owners = {name for _, name in sockets}
    assert {"gcs_server", "raylet"} <= owners, sockets  # the cluster was seen
    assert [s for s in sockets if s[0] not in LOOPBACKS] == [], sockets  # and nothing beyond the loopback
