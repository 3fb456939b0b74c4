"""Light users share one pooled collection per layer; a user who outgrows it gets their own."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from helpers.store import fill
from memory import Layer
from memory.index.chroma import ChromaBackend
from memory.index.disk import remove_dropped_segments
from memory.index.scoped import POOL_LIMIT, WAITING_SUFFIX
from memory.index.vectors import VectorStore
from memory.record.entries import EntryTable


def test_many_light_users_share_one_collection_and_stay_apart(make_manager, config) -> None:
    config.active.capacity = 2
    manager = make_manager(config)
    for u in range(30):
        fill(
            manager,
            [f"用户{u}的秘密是{u * 7}号储物柜", f"user {u} likes tea number {u}", "第三句", "第四句"],
            user_id=f"u{u}",
        )
    manager.flush()
    names = manager.inspector.collection_names()
    assert names <= {"karin__temporary", "karin__summary", "karin__static"}, names
    for u in (0, 17, 29):
        _, rag = manager.retrieve("秘密 储物柜", user_id=f"u{u}")
        assert f"{u * 7}号储物柜" in rag
        assert all(f"{v * 7}号储物柜" not in rag for v in range(30) if v != u)


def test_a_user_who_outgrows_the_pool_moves_to_their_own_collection(make_manager, config) -> None:
    config.active.capacity = 2
    manager = make_manager(config)
    fill(manager, ["我的护照放在书架第二层", "第二句", "第三句"], user_id="heavy")
    fill(manager, ["light user: my bike is red", "二", "三"], user_id="light")
    manager.flush()
    assert len(manager.inspector.collection_names()) <= 3  # pooled so far
    manager.import_interactions(
        {"user_input": f"第{i}天的日记：今天学了第{i}首曲子", "response": "好", "user_id": "heavy"}
        for i in range(POOL_LIMIT + 20)
    )
    manager.flush()
    pooled = {"karin__temporary", "karin__summary", "karin__static"}
    own = manager.inspector.collection_names() - pooled
    (name,) = {n.removesuffix(WAITING_SUFFIX) for n in own}  # and, until enriched, its waiting one
    assert name.startswith("karin__temporary__")
    live = {e.id for e in manager.inspector.entries(Layer.TEMPORARY, "heavy")}
    for _ in range(2):  # before and after enrichment
        assert (
            manager.inspector.indexed_ids(Layer.TEMPORARY, "heavy") == live
        )  # every vector moved, none lost
        assert "护照" in manager.retrieve("护照放在哪里", user_id="heavy")[1]
        assert "bike is red" in manager.retrieve("what colour is my bike", user_id="light")[1]
        assert "护照" not in manager.retrieve("护照放在哪里", user_id="light")[1]
        manager.flush(enrich=True)
        assert manager.inspector.collection_names() - pooled == {name}  # the waiting one is gone


def test_the_layout_survives_a_restart(make_manager, config) -> None:
    config.active.capacity = 2
    manager = make_manager(config)
    manager.import_interactions(
        {"user_input": f"第{i}条：我收藏了第{i}张黑胶唱片", "response": "好", "user_id": "collector"}
        for i in range(POOL_LIMIT + 10)
    )
    fill(manager, ["my cat is called Mochi", "二", "三"], user_id="other")
    manager.close()
    again = make_manager(config)
    assert "Mochi" in again.retrieve("what is my cat called", user_id="other")[1]
    assert "黑胶唱片" in again.retrieve("第3张黑胶唱片", user_id="collector")[1]
    assert again.inspector.indexed_ids(Layer.TEMPORARY, "collector") == {
        e.id for e in again.inspector.entries(Layer.TEMPORARY, "collector")
    }


def test_a_pooled_collection_reads_back_what_was_written_last(tmp_path, config, embeddings) -> None:
    """A pool keeps the vectors it read or wrote in memory; a read gives the vector last
    written, never one replaced or deleted since, also when a read raced the write."""
    backend = ChromaBackend(config.store, tmp_path / "index")
    old, new = np.array([1.0, 0.0, 0.0, 0.0], np.float32), np.array([0.0, 1.0, 0.0, 0.0], np.float32)
    try:
        pool = VectorStore(backend, "karin__temporary", embeddings, searched=False)
        pool.add(["a", "b"], ["", ""], [{"scope": "s"}] * 2, vectors={"a": old, "b": old})
        assert set(pool.vectors(["a", "b", "unknown"])) == {"a", "b"}
        pool.add(["a"], [""], [{"scope": "s"}], vectors={"a": new})
        pool.delete(["b"])
        read = pool.vectors(["a", "b"])
        assert list(read) == ["a"] and np.allclose(read["a"], new)
        fresh = VectorStore(backend, "karin__temporary", embeddings, searched=False)
        assert np.allclose(fresh.vectors(["a"])["a"], new) and fresh.vectors(["b"]) == {}

        _, missing, started = pool.kept.split(["c"])  # a read of "c" begins...
        pool.add(["c"], [""], [{"scope": "s"}], vectors={"c": new})  # ..."c" is written meanwhile...
        pool.kept.fill({"c": old}, started)  # ...and the read, done, would keep what it saw
        assert missing == ["c"] and np.allclose(pool.vectors(["c"])["c"], new)
    finally:
        backend.close()


def _collector(count: int) -> list[dict[str, str]]:
    return [
        {"user_input": f"第{i}条：我收藏了第{i}张黑胶唱片", "response": "好", "user_id": "collector"}
        for i in range(count)
    ]


POOLED = {"karin__temporary", "karin__summary", "karin__static"}


def segment_folders(chroma: Path) -> set[str]:
    return {p.name for p in chroma.iterdir() if p.is_dir()}


def test_a_heavy_user_forgotten_before_enrichment_leaves_neither_collection(make_manager, config) -> None:
    config.active.capacity = 2
    manager = make_manager(config, background=False)  # nothing enriched: the waiting collection stays
    manager.import_interactions(_collector(POOL_LIMIT + 10))
    assert manager.flush()
    assert len(manager.inspector.collection_names() - POOLED) == 2  # the user's own and waiting ones
    one = manager.inspector.entries(Layer.TEMPORARY, "collector")[0].id
    assert manager.forget(one, user_id="collector")
    assert one not in manager.inspector.indexed_ids(Layer.TEMPORARY, "collector")
    chroma = Path(config.data_dir) / "chroma"
    before = segment_folders(chroma)
    assert manager.forget_user("collector") > POOL_LIMIT
    assert manager.inspector.collection_names() <= POOLED
    assert segment_folders(chroma) < before  # their vectors' files went with their collections
    manager.close()
    assert make_manager(config).inspector.collection_names() <= POOLED
    assert remove_dropped_segments(chroma) == 0


def test_a_start_after_enrichment_was_cut_keeps_the_full_vectors(make_manager, config) -> None:
    """Enrichment adds a full vector to the user's collection, then deletes the cheap one from the
    waiting collection; cut in between, the next start keeps the full one and embeds nothing."""
    config.active.capacity = 2
    manager = make_manager(config)
    manager.import_interactions(_collector(POOL_LIMIT + 10))
    assert manager.flush(enrich=True)
    layer = manager._engine.layers.rag[Layer.TEMPORARY]
    entries = manager.inspector.entries(Layer.TEMPORARY, "collector")
    ids = [e.id for e in entries]
    cheap = dict(zip(ids, layer.index.embed([e.index_text for e in entries]), strict=True))
    waiting = layer.stores.by_name(layer.stores.waiting_name("collector"))
    waiting.add(ids, [""] * len(ids), [layer.metadata(e) for e in entries], vectors=cheap)
    manager.close()

    again = make_manager(config)  # its start repairs the index
    assert again.inspector.collection_names() - POOLED == {layer.stores.own_name("collector")}
    assert again.debug_state()["store"]["pending_enrichment"] == 0
    stores = again._engine.layers.rag[Layer.TEMPORARY].stores
    tiers = again._engine.layers.rag[Layer.TEMPORARY].tiers
    vectors = stores.vectors("collector", ids)
    assert tiers is not None and len(vectors) == len(ids) and all(map(tiers.is_enriched, vectors.values()))
    assert "第3张黑胶唱片" in again.retrieve("第3张黑胶唱片", user_id="collector")[1]


def test_memories_waiting_for_enrichment_are_scored_as_the_whole_query_scores_them(
    make_manager, config
) -> None:
    """A heavy user's waiting collection is searched with the query's cheap half while E5 computes
    the rest; its memories come back with the similarity the whole query vector gives them."""
    config.active.capacity = 2
    manager = make_manager(config, background=False)  # nothing enriched: the waiting collection stays
    manager.import_interactions(_collector(POOL_LIMIT + 10))
    assert manager.flush()
    layer = manager._engine.layers.rag[Layer.TEMPORARY]
    assert layer.stores.waiting("collector") is not None and layer.tiers is not None
    ids = [e.id for e in manager.inspector.entries(Layer.TEMPORARY, "collector")]
    stored = layer.stores.vectors("collector", ids)
    for query in ["我收藏的第7张黑胶唱片", "Which vinyl record did I collect seventh?"]:
        whole = np.asarray(manager._engine.embeddings.embed_query(query))
        expected = {
            i: layer.tiers.cheap_scale * float(whole @ v) / float(np.linalg.norm(whole) * np.linalg.norm(v))
            for i, v in stored.items()
        }
        found = [
            m for m in manager.retrieve_memories(query, user_id="collector").memories if m.entry.id in stored
        ]
        dense = sorted((m for m in found if m.dense_rank is not None), key=lambda m: m.dense_rank or 0)
        assert dense and dense[0].entry.id == max(expected, key=lambda i: expected[i])
        assert all(abs(m.similarity - expected[m.entry.id]) < 1e-4 for m in found)


def test_a_heavy_users_memory_the_worker_stores_during_a_retrieval_is_found(
    make_manager, config, monkeypatch
) -> None:
    """A heavy user's collections are searched while the query's vector is computed. The worker
    stores a memory's vector, then marks it stored; a retrieval reads what waits for the index
    before it searches any of them, so a memory stored meanwhile is found by one or the other."""
    config.active.capacity = 2
    manager = make_manager(config, background=False)  # the test plays the worker
    manager.import_interactions(_collector(POOL_LIMIT + 10))
    assert manager.flush()
    manager.record_interaction_sync("我对花生过敏，吃一点就会起疹子", "记住了～", user_id="collector")
    for i in range(3):  # the active window moves on: the fact waits for the index
        manager.record_interaction_sync(f"第{i}次随便聊聊天气", "好呀", user_id="collector")
    assert manager._engine.layers.rag[Layer.TEMPORARY].stores.waiting("collector") is not None
    search, read, order = VectorStore.search, EntryTable.unindexed, []

    def the_worker_runs_after(store: VectorStore, *args: object) -> object:
        found = search(store, *args)
        if "searched" not in order:
            order.append("searched")
            manager.flush()  # every waiting vector stored and marked, right after the first search
        return found

    def reading(table: EntryTable, *args: object) -> object:
        order.append("read")
        return read(table, *args)

    monkeypatch.setattr(VectorStore, "search", the_worker_runs_after)
    monkeypatch.setattr(EntryTable, "unindexed", reading)
    result = manager.retrieve_memories("哪种坚果我碰不得？", user_id="collector")  # no word of the fact
    assert order[0] == "read"
    assert any("花生" in m.entry.content and m.dense_rank is not None for m in result.memories)
