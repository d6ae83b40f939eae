"""uvicorn servers that stop on time: ``shopsim serve`` in the foreground, and a loopback thread for
eval, record, tests and benchmarks.

uvicorn's own shutdown waits, without limit, for every open connection to finish its request. A
client that sent half a request and stalls, or a v8 reset waiting in the slot queue, therefore
keeps the process alive after Ctrl-C, and a second Ctrl-C cancels the requests with a traceback
each. :class:`ShopServer` gives running requests a short grace period, then closes what is still
open and cancels what is still running, quietly: those clients are gone or were cut off on purpose.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import socket
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass
from types import FrameType
from typing import TYPE_CHECKING, Any, cast

import uvicorn
from starlette.requests import ClientDisconnect

from shopsim.errors import ConfigError
from shopsim.simsite.http_guard import guarded_config
from shopsim.simsite.profiles import ShopLike

if TYPE_CHECKING:
    from shopsim.simsite.shop import Shop

__all__ = ["GRACE_S", "ServerThread", "ShopServer", "Warmup", "serve_shop", "warming_lifespan"]

#: Seconds running requests get to finish after a stop is asked for, before they are cut off.
GRACE_S = 1.0

logger = logging.getLogger("uvicorn.error")


@dataclass(frozen=True)
class Warmup:
    """What a start-up warm-up did: the page types it rendered, whether it scored a purchase, its seconds."""

    pages: tuple[str, ...]
    purchased: bool
    seconds: float


def warming_lifespan(warm: Callable[[Any], Warmup]) -> Callable[[Any], contextlib.AbstractAsyncContextManager[None]]:
    """A Starlette lifespan that runs ``warm(app.state.shop)`` at start-up and keeps its report in
    ``app.state.warmup``.

    uvicorn runs the lifespan's start-up before it binds its socket, so no request is accepted
    until the warm-up is over: the first client is served as fast as the hundredth. Servers without
    a lifespan (``ServerThread``'s default, for tests and eval runs) start cold, and quicker.
    """

    @contextlib.asynccontextmanager
    async def lifespan(app: Any) -> AsyncIterator[None]:
        start = time.perf_counter()
        app.state.warmup = warm(app.state.shop)
        logger.info("Warmed up in %.2f s (reward path, templates, renderers)", time.perf_counter() - start)
        yield

    return lifespan


class _QuietWhenCut:
    """ASGI wrapper: a request that ends because its client left, or because the server cut it off
    while stopping, ends without "Exception in ASGI application" and its traceback.
    """

    def __init__(self, app: Any, server: ShopServer):
        self.app = app
        self.server = server

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        try:
            await self.app(scope, receive, send)
        except ClientDisconnect:
            return  # the client went away mid-body: nobody is left to answer
        except (Exception, asyncio.CancelledError):
            if scope.get("type") == "http" and self.server.cutting:
                return
            raise


class ShopServer(uvicorn.Server):
    """A uvicorn server whose shutdown is bounded by ``grace_s`` (+ about half a second), and whose
    clients must send a request's head within a deadline (:mod:`shopsim.simsite.http_guard`).

    In the main thread it handles SIGINT and SIGTERM itself and, unlike uvicorn, does not re-raise
    the signal afterwards: the caller reads :attr:`stop_signal` and chooses the exit status. A second
    signal skips what is left of the grace period.
    """

    def __init__(self, app: Any, *, host: str = "127.0.0.1", port: int = 0, log_level: str = "warning",
                 lifespan: str = "off", grace_s: float = GRACE_S, **config_kw: Any):
        self.cutting = False
        self.grace_s = grace_s
        self.signals: list[int] = []
        config = uvicorn.Config(_QuietWhenCut(app, self), host=host, port=port, log_level=log_level,
                                lifespan=lifespan, **guarded_config(config_kw))  # type: ignore[arg-type]
        super().__init__(config)

    @property
    def stop_signal(self) -> int | None:
        """The first signal that asked the server to stop (None: stopped by ``should_exit``)."""
        return self.signals[0] if self.signals else None

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        """SIGINT/SIGTERM stop the server; the previous handlers come back afterwards, unraised."""
        if threading.current_thread() is not threading.main_thread():
            yield
            return
        previous = {sig: signal.signal(sig, self.handle_exit) for sig in (signal.SIGINT, signal.SIGTERM)}
        try:
            yield
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        """Remember the signal and stop; a second one also skips what is left of the grace period."""
        self.signals.append(sig)
        if self.should_exit:
            self.force_exit = True
        self.should_exit = True

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        """Stop listening, let running requests finish for ``grace_s``, then close and cancel the rest."""
        logger.info("Shutting down")
        for server in self.servers:
            server.close()
        for sock in sockets or []:
            sock.close()
        state = self.server_state
        for connection in list(state.connections):
            connection.shutdown()  # idle keep-alive connections close now; busy ones after this response
        loop = asyncio.get_running_loop()
        start = loop.time()
        while (state.connections or state.tasks) and not self.force_exit and loop.time() < start + self.grace_s:
            await asyncio.sleep(0.02)
        if state.connections or state.tasks:
            logger.info("Closing %d connection(s) and %d request(s) still open after %.1f s",
                        len(state.connections), len(state.tasks), loop.time() - start)
            self.cutting = True
            for connection in list(state.connections):
                transport = getattr(connection, "transport", None)
                if transport is not None:
                    transport.abort()  # not close(): a client that does not read would keep it open
            await asyncio.sleep(0)  # connection_lost runs: requests waiting for a body see a disconnect
            for task in list(state.tasks):
                task.cancel()
            if state.tasks:
                await asyncio.wait(list(state.tasks), timeout=1.0)
        for server in self.servers:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(server.wait_closed(), timeout=0.5)
        # Even when forced: a lifespan task left waiting is cancelled by asyncio.run, with a traceback.
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.lifespan.shutdown(), timeout=1.0)


class ServerThread:
    """Serve an ASGI app on 127.0.0.1 for the duration of a ``with`` block; leaving it takes at most
    about ``grace_s`` + 1 s, whatever the clients do. ``lifespan="on"`` runs the app's start-up (its
    warm-up) before the block is entered.
    """

    def __init__(self, app: Any, port: int | None = None, start_timeout_s: float = 30.0, grace_s: float = GRACE_S,
                 lifespan: str = "off", **server_kw: Any):
        if port is None:
            with socket.socket() as s:
                s.bind(("127.0.0.1", 0))
                port = s.getsockname()[1]
        self.port = port
        self.base_url = f"http://127.0.0.1:{port}"
        self.start_timeout_s = start_timeout_s
        self.server = ShopServer(app, host="127.0.0.1", port=port, log_level="warning", grace_s=grace_s,
                                 lifespan=lifespan, **server_kw)  # uvicorn options, head_timeout_s
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self) -> ServerThread:
        self.thread.start()
        deadline = time.monotonic() + self.start_timeout_s
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                self.server.should_exit = True
                raise ConfigError(f"the server on {self.base_url} did not start")
            time.sleep(0.02)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=self.server.grace_s + 3.0)
        if self.thread.is_alive():  # should not happen; a daemon thread never blocks the exit anyway
            self.server.force_exit = True
            self.thread.join(timeout=2.0)


def serve_shop(shop: ShopLike, skin: str = "webshop", **app_kw: Any) -> ServerThread:
    """A ServerThread for the shop's web app (many open sessions allowed, for evaluation runs), in ``skin``."""
    from shopsim.simsite.skins import PLAIN_SKIN
    from shopsim.simsite.web import create_app

    if shop.profile.lease_policy == "queue":  # shopsim-v8: its service, with a slot for every worker
        if skin != PLAIN_SKIN:
            raise ConfigError(f"skin {skin!r} draws WebShop's HTML pages; the {shop.profile.name} profile serves none")
        return ServerThread(shop.profile.part("app_factory")(shop, **{"slots": 64, **app_kw}))
    # create_app is WebShop's app (the webshop profile's app_factory): it serves a Shop.
    return ServerThread(create_app(cast("Shop", shop), **{"max_sessions": 10_000, "skin": skin, **app_kw}))
