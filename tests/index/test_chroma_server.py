"""Server mode: the engine against a real Chroma server (`chroma run`), including real outages.

One server is shared by the module; every test has its own data folder and its own persona name,
so its collections (``<persona>__<layer>``) never meet another test's. The outage tests start
their own server because they kill it.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import signal
import subprocess
import sys
import time
import urllib.request
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest
from langchain_core.embeddings import Embeddings

from helpers.chroma_server import ChromaServer
from helpers.store import budget, check_user_isolation, fill, wait_for_backlog, write_persona
from memory import Layer, MemoryConfig, MemoryManager, StoreMode
from memory.index import chroma as store_module

pytestmark = pytest.mark.server

REDIS = "Deployed 3-node redis cluster, config at /opt/redis/"
REDIS_QUERY = "redis 集群的配置在哪里"
FILLER = ["我今天去超市买了牛奶", "周末想去爬山", "最近在学做饭"]
ManagerFactory = Callable[..., MemoryManager]


@pytest.fixture(scope="module")
def chroma_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ChromaServer]:
    """One real Chroma server for the module, stopped by pid at the end."""
    server = ChromaServer(tmp_path_factory.mktemp("chroma-server") / "data").start()
    yield server
    server.stop()


@pytest.fixture
def own_server(tmp_path: Path) -> Iterator[ChromaServer]:
    """A server of this test alone, not started yet (tests that kill or delay it)."""
    server = ChromaServer(tmp_path / "chroma-server")
    yield server
    server.stop()


def http_config(tmp_path: Path, server: ChromaServer) -> tuple[str, MemoryConfig]:
    """A unique persona in the test's folder and a config pointing at ``server``."""
    persona = f"karin_{uuid.uuid4().hex[:12]}"
    config = MemoryConfig()
    config.personas_dir = str(write_persona(tmp_path / "personas", name=persona))
    config.data_dir = str(tmp_path / "data" / "memory_store")
    config.archive_dir = str(tmp_path / "data" / "archive")
    config.store.mode = StoreMode.HTTP
    config.store.host = server.host
    config.store.port = server.port
    config.active.capacity = 2
    return persona, config


@pytest.fixture
def server_setup(
    tmp_path: Path, chroma_server: ChromaServer, embeddings: Embeddings
) -> tuple[str, MemoryConfig]:
    return http_config(tmp_path, chroma_server)


@pytest.fixture
def open_manager(server_setup: tuple[str, MemoryConfig]) -> Iterator[ManagerFactory]:
    """Build managers of the test's persona; every one is closed at teardown."""
    made: list[MemoryManager] = []

    def build(config: MemoryConfig | None = None) -> MemoryManager:
        manager = MemoryManager(server_setup[0], config or server_setup[1])
        made.append(manager)
        return manager

    yield build
    for manager in made:
        manager.close()


def server_collections(server: ChromaServer) -> set[str]:
    """Collection names the server holds, asked over its REST API (not through the engine)."""
    url = f"{server.url}/api/v2/tenants/default_tenant/databases/default_database/collections?limit=1000"
    with urllib.request.urlopen(url, timeout=5) as response:
        return {c["name"] for c in json.load(response)}


def wait_for_rag(manager: MemoryManager, query: str, needle: str, *, timeout: float = 15.0) -> str:
    """Retrieve until ``needle`` is in the RAG text (or the time is up); returns the last RAG text."""
    deadline = time.monotonic() + timeout
    rag = ""
    while time.monotonic() < deadline:
        _, rag = manager.retrieve(query)
        if needle in rag:
            return rag
        time.sleep(0.2)
    return rag


def test_overflowed_memory_is_recalled_by_meaning_from_the_server(
    open_manager: ManagerFactory, server_setup: tuple[str, MemoryConfig], chroma_server: ChromaServer
) -> None:
    persona, config = server_setup
    manager = open_manager()
    fill(manager, [REDIS, *FILLER])
    assert len(manager.inspector.entries(Layer.TEMPORARY)) == 2
    active, rag = manager.retrieve(REDIS_QUERY)
    assert "/opt/redis/" in rag and "/opt/redis/" not in active
    manager.flush()
    assert len(manager.inspector.indexed_ids(Layer.TEMPORARY)) == 2
    names = server_collections(chroma_server)
    # collections are created on first write: no summary has been written yet
    assert {f"{persona}__{layer}" for layer in ("temporary", "static")} <= names
    assert not (Path(config.data_dir) / "chroma").exists()  # no embedded index


def test_static_memories_are_searchable_on_the_server(open_manager: ManagerFactory) -> None:
    manager = open_manager()
    manager.flush()
    assert (
        len(manager.inspector.entries(Layer.STATIC)) == len(manager.inspector.indexed_ids(Layer.STATIC)) == 5
    )
    _, rag = manager.retrieve("你的猫叫什么")
    assert "团子" in rag


def test_one_user_never_sees_another_users_memories(
    open_manager: ManagerFactory, server_setup: tuple[str, MemoryConfig]
) -> None:
    config = server_setup[1]
    config.active.capacity = 1
    manager = open_manager(config)
    check_user_isolation(manager)


def test_forgotten_entries_stay_searchable_on_the_server_and_come_back(
    open_manager: ManagerFactory, server_setup: tuple[str, MemoryConfig]
) -> None:
    config = server_setup[1]
    config.temporary.decay_coefficient = 0.5  # forgotten at the third untouched tick
    budget(config, 1, 0, 0)
    config.active.capacity = 1
    manager = open_manager(config)
    fill(manager, [REDIS, "我喜欢吃草莓蛋糕", "现在"])
    manager.flush()
    assert len(manager.inspector.indexed_ids(Layer.TEMPORARY)) == 2
    for _ in range(3):
        manager.retrieve("redis cluster config")
    assert manager.flush()
    assert len(manager.inspector.entries(Layer.TEMPORARY)) == 1
    archived = manager.inspector.archived()
    assert [a.reason for a in archived] == ["forgotten"] and "草莓蛋糕" in archived[0].content
    assert len(manager.inspector.indexed_ids(Layer.TEMPORARY)) == 2  # the cold one keeps its vector
    _, rag = manager.retrieve("草莓蛋糕")
    assert "草莓蛋糕" in rag  # deep recall revives it
    assert len(manager.inspector.entries(Layer.TEMPORARY)) == 2


async def test_quota_mode_takes_each_layers_quota(
    open_manager: ManagerFactory, server_setup: tuple[str, MemoryConfig]
) -> None:
    config = server_setup[1]
    budget(config, 2, 1, 1)
    config.retrieval.mode = "quota"
    manager = open_manager(config)
    fill(manager, [f"音乐话题{i}：我喜欢民谣和吉他" for i in range(8)])
    await manager.run_summary_now()
    layers = [m.entry.layer for m in manager.retrieve_memories("民谣").memories]
    assert (layers.count(Layer.TEMPORARY), layers.count(Layer.SUMMARY), layers.count(Layer.STATIC)) == (
        2,
        1,
        1,
    )


async def test_weighted_mode_ranks_by_similarity_times_weight(
    open_manager: ManagerFactory, server_setup: tuple[str, MemoryConfig]
) -> None:
    config = server_setup[1]
    config.retrieval.mode = "weighted"  # type: ignore[assignment]
    config.retrieval.top_k = 4
    config.retrieval.weights = {"static": 0.5, "summary": 0.0, "temporary": 1.0}
    manager = open_manager(config)
    fill(manager, [f"音乐话题{i}：我喜欢民谣和吉他" for i in range(8)])
    await manager.run_summary_now()
    await manager.aflush(enrich=True)  # every vector full: the similarities compare alike
    memories = manager.retrieve_memories("民谣").memories
    assert len(memories) == 4
    assert all(m.entry.layer == Layer.TEMPORARY for m in memories)
    assert [m.score for m in memories] == sorted((m.score for m in memories), reverse=True)
    for memory in memories:
        assert memory.score == pytest.approx(memory.similarity * config.retrieval.weights["temporary"])


def test_restart_keeps_every_layer_on_the_server(
    open_manager: ManagerFactory, server_setup: tuple[str, MemoryConfig]
) -> None:
    manager = open_manager()
    fill(manager, [REDIS, *FILLER], user_id="u1")
    manager.retrieve(REDIS_QUERY, user_id="u1")
    before = manager.debug_state()
    manager.close()
    again = open_manager()
    after = again.debug_state()
    for key in ("interactions_recorded", "active_count", "temporary_count", "static_count", "users"):
        assert after[key] == before[key], key
    assert after["store"]["pending_index"] == 0
    assert (
        len(again.inspector.indexed_ids(Layer.TEMPORARY, "u1")) == 2
        and len(again.inspector.indexed_ids(Layer.STATIC)) == 5
    )
    active, rag = again.retrieve(REDIS_QUERY, user_id="u1")
    assert "/opt/redis/" in rag and FILLER[-1] in active


def test_debug_state_shows_http_mode_and_server_url(
    open_manager: ManagerFactory, chroma_server: ChromaServer
) -> None:
    manager = open_manager()
    store = json.loads(json.dumps(manager.debug_state()))["store"]
    assert store["mode"] == "http"
    assert store["location"] == chroma_server.url
    assert store["breaker"]["state"] == "closed" and store["pending_index"] == 0


def test_reindex_rebuilds_the_server_collections(open_manager: ManagerFactory) -> None:
    manager = open_manager()
    fill(manager, [REDIS, *FILLER])
    manager.flush()
    assert manager.reindex() == 2 + 5
    assert (
        len(manager.inspector.indexed_ids(Layer.TEMPORARY)) == 2
        and len(manager.inspector.indexed_ids(Layer.STATIC)) == 5
    )
    state = manager.debug_state()["store"]
    assert state["breaker"]["state"] == "closed" and state["pending_index"] == 0
    _, rag = manager.retrieve(REDIS_QUERY)
    assert "/opt/redis/" in rag


WORKER = """
from memory import MemoryConfig, MemoryManager
config = MemoryConfig.from_env()
manager = MemoryManager({persona!r}, config)
for text in {texts!r}:
    manager.record_interaction_sync(user_input=text, response="好的～", user_id="u1")
assert manager.flush()
manager.close()
print("worker done")
"""


def test_a_second_process_shares_the_persona_through_the_server(
    open_manager: ManagerFactory, server_setup: tuple[str, MemoryConfig], chroma_server: ChromaServer
) -> None:
    persona, config = server_setup
    manager = open_manager()  # stays open: no folder lock is held in server mode
    env = {
        **os.environ,
        "PERSONA_MEMORY__STORE__MODE": "http",
        "PERSONA_MEMORY__STORE__HOST": chroma_server.host,
        "PERSONA_MEMORY__STORE__PORT": str(chroma_server.port),
        "PERSONA_MEMORY__ACTIVE__CAPACITY": "2",
        "PERSONA_MEMORY__PERSONAS_DIR": config.personas_dir,
        "PERSONA_MEMORY__ARCHIVE_DIR": config.archive_dir,
        "PERSONA_MEMORY__EMBEDDING__PERSIST_DIR": config.data_dir,
    }
    code = WORKER.format(persona=persona, texts=[REDIS, *FILLER])
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr[-3000:]
    active, rag = manager.retrieve(REDIS_QUERY, user_id="u1")
    assert "/opt/redis/" in rag and FILLER[-1] in active
    assert manager.debug_state()["interactions_recorded"] == 4


def _outage_config(tmp_path: Path, server: ChromaServer) -> tuple[str, MemoryConfig]:
    persona, config = http_config(tmp_path, server)
    config.store.breaker_initial_backoff_seconds = 0.3
    config.store.breaker_max_backoff_seconds = 1.0
    return persona, config


def test_server_outage_degrades_then_catches_up(
    tmp_path: Path, own_server: ChromaServer, embeddings: Embeddings, caplog: pytest.LogCaptureFixture
) -> None:
    own_server.start()
    persona, config = _outage_config(tmp_path, own_server)
    manager = MemoryManager(persona, config)
    try:
        fill(manager, ["我对花生过敏", "第二句", "第三句"])
        _, rag = manager.retrieve("前辈对什么过敏")
        assert "花生" in rag
        own_server.kill()
        assert not own_server.heartbeat()
        with caplog.at_level(logging.WARNING, logger="memory"):
            fill(manager, [REDIS, "停机时第二句", "停机时第三句"])  # committed to SQLite
            results = []
            for _ in range(8):
                results.append(manager.retrieve(REDIS_QUERY))
                time.sleep(0.2)
            warnings = [r for r in caplog.records if r.levelno >= logging.WARNING]
            state = manager.debug_state()["store"]
        assert all(rag == "" for _, rag in results)
        assert all("停机时第三句" in active for active, _ in results)
        assert len(warnings) == 1, [r.getMessage() for r in warnings]
        assert warnings[0].name.startswith("memory") and "failing" in warnings[0].getMessage()
        assert state["breaker"]["state"] in {"open", "half_open"} and state["breaker"]["outages"] == 1
        assert state["pending_index"] >= 1
        assert manager.debug_state()["interactions_recorded"] == 6

        own_server.start()  # same port, same --path
        rag = wait_for_rag(manager, REDIS_QUERY, "/opt/redis/")
        assert "/opt/redis/" in rag
        wait_for_backlog(manager)
        state = manager.debug_state()["store"]
        assert state["breaker"]["state"] == "closed" and state["pending_index"] == 0
        assert "花生" in manager.retrieve("前辈对什么过敏")[1]  # what was indexed before survived
    finally:
        manager.close()


def test_manager_starts_while_the_server_is_down_and_catches_up(
    tmp_path: Path, own_server: ChromaServer, embeddings: Embeddings
) -> None:
    persona, config = _outage_config(tmp_path, own_server)
    assert not own_server.heartbeat()
    manager = MemoryManager(persona, config)
    try:
        state = manager.debug_state()["store"]
        assert state["breaker"]["state"] in {"open", "half_open"}
        fill(manager, [REDIS, *FILLER])
        active, rag = manager.retrieve(REDIS_QUERY)
        assert rag == "" and FILLER[-1] in active
        assert manager.debug_state()["store"]["pending_index"] >= 2 + 5

        own_server.start()
        assert "/opt/redis/" in wait_for_rag(manager, REDIS_QUERY, "/opt/redis/")
        assert "团子" in wait_for_rag(manager, "你的猫叫什么", "团子")
        wait_for_backlog(manager)  # the worker finishes the backlog the start-up repair left
        state = manager.debug_state()["store"]
        assert state["breaker"]["state"] == "closed" and state["pending_index"] == 0
        assert (
            len(manager.inspector.indexed_ids(Layer.TEMPORARY)) == 2
            and len(manager.inspector.indexed_ids(Layer.STATIC)) == 5
        )
    finally:
        manager.close()


def test_reindex_refills_a_server_that_lost_its_data(
    tmp_path: Path, own_server: ChromaServer, embeddings: Embeddings, caplog: pytest.LogCaptureFixture
) -> None:
    own_server.start()
    persona, config = _outage_config(tmp_path, own_server)
    manager = MemoryManager(persona, config)
    try:
        fill(manager, [REDIS, *FILLER])
        assert "/opt/redis/" in manager.retrieve(REDIS_QUERY)[1]
        manager.flush(enrich=True)  # no background work meets the outage
        own_server.stop()
        shutil.rmtree(own_server.path)  # the server comes back empty
        own_server.start()
        with caplog.at_level(logging.WARNING, logger="memory"):
            assert manager.reindex() == 2 + 5
            _, rag = manager.retrieve(REDIS_QUERY)
        assert "/opt/redis/" in rag
        assert (
            len(manager.inspector.indexed_ids(Layer.TEMPORARY)) == 2
            and len(manager.inspector.indexed_ids(Layer.STATIC)) == 5
        )
        assert manager.debug_state()["store"]["breaker"]["outages"] == 0, caplog.text
    finally:
        manager.close()


@pytest.mark.timeout(120)
def test_a_hung_server_times_out_instead_of_blocking_the_reply(
    tmp_path: Path, own_server: ChromaServer, embeddings: Embeddings, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(store_module, "HTTP_TIMEOUT", httpx.Timeout(1.0, connect=1.0))
    own_server.start()
    persona, config = _outage_config(tmp_path, own_server)
    manager = MemoryManager(persona, config)
    try:
        fill(manager, [REDIS, *FILLER])
        assert "/opt/redis/" in manager.retrieve(REDIS_QUERY)[1]
        assert own_server.pid is not None
        os.kill(own_server.pid, signal.SIGSTOP)  # alive, port open, never answers
        try:
            started = time.monotonic()
            active, rag = manager.retrieve(REDIS_QUERY)
            elapsed = time.monotonic() - started
            state = manager.debug_state()["store"]["breaker"]["state"]
        finally:
            os.kill(own_server.pid, signal.SIGCONT)
        assert rag == "" and FILLER[-1] in active
        assert elapsed < 10, elapsed
        assert state in {"open", "half_open"}
        assert "/opt/redis/" in wait_for_rag(manager, REDIS_QUERY, "/opt/redis/")
        assert manager.debug_state()["store"]["breaker"]["state"] == "closed"
    finally:
        manager.close()
