"""The REST server: a real uvicorn on loopback, real managers, httpx as the chatbot backend."""

from __future__ import annotations

import logging
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from helpers.http_server import free_port, running
from helpers.store import budget, config_env, write_persona
from memory import Layer, MemoryConfig, MemoryManager
from memory.server.service import MemoryService

V1 = "/v1/personas/karin"
JSON = {"content-type": "application/json"}
KEY = "s3cret-key-42"


@pytest.fixture
def served(config: MemoryConfig) -> Iterator[tuple[httpx.Client, MemoryService]]:
    service = MemoryService(["karin"], config)
    with running(service) as base, httpx.Client(base_url=base, timeout=60) as client:
        yield client, service


def _talk(client: httpx.Client, user: str, texts: list[str]) -> list[str]:
    ids = []
    for text in texts:
        body = {"user_id": user, "user_input": text, "response": "嗯嗯"}
        answer = client.post(f"{V1}/interactions", json=body)
        assert answer.status_code == 201, answer.text
        ids.append(answer.json()["id"])
    return ids


def _recorded(client: httpx.Client) -> int:
    return int(client.get(f"{V1}/state").json()["interactions_recorded"])


def test_a_chatbot_backend_records_retrieves_remembers_and_reads_the_profile(served) -> None:
    client, _ = served
    _talk(client, "u1", ["我对花生过敏，吃了会起疹子", *[f"今天第{i}次练吉他" for i in range(14)]])
    found = client.post(f"{V1}/retrieve", json={"user_id": "u1", "query": "我对什么过敏？"})
    assert found.status_code == 200
    body = found.json()
    assert "练吉他" in body["active"] and "花生" in body["rag"]
    peanut = next(m for m in body["memories"] if "花生" in m["content"])
    assert peanut["layer"] == "temporary" and peanut["user_id"] == "u1"
    for field in ("score", "similarity", "significance", "dense_rank", "keyword_rank", "layer_weight"):
        assert field in peanut
    assert peanut["keyword_rank"] is not None and peanut["score"] > 0
    assert isinstance(body["near_misses"], list)

    made = client.post(f"{V1}/memories", json={"user_id": "u1", "text": "住在杭州", "key": "home_city"})
    assert made.status_code == 201
    facts = client.get(f"{V1}/users/u1/profile").json()["facts"]
    assert [(f["key"], f["value"]) for f in facts] == [("home_city", "住在杭州")]
    fact = made.json()["id"]  # a keyed fact is erased by the id it was given
    assert client.delete(f"{V1}/memories/{fact}", params={"user_id": "u2"}).status_code == 404
    assert client.delete(f"{V1}/memories/{fact}", params={"user_id": "u1"}).status_code == 200
    assert client.get(f"{V1}/users/u1/profile").json()["facts"] == []
    state = client.get(f"{V1}/state", params={"user_id": "u1"}).json()
    assert state["user"]["user_id"] == "u1" and state["interactions_recorded"] == 15
    assert client.get("/v1/personas").json() == {"personas": ["karin"]}
    rebound = client.get("/v1/personas", headers={"Host": "evil.example:8765"})
    assert rebound.status_code == 400  # bound to loopback: a page on another host cannot call it
    schema = client.get("/openapi.json").json()
    assert schema["paths"][f"{V1}/retrieve".replace("karin", "{persona}")]
    assert {"HTTPBearer", "APIKeyHeader"} <= set(schema["components"]["securitySchemes"])  # Authorize


def test_bad_input_is_a_422_naming_the_field_and_writes_nothing(served) -> None:
    client, _ = served
    _talk(client, "u1", ["hello"])
    refused = {
        "empty text": {"user_id": "u1", "user_input": "   ", "response": "嗯"},
        "wrong type": {"user_id": 42, "user_input": "hi", "response": "嗯"},
        "missing field": {"user_id": "u1", "user_input": "hi"},
        "unknown field": {"user_id": "u1", "user_input": "hi", "response": "嗯", "mood": "happy"},
        "control character": {"user_id": "u\x00", "user_input": "hi", "response": "嗯"},
        "zero-width space": {"user_id": "u1\u200b", "user_input": "hi", "response": "嗯"},
        "a page of an id": {"user_id": "u" * 10_000, "user_input": "hi", "response": "嗯"},
    }
    named = {
        "empty text": "user_input",
        "wrong type": "user_id",
        "missing field": "response",
        "unknown field": "mood",
        "control character": "user_id",
        "zero-width space": "user_id",
        "a page of an id": "user_id",
    }
    for case, body in refused.items():
        answer = client.post(f"{V1}/interactions", json=body)
        assert answer.status_code == 422, case
        detail = answer.json()["detail"]
        assert detail[0]["loc"][-1] == named[case], (case, detail)
        assert "Traceback" not in answer.text
    answer = client.post(f"{V1}/retrieve", json={"query": "x", "top_k": 0})
    assert answer.status_code == 422 and answer.json()["detail"][0]["loc"] == ["body", "top_k"]
    broken = client.post(f"{V1}/interactions", content=b"{not json", headers=JSON)
    assert broken.status_code == 422
    assert client.post("/v1/personas/nobody/interactions", json=refused["wrong type"]).status_code == 422
    missing = client.post("/v1/personas/nobody/retrieve", json={"query": "x"})
    assert missing.status_code == 404 and "nobody" in missing.json()["detail"]
    assert _recorded(client) == 1


def test_a_body_over_the_cap_is_refused_before_anything_is_read(config: MemoryConfig) -> None:
    config.server.max_body_bytes = 4096
    with running(MemoryService(["karin"], config)) as base, httpx.Client(base_url=base) as client:
        big = {"user_id": "u1", "user_input": "长" * 5000, "response": "嗯"}
        assert client.post(f"{V1}/interactions", json=big).status_code == 413

        def chunks() -> Iterator[bytes]:  # no Content-Length: read up to the cap, then refused
            yield b'{"user_id": "u1", "user_input": "'
            for _ in range(10):
                yield b"x" * 1000
            yield b'", "response": "ok"}'

        answer = client.post(f"{V1}/interactions", content=chunks(), headers=JSON)
        assert answer.status_code == 413
        assert _talk(client, "u1", ["短"])
        assert _recorded(client) == 1


def test_with_an_api_key_every_route_needs_it(config: MemoryConfig) -> None:
    config.server.api_key = KEY  # type: ignore[assignment]
    with running(MemoryService(["karin"], config)) as base, httpx.Client(base_url=base) as client:
        routes = [
            ("GET", "/v1/personas", None),
            ("GET", f"{V1}/state", None),
            ("POST", f"{V1}/interactions", {"user_id": "u1", "user_input": "我叫小明", "response": "你好"}),
            ("POST", f"{V1}/retrieve", {"query": "名字"}),
            ("POST", f"{V1}/memories", {"text": "x"}),
            ("DELETE", f"{V1}/users/u1", None),
            ("GET", "/inspect", None),
            ("GET", "/docs", None),
            ("GET", "/openapi.json", None),
            ("POST", f"{V1}/mcp", {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
        ]
        for method, path, body in routes:
            for headers in ({}, {"Authorization": "Bearer wrong"}, {"X-API-Key": KEY[:-1]}):
                answer = client.request(method, path, json=body, headers=headers)
                assert answer.status_code == 401, (method, path, headers)
                assert answer.headers["x-frame-options"] == "DENY"  # no page may be framed
                assert answer.headers["content-security-policy"] == "frame-ancestors 'none'"
        good = {"Authorization": f"Bearer {KEY}".encode()}
        answer = client.post(f"{V1}/interactions", json=routes[2][2], headers=good)
        assert answer.status_code == 201
        state = client.get(f"{V1}/state", headers={"X-API-Key": KEY.encode()}).json()
        assert state["interactions_recorded"] == 1  # the refused POSTs wrote nothing
        page = client.get("/inspect", headers={"X-API-Key": KEY})
        assert page.status_code == 200 and page.headers["x-frame-options"] == "DENY"
        assert page.headers["content-security-policy"] == "frame-ancestors 'none'"
        assert page.headers["x-content-type-options"] == "nosniff"  # no body read as another type
        assert client.get(f"{V1}/state").headers["x-content-type-options"] == "nosniff"


def test_the_inspector_login_gives_a_session_not_the_key_and_changes_need_its_own_origin(
    config: MemoryConfig,
) -> None:
    config.server.api_key = KEY  # type: ignore[assignment]
    with running(MemoryService(["karin"], config)) as base, httpx.Client(base_url=base) as client:
        login = client.get("/inspect", params={"key": KEY}, follow_redirects=False)
        assert login.status_code == 303
        token, set_cookie = login.cookies["persona_memory_session"], login.headers["set-cookie"].lower()
        assert KEY not in token and KEY.lower() not in set_cookie
        assert "max-age" in set_cookie and "httponly" in set_cookie
        cookie = {"cookie": f"persona_memory_session={token}"}
        assert client.get(f"{V1}/state", headers=cookie).status_code == 200
        forged = {"cookie": f"persona_memory_session={token[:-1]}{'0' if token[-1] != '0' else '1'}"}
        expired = {"cookie": "persona_memory_session=1." + "0" * 64}
        assert client.get(f"{V1}/state", headers=forged).status_code == 401
        assert client.get(f"{V1}/state", headers=expired).status_code == 401
        remember = {"user_id": "u1", "text": "住在杭州"}
        elsewhere = {**cookie, "origin": base.rsplit(":", 1)[0] + ":9"}  # a page on another port
        assert client.post(f"{V1}/memories", json=remember, headers=elsewhere).status_code == 403
        assert client.post(f"{V1}/memories", json=remember, headers=cookie).status_code == 403  # no Origin
        own_page = {**cookie, "origin": base}
        assert client.post(f"{V1}/memories", json=remember, headers=own_page).status_code == 201
        keyed = client.get(f"{V1}/state", headers={"X-API-Key": KEY}).json()
        assert keyed["temporary_count"] == 1  # the refused ones wrote nothing


def test_binding_beyond_loopback_needs_a_key(config: MemoryConfig, caplog: pytest.LogCaptureFixture) -> None:
    from memory.errors import ConfigError
    from memory.server.app import create_app

    service = MemoryService(["karin"], config)
    try:
        for host in ("0.0.0.0", "192.168.1.20", "::"):
            with pytest.raises(ConfigError, match="server.api_key"):
                create_app(service, host=host)
        create_app(service, host="127.0.0.2")  # loopback: no key needed
        service.config.server.allow_open_bind = True  # explicitly allowed: starts, with a warning
        with caplog.at_level(logging.WARNING):
            create_app(service, host="0.0.0.0")
        assert "no key" in caplog.text
        service.config.server.allow_open_bind = False
        service.config.server.api_key = KEY  # type: ignore[assignment]
        create_app(service, host="0.0.0.0")
    finally:
        service.close()


def test_a_body_that_stalls_is_refused_and_the_connection_freed(config: MemoryConfig) -> None:
    config.server.body_timeout_seconds = 1.0
    with running(MemoryService(["karin"], config)) as base:
        host, port = base.removeprefix("http://").split(":")
        with socket.create_connection((host, int(port)), timeout=10) as trickle:
            trickle.sendall(
                f"POST {V1}/interactions HTTP/1.1\r\nHost: {host}\r\ncontent-type: application/json\r\n"
                'content-length: 100\r\n\r\n{"user_id":'.encode()
            )
            started = time.monotonic()
            answer = trickle.recv(4096).decode()
        assert answer.startswith("HTTP/1.1 408") and time.monotonic() - started < 5
        with httpx.Client(base_url=base) as client:
            assert _recorded(client) == 0


def test_forget_and_erase_stay_within_the_user(served) -> None:
    client, _ = served
    _talk(client, "u1", ["我的秘密暗号是蓝莓", *[f"闲聊{i}" for i in range(12)]])
    _talk(client, "u2", ["我的秘密暗号是芒果", *[f"闲聊{i}" for i in range(12)]])
    hit = client.post(f"{V1}/retrieve", json={"user_id": "u1", "query": "秘密暗号"}).json()
    secret = next(m for m in hit["memories"] if "蓝莓" in m["content"])
    assert client.delete(f"{V1}/memories/{secret['id']}", params={"user_id": "u2"}).status_code == 404
    unnamed = client.delete(f"{V1}/memories/{secret['id']}")  # no user: refused, not any user's
    assert unnamed.status_code == 422 and "user_id" in unnamed.text
    assert client.post(f"{V1}/memories/{secret['id']}/restore").status_code == 422
    assert client.delete(f"{V1}/memories/{secret['id']}", params={"user_id": "u1"}).status_code == 200
    again = client.post(f"{V1}/retrieve", json={"user_id": "u1", "query": "秘密暗号"}).json()
    assert "蓝莓" not in again["rag"]
    seen = client.get(f"{V1}/users/u1/inspect").json()
    assert all("蓝莓" not in m["content"] for r in seen["retrievals"] for m in r["memories"])

    erased = client.delete(f"{V1}/users/u1")
    assert erased.status_code == 200 and erased.json()["erased"] > 0
    assert client.get(f"{V1}/users/u1/inspect").json()["retrievals"] == []
    other = client.post(f"{V1}/retrieve", json={"user_id": "u2", "query": "秘密暗号"}).json()
    assert "芒果" in other["rag"]


def test_restore_brings_a_cold_memory_back_and_the_inspector_shows_why(config: MemoryConfig) -> None:
    config.active.capacity = 2
    config.temporary.decay_coefficient = 0.5
    config.retrieval.deep_recall = False
    budget(config, 1, 0, 0)
    with running(MemoryService(["karin"], config)) as base, httpx.Client(base_url=base, timeout=60) as client:
        _talk(client, "u1", ["Deployed the redis cluster on port 7000", "我每天早上喝咖啡", "三", "四"])
        for _ in range(6):
            client.post(f"{V1}/retrieve", json={"user_id": "u1", "query": "咖啡好喝吗"})
        view = client.get(f"{V1}/users/u1/inspect", params={"q": "redis"}).json()
        assert [m["origin"] for m in view["cold"]] == ["temporary"]
        cold_id = view["cold"][0]["id"]
        assert client.post(f"{V1}/memories/{cold_id}/restore", params={"user_id": "u2"}).status_code == 404
        assert client.post(f"{V1}/memories/{cold_id}/restore", params={"user_id": "u1"}).status_code == 200
        view = client.get(f"{V1}/users/u1/inspect").json()
        assert cold_id not in [m["id"] for m in view["cold"]]
        back = next(m for m in view["hot"] if m["id"] == cold_id)
        assert back["current"] > 0.5 and back["forget_tick"] > view["tick"]
        assert back["curve"][0][0] == view["tick"] and back["curve"][-1][1] < back["curve"][0][1]
        assert len(view["retrievals"]) == 6 and view["retrievals"][0]["query"] == "咖啡好喝吗"


def test_two_personas_in_one_server_keep_apart(config: MemoryConfig, tmp_path: Path) -> None:
    write_persona(Path(config.personas_dir), "mika")
    with running(MemoryService(["karin", "mika"], config)) as base, httpx.Client(base_url=base) as client:
        _talk(client, "u1", ["karin 才知道的事：我养了仓鼠"])
        assert client.get("/v1/personas").json() == {"personas": ["karin", "mika"]}
        mika = client.get("/v1/personas/mika/state").json()
        assert mika["interactions_recorded"] == 0


def test_make_serve_starts_and_sigterm_flushes_before_exit(config: MemoryConfig, tmp_path: Path) -> None:
    port = free_port()
    env = config_env(config)
    command = [sys.executable, "-m", "memory", "serve", "--persona", "karin", "--port", str(port)]
    process = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        base = f"http://127.0.0.1:{port}"
        for _ in range(600):
            try:
                if httpx.get(f"{base}/v1/personas").status_code == 200:
                    break
            except httpx.TransportError:
                time.sleep(0.1)
        with httpx.Client(base_url=base, timeout=60) as client:
            ids = _talk(client, "u1", [f"第{i}句：我喜欢咖啡" for i in range(14)])
            assert client.get("/docs").status_code == 200
        process.send_signal(signal.SIGTERM)
        output = process.communicate(timeout=60)[0].decode()
    finally:
        process.kill()
    assert process.returncode in (0, -signal.SIGTERM), output  # uvicorn re-raises the signal once done
    assert "Application shutdown complete" in output
    with MemoryManager("karin", config) as manager:
        assert all(manager.inspector.interaction(i) for i in ids)
        assert manager.inspector.pending_index() == 0  # flushed before exit
        assert len(manager.inspector.entries(Layer.TEMPORARY, "u1")) == 4


def test_the_key_in_a_query_string_never_reaches_the_access_log(served) -> None:
    """The README's login link (``/inspect?key=...``) is logged without its query string."""
    import logging

    from memory.server.guards import NoQueryStrings

    client, _ = served
    client.get("/v1/personas")  # the app is up: its lifespan has installed the filter
    access = logging.getLogger("uvicorn.access")
    assert any(isinstance(f, NoQueryStrings) for f in access.filters)
    line = logging.LogRecord(
        "uvicorn.access", logging.INFO, __file__, 1, '%s - "%s %s HTTP/%s" %d',
        ("127.0.0.1:5555", "GET", f"/inspect?key={KEY}", "1.1", 303), None,
    )  # fmt: skip
    for kept in access.filters:
        kept.filter(line) if isinstance(kept, logging.Filter) else kept(line)
    assert KEY not in line.getMessage() and "/inspect" in line.getMessage()


def test_the_inspector_says_why_a_memory_won_in_the_personas_language(served) -> None:
    client, _ = served
    _talk(client, "u1", ["我每天早上喝咖啡，最爱拿铁", *[f"闲聊第{i}句" for i in range(12)]])
    found = client.post(f"{V1}/retrieve", json={"user_id": "u1", "query": "我早上喝什么咖啡？"}).json()
    latte = next(m for m in found["memories"] if "拿铁" in m["content"])
    assert "咖啡" in latte["matched"] and found["fusion"] == "score"
    page = client.get("/inspect", params={"persona": "karin", "user_id": "u1"}).text
    assert "命中的词" in page and "临时层" in page and "融合得分 = " in page  # karin speaks Chinese
    assert "同时在提示中的活跃窗口" in page and "闲聊第11句" in page  # the active window of the prompt
    assert "刻度 " in page and "<text" in page  # the decay curves have axes
    assert ">key<" not in page and ">temporary<" not in page
    assert f"仅向量命中需相似度 ≥ {found['floor']['dense']:.2f}" in page  # the floor (on by default)
    assert latte["similarity"] > 0.35 and "向量相似度" in page
    assert "（相关）" in page or "（很接近）" in page  # the similarity in plain words


def test_the_inspector_shows_the_relevance_floor_of_each_query(config: MemoryConfig) -> None:
    with running(MemoryService(["karin"], config)) as base, httpx.Client(base_url=base, timeout=60) as client:
        _talk(client, "u1", ["我对花生过敏", "我每天早上六点去游泳"])
        found = client.post(f"{V1}/retrieve", json={"user_id": "u1", "query": "今天天气怎么样"}).json()
        assert found["floor"]["dense"] >= found["floor"]["with_keywords"] > 0
        assert not found["memories"]  # small talk: the slots stay empty
        page = client.get("/inspect", params={"persona": "karin", "user_id": "u1"}).text
        assert f"仅向量命中需相似度 ≥ {found['floor']['dense']:.2f}" in page
