"""The server's gates, as plain ASGI middleware: the keys and no framing (body caps: ``limits``).

They refuse before any route runs, so a refused request writes nothing. A key is the admin key
(``server.api_key``) or a scoped one (:mod:`memory.server.keys`: a persona, optionally one user),
compared in constant time (:func:`hmac.compare_digest`); it may come as ``Authorization: Bearer
<key>`` or ``X-API-Key: <key>``; what it may touch goes to the routes in ``scope[GRANT]``.
The inspector in a browser logs in once with ``/inspect?key=<key>`` and
then holds a session cookie: an expiry and an HMAC of it under the key (never the key itself;
it dies with the expiry or a new key). A request that only the cookie vouches for and that
changes something (any method but GET, HEAD, OPTIONS) must come from the server's own origin
(its ``Origin`` names the ``Host`` it was sent to): a page on another port of the same host is
the same *site* to the browser, which sends the cookie with its forms and ``no-cors`` fetches.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import json
import logging
import time
from collections.abc import Awaitable, Callable, MutableMapping
from http.cookies import SimpleCookie
from typing import Any
from urllib.parse import parse_qs

from memory.errors import ConfigError
from memory.server.keys import ADMIN, OPEN, Grant, KeyRing

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]

GRANT = "persona_memory.grant"
"""The ``scope`` key holding what a request's key may touch (:class:`memory.server.keys.Grant`)."""
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


async def refuse(send: Send, status: int, detail: str, headers: tuple[tuple[bytes, bytes], ...] = ()) -> None:
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
    """Refuses every HTTP request (401) and websocket without a key (the admin key or a scoped
    one, :mod:`memory.server.keys`) or a valid session cookie; a scoped key's request for another
    persona's path (403); and a cookie-only request that changes something from another origin
    (403). The request's :class:`Grant` goes into ``scope[GRANT]`` for the routes. No admin key and
    no key file: lets all in, with the open grant (everything but what only the admin key may)."""

    def __init__(self, app: App, key: str, ring: KeyRing | None = None) -> None:
        self.app = app
        self.key = key
        self.ring = ring

    def _grant(self, scope: Scope) -> tuple[Grant | None, bool]:
        """The request's grant and whether only a cookie vouched for it."""
        ring = self.ring if self.ring is not None and self.ring.path.exists() else None
        if not self.key and ring is None:
            return OPEN, False
        found: Grant | None = None
        for presented in presented_keys(scope):  # every key compared: no early exit
            if self.key and key_matches(self.key, presented):
                found = ADMIN
            elif ring is not None:
                found = found or ring.grant_for(presented)
        if found is not None:
            return found, False
        now = time.time()
        for token in _sessions(scope):
            if self.key and session_valid(self.key, token, now):
                found = ADMIN
            elif ring is not None:
                found = found or ring.session_grant(token, now)
        return found, found is not None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        try:
            grant, by_cookie = self._grant(scope)
        except ConfigError as exc:  # an unreadable key file: nobody is let in on a guess
            await refuse(send, 503, str(exc))
            return
        if grant is None:
            if scope["type"] == "websocket":
                await send({"type": "websocket.close", "code": 1008})
            else:
                await refuse(send, 401, "missing or wrong API key", ((b"www-authenticate", b"Bearer"),))
            return
        parts = scope.get("path", "").split("/")
        if parts[1:3] == ["v1", "personas"] and len(parts) > 3 and not grant.allows_persona(parts[3]):
            await refuse(send, 403, "this key is for another persona")
            return
        changes = scope["type"] == "websocket" or scope.get("method") not in SAFE_METHODS
        if by_cookie and changes and not _same_origin(scope):
            if scope["type"] == "websocket":
                await send({"type": "websocket.close", "code": 1008})
            else:
                await refuse(send, 403, "a change by the inspector's cookie must come from its own page")
            return
        scope[GRANT] = grant
        await self.app(scope, receive, send)


SAFETY_HEADERS = (
    (b"x-frame-options", b"DENY"),
    (b"content-security-policy", b"frame-ancestors 'none'"),
    (b"x-content-type-options", b"nosniff"),
)
"""On every response: no page of the server may be framed (a same-site page could otherwise
frame the inspector and lure clicks onto its buttons), and no body is read as another type than
the one declared."""


class NoFraming:
    """Adds :data:`SAFETY_HEADERS` to every HTTP response (refusals included)."""

    def __init__(self, app: App) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope.get("type") != "http":
            await self.app(scope, receive, send)
            return

        async def framed(message: Message) -> None:
            if message.get("type") == "http.response.start":
                names = {bytes(name).lower() for name, _ in message.get("headers", ())}
                extra = [(name, value) for name, value in SAFETY_HEADERS if name not in names]
                message["headers"] = [*message.get("headers", ()), *extra]
            await send(message)

        await self.app(scope, receive, framed)


class NoQueryStrings(logging.Filter):
    """Drops the query string from uvicorn's access log lines: a ``?key=`` there would put the
    API key into every log that keeps them."""

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args
        if isinstance(args, tuple) and len(args) >= 3 and isinstance(args[2], str) and "?" in args[2]:
            record.args = (*args[:2], args[2].split("?", 1)[0], *args[3:])
        return True


def redact_access_log() -> None:
    """Install :class:`NoQueryStrings` on uvicorn's access logger (once)."""
    access = logging.getLogger("uvicorn.access")
    if not any(isinstance(f, NoQueryStrings) for f in access.filters):
        access.addFilter(NoQueryStrings())


LOOPBACK = ("127.0.0.1", "localhost", "::1")


def is_loopback(host: str) -> bool:
    """Whether an address to bind reaches only this machine (127.0.0.0/8, ::1, localhost)."""
    if host in LOOPBACK:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False
