"""Tiered embedding: a memory is searchable at once by its cheap vector; its full vector comes
from background enrichment, which survives a kill; commands that need no model load none."""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
import time

import numpy as np

from helpers.store import config_env
from memory import Layer, MemoryConfig, MemoryManager
from memory.index import e5_engines
from memory.layers.rag import RagLayer
from memory.samples import floor_sentences

FILLER = [
    {"user_input": f"今天第{i}件小事：{topic}", "response": "嗯嗯，然后呢？", "user_id": "u1"}
    for i, topic in enumerate(["吃了火锅", "去了公园", "看了电影", "写了代码", "买了咖啡", "修了自行车"] * 60)
]


def test_a_memory_is_found_before_its_enrichment(make_manager) -> None:
    manager = make_manager()
    manager.import_interactions(FILLER)  # searchable at once; their enrichment keeps the worker busy
    manager.record_interaction_sync(
        "我对花生过敏，吃一点就会起疹子", "记住了，以后不给你带花生糖～", user_id="u1"
    )
    for i in range(10):  # the active window moves on: the fact is in the temporary layer
        manager.record_interaction_sync(f"第{i}次随便聊聊天气", "好呀", user_id="u1")
    manager.flush()
    assert manager.debug_state()["store"]["pending_enrichment"] > 100
    result = manager.retrieve_memories("What food am I allergic to?", user_id="u1")
    found = [m for m in result.memories if "花生" in m.entry.content]
    assert found and found[0].entry.provisional  # found by the cheap vector and keywords
    manager.flush(enrich=True)
    assert manager.debug_state()["store"]["pending_enrichment"] == 0
    again = manager.retrieve_memories("What food am I allergic to?", user_id="u1")
    assert any("花生" in m.entry.content and not m.entry.provisional for m in again.memories)


def test_a_memory_is_found_by_meaning_before_the_index_stores_it(make_manager) -> None:
    manager = make_manager(background=False)  # no worker: nothing is stored in the index
    manager.record_interaction_sync(
        "我对花生过敏，吃一点就会起疹子", "记住了，以后不给你带花生糖～", user_id="u1"
    )
    for i in range(10):  # the active window moves on: the fact is in the temporary layer
        manager.record_interaction_sync(f"第{i}次随便聊聊天气", "好呀", user_id="u1")
    fact = next(e for e in manager.inspector.entries(Layer.TEMPORARY, "u1") if "花生" in e.content)
    assert fact.id not in manager.inspector.indexed_ids(Layer.TEMPORARY, "u1")
    result = manager.retrieve_memories("What food am I allergic to?", user_id="u1")
    found = [m for m in result.memories if m.entry.id == fact.id]
    assert found and found[0].dense_rank is not None and found[0].similarity > 0
    assert fact.id not in manager.inspector.indexed_ids(Layer.TEMPORARY, "u1")  # the retrieval stored nothing
    manager.flush()
    assert fact.id in manager.inspector.indexed_ids(Layer.TEMPORARY, "u1")


def test_a_memory_the_worker_stores_during_a_retrieval_is_found(make_manager, monkeypatch) -> None:
    """The worker stores a memory's vector, then marks it stored: a retrieval that searches the
    index just before and reads what waits for it just after still finds the memory."""
    manager = make_manager(background=False)  # the test plays the worker
    manager.record_interaction_sync("我对花生过敏，吃一点就会起疹子", "记住了～", user_id="u1")
    for i in range(10):  # the active window moves on: the fact waits in the temporary layer
        manager.record_interaction_sync(f"第{i}次随便聊聊天气", "好呀", user_id="u1")
    search = RagLayer._nearest

    def then_the_worker_runs(layer: RagLayer, *args: object, **kwargs: object) -> object:
        found = search(layer, *args, **kwargs)
        manager.flush()  # the worker stores every waiting vector right after the search
        return found

    monkeypatch.setattr(RagLayer, "_nearest", then_the_worker_runs)
    result = manager.retrieve_memories("哪种坚果我碰不得？", user_id="u1")  # no word of the fact
    assert any("花生" in m.entry.content and m.dense_rank is not None for m in result.memories)


def test_retrievals_go_before_the_enrichment_backlog(make_manager) -> None:
    manager = make_manager()
    manager.import_interactions(FILLER * 3)  # about 30 batches of enrichment for the worker
    manager.flush()
    manager.retrieve_memories("热身", user_id="u1")
    before = manager.debug_state()["store"]["pending_enrichment"]
    while manager.debug_state()["store"]["pending_enrichment"] == before:
        time.sleep(0.05)  # the worker is enriching
    took = []
    for query in ["我昨天吃了什么？", "What did I repair?", "公园", "咖啡买了吗", "电影好看吗"]:
        start = time.monotonic()
        assert manager.retrieve_memories(query, user_id="u1").memories
        took.append(time.monotonic() - start)
    assert manager.debug_state()["store"]["pending_enrichment"] > 0  # and still is
    assert max(took) < 2.0, took  # a request waits for no batch of it (one takes seconds)


def test_the_persona_memories_are_enriched_while_requests_keep_coming(make_manager) -> None:
    """Every retrieval reads the persona's memories, from memory only once all have full
    vectors: requests hold a user's enrichment back, never theirs."""
    manager = make_manager()
    for i in range(14):  # four leave the active window: they wait for enrichment too
        manager.record_interaction_sync(f"第{i}次聊天：我周末去爬山了", "听起来很开心！", user_id="u1")
    manager.flush()
    deadline = time.monotonic() + 90
    static: list = []
    while time.monotonic() < deadline:
        manager.retrieve_memories("你喜欢什么音乐？", user_id="u1")  # the next request comes at once
        static = manager.inspector.entries(Layer.STATIC)
        if static and not any(e.provisional for e in static):
            break
    assert static and not any(e.provisional for e in static)
    assert manager.debug_state()["store"]["pending_enrichment"] > 0  # the user's still wait


def test_new_writes_are_indexed_while_an_enrichment_batch_runs(make_manager, monkeypatch) -> None:
    """Indexing and enrichment run on their own threads: a write is searchable by its vector
    while an enrichment batch is still being computed (it is held open here until the end)."""
    import threading

    release, computing = threading.Event(), threading.Event()
    real = e5_engines.EnginePool.encode_background

    def held(pool: e5_engines.EnginePool, texts: list[str]) -> object:
        computing.set()
        release.wait(timeout=60)
        return real(pool, texts)

    monkeypatch.setattr(e5_engines.EnginePool, "encode_background", held)
    manager = make_manager()
    try:
        manager.import_interactions(FILLER)
        manager.flush()
        assert computing.wait(timeout=30)  # the worker's enrichment batch is under way
        for i in range(14):  # four of these leave the active window for the temporary layer
            manager.record_interaction_sync(
                f"I repaired bicycle number {i} today", "Nice work!", user_id="u2"
            )
        deadline = time.monotonic() + 20
        while manager.debug_state()["store"]["pending_index"] and time.monotonic() < deadline:
            time.sleep(0.05)
        state = manager.debug_state()["store"]
        assert state["pending_index"] == 0 and state["pending_enrichment"] > 0
    finally:
        release.set()


CHILD = textwrap.dedent(
    """
    import json, os, signal, sys, time
    from memory import MemoryConfig, MemoryManager
    records = json.loads(sys.stdin.read())
    manager = MemoryManager("karin", MemoryConfig())
    manager.import_interactions(records)
    manager.flush()
    total = manager.debug_state()["store"]["pending_enrichment"]
    print(total, flush=True)
    while manager.debug_state()["store"]["pending_enrichment"] > total - 100:
        time.sleep(0.02)
    os.kill(os.getpid(), signal.SIGKILL)
    """
)


def test_enrichment_resumes_after_sigkill_embedding_only_what_was_left(config: MemoryConfig) -> None:
    import json

    records = FILLER * 3  # two batches are computed at a time: more than two are left at the kill
    child = subprocess.run(
        [sys.executable, "-c", CHILD],
        input=json.dumps(records, ensure_ascii=False),
        env=config_env(config),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert child.returncode == -signal.SIGKILL, child.stderr[-2000:]
    total = int(child.stdout.split()[0])
    with MemoryManager("karin", config, background=False) as manager:  # no worker: we count
        left = manager.debug_state()["store"]["pending_enrichment"]
        assert 0 < left <= total - 100
        pool = manager._engine.embeddings._e5  # type: ignore[attr-defined]
        embedded: list[int] = []
        encode = pool.encode_background

        def counting(texts: list[str]) -> object:
            embedded.append(len(texts))
            return encode(texts)

        pool.encode_background = counting
        assert manager.flush(enrich=True)
        assert sum(embedded) <= left  # what was stored full before the kill is not embedded again
        assert manager.debug_state()["store"]["pending_enrichment"] == 0
        entries = manager.inspector.entries(Layer.TEMPORARY, "u1")
        layer = manager._engine.layers.rag[Layer.TEMPORARY]
        vectors = layer.stores.vectors("u1", [e.id for e in entries])
        tiers = layer.tiers
        assert tiers is not None and len(vectors) == len(entries) == len(records) - config.active.capacity
        assert all(tiers.is_enriched(v) for v in vectors.values())  # nothing lost


def test_commands_that_need_no_model_load_none(config: MemoryConfig, tmp_path) -> None:
    with MemoryManager("karin", config) as manager:
        manager.record_interaction_sync("我家的猫叫团子", "好可爱", user_id="u1")
        manager.flush()
    script = textwrap.dedent(
        f"""
        import sys
        from memory.cli import main
        assert "chromadb" not in sys.modules  # the CLI itself imports no store
        out = {str(tmp_path / "x.jsonl")!r}
        for argv in (["state", "--persona", "karin"], ["export", "--persona", "karin", out],
                     ["forget-user", "u1", "--persona", "karin", "--yes"]):
            assert main(argv) == 0
        from memory import MemoryConfig
        from memory.index.embeddings import get_embeddings
        print("loaded" if get_embeddings(MemoryConfig().embedding).loaded else "none")
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], env=config_env(config), capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.splitlines()[-1] == "none"


def test_a_process_that_records_and_retrieves_loads_no_langchain_runnables(config: MemoryConfig) -> None:
    script = textwrap.dedent(
        """
        import sys
        from memory import MemoryConfig, MemoryManager
        with MemoryManager("karin", MemoryConfig()) as manager:
            manager.record_interaction_sync("我家的猫叫团子", "好可爱", user_id="u1")
            active, _ = manager.retrieve("我家的猫叫什么？", user_id="u1")
            print(active.count("团子"))
        heavy = ("langchain_core.runnables.base", "langchain_core.prompts", "langsmith")
        print(sorted(name for name in heavy if name in sys.modules))
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], env=config_env(config), capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.splitlines()[-2:] == ["1", "[]"]  # LangChain's runnables take half a second


def test_the_shipped_e5_background_matches_a_fresh_computation() -> None:
    sentences = floor_sentences()
    shipped = e5_engines.load_background(sentences)
    assert shipped is not None, (
        "the shipped file no longer matches the model: python -m memory.index.e5_engines"
    )
    fresh = e5_engines.compute_background(e5_engines.EnginePool(1), sentences)
    for made, now in zip(shipped, fresh, strict=True):
        made, now = np.asarray(made, dtype=np.float64), np.asarray(now, dtype=np.float64)
        assert made.shape == now.shape
        # E5's engine rounds differently from one CPU to another: the file matches to 1e-5 on
        # the AVX2 machines, by cosines of 0.9999 on an AVX-512 one; two different background
        # sentences are at most 0.97 alike
        cosines = (made * now).sum(axis=-1) / (np.linalg.norm(made, axis=-1) * np.linalg.norm(now, axis=-1))
        assert float(np.min(cosines)) > 0.999


def test_a_retrieval_of_a_cheap_only_store_uses_no_second_model(config: MemoryConfig) -> None:
    config.embedding.provider = "use-multilingual"
    with MemoryManager("karin", config) as manager:
        manager.remember("I play the ukulele on weekends", user_id="u1")
        manager.flush(enrich=True)
        assert manager.debug_state()["store"]["pending_enrichment"] == 0
        assert "ukulele" in manager.retrieve("what instrument do I play?", user_id="u1")[1]
