"""The request body cap: a size limit, a stall limit, and bodies in flight per key.

A body over ``server.max_body_bytes`` is refused (413) before a route reads any of it; one that
stalls between its parts gets 408; one key may be sending only so many bodies at once (429),
so slow bodies under one key cannot take the server's connections from everyone else.
"""

from __future__ import annotations

import asyncio

from memory.server.guards import GRANT, App, Message, Receive, Scope, Send, refuse
from memory.server.keys import Grant


class CapBody:
    """Refuses a request body over ``limit`` bytes (413) before the route reads any of it, and
    one that stalls for ``timeout`` seconds between its parts (408: a client that trickles
    bytes does not hold a connection and a task forever).

    A declared ``Content-Length`` is checked first; the body is read up to the limit and
    replayed to the route. One key (one grant) may be sending at most ``per_key`` bodies at once:
    more get 429 at once and their connection closed, so slow bodies under one key cannot hold
    the server's connections from everyone else.
    """

    def __init__(self, app: App, limit: int, timeout: float = 30.0, per_key: int = 8) -> None:
        self.app = app
        self.limit = limit
        self.timeout = timeout
        self.per_key = per_key
        self._sending: dict[str, int] = {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("method") in ("GET", "HEAD", "OPTIONS"):
            await self.app(scope, receive, send)
            return
        for name, value in scope.get("headers", ()):
            if name == b"content-length" and (not value.isdigit() or int(value) > self.limit):
                await refuse(send, 413, f"request body over {self.limit} bytes (server.max_body_bytes)")
                return
        grant = scope.get(GRANT)
        chunks = await self._read(receive, send, grant.key_id if isinstance(grant, Grant) else "")
        if chunks is None:
            return

        async def replay() -> Message:
            return chunks.pop(0) if chunks else await receive()

        await self.app(scope, replay, send)

    async def _read(self, receive: Receive, send: Send, holder: str) -> list[Message] | None:
        """The body's messages, or None once a refusal is sent (stalled, too large, or one
        body too many still arriving under ``holder``'s key: a body that came whole in its
        first part never counts)."""
        first = await self._receive(receive, send)
        if first is None:
            return None
        if first["type"] != "http.request" or not first.get("more_body", False):
            return [first] if len(first.get("body", b"")) <= self.limit else await self._too_large(send)
        if self._sending.get(holder, 0) >= self.per_key:
            detail = f"this key is already sending {self.per_key} request bodies (server.max_bodies_per_key)"
            await refuse(send, 429, detail, ((b"connection", b"close"),))
            return None
        self._sending[holder] = self._sending.get(holder, 0) + 1
        try:
            return await self._rest(receive, send, [first])
        finally:
            self._sending[holder] -= 1
            if not self._sending[holder]:
                del self._sending[holder]

    async def _receive(self, receive: Receive, send: Send) -> Message | None:
        try:
            return await asyncio.wait_for(receive(), self.timeout)
        except TimeoutError:
            await refuse(send, 408, f"request body stalled for {self.timeout:g}s")
            return None

    async def _rest(self, receive: Receive, send: Send, chunks: list[Message]) -> list[Message] | None:
        """The body's remaining parts after ``chunks`` (None once refused)."""
        size = sum(len(chunk.get("body", b"")) for chunk in chunks)
        while size <= self.limit:
            message = await self._receive(receive, send)
            if message is None:
                return None
            chunks.append(message)
            if message["type"] != "http.request" or not message.get("more_body", False):
                size += len(message.get("body", b""))
                return chunks if size <= self.limit else await self._too_large(send)
            size += len(message.get("body", b""))
        return await self._too_large(send)

    async def _too_large(self, send: Send) -> list[Message] | None:
        """Refuse the body (413); None: nothing for the route."""
        await refuse(send, 413, f"request body over {self.limit} bytes (server.max_body_bytes)")
        return None
