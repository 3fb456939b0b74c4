"""The MCP tools, driven by the official SDK's own client: over streamable HTTP from the REST app,
and over stdio from ``python -m memory mcp``."""

from __future__ import annotations

import json
import sys

import httpx2
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from helpers.http_server import running
from helpers.store import config_env
from memory import MemoryConfig
from memory.server.service import MemoryService

TOOLS = {"recall_memory", "remember", "forget_memory", "memory_state"}


def _text(result: object) -> str:
    return "".join(getattr(part, "text", "") for part in getattr(result, "content", []))


async def test_tools_over_streamable_http_act_per_user(config: MemoryConfig) -> None:
    service = MemoryService(["karin"], config)
    with running(service) as base:
        async with Client(f"{base}/v1/personas/karin/mcp") as client:
            listed = await client.list_tools()
            assert {tool.name for tool in listed.tools} == TOOLS
            recall = next(t for t in listed.tools if t.name == "recall_memory")
            assert "回忆" in (recall.description or "")  # karin's locale is zh

            made = await client.call_tool("remember", {"fact": "我对花生过敏", "user_id": "u1"})
            assert not made.is_error
            memory_id = _text(made)
            await client.call_tool("remember", {"fact": "我对芒果过敏", "user_id": "u2"})

            found = await client.call_tool("recall_memory", {"query": "我对什么过敏？", "user_id": "u1"})
            assert "花生" in _text(found) and "芒果" not in _text(found) and memory_id in _text(found)

            other = await client.call_tool("forget_memory", {"memory_id": memory_id, "user_id": "u2"})
            assert "no memory" in _text(other)
            gone = await client.call_tool("forget_memory", {"memory_id": memory_id, "user_id": "u1"})
            assert "erased" in _text(gone)
            after = await client.call_tool("recall_memory", {"query": "我对什么过敏？", "user_id": "u1"})
            assert "花生" not in _text(after)

            bad = await client.call_tool("remember", {"fact": "  ", "user_id": "u1"})
            assert bad.is_error and "argument 'fact'" in _text(bad)
            state = json.loads(_text(await client.call_tool("memory_state", {"user_id": "u2"})))
            assert state["user"]["user_id"] == "u2" and state["persona"]


async def test_with_an_api_key_the_mcp_endpoint_needs_it(config: MemoryConfig) -> None:
    config.server.api_key = "mcp-key-7"  # type: ignore[assignment]
    with running(MemoryService(["karin"], config)) as base:
        url = f"{base}/v1/personas/karin/mcp"
        with pytest.raises(Exception):  # noqa: B017  (the SDK reports the 401 its own way)
            async with Client(url) as client:
                await client.list_tools()
        keyed = httpx2.AsyncClient(headers={"Authorization": "Bearer mcp-key-7"})
        async with keyed, Client(streamable_http_client(url, http_client=keyed)) as client:
            assert {tool.name for tool in (await client.list_tools()).tools} == TOOLS


async def test_stdio_server_with_a_fixed_user(config: MemoryConfig) -> None:
    env = config_env(config)
    command = StdioServerParameters(
        command=sys.executable, args=["-m", "memory", "mcp", "--persona", "karin", "--user", "u9"], env=env
    )
    async with Client(command, read_timeout_seconds=120) as client:
        assert {tool.name for tool in (await client.list_tools()).tools} == TOOLS
        await client.call_tool("remember", {"fact": "我住在杭州西湖边", "key": "home"})
        found = await client.call_tool("recall_memory", {"query": "我住在哪里？"})
        assert "杭州" in _text(found)
        other = await client.call_tool("recall_memory", {"query": "我住在哪里？", "user_id": "u1"})
        assert other.is_error and "u9" in _text(other)
        state = json.loads(_text(await client.call_tool("memory_state", {})))
        assert state["user"]["user_id"] == "u9" and "users" not in state


async def test_over_http_forgetting_names_its_user(config: MemoryConfig) -> None:
    with running(MemoryService(["karin"], config)) as base:
        async with Client(f"{base}/v1/personas/karin/mcp") as client:
            memory_id = _text(await client.call_tool("remember", {"fact": "我对花生过敏", "user_id": "u1"}))
            unnamed = await client.call_tool("forget_memory", {"memory_id": memory_id})
            assert unnamed.is_error and "user_id" in _text(unnamed)
            found = await client.call_tool("recall_memory", {"query": "我对什么过敏？", "user_id": "u1"})
            assert "花生" in _text(found)  # nothing was erased
