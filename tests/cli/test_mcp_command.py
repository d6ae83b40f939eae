"""``shopsim mcp`` where the MCP SDK is missing: one line saying what to install (runs with or without the SDK)."""

from __future__ import annotations

import subprocess
import sys

import pytest


def test_without_the_sdk_the_command_says_what_to_install() -> None:
    code = ("import sys; sys.modules['mcp'] = None; from shopsim.cli import main; "
            "sys.exit(main(['mcp', '--no-screenshots']))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == ("shopsim: error: shopsim mcp needs the MCP SDK, which is not installed: "
                           "pip install 'shopsim[mcp]'\n")


@pytest.mark.parametrize(("args", "says"), [
    (["--max-steps", "0"], "shopsim: error: --max-steps must be positive (got 0)"),  # every episode ended at once
    (["--max-steps", "-3"], "shopsim: error: --max-steps must be positive (got -3)"),
    (["--transport", "http", "--port", "70000"], "shopsim mcp: error: argument --port: 70000 is not a port (0-65535)"),
])
def test_bad_options_are_refused_before_serving(args: list[str], says: str) -> None:
    done = subprocess.run([sys.executable, "-m", "shopsim.cli", "mcp", "--no-screenshots", *args],
                          capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert done.returncode == 2 and done.stdout == "" and done.stderr.splitlines()[-1] == says, done.stderr
