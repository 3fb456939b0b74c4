"""The MCP surface (the official ``mcp`` SDK; the only module importing it).

One MCP server per persona, with four tools an agent host can call: ``recall_memory``,
``remember``, ``forget_memory`` and ``memory_state``. ``python -m memory mcp --persona karin``
serves it over stdio; the REST app serves the same tools over streamable HTTP at
``/v1/personas/<persona>/mcp``. With a fixed user (``--user``), the tools act for that user only.
"""

from __future__ import annotations

import json
from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.transport_security import TransportSecuritySettings

from memory.errors import AccessDeniedError, InvalidInputError, MemoryEngineError
from memory.server import payloads
from memory.server.guards import GRANT
from memory.server.keys import ADMIN, Grant
from memory.server.service import MemoryService

DESCRIPTIONS = {
    "zh": {
        "recall_memory": "回忆与用户有关的事：用一句话描述想找的内容（例如“用户对什么过敏”），返回相关记忆"
        "（带 id）和用户档案。回答前不确定时先调用。",
        "remember": "记住用户明确告诉你的事实。带 key（如 allergy、home_city）时作为档案事实，"
        "覆盖旧值。返回记忆 id。",
        "forget_memory": "按 id 永久删除用户的一条记忆（用户要求忘掉时使用）。",
        "memory_state": "查看记忆引擎的状态：各层数量、任务、索引健康情况。",
    },
    "en": {
        "recall_memory": "Recall what you know about the user: describe what you are looking for in one "
        "sentence (e.g. 'what the user is allergic to'); returns matching memories (with ids) and "
        "profile facts. Call it before answering when unsure.",
        "remember": "Remember a fact the user told you. With a key (allergy, home_city...) it is a profile "
        "fact that replaces the key's old value. Returns the memory id.",
        "forget_memory": "Erase one of the user's memories for good, by id (when the user asks you "
        "to forget).",
        "memory_state": "The memory engine's state: counts per layer, jobs, index health.",
    },
}


def build_mcp(service: MemoryService, persona: str, *, user_id: str | None = None) -> MCPServer:
    """The MCP server of one served persona; ``user_id`` fixes the user the tools act for."""
    manager = service.manager(persona)
    words = DESCRIPTIONS.get(manager.persona.locale or manager.config.locale, DESCRIPTIONS["en"])
    server: MCPServer = MCPServer(
        name=f"persona-memory-{persona}",
        instructions=f"Long-term memory of the persona {manager.persona.name} ({persona}).",
    )

    fixed = Grant("stdio", persona, user_id)  # ``--user``: the tools act for that user only

    def user(given: str | None, ctx: Context) -> str | None:
        try:
            return _grant(ctx).user(fixed.user(given))
        except AccessDeniedError as exc:
            raise ToolError(str(exc)) from exc

    def one_user(ctx: Context) -> bool:
        return fixed.user_id is not None or _grant(ctx).user_id is not None

    async def recall_memory(query: str, ctx: Context, user_id: str | None = None) -> str:
        found = await _engine(service.retrieve(persona, query, user(user_id, ctx), None))
        lines = [f"- {f['key']}: {f['value']}" for f in found["profile"]]
        lines += [f"- [{m['id']}] {m['note'] or m['content']}" for m in found["memories"]]
        return "\n".join(lines) if lines else "(nothing remembered about this)"

    async def remember(fact: str, ctx: Context, user_id: str | None = None, key: str | None = None) -> str:
        return str(await _engine(service.remember(persona, fact, user(user_id, ctx), key, True), text="fact"))

    async def forget_memory(memory_id: str, ctx: Context, user_id: str | None = None) -> str:
        try:  # as over REST: only the admin key (or stdio, its owner) may name no user
            who = _grant(ctx).one_user(fixed.user(user_id))
        except (AccessDeniedError, InvalidInputError) as exc:
            raise ToolError(str(exc)) from exc
        erased = await _engine(service.forget(persona, memory_id, who))
        return f"erased {memory_id}" if erased else f"no memory {memory_id} of this user"

    async def memory_state(ctx: Context, user_id: str | None = None) -> str:
        state = await _engine(service.state(persona, user(user_id, ctx)))
        if one_user(ctx):  # acting for one user: no other user's id or counts
            state = payloads.one_user_state(state)
        return json.dumps(state, ensure_ascii=False)

    for tool in (recall_memory, remember, forget_memory, memory_state):
        server.add_tool(tool, description=words[tool.__name__], structured_output=False)
    return server


def _grant(ctx: Context) -> Grant:
    """What the HTTP request's key may touch (stdio: its process owner, the admin)."""
    try:
        request = ctx.request_context.request
    except ValueError:
        return ADMIN
    if request is None:
        return ADMIN
    found = getattr(request, "scope", {}).get(GRANT)
    if not isinstance(found, Grant):  # over HTTP the guard always sets it: fail closed
        raise ToolError("argument 'key': the request carries no grant")
    return found


async def _engine(call: Any, **renamed: str) -> Any:
    """Await an engine call; its errors reach the model as the tool's error text, naming the
    tool's own argument (``renamed``: engine argument -> tool argument)."""
    try:
        return await call
    except MemoryEngineError as exc:
        message = str(exc)
        for engine_name, tool_name in renamed.items():
            message = message.replace(f"argument '{engine_name}'", f"argument '{tool_name}'", 1)
        raise ToolError(message) from exc


def http_app(server: MCPServer, host: str) -> Any:
    """The streamable-HTTP ASGI app of ``server`` (path ``/mcp``); its session manager must run
    (``server.session_manager.run()``) while it serves. Loopback binds check Host and Origin."""
    local = host in ("127.0.0.1", "localhost", "::1")  # elsewhere: the app's API key guards it
    security = TransportSecuritySettings(
        enable_dns_rebinding_protection=local,
        allowed_hosts=["127.0.0.1:*", "localhost:*", "[::1]:*"] if local else [],
        allowed_origins=["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"] if local else [],
    )
    return server.streamable_http_app(streamable_http_path="/mcp", transport_security=security)


def run_stdio(service: MemoryService, persona: str, *, user_id: str | None = None) -> None:
    """Serve one persona's tools over stdio until the client closes (starts and stops the jobs)."""
    import anyio

    async def serve() -> None:
        async with service:
            await build_mcp(service, persona, user_id=user_id).run_stdio_async()

    anyio.run(serve)
