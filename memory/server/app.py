"""The HTTP app (FastAPI; the only module importing it).

``create_app(service)`` gives the ASGI app: the REST routes under ``/v1/personas/{persona}``, one
``APIRouter`` per resource (personas, chat, memories, users) and one for the inspector page,
OpenAPI docs at ``/docs``, the MCP tools at ``/v1/personas/{persona}/mcp`` (streamable HTTP) and
the inspector at ``/inspect``. Its lifespan starts every persona's jobs and, on shutdown, stops
them and flushes. :mod:`memory.server.run` serves it with uvicorn (``python -m memory serve``).
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import AsyncIterator
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, FastAPI, Query, Request, Security
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from fastapi.security import APIKeyHeader, HTTPBearer
from fastapi_offline import FastAPIOffline
from starlette.middleware.trustedhost import TrustedHostMiddleware

from memory.errors import (
    AccessDeniedError,
    ClosedError,
    ConfigError,
    InputTypeError,
    InvalidInputError,
    MemoryEngineError,
    PersonaNotFoundError,
    StorageFullError,
    StoreError,
)
from memory.introspection.state import SHARED_LABEL
from memory.server import mcp_tools, page, payloads
from memory.server.guards import (
    GRANT,
    SESSION_COOKIE,
    SESSION_SECONDS,
    NoFraming,
    RequireKey,
    is_loopback,
    redact_access_log,
    session_token,
)
from memory.server.keys import Grant, KeyRing
from memory.server.limits import CapBody
from memory.server.requests import InteractionIn, RememberIn, RetrieveIn
from memory.server.service import MemoryService

logger = logging.getLogger(__name__)


_BEARER = HTTPBearer(auto_error=False, description="a key: admin, persona or user (`keys add`)")
_API_KEY = APIKeyHeader(name="X-API-Key", auto_error=False, description="the same key, another header")


def _grant(
    request: Request,
    _bearer: Annotated[object, Security(_BEARER)] = None,
    _header: Annotated[object, Security(_API_KEY)] = None,
) -> Grant:
    """What the request's key may touch (set by :class:`RequireKey`, which has checked the key;
    the two schemes only describe it in the OpenAPI schema: the Authorize button of ``/docs``)."""
    found = request.scope.get(GRANT)
    if not isinstance(found, Grant):  # RequireKey sets it on every request: fail closed
        raise AccessDeniedError("key", "the request carries no grant")
    return found


Granted = Annotated[Grant, Depends(_grant)]


def _status(error: MemoryEngineError) -> int:
    if isinstance(error, InvalidInputError | InputTypeError):
        return 422
    if isinstance(error, AccessDeniedError):
        return 403
    if isinstance(error, PersonaNotFoundError):
        return 404
    if isinstance(error, StorageFullError):
        return 507
    if isinstance(error, StoreError | ClosedError):
        return 503
    return 500


V1 = "/v1/personas/{persona}"
"""Where one persona's REST routes live."""


def personas_routes(service: MemoryService) -> APIRouter:
    """The personas served and each one's state."""
    router = APIRouter(tags=["personas"])

    @router.get("/v1/personas")
    async def personas(grant: Granted) -> dict[str, list[str]]:
        """The personas this server serves (a scoped key: its own)."""
        return {"personas": [p for p in service.personas if grant.allows_persona(p)]}

    @router.get(f"{V1}/state")
    async def state(persona: str, grant: Granted, user_id: str | None = None) -> dict[str, Any]:
        """``debug_state()``: counts per layer, jobs, store and index health."""
        found = await service.state(persona, grant.user(user_id))
        if grant.user_id is not None:  # a key for one user sees no other user's id or counts
            return payloads.one_user_state(found)
        return found

    return router


def chat_routes(service: MemoryService) -> APIRouter:
    """The reply path: record an exchange, retrieve before a reply."""
    router = APIRouter(prefix=V1, tags=["chat"])

    @router.post("/interactions", status_code=201)
    async def record(persona: str, body: InteractionIn, grant: Granted) -> dict[str, str]:
        """Record one exchange; answers once it is durable."""
        user = grant.user(body.user_id)
        found = await service.record(persona, body.user_input, body.response, user, body.timestamp)
        return {"id": found}

    @router.post("/retrieve")
    async def retrieve(persona: str, body: RetrieveIn, grant: Granted) -> dict[str, Any]:
        """Retrieve before a reply: ``active`` and ``rag`` prompt texts, and the scored memories."""
        return await service.retrieve(persona, body.query, grant.user(body.user_id), body.top_k)

    return router


def memories_routes(service: MemoryService) -> APIRouter:
    """One memory: remember, forget, restore."""
    router = APIRouter(prefix=f"{V1}/memories", tags=["memories"])

    @router.post("", status_code=201)
    async def remember(persona: str, body: RememberIn, grant: Granted) -> dict[str, str]:
        """Store a fact on purpose (a profile fact with a key)."""
        user = grant.user(body.user_id)
        return {"id": await service.remember(persona, body.text, user, body.key, body.pinned)}

    @router.delete("/{memory_id}")
    async def forget(
        persona: str, memory_id: str, grant: Granted, user_id: str | None = None
    ) -> JSONResponse:
        """Erase one memory of ``user_id`` from every file (another user's memory: 404); only the
        admin key may leave ``user_id`` out."""
        if await service.forget(persona, memory_id, grant.one_user(user_id)):
            return JSONResponse({"forgotten": memory_id})
        return JSONResponse({"detail": f"no memory {memory_id!r} to forget"}, status_code=404)

    @router.post("/{memory_id}/restore")
    async def restore(
        persona: str, memory_id: str, grant: Granted, user_id: str | None = None
    ) -> JSONResponse:
        """Bring a forgotten (cold) memory of ``user_id`` back to its layer; only the admin key
        may leave ``user_id`` out."""
        if await service.restore(persona, memory_id, grant.one_user(user_id)):
            return JSONResponse({"restored": memory_id})
        return JSONResponse({"detail": f"no cold memory {memory_id!r} to restore"}, status_code=404)

    return router


def users_routes(service: MemoryService) -> APIRouter:
    """One user: erase, profile facts, what the inspector shows."""
    router = APIRouter(prefix=f"{V1}/users/{{user_id}}", tags=["users"])

    @router.delete("")
    async def erase_user(persona: str, user_id: str, grant: Granted) -> dict[str, int]:
        """Erase everything of a user, from every file."""
        return {"erased": await service.forget_user(persona, str(grant.user(user_id)))}

    @router.get("/profile")
    async def profile(persona: str, user_id: str, grant: Granted) -> dict[str, Any]:
        """A user's current profile facts."""
        return {"facts": await service.profile(persona, str(grant.user(user_id)))}

    @router.get("/inspect")
    async def inspect_user(persona: str, user_id: str, grant: Granted, q: str = "") -> dict[str, Any]:
        """What the inspector shows of a user (``q`` searches the cold tier)."""
        return await service.view(persona, str(grant.user(user_id)), q)

    return router


def inspector_routes(service: MemoryService, ring: KeyRing) -> APIRouter:
    """The inspector page (``/inspect``), outside the API schema."""
    router = APIRouter(include_in_schema=False)
    admin_key = service.config.server.api_key.get_secret_value()

    @router.get("/inspect", response_class=HTMLResponse)
    async def inspect(
        grant: Granted,
        persona: Annotated[str | None, Query()] = None,
        user_id: Annotated[str | None, Query()] = None,
        q: str = "",
        key: str | None = None,
        lang: Annotated[Literal["zh", "en"] | None, Query()] = None,
    ) -> Response:
        if key is not None:  # the guard accepted it: keep it in a cookie, drop it from the URL
            moved = RedirectResponse(page.link(persona, user_id, q, lang), status_code=303)
            expires = int(time.time()) + SESSION_SECONDS
            token = session_token(admin_key, expires) if grant.admin else ring.session_token(grant, expires)
            moved.set_cookie(
                SESSION_COOKIE, token, max_age=SESSION_SECONDS, httponly=True, samesite="strict", path="/"
            )
            return moved
        chosen = persona or grant.persona or service.personas[0]
        if not grant.allows_persona(chosen):
            raise AccessDeniedError("persona", "this key is for another persona")
        user_id = grant.user(user_id)
        view = await service.view(chosen, user_id, q) if user_id else None
        listed = {} if view else (await service.state(chosen, None)).get("users", {})
        users = [u for u in listed if u != SHARED_LABEL]  # the shared memory is no user's
        served = service.manager(chosen)
        locale = served.persona.locale or served.config.locale
        shown = [p for p in service.personas if grant.allows_persona(p)]
        html = page.render(shown, chosen, locale, view, users, q, lang)
        return HTMLResponse(html, headers={"cache-control": "no-store"})

    return router


def _check_bind(service: MemoryService, bind: str, ring: KeyRing) -> None:
    config = service.config.server
    unguarded = not is_loopback(bind) and not config.api_key.get_secret_value() and not ring.path.exists()
    if unguarded and config.allow_open_bind:
        logger.warning("serving %s with no key: anyone who reaches it reads and erases every memory", bind)
    elif unguarded:
        raise ConfigError(
            "server.api_key",
            f"binding {bind} (not loopback) lets others reach every memory: set a key first "
            "(PERSONA_MEMORY__SERVER__API_KEY, or scoped keys: python -m memory keys add), "
            "and put TLS in front",
        )


async def _engine_error(_: Request, error: Exception) -> JSONResponse:
    """A :class:`MemoryEngineError` as its HTTP status; a bad argument in FastAPI's 422 shape."""
    if not isinstance(error, MemoryEngineError):  # registered for that class only
        raise error
    status = _status(error)
    argument = getattr(error, "argument", None)
    if status == 422 and argument:
        detail: Any = [{"loc": ["body", argument], "msg": str(error), "type": type(error).__name__}]
    else:
        detail = str(error)
    return JSONResponse({"detail": detail}, status_code=status)


def create_app(service: MemoryService, *, host: str | None = None) -> FastAPI:
    """The ASGI app over a :class:`MemoryService` (which the app's lifespan starts and stops).

    ``host`` is the address it will be bound to (default ``server.host``): on loopback, requests
    must name a loopback host (no DNS rebinding from a web page).
    """
    config = service.config.server
    bind = host or config.host
    ring = KeyRing(service.config.data_dir)
    _check_bind(service, bind, ring)
    mcp_servers = {p: mcp_tools.build_mcp(service, p) for p in service.personas}

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
    app.add_exception_handler(MemoryEngineError, _engine_error)
    for router in (
        personas_routes(service),
        chat_routes(service),
        memories_routes(service),
        users_routes(service),
        inspector_routes(service, ring),
    ):
        app.include_router(router)
    for persona_id, server in mcp_servers.items():
        app.mount(f"/v1/personas/{persona_id}", mcp_tools.http_app(server, bind))
    app.add_middleware(
        CapBody,
        limit=config.max_body_bytes,
        timeout=config.body_timeout_seconds,
        per_key=config.max_bodies_per_key,
    )
    app.add_middleware(RequireKey, key=config.api_key.get_secret_value(), ring=ring)
    app.add_middleware(NoFraming)  # outermost: refusals carry the headers too
    if is_loopback(bind):
        hosts = ["127.0.0.1", "localhost", "[::1]", "::1", bind, f"[{bind}]" if ":" in bind else bind]
        app.add_middleware(TrustedHostMiddleware, allowed_hosts=sorted(set(hosts)))
    return app
