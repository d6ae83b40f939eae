"""A real uvicorn server on a free 127.0.0.1 port, in a daemon thread (eval, record, tests, benchmarks)."""

from __future__ import annotations

import socket
import threading
import time
from typing import Any

from shopsim.errors import ConfigError

__all__ = ["ServerThread", "serve_shop"]


class ServerThread:
    """Serve an ASGI app on 127.0.0.1 for the duration of a ``with`` block."""

    def __init__(self, app: Any, port: int | None = None, start_timeout_s: float = 30.0):
        import uvicorn

        if port is None:
            with socket.socket() as s:
                s.bind(("127.0.0.1", 0))
                port = s.getsockname()[1]
        self.port = port
        self.base_url = f"http://127.0.0.1:{port}"
        self.start_timeout_s = start_timeout_s
        config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="off")
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self) -> ServerThread:
        self.thread.start()
        deadline = time.monotonic() + self.start_timeout_s
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise ConfigError(f"the server on {self.base_url} did not start")
            time.sleep(0.02)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)


def serve_shop(shop: Any, **app_kw: Any) -> ServerThread:
    """A ServerThread for the shop's web app (many open sessions allowed, for evaluation runs)."""
    from shopsim.simsite.web import create_app

    return ServerThread(create_app(shop, **{"max_sessions": 10_000, **app_kw}))
