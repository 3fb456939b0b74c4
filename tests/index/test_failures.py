"""Memory failures never break the reply path: store outage (circuit breaker), concurrency."""

from __future__ import annotations

import asyncio
import logging
import threading
import time

import chromadb.api.models.Collection as chroma_collection
import pytest

from helpers.store import fill, sql, sql_count, wait_for_backlog
from memory import MemoryManager


class FailingChroma:
    """Stands in for an unreachable Chroma: every call raises, like a dropped connection."""

    def __getattr__(self, name: str):  # type: ignore[no-untyped-def]
        def fail(*args, **kwargs):  # type: ignore[no-untyped-def]
            raise ConnectionError("connection refused (simulated outage)")

        return fail


def break_store(manager: MemoryManager) -> object:
    """Fault injection reaches into the private engine: swap the Chroma client for a failing one.
    A client reopened during the outage fails too (an unreachable store stays unreachable)."""
    engine = manager._engine
    real = engine.backend._client
    engine.backend._client = FailingChroma()
    engine.backend._replace_client = lambda: setattr(engine.backend, "_client", FailingChroma())
    for layer in engine.layers.rag.values():
        for name in layer.stores.cached_names() | {layer.stores.base_name}:
            layer.stores.by_name(name)._collection = FailingChroma()
    return real


def heal_store(manager: MemoryManager, real: object) -> None:
    engine = manager._engine
    del engine.backend._replace_client
    engine.backend._client = real
    for layer in engine.layers.rag.values():
        for name in layer.stores.cached_names():
            layer.stores.by_name(name)._collection = None


def _outage_config(config):  # type: ignore[no-untyped-def]
    config.active.capacity = 2
    config.store.breaker_initial_backoff_seconds = 0.3
    config.store.breaker_max_backoff_seconds = 0.6
    return config


@pytest.mark.faults
def test_outage_degrades_retrieval_to_empty_with_one_warning(make_manager, config, caplog) -> None:
    config = _outage_config(config)
    config.store.breaker_initial_backoff_seconds = config.store.breaker_max_backoff_seconds = 5.0
    manager = make_manager(config)  # the six retrievals end before the breaker tries the store again
    fill(manager, ["我对花生过敏", "第二句", "第三句"])
    manager.flush(enrich=True)  # no background work reaches the store during the outage
    real = break_store(manager)
    with caplog.at_level(logging.WARNING, logger="memory"):
        results = [manager.retrieve("前辈对什么过敏") for _ in range(6)]
    assert all(rag == "" for _, rag in results)
    assert all("第三句" in active for active, _ in results)  # the active window is still served
    warnings = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(warnings) == 1 and "failing" in warnings[0].getMessage()
    breaker = manager.debug_state()["store"]["breaker"]
    assert breaker["state"] in {"open", "half_open"} and breaker["outages"] == 1
    heal_store(manager, real)


def test_writes_during_outage_stay_committed_and_reach_the_index_later(make_manager, config) -> None:
    manager = make_manager(_outage_config(config))
    real = break_store(manager)
    fill(manager, ["Deployed 3-node redis cluster, config at /opt/redis/", "二", "三", "四"])
    manager.retrieve("redis")
    state = manager.debug_state()
    assert state["interactions_recorded"] == 4 and state["temporary_count"] == 2
    assert state["store"]["pending_index"] >= 2
    heal_store(manager, real)
    deadline = time.monotonic() + 10
    rag = ""
    while time.monotonic() < deadline and "/opt/redis/" not in rag:
        time.sleep(0.2)
        _, rag = manager.retrieve("redis 集群的配置在哪里")
    assert "/opt/redis/" in rag
    wait_for_backlog(manager)
    state = manager.debug_state()
    assert state["store"]["breaker"]["state"] == "closed"
    assert state["store"]["pending_index"] == 0


def test_manager_starts_while_the_store_is_down(make_manager, config, monkeypatch) -> None:
    manager = make_manager(_outage_config(config))
    manager.close()
    from memory.index import chroma as store_module

    monkeypatch.setattr(store_module.ChromaBackend, "_open", lambda self: FailingChroma())
    again = make_manager(_outage_config(config))
    again.record_interaction_sync("停机时也能记录", "嗯")
    active, rag = again.retrieve("记录")
    assert "停机时也能记录" in active and rag == ""


async def test_concurrent_records_retrievals_and_jobs_store_exactly_1000(make_manager, config) -> None:
    config.summary.interval_seconds = 0.05
    config.summary.cleanup_interval_seconds = 0.1
    config.summary.cleanup_ratio = 0.2
    manager = make_manager(config)
    await manager.start()
    stop = asyncio.Event()
    retrievals = 0

    async def retrieve_loop() -> None:
        nonlocal retrievals
        while not stop.is_set():
            await asyncio.to_thread(manager.retrieve, "猫和吉他")
            retrievals += 1
            await asyncio.sleep(0)

    async def writer(task: int) -> list[str]:
        return [await manager.record_interaction(f"任务{task}第{i}句 🐱", "好") for i in range(20)]

    reader = asyncio.create_task(retrieve_loop())
    batches = await asyncio.gather(*(writer(t) for t in range(50)))
    stop.set()
    await reader
    await manager.stop()
    ids = {i for batch in batches for i in batch}
    assert len(ids) == 1000 and retrievals > 0
    again = make_manager(config)
    state = again.debug_state()
    assert state["interactions_recorded"] == 1000
    rows = sql(
        again,
        "SELECT COUNT(*) FROM entries WHERE id IN (SELECT id FROM interactions) "
        "AND layer IN ('active', 'temporary', 'archived')",
    )
    assert rows[0][0] == 1000
    forgotten = sql_count(again, "SELECT COUNT(*) FROM entries WHERE archived_layer = 'temporary'")
    assert state["active_count"] + state["temporary_count"] + forgotten == 1000
    assert state["summary_count"] >= 1


@pytest.mark.faults
def test_a_hung_index_call_never_blocks_the_caller_and_its_client_is_reopened(
    make_manager, config, monkeypatch, caplog
) -> None:
    """Chroma once never returned from a call after a disk filled up. Now the caller waits at most
    ``call_timeout_seconds``, the breaker opens, and the next probe runs on a new client."""
    _outage_config(config).store.call_timeout_seconds = 0.5
    config.store.breaker_initial_backoff_seconds = config.store.breaker_max_backoff_seconds = 2.0
    manager = make_manager(config)
    fill(manager, ["我对花生过敏", "第二句", "第三句"])
    manager.flush()
    release = threading.Event()
    collection = chroma_collection.Collection
    real = {name: getattr(collection, name) for name in ("query", "get", "upsert")}

    def hung(method):  # type: ignore[no-untyped-def]
        def call(self, *args, **kwargs):  # type: ignore[no-untyped-def]
            release.wait()
            return method(self, *args, **kwargs)

        return call

    for name, method in real.items():
        monkeypatch.setattr(collection, name, hung(method))
    with caplog.at_level(logging.WARNING, logger="memory"):
        started = time.monotonic()
        result = manager.retrieve_memories("前辈对什么过敏")
        waited = time.monotonic() - started
        acknowledged = [
            manager.record_interaction_sync(user_input=text, response="记住了")
            for text in ("I keep my spare key under the blue pot", "第五句", "第六句")
        ]
        again = time.monotonic()
        manager.retrieve("前辈对什么过敏")
        refused = time.monotonic() - again
    assert waited < 2.0 and result.degraded and "第三句" in result.active_text
    assert refused < 0.3  # the breaker is open: no second wait
    store = manager.debug_state()["store"]
    assert store["breaker"]["state"] in {"open", "half_open"} and store["calls_timed_out"] >= 1

    for name, method in real.items():
        monkeypatch.setattr(collection, name, method)
    deadline = time.monotonic() + 15
    rag = ""
    while time.monotonic() < deadline and "spare key" not in rag:
        time.sleep(0.2)
        _, rag = manager.retrieve("where is the spare key", user_id=None)
    release.set()  # the written-off threads may finish now; nothing waits for them
    assert "spare key" in rag and len(acknowledged) == 3
    wait_for_backlog(manager)
    store = manager.debug_state()["store"]
    assert store["pending_index"] == 0
    assert store["breaker"]["state"] == "closed" and store["client_reopens"] >= 1
    assert any("hung; reopening" in r.getMessage() for r in caplog.records)
    assert "花生" in manager.retrieve("前辈对什么过敏")[1]
