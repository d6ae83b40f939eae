"""Running ``shopsim`` CLI cases side by side in subprocesses, with a watchdog against hangs."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest


def start_cli(*args: str, pythonpath: Path | None = None) -> subprocess.Popen:
    """``shopsim ARGS`` in a subprocess; ``pythonpath`` goes first on its import path (a user's agent module)."""
    env = None
    if pythonpath is not None:
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(pythonpath), os.environ.get("PYTHONPATH", "")])}
    return subprocess.Popen([sys.executable, "-m", "shopsim.cli", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=Path(__file__).resolve().parents[1], env=env)


def cli_results(procs: dict[str, subprocess.Popen], timeout: float = 60) -> dict[str, tuple[int, str, str]]:
    """``{case: (exit status, stdout, stderr)}`` of CLI runs started together; a run past ``timeout``
    fails the test (the watchdog: a regression that hangs fails instead of hanging the suite)."""
    results = {}
    for case, proc in procs.items():
        try:
            out, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            pytest.fail(f"{' '.join(map(str, proc.args[3:5]))} hung on the {case} case")
        assert "Traceback" not in err, (case, err)
        results[case] = (proc.returncode, out, err)
    return results
