"""Connecting the MCP SDK's own client to ``shopsim mcp``: over stdio (the command as a subprocess) or
streamable HTTP (a server subprocess on a free 127.0.0.1 port). For scripts, tests and benchmarks
that drive the server as an MCP client would, with the initialize handshake (one episode per session).
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from typing import IO

from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

from shopsim.errors import SourceError

__all__ = ["http_session", "serve_http", "stdio_session"]


def _command(*args: str) -> list[str]:
    return [sys.executable, "-m", "shopsim.cli", "mcp", *args]


@asynccontextmanager
async def stdio_session(*args: str) -> AsyncIterator[ClientSession]:
    """A ClientSession to ``shopsim mcp ARGS`` launched over stdio (its stderr goes to a temporary file)."""
    command, *rest = _command(*args)
    keep = {k: v for k, v in os.environ.items() if k.startswith(("SHOPSIM_", "PLAYWRIGHT_"))}
    params = StdioServerParameters(command=command, args=rest, env=keep)
    with tempfile.TemporaryFile("w+") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            yield session


@asynccontextmanager
async def http_session(url: str) -> AsyncIterator[ClientSession]:
    """A ClientSession over streamable HTTP, after the initialize handshake (so the server gives it a session)."""
    async with streamable_http_client(url) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        yield session


@contextlib.contextmanager
def serve_http(*args: str, start_timeout: float = 120.0) -> Iterator[str]:
    """``shopsim mcp --transport http ARGS`` on a free 127.0.0.1 port; yields its URL, stops it on exit."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    # stderr to a file, not a pipe: a chatty server never blocks on a full pipe
    with tempfile.TemporaryFile("w+") as errlog:
        proc = subprocess.Popen(_command("--transport", "http", "--port", str(port), *args),
                                stdout=subprocess.DEVNULL, stderr=errlog, text=True)
        try:
            _wait_listening(proc, port, time.monotonic() + start_timeout, errlog)
            yield f"http://127.0.0.1:{port}/mcp"
        finally:
            if proc.poll() is None:
                proc.terminate()
            proc.wait(timeout=30)


def _wait_listening(proc: subprocess.Popen[str], port: int, deadline: float, errlog: IO[str]) -> None:
    while not _listening(port):
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            proc.wait()
            errlog.seek(0)
            err = errlog.read().strip().splitlines()
            raise SourceError(f"shopsim mcp --transport http did not start: {err[-1] if err else 'no output'}")
        time.sleep(0.2)


def _listening(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
    except OSError:
        return False
    return True
