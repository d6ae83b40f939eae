"""``shopsim mcp`` where the MCP SDK is missing: one line saying what to install (runs with or without the SDK)."""

from __future__ import annotations

import subprocess
import sys


def test_without_the_sdk_the_command_says_what_to_install() -> None:
    code = ("import sys; sys.modules['mcp'] = None; from shopsim.cli import main; "
            "sys.exit(main(['mcp', '--no-screenshots']))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == ("shopsim: error: shopsim mcp needs the MCP SDK, which is not installed: "
                           "pip install 'shopsim[mcp]'\n")
