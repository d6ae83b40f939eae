"""``shopsim openenv``'s bad input, without the server: one line and exit 2, never a traceback.

The served environment itself is tested in tests/adapters/test_openenv.py (slow: openenv-core's import).
"""

from __future__ import annotations

import subprocess
import sys

import pytest

#: Runs ``shopsim openenv ARGS`` in a fresh process where ``import openenv`` fails, as without the extra.
_WITHOUT_OPENENV = ("import sys; sys.modules['openenv'] = None; from shopsim.cli import main; "
                    "sys.exit(main(sys.argv[1:]))")


def _run(*args: str, without_openenv: bool = False) -> subprocess.CompletedProcess[str]:
    command = ["-c", _WITHOUT_OPENENV, *args] if without_openenv else ["-m", "shopsim.cli", *args]
    return subprocess.run([sys.executable, *command], capture_output=True, text=True, timeout=120)


def test_without_the_extra_it_says_what_to_install() -> None:
    done = _run("openenv", without_openenv=True)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == ("shopsim: error: shopsim openenv needs openenv-core (openenv is missing): "
                           "pip install 'shopsim[openenv]'\n")


@pytest.mark.parametrize(("args", "says"), [
    (["--max-sessions", "0"], "--max-sessions and --session-ttl must be positive"),
    (["--session-ttl", "-1"], "--max-sessions and --session-ttl must be positive"),
    (["--session-ttl", "nan"], "--max-sessions and --session-ttl must be positive"),  # nan <= 0 is False
    pytest.param(["--profile", "shopsim-v8", "--observation-mode", "html"], "observation_mode='text'",
                 marks=pytest.mark.slow),  # found once openenv-core is imported (seconds)
    pytest.param(["--num-products", "5", "--profile", "shopsim-v8"], "webshop options", marks=pytest.mark.slow),
])
def test_bad_options_are_one_line_and_exit_2(args: list[str], says: str) -> None:
    done = _run("openenv", *args)
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and says in done.stderr, done.stderr


def test_a_port_past_65535_is_refused_not_wrapped() -> None:
    """uvicorn binds port 70000 as 70000 % 65536 = 4464 while the banner says 70000: refused by argparse."""
    done = _run("openenv", "--port", "70000")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.splitlines()[-1] == "shopsim openenv: error: argument --port: 70000 is not a port (0-65535)"
