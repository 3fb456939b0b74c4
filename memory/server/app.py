"""The HTTP server (FastAPI + uvicorn; the only module importing either).

``create_app(service)`` gives the ASGI app: the REST routes under ``/v1/personas/{persona}``,
OpenAPI docs at ``/docs``, the MCP tools at ``/v1/personas/{persona}/mcp`` (streamable HTTP) and
the inspector at ``/inspect``. Its lifespan starts every persona's jobs and, on shutdown, stops
them and flushes. ``serve(...)`` runs it with uvicorn (``python -m memory serve``).
"""

from __future__ import annotations

import contextlib
import ipaddress
import logging
import time
from collections.abc import AsyncIterator
from datetime import datetime
from typing import Annotated, Any

import uvicorn
from fastapi import FastAPI, Query, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from fastapi_offline import FastAPIOffline
from pydantic import BaseModel, ConfigDict, Field
from starlette.middleware.trustedhost import TrustedHostMiddleware

from memory.errors import (
    ClosedError,
    ConfigError,
    InputTypeError,
    InvalidInputError,
    MemoryEngineError,
    PersonaNotFoundError,
    StorageFullError,
    StoreError,
)
from memory.server import mcp_tools, page
from memory.server.guards import (
    SESSION_COOKIE,
    SESSION_SECONDS,
    CapBody,
    NoFraming,
    RequireKey,
    session_token,
)
from memory.server.service import MemoryService
from memory.state import SHARED_LABEL

LOOPBACK = ("127.0.0.1", "localhost", "::1")


def is_loopback(host: str) -> bool:
    """Whether an address to bind reaches only this machine (127.0.0.0/8, ::1, localhost)."""
    if host in LOOPBACK:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class InteractionIn(_Body):
    """One exchange to record."""

    user_input: str = Field(description="what the user said")
    response: str = Field(description="what the persona answered")
    user_id: str | None = Field(None, description="the user (none: the persona's shared memory)")
    timestamp: Annotated[datetime | None, Field(strict=False)] = Field(None, description="ISO 8601, aware")


class RetrieveIn(_Body):
    """A retrieval before a reply."""

    query: str = Field(description="the user's message")
    user_id: str | None = None
    top_k: int | None = Field(None, description="at most this many memories")


class RememberIn(_Body):
    """A fact stored on purpose."""

    text: str
    user_id: str | None = None
    key: str | None = Field(None, description="a profile key (allergy, home_city): replaces its old value")
    pinned: bool = Field(True, description="pinned memories never decay")


def _status(error: MemoryEngineError) -> int:
    if isinstance(error, InvalidInputError | InputTypeError):
        return 422
    if isinstance(error, PersonaNotFoundError):
        return 404
    if isinstance(error, StorageFullError):
        return 507
    if isinstance(error, StoreError | ClosedError):
        return 503
    return 500


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


def create_app(service: MemoryService, *, host: str | None = None) -> FastAPI:
    """The ASGI app over a :class:`MemoryService` (which the app's lifespan starts and stops).

    ``host`` is the address it will be bound to (default ``server.host``): on loopback, requests
    must name a loopback host (no DNS rebinding from a web page).
    """
    config = service.config.server
    bind = host or config.host
    if not is_loopback(bind) and not config.api_key.get_secret_value():
        raise ConfigError(
            "server.api_key",
            f"binding {bind} (not loopback) lets others reach every memory: set a key first "
            "(PERSONA_MEMORY__SERVER__API_KEY), and put TLS in front",
        )
    mcp_servers = {p: mcp_tools.build_mcp(service, p) for p in service.personas}
    mcp_apps = {p: mcp_tools.http_app(server, bind) for p, server in mcp_servers.items()}

    @contextlib.asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        redact_access_log()  # uvicorn has set up its loggers by now
        async with contextlib.AsyncExitStack() as stack:
            for server in mcp_servers.values():
                await stack.enter_async_context(server.session_manager.run())
            await stack.enter_async_context(service)
            yield

    app = FastAPIOffline(  # /docs served from the package: works offline, no CDN
        title="persona-memory",
        description="Long-term memory of persona chatbots: record, retrieve, remember, forget.",
        lifespan=lifespan,
    )

    @app.exception_handler(MemoryEngineError)
    async def engine_error(_: Request, error: MemoryEngineError) -> JSONResponse:
        status = _status(error)
        argument = getattr(error, "argument", None)
        if status == 422 and argument:
            detail: Any = [{"loc": ["body", argument], "msg": str(error), "type": type(error).__name__}]
        else:
            detail = str(error)
        return JSONResponse({"detail": detail}, status_code=status)

    v1 = "/v1/personas/{persona}"

    @app.get("/v1/personas", tags=["personas"])
    async def personas() -> dict[str, list[str]]:
        """The personas this server serves."""
        return {"personas": service.personas}

    @app.post(f"{v1}/interactions", status_code=201, tags=["chat"])
    async def record(persona: str, body: InteractionIn) -> dict[str, str]:
        """Record one exchange; answers once it is durable."""
        found = await service.record(persona, body.user_input, body.response, body.user_id, body.timestamp)
        return {"id": found}

    @app.post(f"{v1}/retrieve", tags=["chat"])
    async def retrieve(persona: str, body: RetrieveIn) -> dict[str, Any]:
        """Retrieve before a reply: ``active`` and ``rag`` prompt texts, and the scored memories."""
        return await service.retrieve(persona, body.query, body.user_id, body.top_k)

    @app.post(f"{v1}/memories", status_code=201, tags=["memories"])
    async def remember(persona: str, body: RememberIn) -> dict[str, str]:
        """Store a fact on purpose (a profile fact with a key)."""
        return {"id": await service.remember(persona, body.text, body.user_id, body.key, body.pinned)}

    @app.delete(f"{v1}/memories/{{memory_id}}", tags=["memories"])
    async def forget(persona: str, memory_id: str, user_id: str) -> JSONResponse:
        """Erase one memory of ``user_id`` from every file (another user's memory: 404)."""
        if await service.forget(persona, memory_id, user_id):
            return JSONResponse({"forgotten": memory_id})
        return JSONResponse({"detail": f"no memory {memory_id!r} to forget"}, status_code=404)

    @app.post(f"{v1}/memories/{{memory_id}}/restore", tags=["memories"])
    async def restore(persona: str, memory_id: str, user_id: str) -> JSONResponse:
        """Bring a forgotten (cold) memory of ``user_id`` back to its layer."""
        if await service.restore(persona, memory_id, user_id):
            return JSONResponse({"restored": memory_id})
        return JSONResponse({"detail": f"no cold memory {memory_id!r} to restore"}, status_code=404)

    @app.delete(f"{v1}/users/{{user_id}}", tags=["users"])
    async def erase_user(persona: str, user_id: str) -> dict[str, int]:
        """Erase everything of a user, from every file."""
        return {"erased": await service.forget_user(persona, user_id)}

    @app.get(f"{v1}/users/{{user_id}}/profile", tags=["users"])
    async def profile(persona: str, user_id: str) -> dict[str, Any]:
        """A user's current profile facts."""
        return {"facts": await service.profile(persona, user_id)}

    @app.get(f"{v1}/users/{{user_id}}/inspect", tags=["users"])
    async def inspect_user(persona: str, user_id: str, q: str = "") -> dict[str, Any]:
        """What the inspector shows of a user (``q`` searches the cold tier)."""
        return await service.view(persona, user_id, q)

    @app.get(f"{v1}/state", tags=["personas"])
    async def state(persona: str, user_id: str | None = None) -> dict[str, Any]:
        """``debug_state()``: counts per layer, jobs, store and index health."""
        return await service.state(persona, user_id)

    @app.get("/inspect", response_class=HTMLResponse, include_in_schema=False)
    async def inspect(
        persona: Annotated[str | None, Query()] = None,
        user_id: Annotated[str | None, Query()] = None,
        q: str = "",
        key: str | None = None,
    ) -> Response:
        if key is not None:  # the guard accepted it: keep it in a cookie, drop it from the URL
            target = page.link(persona, user_id, q)
            moved = RedirectResponse(target, status_code=303)
            expires = int(time.time()) + SESSION_SECONDS
            token = session_token(config.api_key.get_secret_value(), expires)
            moved.set_cookie(
                SESSION_COOKIE, token, max_age=SESSION_SECONDS, httponly=True, samesite="strict", path="/"
            )
            return moved
        chosen = persona or service.personas[0]
        view = await service.view(chosen, user_id, q) if user_id else None
        listed = {} if view else (await service.state(chosen, None)).get("users", {})
        users = [u for u in listed if u != SHARED_LABEL]  # the shared memory is no user's
        served = service.manager(chosen)
        locale = served.persona.locale or served.config.locale
        html = page.render(service.personas, chosen, locale, view, users, q)
        return HTMLResponse(html, headers={"cache-control": "no-store"})

    for persona_id, mcp_app in mcp_apps.items():
        app.mount(f"/v1/personas/{persona_id}", mcp_app)
    app.add_middleware(CapBody, limit=config.max_body_bytes, timeout=config.body_timeout_seconds)
    app.add_middleware(RequireKey, key=config.api_key.get_secret_value())
    app.add_middleware(NoFraming)  # outermost: refusals carry the headers too
    if is_loopback(bind):
        hosts = ["127.0.0.1", "localhost", "[::1]", "::1", bind, f"[{bind}]" if ":" in bind else bind]
        app.add_middleware(TrustedHostMiddleware, allowed_hosts=sorted(set(hosts)))
    return app


def serve(service: MemoryService, *, host: str | None = None, port: int | None = None) -> None:
    """Run the app with uvicorn until SIGINT / SIGTERM; shutdown stops the jobs and flushes."""
    config = service.config.server
    bind = host or config.host
    uvicorn.run(
        create_app(service, host=bind),
        host=bind,
        port=port or config.port,
        log_level="info",
        limit_concurrency=config.max_connections,
    )
