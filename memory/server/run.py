"""Running the app: uvicorn, with the server's connection limits (the only uvicorn importer).

``serve(service)`` runs :func:`memory.server.app.create_app` until SIGINT / SIGTERM
(``python -m memory serve``); :func:`uvicorn_config` is how, for tests that run it in a thread.
"""

from __future__ import annotations

import asyncio
import collections
import signal
from typing import Any

import uvicorn

from memory.config_sections import ServerConfig
from memory.server.app import create_app
from memory.server.service import MemoryService

_TOO_MANY_TEXT = b"too many open connections from this address\n"
TOO_MANY = (
    b"HTTP/1.1 429 Too Many Requests\r\nconnection: close\r\ncontent-type: text/plain\r\n"
    b"content-length: %d\r\n\r\n%s" % (len(_TOO_MANY_TEXT), _TOO_MANY_TEXT)
)


def guarded_protocol(header_timeout: float, per_client: int) -> type[asyncio.Protocol]:
    """uvicorn's HTTP protocol, closing a connection whose request headers take longer than
    ``header_timeout`` seconds (counted from the connection or the previous response: a client
    that trickles header bytes holds nothing for long), and answering 429 to a client (an IP
    address) past ``per_client`` open connections."""
    from uvicorn.protocols.http.auto import AutoHTTPProtocol

    open_by_client: collections.Counter[str] = collections.Counter()

    class Guarded(AutoHTTPProtocol):  # type: ignore[misc, valid-type]
        _client = ""
        _deadline: asyncio.TimerHandle | None = None

        def connection_made(self, transport: Any) -> None:
            peer = transport.get_extra_info("peername")
            self._client = str(peer[0]) if peer else ""
            open_by_client[self._client] += 1
            super().connection_made(transport)
            if open_by_client[self._client] > per_client:
                transport.write(TOO_MANY)
                transport.close()
                return
            self._deadline = self.loop.call_later(header_timeout, self._headers_due)

        def _headers_due(self) -> None:
            cycle = self.cycle
            if cycle is None or cycle.response_complete:  # no request whose headers all came
                self.transport.close()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if self._deadline is not None:
                self._deadline.cancel()
            if not self.transport.is_closing():
                self._deadline = self.loop.call_later(header_timeout, self._headers_due)

        def connection_lost(self, exc: Exception | None) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
            open_by_client[self._client] -= 1
            if open_by_client[self._client] <= 0:
                del open_by_client[self._client]
            super().connection_lost(exc)

    return Guarded


def uvicorn_config(
    app: Any, config: ServerConfig, *, host: str, port: int, log_level: str = "info"
) -> uvicorn.Config:
    """How :func:`serve` runs ``app``: its limits (open connections, per client, header time)."""
    return uvicorn.Config(
        app,
        host=host,
        port=port,
        log_level=log_level,
        lifespan="on",
        ws="none",  # no websocket route: an upgrade is refused, not half-served
        http=guarded_protocol(config.header_timeout_seconds, config.max_connections_per_client),
        limit_concurrency=config.max_connections,
    )


def serve(service: MemoryService, *, host: str | None = None, port: int | None = None) -> None:
    """Run the app with uvicorn until SIGINT / SIGTERM; shutdown stops the jobs and flushes."""
    config = service.config.server
    bind = host or config.host
    for stop in (signal.SIGINT, signal.SIGTERM):  # uvicorn raises the signal again after its shutdown
        signal.signal(stop, _stopped)
    uvicorn.Server(
        uvicorn_config(create_app(service, host=bind), config, host=bind, port=port or config.port)
    ).run()


def _stopped(signum: int, frame: object) -> None:
    """After a graceful shutdown: exit 0, not killed by the signal (``make serve`` says nothing)."""
    raise SystemExit(0)
