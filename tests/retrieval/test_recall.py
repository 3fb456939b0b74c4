"""Recall and embedding tests on the default model.

Thresholds set for USE multilingual v3 (measured: paraphrases about 0.86, unrelated English pairs
about 0.10) hold for the default USE + E5 blend too: similar > 0.8, unrelated < 0.3.
"""

from __future__ import annotations

import random

import numpy as np

from helpers.store import budget, fill
from memory import Layer

UNRELATED = [
    "今天天气很好，我们去公园散步了",
    "我昨天看了一部很感人的电影",
    "周末打算包饺子",
    "猫咪今天把花瓶打翻了",
    "I went to the grocery store this morning",
    "我的生日在十月",
    "最近在学习日语的五十音",
    "地铁上人好多",
    "晚饭吃了麻辣烫",
    "新买的耳机音质很棒",
    "我喜欢在雨天听民谣",
    "下个月要去考驾照",
    "The sunset at the beach was beautiful",
    "楼下新开了一家咖啡店",
    "我每天早上跑五公里",
    "妹妹在准备期末考试",
    "朋友送了我一盆多肉",
    "最近睡眠不太好",
    "打算把房间重新布置一下",
    "周五晚上有个同学聚会",
]
REDIS = "Deployed 3-node redis cluster, config at /opt/redis/"


def _cos(a: list[float], b: list[float]) -> float:
    return float(np.dot(a, b) / (np.linalg.norm(a) * np.linalg.norm(b)))


def test_emb_01_same_text_gives_same_vector(embeddings) -> None:
    assert embeddings.embed_query("deployed redis cluster") == embeddings.embed_query(
        "deployed redis cluster"
    )


def test_emb_02_similar_texts_are_close(embeddings) -> None:
    a, b = embeddings.embed_documents(["deployed redis cluster", "set up redis cluster"])
    assert _cos(a, b) > 0.8


def test_emb_03_unrelated_texts_are_far(embeddings) -> None:
    a, b = embeddings.embed_documents(["deployed redis cluster", "went to the grocery store"])
    assert _cos(a, b) < 0.3


def test_recall_01_redis_fact_comes_first_among_20_unrelated(make_manager, config) -> None:
    config.active.capacity = 1
    budget(config, 3, 0, 0)
    manager = make_manager(config)
    fill(manager, [*UNRELATED[:10], REDIS, *UNRELATED[10:], "最后一句"])
    result = manager.retrieve_memories("redis 集群的配置在哪里")
    assert REDIS in result.memories[0].entry.content


def test_a_keyword_hit_still_waiting_for_the_index_is_ranked_by_meaning_too(make_manager, config) -> None:
    config.active.capacity = 1
    budget(config, 3, 0, 0)
    config.retrieval.catch_up_seconds = 0.0  # a retrieval indexes nothing itself
    manager = make_manager(config)
    fill(manager, UNRELATED)
    manager.flush()
    manager._engine.sync.stop_worker()  # hold the background indexer back (private, for the test)
    fill(manager, [REDIS, "最后一句"])
    assert manager.debug_state()["store"]["pending_index"] >= 1
    first = manager.retrieve_memories("redis 集群的配置在哪里").memories[0]
    assert REDIS in first.entry.content and first.similarity > 0.2  # its meaning, not a 0 placeholder


def test_recall_02_top_k_limits_the_count(make_manager, config) -> None:
    config.active.capacity = 1
    config.retrieval.mode = "weighted"
    manager = make_manager(config)
    fill(manager, UNRELATED)
    assert len(manager.retrieve_memories("生活", top_k=3).memories) == 3


def test_recall_03_empty_memory_returns_empty_strings(make_manager, config) -> None:
    budget(config, 3, 2, 0)
    manager = make_manager(config)
    assert manager.retrieve("用户喜欢什么") == ("", "")


def test_recall_04_unrelated_query_scores_low(make_manager, config) -> None:
    config.active.capacity = 1
    budget(config, 3, 0, 0)
    manager = make_manager(config)
    fill(manager, [REDIS, "Redis cluster expanded to 5 nodes", "redis-cli --cluster create", "x"])
    result = manager.retrieve_memories("天气怎么样")
    assert result.memories == []  # the relevance floor (on by default) leaves the slots empty
    assert result.near_misses and all(m.similarity < 0.3 and m.below_floor for m in result.near_misses)
    config.retrieval.relevance_floor = False
    manager.close()
    result = make_manager(config).retrieve_memories("天气怎么样")
    assert result.memories and all(m.similarity < 0.3 for m in result.memories)


def test_recall_04_min_similarity_drops_unrelated_memories(make_manager, config) -> None:
    config.active.capacity = 1
    config.retrieval.min_similarity = 0.3
    budget(config, 3, 0, 0)
    manager = make_manager(config)
    fill(manager, [REDIS, "Redis cluster expanded to 5 nodes", "x"])
    assert manager.retrieve_memories("天气怎么样").memories == []


def test_recall_05_old_and_new_versions_both_return_with_times(make_manager, config, clock) -> None:
    config.active.capacity = 1
    manager = make_manager(config, now=clock)
    manager.record_interaction_sync("Redis cluster deployed with 3 nodes", "好的")
    clock.advance(days=3)
    manager.record_interaction_sync("Redis cluster expanded to 5 nodes", "好的")
    clock.advance(days=1)
    manager.record_interaction_sync("无关的话", "嗯")
    _, rag = manager.retrieve("redis cluster 有几个节点")
    assert "[4天前]" in rag and "3 nodes" in rag
    assert "[1天前]" in rag and "5 nodes" in rag


def diverse_texts(count: int, seed: int = 7) -> list[str]:
    """Varied everyday sentences (Chinese and English), reproducible."""
    rng = random.Random(seed)
    people = ["我", "妈妈", "同事小王", "室友", "我姐姐", "老板", "My friend", "My cousin"]
    verbs = [
        "今天去了",
        "周末想去",
        "刚刚聊到",
        "一直很喜欢",
        "昨天路过",
        "有点讨厌",
        "went to",
        "talked about",
    ]
    things = [
        "图书馆",
        "火锅店",
        "健身房",
        "海边",
        "博物馆",
        "the bakery",
        "a jazz bar",
        "演唱会",
        "宠物医院",
        "菜市场",
        "the night market",
        "动物园",
        "游泳馆",
        "二手书店",
        "滑雪场",
    ]
    tails = [
        "感觉很开心",
        "人特别多",
        "下次还想去",
        "花了不少钱",
        "遇到了老朋友",
        "and it rained",
        "拍了很多照片",
        "差点迟到",
        "心情一般",
        "学到了新东西",
    ]
    return [
        f"{rng.choice(people)}{rng.choice(verbs)}{rng.choice(things)}，{rng.choice(tails)}（{i}）"
        for i in range(count)
    ]


def test_recall_06_a_thousand_memories_are_searchable(make_manager, config) -> None:
    config.active.capacity = 1
    manager = make_manager(config)
    texts = [*diverse_texts(999), REDIS, "尾巴"]
    manager.import_interactions({"user_input": t, "response": "嗯嗯，记住啦～"} for t in texts)
    assert len(manager.inspector.entries(Layer.TEMPORARY)) == 1000
    result = manager.retrieve_memories("redis 集群的配置在哪里")
    assert REDIS in result.memories[0].entry.content
