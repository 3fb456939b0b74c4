"""Light users share one pooled collection per layer; a user who outgrows it gets their own."""

from __future__ import annotations

import numpy as np

from helpers.store import fill
from memory import Layer
from memory.index.chroma import ChromaBackend
from memory.index.scoped import POOL_LIMIT
from memory.index.vectors import VectorStore


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
    own = manager.inspector.collection_names() - {"karin__temporary", "karin__summary", "karin__static"}
    assert len(own) == 1 and next(iter(own)).startswith("karin__temporary__")
    live = {e.id for e in manager.inspector.entries(Layer.TEMPORARY, "heavy")}
    assert manager.inspector.indexed_ids(Layer.TEMPORARY, "heavy") == live  # every vector moved, none lost
    assert "护照" in manager.retrieve("护照放在哪里", user_id="heavy")[1]
    assert "bike is red" in manager.retrieve("what colour is my bike", user_id="light")[1]
    assert "护照" not in manager.retrieve("护照放在哪里", user_id="light")[1]


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
