"""uvicorn's HTTP protocols with a deadline for reading a request's head, for every server we start.

uvicorn bounds an idle keep-alive connection (``timeout_keep_alive``) and, with h11, the size of
an unfinished head (``h11_max_incomplete_event_size``), but neither HTTP stack bounds the *time* a
client takes to send its request line and headers: a client that sends one byte a second (slowloris)
holds its connection, and its memory, for as long as it likes, and a few thousand of them exhaust
the process's file descriptors. httptools does not bound the head's size either.

The protocols here close a connection whose request head is not complete :data:`HEAD_TIMEOUT_S`
after the connection opened or after its previous response ended, and (httptools) answer 400 to a
head over :data:`MAX_HEAD_BYTES`. The body is not under this deadline: the app reads it with its own
size limit (``json_api``), and a request being served is never cut off.
"""

from __future__ import annotations

import asyncio
import importlib.util
from typing import Any

from uvicorn.protocols.http.h11_impl import H11Protocol

__all__ = ["HEAD_TIMEOUT_S", "KEEP_ALIVE_S", "MAX_HEAD_BYTES", "guarded_config", "guarded_protocol"]

#: Seconds a client has to send a request's line and headers (ours send them in one packet).
HEAD_TIMEOUT_S = 10.0
#: Seconds an idle keep-alive connection stays open (uvicorn's default, set so it is ours to keep).
KEEP_ALIVE_S = 5
#: The largest request head (line and headers) either stack accepts.
MAX_HEAD_BYTES = 16 * 1024


class _HeadDeadline:
    """Mixin over a uvicorn protocol: a timer from the connection's start (or its last response's end)
    to the end of the next request's head; when it fires first, the connection is closed.
    """

    transport: asyncio.Transport
    loop: asyncio.AbstractEventLoop
    head_timeout_s: float = HEAD_TIMEOUT_S
    _head_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)  # type: ignore[misc]  # the uvicorn protocol after us in the MRO
        self._arm_head_timer()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm_head_timer()
        super().connection_lost(exc)  # type: ignore[misc]

    def _arm_head_timer(self) -> None:
        self._disarm_head_timer()
        self._head_timer = self.loop.call_later(self.head_timeout_s, self._head_too_slow)

    def _disarm_head_timer(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _head_too_slow(self) -> None:
        self._head_timer = None
        if not self.transport.is_closing():
            self.transport.close()


class GuardedH11Protocol(_HeadDeadline, H11Protocol):
    """uvicorn's h11 protocol with the head deadline (its head size is bounded by h11)."""

    def handle_events(self) -> None:
        before = self.cycle
        super().handle_events()
        if self.cycle is not before:  # a request's head was read: the app has it now
            self._disarm_head_timer()

    def on_response_complete(self) -> None:
        self._arm_head_timer()  # first: h11 reads a pipelined request's head in super() and disarms it
        super().on_response_complete()


def _httptools_protocol() -> type[asyncio.Protocol] | None:
    """The guarded httptools protocol, or None when httptools is not installed."""
    if importlib.util.find_spec("httptools") is None:
        return None
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

    class GuardedHttpToolsProtocol(_HeadDeadline, HttpToolsProtocol):
        """uvicorn's httptools protocol with the head deadline and a head size limit."""

        _head_bytes = 0

        def on_message_begin(self) -> None:
            self._head_bytes = 0
            super().on_message_begin()

        def on_url(self, url: bytes) -> None:
            self._count(len(url))
            super().on_url(url)

        def on_header(self, name: bytes, value: bytes) -> None:
            self._count(len(name) + len(value) + 4)
            super().on_header(name, value)

        def _count(self, n: int) -> None:
            self._head_bytes += n
            if self._head_bytes > MAX_HEAD_BYTES:  # httptools turns this into HttpParserError: a 400
                raise ValueError(f"request head over {MAX_HEAD_BYTES} bytes")

        def on_headers_complete(self) -> None:
            self._disarm_head_timer()
            super().on_headers_complete()

        def on_response_complete(self) -> None:
            if not self.pipeline:  # a pipelined request's head is already read: no deadline for it
                self._arm_head_timer()
            super().on_response_complete()

    return GuardedHttpToolsProtocol


def guarded_protocol(http: Any = "auto", head_timeout_s: float = HEAD_TIMEOUT_S) -> Any:
    """The protocol class for uvicorn's ``http`` option: ``auto`` / ``httptools`` / ``h11`` guarded as
    above (auto prefers httptools, as uvicorn does); a class given by the caller is kept.
    """
    if not isinstance(http, str):
        return http
    base: type[asyncio.Protocol] | None = GuardedH11Protocol
    if http in ("auto", "httptools"):
        base = _httptools_protocol() or (None if http == "httptools" else GuardedH11Protocol)
    if base is None:
        return http  # httptools asked for and missing: uvicorn reports it in its own words
    if head_timeout_s == HEAD_TIMEOUT_S:
        return base
    return type(base.__name__, (base,), {"head_timeout_s": head_timeout_s})


def guarded_config(config_kw: dict[str, Any]) -> dict[str, Any]:
    """The ``uvicorn.Config`` keywords with our limits set; a caller's explicit value wins, and
    ``head_timeout_s`` (ours) sets the head deadline.
    """
    kw = dict(config_kw)
    head_timeout_s = float(kw.pop("head_timeout_s", HEAD_TIMEOUT_S))
    return {"timeout_keep_alive": KEEP_ALIVE_S, "h11_max_incomplete_event_size": MAX_HEAD_BYTES, **kw,
            "http": guarded_protocol(kw.get("http", "auto"), head_timeout_s)}
