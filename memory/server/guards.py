"""The server's gates, as plain ASGI middleware: the API key, the request body cap, no framing.

Both refuse before any route runs, so a refused request writes nothing. The key is compared in
constant time (:func:`hmac.compare_digest`); it may come as ``Authorization: Bearer <key>`` or
``X-API-Key: <key>``. The inspector in a browser logs in once with ``/inspect?key=<key>`` and
then holds a session cookie: an expiry and an HMAC of it under the key (never the key itself;
it dies with the expiry or a new key). A request that only the cookie vouches for and that
changes something (any method but GET, HEAD, OPTIONS) must come from the server's own origin
(its ``Origin`` names the ``Host`` it was sent to): a page on another port of the same host is
the same *site* to the browser, which sends the cookie with its forms and ``no-cors`` fetches.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import time
from collections.abc import Awaitable, Callable, MutableMapping
from http.cookies import SimpleCookie
from typing import Any
from urllib.parse import parse_qs

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]

SESSION_COOKIE = "persona_memory_session"
SESSION_SECONDS = 12 * 3600
"""How long an inspector login lasts."""
SAFE_METHODS = ("GET", "HEAD", "OPTIONS")


def session_token(key: str, expires: int) -> str:
    """The inspector's session cookie value: ``<expiry>.<HMAC-SHA256 of it under the key>``."""
    mac = hmac.new(key.encode(), f"persona-memory-session|{expires}".encode(), hashlib.sha256).hexdigest()
    return f"{expires}.{mac}"


def session_valid(key: str, token: str, now: float) -> bool:
    """Whether a session cookie was made with ``key`` and has not expired."""
    expires, _, _ = token.partition(".")
    if not expires.isdigit() or int(expires) < now:
        return False
    return hmac.compare_digest(session_token(key, int(expires)).encode(), token.encode())


def _sessions(scope: Scope) -> list[str]:
    found: list[str] = []
    for name, value in scope.get("headers", ()):
        if name == b"cookie":
            cookie: SimpleCookie = SimpleCookie()
            try:
                cookie.load(value.decode("latin-1"))
            except Exception:
                continue
            if SESSION_COOKIE in cookie:
                found.append(cookie[SESSION_COOKIE].value)
    return found


def _same_origin(scope: Scope) -> bool:
    """Whether the request's ``Origin`` names the host it was sent to (no ``Origin``: no)."""
    headers = dict(scope.get("headers", ()))
    origin, host = headers.get(b"origin", b"").decode("latin-1"), headers.get(b"host", b"").decode("latin-1")
    scheme = "https" if scope.get("scheme") in ("https", "wss") else "http"
    return bool(host) and origin == f"{scheme}://{host}"


async def _refuse(
    send: Send, status: int, detail: str, headers: tuple[tuple[bytes, bytes], ...] = ()
) -> None:
    body = json.dumps({"detail": detail}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                *headers,
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


def presented_keys(scope: Scope) -> list[bytes]:
    """Every key a request presents, as bytes: bearer token, X-API-Key, and ``?key=`` on
    ``/inspect`` (the login)."""
    found: list[bytes] = []
    for name, value in scope.get("headers", ()):
        if name == b"authorization" and value[:7].lower() == b"bearer ":
            found.append(value[7:].strip())
        elif name == b"x-api-key":
            found.append(value.strip())
    if scope.get("path", "").startswith("/inspect"):
        query = parse_qs(scope.get("query_string", b"").decode("latin-1"), encoding="utf-8")
        found.extend(k.encode() for k in query.get("key", []))
    return found


def key_matches(expected: str, presented: bytes) -> bool:
    """Constant-time comparison of the configured key (UTF-8) and a presented one."""
    return hmac.compare_digest(expected.encode(), presented)


class RequireKey:
    """Refuses every HTTP request (401) and websocket without the API key or a valid session
    cookie, and a cookie-only request that changes something from another origin (403); no
    key: lets all in."""

    def __init__(self, app: App, key: str) -> None:
        self.app = app
        self.key = key

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket") or not self.key:
            await self.app(scope, receive, send)
            return
        matched = False
        for presented in presented_keys(scope):
            matched |= key_matches(self.key, presented)  # every key compared: no early exit
        by_cookie = False
        if not matched:
            now = time.time()
            for token in _sessions(scope):
                by_cookie |= session_valid(self.key, token, now)
        if not (matched or by_cookie):
            if scope["type"] == "websocket":
                await send({"type": "websocket.close", "code": 1008})
            else:
                await _refuse(send, 401, "missing or wrong API key", ((b"www-authenticate", b"Bearer"),))
            return
        changes = scope["type"] == "websocket" or scope.get("method") not in SAFE_METHODS
        if by_cookie and changes and not _same_origin(scope):
            if scope["type"] == "websocket":
                await send({"type": "websocket.close", "code": 1008})
            else:
                await _refuse(send, 403, "a change by the inspector's cookie must come from its own page")
            return
        await self.app(scope, receive, send)


class CapBody:
    """Refuses a request body over ``limit`` bytes (413) before the route reads any of it, and
    one that stalls for ``timeout`` seconds between its parts (408: a client that trickles
    bytes does not hold a connection and a task forever).

    A declared ``Content-Length`` is checked first; the body is read up to the limit and
    replayed to the route.
    """

    def __init__(self, app: App, limit: int, timeout: float = 30.0) -> None:
        self.app = app
        self.limit = limit
        self.timeout = timeout

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("method") in ("GET", "HEAD", "OPTIONS"):
            await self.app(scope, receive, send)
            return
        for name, value in scope.get("headers", ()):
            if name == b"content-length" and (not value.isdigit() or int(value) > self.limit):
                await _refuse(send, 413, f"request body over {self.limit} bytes (server.max_body_bytes)")
                return
        chunks: list[Message] = []
        size = 0
        while True:
            try:
                message = await asyncio.wait_for(receive(), self.timeout)
            except TimeoutError:
                await _refuse(send, 408, f"request body stalled for {self.timeout:g}s")
                return
            chunks.append(message)
            if message["type"] != "http.request":
                break
            size += len(message.get("body", b""))
            if size > self.limit:
                await _refuse(send, 413, f"request body over {self.limit} bytes (server.max_body_bytes)")
                return
            if not message.get("more_body", False):
                break

        async def replay() -> Message:
            return chunks.pop(0) if chunks else await receive()

        await self.app(scope, replay, send)


FRAMING_HEADERS = ((b"x-frame-options", b"DENY"), (b"content-security-policy", b"frame-ancestors 'none'"))
"""On every response: no page of the server may be framed (a same-site page could otherwise
frame the inspector and lure clicks onto its buttons)."""


class NoFraming:
    """Adds :data:`FRAMING_HEADERS` to every HTTP response (refusals included)."""

    def __init__(self, app: App) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope.get("type") != "http":
            await self.app(scope, receive, send)
            return

        async def framed(message: Message) -> None:
            if message.get("type") == "http.response.start":
                names = {bytes(name).lower() for name, _ in message.get("headers", ())}
                extra = [(name, value) for name, value in FRAMING_HEADERS if name not in names]
                message["headers"] = [*message.get("headers", ()), *extra]
            await send(message)

        await self.app(scope, receive, framed)
