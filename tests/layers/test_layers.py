"""Layer rules: FIFO overflow, decay and boost, forgetting into the archive, static memories."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from helpers.store import budget, fill, sql
from memory import Layer, MemoryConfig, MemoryManager
from memory.errors import StaticMemoryError


def test_active_keeps_the_newest_interactions_in_order(make_manager) -> None:
    manager = make_manager()
    fill(manager, [f"第{i}句话" for i in range(13)])
    window = manager.inspector.entries(Layer.ACTIVE)
    assert len(window) == 10
    assert [e.content.splitlines()[0] for e in window] == [f"用户：第{i}句话" for i in range(3, 13)]


def test_oldest_interaction_overflows_to_temporary(make_manager, config) -> None:
    config.temporary.importance = False
    manager = make_manager(config)
    ids = fill(manager, [f"message {i}" for i in range(12)])
    temporary_ids = [e.id for e in manager.inspector.entries(Layer.TEMPORARY)]
    assert temporary_ids == ids[:2]
    assert all(e.significance == 0.5 for e in manager.inspector.entries(Layer.TEMPORARY))


def test_overflowed_entry_is_searchable(make_manager) -> None:
    manager = make_manager()
    fill(manager, ["我下周要去京都旅行"] + [f"闲聊{i}" for i in range(10)])
    _, rag = manager.retrieve("京都旅行")
    assert "京都" in rag


def _decaying_config(config: MemoryConfig) -> MemoryConfig:
    config.temporary.importance = False  # a flat 0.5 start: the arithmetic below is exact
    config.temporary.decay_coefficient = 0.5  # 0.5 -> 0.25 -> 0.125 -> 0.0625: forgotten at tick 3
    budget(config, 1, 0, 0)
    config.active.capacity = 1
    return config


def test_recalled_entry_is_boosted_and_others_decay(make_manager, config) -> None:
    manager = make_manager(_decaying_config(config))
    fill(manager, ["Deployed 3-node redis cluster, config at /opt/redis/", "我喜欢吃草莓蛋糕", "现在"])
    result = manager.retrieve_memories("redis cluster config")
    assert [m.entry.content.splitlines()[0] for m in result.memories] == [
        "用户：Deployed 3-node redis cluster, config at /opt/redis/"
    ]
    by_text = {e.content.splitlines()[0]: e for e in manager.inspector.entries(Layer.TEMPORARY)}
    redis = by_text["用户：Deployed 3-node redis cluster, config at /opt/redis/"]
    cake = by_text["用户：我喜欢吃草莓蛋糕"]
    assert redis.significance == 0.75 and redis.changed_at == 1
    assert cake.significance == 0.5 and cake.changed_at == 0  # lazily decayed: row untouched
    assert manager.inspector.significance(cake.id) == 0.25  # at tick 1


def test_unrecalled_entry_is_demoted_to_the_cold_tier_and_logged(make_manager, config) -> None:
    manager = make_manager(_decaying_config(config))
    fill(manager, ["Deployed 3-node redis cluster, config at /opt/redis/", "我喜欢吃草莓蛋糕", "现在"])
    for _ in range(3):
        manager.retrieve("redis cluster config")
    remaining = [e.content for e in manager.inspector.entries(Layer.TEMPORARY)]
    assert not any("草莓蛋糕" in text for text in remaining)
    manager.flush()
    archived = manager.inspector.archived()
    assert [a.reason for a in archived] == ["forgotten"]
    assert "草莓蛋糕" in archived[0].content
    assert archived[0].significance == pytest.approx(0.0625)
    assert [e.content for e in manager.inspector.entries(Layer.ARCHIVED)] == [archived[0].content]


def test_forgotten_entry_keeps_its_vector_for_deep_recall(make_manager, config) -> None:
    manager = make_manager(_decaying_config(config))
    fill(manager, ["redis cluster", "草莓蛋糕", "现在"])
    for _ in range(3):
        manager.retrieve("redis cluster")
    manager.flush()
    cold = [e.id for e in manager.inspector.entries(Layer.ARCHIVED)]
    hot = [e.id for e in manager.inspector.entries(Layer.TEMPORARY)]
    assert len(cold) == 1 and len(hot) == 1
    assert manager.inspector.indexed_ids(Layer.TEMPORARY) == {*cold, *hot}


def test_static_memories_load_from_md_and_json(make_manager) -> None:
    manager = make_manager()
    contents = {e.content for e in manager.inspector.entries(Layer.STATIC)}
    assert "我养了一只叫团子的猫。" in contents
    assert "我最喜欢的食物是草莓蛋糕。" in contents
    assert "我的吉他老师是陈老师，他很严格。" in contents
    assert len(contents) == 5  # the heading-only paragraph is not a memory


def test_loading_static_memories_twice_adds_nothing(make_manager) -> None:
    manager = make_manager()
    before = len(manager.inspector.entries(Layer.STATIC))
    manager.close()
    manager = make_manager()  # opening loads the files again
    manager.flush()
    assert (
        len(manager.inspector.entries(Layer.STATIC))
        == before
        == len(manager.inspector.indexed_ids(Layer.STATIC))
    )


def test_static_memories_are_never_forgotten(make_manager, config) -> None:
    config.temporary.decay_coefficient = 0.5
    manager = make_manager(config)
    for _ in range(40):
        manager.retrieve("天气怎么样")
    assert len(manager.inspector.entries(Layer.STATIC)) == 5
    assert all(a.layer != "static" for a in manager.inspector.archived())


def test_removed_static_memory_leaves_the_layer(make_manager, config) -> None:
    manager = make_manager()
    manager.close()
    folder = Path(config.personas_dir) / "karin" / "static_memories"
    (folder / "more.json").write_text(json.dumps(["只剩这一条。"], ensure_ascii=False), "utf-8")
    manager = make_manager()
    contents = {e.content for e in manager.inspector.entries(Layer.STATIC)}
    assert "只剩这一条。" in contents and "我最喜欢的食物是草莓蛋糕。" not in contents


def test_malformed_static_json_names_the_file_and_line(config) -> None:
    bad = Path(config.personas_dir) / "karin" / "static_memories" / "broken.json"
    bad.write_text('[\n  "ok",\n  oops\n]', encoding="utf-8")
    with pytest.raises(StaticMemoryError, match=r"broken\.json.*line 3"):
        MemoryManager("karin", config)


def test_static_memories_are_shared_by_every_user(make_manager) -> None:
    manager = make_manager()
    _, rag_a = manager.retrieve("你的猫叫什么", user_id="alice")
    _, rag_b = manager.retrieve("你的猫叫什么", user_id="bob")
    assert "团子" in rag_a and "团子" in rag_b


def test_layer_of_every_interaction_is_exactly_one(make_manager) -> None:
    manager = make_manager()
    ids = fill(manager, [f"句子{i}" for i in range(25)])
    rows = sql(manager, "SELECT id, layer FROM entries WHERE layer IN ('active', 'temporary')")
    assert sorted(str(r[0]) for r in rows) == sorted(ids)
    assert {Layer(str(r[1])) for r in rows} == {Layer.ACTIVE, Layer.TEMPORARY}
