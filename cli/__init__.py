"""The ``shopsim`` command line. Each sub-command lives in ``shopsim.cli.<name>``."""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import warnings
from collections.abc import Sequence
from typing import Any, TextIO

from shopsim.errors import ShopsimError

__all__ = ["COMMANDS", "build_parser", "main"]

#: Sub-command modules, in help order; each has ``register(subparsers)``.
COMMANDS = ["run", "eval", "serve", "openenv", "translate", "compare", "check_goals", "search", "search_eval", "data", "record", "transfer", "transfer_suite", "gap_suite", "goals", "mcp"]


def build_parser() -> argparse.ArgumentParser:
    """The argument parser (exposed for tests and docs)."""
    parser = argparse.ArgumentParser(prog="shopsim", description="A WebShop-style shop and sim-to-real harness.")
    parser.add_argument("--version", action=_Version, help="print the version and the build of the guard's tag scan")
    sub = parser.add_subparsers(dest="command", required=True)
    for name in COMMANDS:
        importlib.import_module(f"shopsim.cli.{name}").register(sub)
    return parser


class _Version(argparse.Action):
    """``--version``: the package's version and which tag scan runs (compiled or pure), then exit."""

    def __init__(self, option_strings: Sequence[str], dest: str, help: str | None = None) -> None:
        super().__init__(option_strings, dest, nargs=0, help=help)

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        from importlib.metadata import version

        from shopsim.translators.scan_build import scan_build

        print(f"shopsim {version('shopsim')} (Python {sys.version.split()[0]}; guard tag scan: {scan_build()})")
        parser.exit()


_show_python_warning = warnings.showwarning


def _show_warning(message: Warning | str, category: type[Warning], filename: str, lineno: int,
                  file: TextIO | None = None, line: str | None = None, **_: Any) -> None:
    """Our own warnings (e.g. duplicate ASINs skipped) as one line, like errors; others as Python shows them."""
    if category.__module__.split(".")[0] == "shopsim":
        print(f"shopsim: warning: {message}", file=file or sys.stderr)
    else:
        _show_python_warning(message, category, filename, lineno, file, line)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``shopsim`` console script."""
    args = build_parser().parse_args(argv)
    warnings.showwarning = _show_warning
    try:
        return int(args.func(args))
    except ShopsimError as exc:
        print(f"shopsim: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # `shopsim ... | head`: stop quietly, like other Unix tools
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141


if __name__ == "__main__":
    sys.exit(main())
