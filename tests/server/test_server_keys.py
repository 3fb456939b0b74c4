"""Scoped server keys and connection limits: a real uvicorn on loopback, real managers; keys issued
by the CLI (``python -m memory keys``), as an operator would."""

from __future__ import annotations

import contextlib
import json
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from helpers.http_server import running
from helpers.store import config_env, write_persona
from memory import MemoryConfig
from memory.server.keys import KeyRing
from memory.server.service import MemoryService

KARIN, MIKA = "/v1/personas/karin", "/v1/personas/mika"
ADMIN = "admin-key-31"


def _keys(config: MemoryConfig, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "memory", "keys", *args],
        env=config_env(config),
        capture_output=True,
        text=True,
        timeout=120,
    )


def _bearer(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


def _say(client: httpx.Client, key: str, user: str | None, text: str) -> httpx.Response:
    body = {"user_id": user, "user_input": text, "response": "嗯嗯"}
    return client.post(f"{KARIN}/interactions", json=body, headers=_bearer(key))


def test_the_cli_issues_keys_stored_hashed_lists_and_revokes_them(config: MemoryConfig) -> None:
    made = _keys(config, "add", "--persona", "karin", "--user", "alice@example.com", "--name", "frontend")
    assert made.returncode == 0, made.stderr
    key = made.stdout.strip()
    assert key.startswith("pmk_") and "shown" in made.stderr
    stored = (Path(config.data_dir) / "server-keys.json").read_text(encoding="utf-8")
    secret = key.split("_", 2)[2]  # it may hold "_" itself
    assert key not in stored and secret not in stored  # only its hash is kept
    assert (Path(config.data_dir) / "server-keys.json").stat().st_mode & 0o077 == 0
    listed = [json.loads(line) for line in _keys(config, "list").stdout.splitlines()]
    assert [(r["persona"], r["user_id"], r["name"]) for r in listed] == [
        ("karin", "alice@example.com", "frontend")
    ]
    assert "sha256" not in listed[0]
    assert _keys(config, "revoke", listed[0]["id"]).returncode == 0
    assert _keys(config, "list").stdout == ""
    missing = _keys(config, "revoke", "nope")
    assert missing.returncode == 2 and "key_id" in missing.stderr
    assert _keys(config, "add").returncode == 2  # no persona named
    unknown = _keys(config, "add", "--persona", "nope")
    assert unknown.returncode == 2 and "nope" in unknown.stderr and "Traceback" not in unknown.stderr
    assert "name the key" in _keys(config, "revoke").stderr
    _keys(config, "add", "--persona", "karin")
    _keys(config, "add", "--persona", "karin", "--user", "bob")
    bobs = [json.loads(line) for line in _keys(config, "list", "--user", "bob").stdout.splitlines()]
    assert [(r["persona"], r["user_id"]) for r in bobs] == [("karin", "bob")]
    assert len(_keys(config, "list", "--persona", "mika").stdout.splitlines()) == 0


def test_a_user_key_reads_and_writes_only_its_user(config: MemoryConfig) -> None:
    config.server.api_key = ADMIN  # type: ignore[assignment]
    ring = KeyRing(config.data_dir)
    alice, _ = ring.issue("karin", "alice")
    with running(MemoryService(["karin"], config)) as base, httpx.Client(base_url=base) as client:
        assert _say(client, ADMIN, "bob", "我对芒果过敏，bob 的秘密").status_code == 201
        bob_state = client.get(f"{KARIN}/state", params={"user_id": "bob"}, headers=_bearer(ADMIN)).json()
        assert _say(client, alice, None, "我对花生过敏").status_code == 201  # the key's user is implied
        assert _say(client, alice, "alice", "我住在杭州").status_code == 201
        refused = [
            _say(client, alice, "bob", "冒充 bob"),
            client.post(
                f"{KARIN}/retrieve", json={"query": "过敏", "user_id": "bob"}, headers=_bearer(alice)
            ),
            client.post(f"{KARIN}/memories", json={"text": "x", "user_id": "bob"}, headers=_bearer(alice)),
            client.get(f"{KARIN}/users/bob/profile", headers=_bearer(alice)),
            client.get(f"{KARIN}/users/bob/inspect", headers=_bearer(alice)),
            client.get(f"{KARIN}/state", params={"user_id": "bob"}, headers=_bearer(alice)),
            client.delete(f"{KARIN}/users/bob", headers=_bearer(alice)),
            client.delete(f"{KARIN}/memories/x", params={"user_id": "bob"}, headers=_bearer(alice)),
            client.get("/inspect", params={"user_id": "bob"}, headers=_bearer(alice)),
        ]
        assert [r.status_code for r in refused] == [403] * len(refused)
        assert "alice" in refused[0].text
        found = client.post(
            f"{KARIN}/retrieve", json={"query": "我对什么过敏？"}, headers=_bearer(alice)
        ).json()
        shown = found["active"] + found["rag"]
        assert "花生" in shown and "芒果" not in shown
        state = client.get(f"{KARIN}/state", headers=_bearer(alice)).json()
        assert "users" not in state and state["user"]["user_id"] == "alice"  # no other user listed
        assert not {"users_count", "active_count", "temporary_count", "store"} & set(state)  # nor counts
        after = client.get(f"{KARIN}/state", params={"user_id": "bob"}, headers=_bearer(ADMIN)).json()
        assert after["user"] == bob_state["user"]  # the refused calls wrote nothing to bob
        page = client.get("/inspect", headers=_bearer(alice))
        assert page.status_code == 200 and "杭州" in page.text and "bob" not in page.text
        assert client.delete(f"{KARIN}/users/alice", headers=_bearer(alice)).json()["erased"] >= 2


def test_a_persona_key_reaches_no_other_persona_and_revoking_ends_it(config: MemoryConfig) -> None:
    write_persona(Path(config.personas_dir), "mika")
    ring = KeyRing(config.data_dir)
    karin_key, record = ring.issue("karin")
    with running(MemoryService(["karin", "mika"], config)) as base, httpx.Client(base_url=base) as client:
        # a key file makes every request need a key, even with no admin key set
        assert client.get(f"{KARIN}/state").status_code == 401
        assert client.get("/v1/personas", headers=_bearer(karin_key)).json() == {"personas": ["karin"]}
        assert _say(client, karin_key, "u1", "我叫小明").status_code == 201
        assert _say(client, karin_key, "u2", "我叫小红").status_code == 201  # any user of karin
        mika_tries = [
            client.get(f"{MIKA}/state", headers=_bearer(karin_key)),
            client.post(
                f"{MIKA}/interactions", json={"user_input": "a", "response": "b"}, headers=_bearer(karin_key)
            ),
            client.post(
                f"{MIKA}/mcp",
                json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
                headers=_bearer(karin_key),
            ),
            client.get("/inspect", params={"persona": "mika"}, headers=_bearer(karin_key)),
        ]
        assert [r.status_code for r in mika_tries] == [403] * len(mika_tries)
        login = client.get("/inspect", params={"key": karin_key}, follow_redirects=False)
        token = login.cookies["persona_memory_session"]
        assert karin_key not in token and record.id in token
        cookie = {"cookie": f"persona_memory_session={token}"}
        assert client.get(f"{KARIN}/state", headers=cookie).status_code == 200
        assert client.get(f"{MIKA}/state", headers=cookie).status_code == 403
        assert ring.revoke(record.id)
        assert client.get(f"{KARIN}/state", headers=_bearer(karin_key)).status_code == 401
        assert client.get(f"{KARIN}/state", headers=cookie).status_code == 401  # its sessions end too
        assert client.get("/v1/personas/mika/state").status_code == 401  # still no open door


async def test_an_mcp_client_with_a_user_key_acts_for_that_user_only(config: MemoryConfig) -> None:
    ring = KeyRing(config.data_dir)
    alice, _ = ring.issue("karin", "alice")
    bob, _ = ring.issue("karin", "bob")
    url = "/v1/personas/karin/mcp"
    with running(MemoryService(["karin"], config)) as base:
        for key, fact in ((alice, "我对花生过敏"), (bob, "我对芒果过敏")):
            keyed = httpx2.AsyncClient(headers=_bearer(key))
            async with keyed, Client(streamable_http_client(base + url, http_client=keyed)) as client:
                made = await client.call_tool("remember", {"fact": fact})
                assert not made.is_error
        keyed = httpx2.AsyncClient(headers=_bearer(alice))
        async with keyed, Client(streamable_http_client(base + url, http_client=keyed)) as client:
            mine = await client.call_tool("recall_memory", {"query": "我对什么过敏？"})
            text = "".join(getattr(p, "text", "") for p in mine.content)
            assert "花生" in text and "芒果" not in text
            other = await client.call_tool("recall_memory", {"query": "过敏", "user_id": "bob"})
            assert other.is_error and "alice" in "".join(getattr(p, "text", "") for p in other.content)
            state = await client.call_tool("memory_state", {})
            assert "bob" not in "".join(getattr(p, "text", "") for p in state.content)


def test_a_client_trickling_its_headers_is_cut_off(config: MemoryConfig) -> None:
    config.server.header_timeout_seconds = 1.0
    with running(MemoryService(["karin"], config)) as base:
        host, port = base.removeprefix("http://").split(":")
        with socket.create_connection((host, int(port)), timeout=10) as trickle:
            started = time.monotonic()
            trickle.sendall(f"GET {KARIN}/state HTTP/1.1\r\nHost: {host}\r\n".encode())
            for _ in range(8):  # a header line now and then, never the blank line that ends them
                try:
                    trickle.sendall(b"x-slow: 1\r\n")
                except OSError:
                    break
                time.sleep(0.3)
            assert trickle.recv(4096) == b""  # closed by the server
        assert time.monotonic() - started < 5
        with httpx.Client(base_url=base) as client:  # a prompt client is served
            assert client.get(f"{KARIN}/state").status_code == 200


def test_one_client_cannot_hold_every_connection(config: MemoryConfig) -> None:
    config.server.max_connections_per_client = 3
    with running(MemoryService(["karin"], config)) as base:
        host, port = base.removeprefix("http://").split(":")
        held = [socket.create_connection((host, int(port)), timeout=10) for _ in range(3)]
        try:
            with socket.create_connection((host, int(port)), timeout=10) as extra:
                assert extra.recv(4096).startswith(b"HTTP/1.1 429")
        finally:
            for sock in held:
                sock.close()
        time.sleep(0.2)  # the server has seen them close
        with httpx.Client(base_url=base) as client:
            assert client.get(f"{KARIN}/state").status_code == 200


def test_slow_bodies_under_one_key_leave_the_server_to_the_others(config: MemoryConfig) -> None:
    """200 bodies trickling under one user's key (from many connections, below the stall limit):
    beyond the key's cap they are refused at once and their connections closed, so the admin and
    another user's key are answered the whole time."""
    config.server.api_key = ADMIN  # type: ignore[assignment]
    config.server.max_connections_per_client = 1000  # many addresses in the wild: one here
    ring = KeyRing(config.data_dir)
    slow_key, _ = ring.issue("karin", "mallory")
    other_key, _ = ring.issue("karin", "alice")
    with running(MemoryService(["karin"], config)) as base, httpx.Client(base_url=base, timeout=5) as client:
        host, port = base.removeprefix("http://").split(":")
        head = (
            f"POST {KARIN}/interactions HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer {slow_key}\r\n"
            "Content-Type: application/json\r\nContent-Length: 500\r\n\r\n{"
        ).encode()
        held: list[socket.socket] = []
        refused = 0
        try:
            for _ in range(200):
                sock = socket.create_connection((host, int(port)), timeout=5)
                sock.sendall(head)
                held.append(sock)
            time.sleep(0.5)
            for sock in held:
                sock.settimeout(0.05)
                with contextlib.suppress(TimeoutError, OSError):
                    refused += sock.recv(4096).startswith(b"HTTP/1.1 429")
            for key in (ADMIN, other_key):
                started = time.monotonic()
                assert client.get(f"{KARIN}/state", headers=_bearer(key)).status_code == 200
                assert time.monotonic() - started < 2
        finally:
            for sock in held:
                sock.close()
        assert refused >= 190  # all but the key's 8 bodies


@pytest.mark.parametrize("broken", ["{not json", '{"secret": "zz", "keys": []}'])
def test_an_unreadable_key_file_lets_nobody_in(config: MemoryConfig, broken: str) -> None:
    path = Path(config.data_dir) / "server-keys.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(broken, encoding="utf-8")
    with running(MemoryService(["karin"], config)) as base, httpx.Client(base_url=base) as client:
        answer = client.get(f"{KARIN}/state", headers=_bearer("pmk_00000000_x"))
        assert answer.status_code == 503 and "server-keys.json" in answer.text
    assert path.read_text(encoding="utf-8") == broken  # kept, not overwritten


def test_only_the_admin_key_may_forget_a_memory_without_naming_its_user(config: MemoryConfig) -> None:
    config.server.api_key = ADMIN  # type: ignore[assignment]
    persona_key, _ = KeyRing(config.data_dir).issue("karin")
    with running(MemoryService(["karin"], config)) as base, httpx.Client(base_url=base) as client:
        _say(client, ADMIN, "u1", "我的秘密暗号是蓝莓")
        for i in range(12):
            _say(client, ADMIN, "u1", f"闲聊{i}")
        found = client.post(
            f"{KARIN}/retrieve", json={"user_id": "u1", "query": "秘密暗号"}, headers=_bearer(ADMIN)
        )
        secret = next(m["id"] for m in found.json()["memories"] if "蓝莓" in m["content"])
        unnamed = client.delete(f"{KARIN}/memories/{secret}", headers=_bearer(persona_key))
        assert unnamed.status_code == 422 and "user_id" in unnamed.text
        assert client.delete(f"{KARIN}/memories/{secret}", headers=_bearer(ADMIN)).status_code == 200
