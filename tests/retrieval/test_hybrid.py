"""Hybrid retrieval (dense + FTS5 keywords fused by RRF) and the cost of one retrieval."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from helpers.store import fill
from memory import Layer, MemoryManager
from memory.domain.tokens import query_terms, words
from memory.index.vectors import VectorStore
from memory.record import keyword

REDIS = "Deployed 3-node redis cluster, config at /opt/redis/"


def _hybrid(config, tokenizer: str = "jieba"):  # type: ignore[no-untyped-def]
    config.retrieval.mode = "hybrid"
    config.retrieval.keyword_tokenizer = tokenizer
    config.active.capacity = 1
    return config


def test_jieba_segments_chinese_into_words() -> None:
    assert {"redis", "集群", "配置"} <= set(words("redis 集群的配置在哪里"))
    terms = query_terms("前辈对什么过敏？", "jieba")
    assert "过敏" in terms and "什么" not in terms


def test_trigram_query_needs_three_characters() -> None:
    assert query_terms("过敏", "trigram") == set()
    assert query_terms("花生过敏", "trigram") == {"生过敏", "花生过"}


def test_keywords_rescue_a_rare_word_that_dense_search_misses(make_manager, config) -> None:
    """999 near-identical chats bury an outlier for the HNSW graph; the word 'redis' finds it."""
    manager = make_manager(_hybrid(config))
    texts = [f"第{i}条记忆：编号{i}的普通日常" for i in range(999)]
    manager.import_interactions(
        {"user_input": t, "response": "嗯嗯，记住啦～"} for t in [*texts, REDIS, "尾巴"]
    )
    result = manager.retrieve_memories("redis 集群的配置在哪里")
    # first of the chats (a persona memory's best dense hit may tie with it: another layer's slot)
    chats = [m for m in result.memories if m.entry.layer != Layer.STATIC]
    assert REDIS in chats[0].entry.content
    assert chats[0].similarity > 0.3  # keyword-only hits still report their cosine


@pytest.mark.parametrize("tokenizer", ["jieba", pytest.param("trigram", marks=pytest.mark.sqlite_only)])
def test_hybrid_finds_names_in_chinese(make_manager, config, tokenizer) -> None:
    manager = make_manager(_hybrid(config, tokenizer))
    fill(manager, ["我家的柯基叫可乐，三岁了", "今天天气不错", "晚饭吃了拉面", "周末去爬山", "最后"])
    _, rag = manager.retrieve("柯基叫可乐吗")
    assert "柯基" in rag


def test_hybrid_respects_user_isolation(make_manager, config) -> None:
    manager = make_manager(_hybrid(config))
    fill(manager, ["我的保险柜密码是四个七", "x"], user_id="alice")
    fill(manager, ["我喜欢踢足球", "x"], user_id="bob")
    assert "保险柜" not in manager.retrieve("保险柜密码", user_id="bob")[1]
    assert "保险柜" in manager.retrieve("保险柜密码", user_id="alice")[1]


@pytest.mark.sqlite_only
def test_switching_tokenizer_rebuilds_the_keyword_index(make_manager, config) -> None:
    manager = make_manager(_hybrid(config, "jieba"))
    fill(manager, ["我家的柯基叫可乐", "最后"])
    manager.close()
    again = make_manager(_hybrid(config, "trigram"))
    _, rag = again.retrieve("柯基叫可乐")
    assert "柯基" in rag


@pytest.mark.parametrize("size", [50, 500])
def test_one_retrieval_writes_only_what_it_returns(make_manager, config, size, monkeypatch) -> None:
    config.active.capacity = 1
    manager: MemoryManager = make_manager(config)
    manager.import_interactions(
        {"user_input": f"日常记录{i}：今天做了第{i}件小事", "response": "嗯"} for i in range(size + 1)
    )
    manager.flush(enrich=True)  # no background work writes meanwhile
    writes: list[str] = []
    for name in ("add", "delete", "drop"):
        original = getattr(VectorStore, name)

        def counted(self, *args, _name=name, _original=original, **kwargs):  # type: ignore[no-untyped-def]
            writes.append(_name)
            return _original(self, *args, **kwargs)

        monkeypatch.setattr(VectorStore, name, counted)
    db = manager._engine.db  # the connection's own write counter: a cost check needs the private part
    before = db.total_changes
    result = manager.retrieve_memories("今天做了什么")
    changed = db.total_changes - before
    recalled = sum(1 for m in result.memories if m.entry.layer.value in {"temporary", "summary"})
    assert changed == recalled + 1  # the returned rows and the clock, whatever the size
    assert writes == []


def test_words_shared_by_most_memories_do_not_drive_the_keyword_ranking(make_manager, config) -> None:
    """'前辈' is in every reply; the dog question must still find the corgi by meaning."""
    manager = make_manager(_hybrid(config))
    chats = [
        f"今天第{i}件事：{topic}"
        for i, topic in enumerate(
            [
                "吃了火锅",
                "去了公园",
                "看了电影",
                "写了代码",
                "买了咖啡",
                "下雨了",
                "加班到很晚",
                "学了日语",
                "跑了五公里",
                "修了自行车",
                "做了蛋糕",
                "打扫了房间",
                "见了老同学",
                "听了演唱会",
                "逛了书店",
                "去了海边",
                "练了吉他",
                "养了多肉",
                "洗了衣服",
                "看了展览",
            ]
        )
    ]
    lines = ["我家有一只柯基，叫可乐，今天它把拖鞋咬坏了。", *chats, "最后"]
    manager.import_interactions({"user_input": t, "response": "前辈辛苦啦～"} for t in lines)
    _, rag = manager.retrieve("前辈养的狗叫什么？")
    assert "可乐" in rag


def _keyword_ranks(manager: MemoryManager, query: str, user_id: str) -> dict[str, int]:
    result = manager.retrieve_memories(query, user_id=user_id, top_k=10)
    return {
        m.entry.content.splitlines()[0]: m.keyword_rank for m in result.memories if m.keyword_rank is not None
    }


def test_another_users_words_never_change_a_users_keyword_query(make_manager, config) -> None:
    """Word statistics are per user: bob saying "咖啡" 300 times does not make it a common word
    for alice (before, it was dropped from her query as too frequent across the whole table)."""
    manager = make_manager(_hybrid(config))
    alice = [f"今天和同事聊了第{i}个项目的进度" for i in range(40)]
    alice[5], alice[17], alice[31] = "我每天早上喝一杯咖啡", "咖啡要加燕麦奶", "周末去上咖啡拉花课"
    manager.import_interactions({"user_input": t, "response": "好的", "user_id": "alice"} for t in alice)
    before = _keyword_ranks(manager, "咖啡", "alice")
    assert {"用户：我每天早上喝一杯咖啡", "用户：咖啡要加燕麦奶", "用户：周末去上咖啡拉花课"} <= set(before)

    manager.import_interactions(
        {"user_input": f"Bob: 第{i}杯咖啡 latte number {i}", "response": "ok", "user_id": "bob"}
        for i in range(300)
    )
    assert _keyword_ranks(manager, "咖啡", "alice") == before
    assert all("Bob" not in text for text in _keyword_ranks(manager, "咖啡 latte", "alice"))


def test_a_keyword_search_scores_a_bounded_number_of_memories(make_manager, config, monkeypatch) -> None:
    """bm25 costs per matching memory, so a match scores at most ``MAX_SCORED`` of them: the
    query's rarest words within that budget, and only the newest matches of a word past it
    (at 100,000 memories a common word made every retrieval 10 ms slower)."""
    monkeypatch.setattr(keyword, "MAX_SCORED", 8)
    config = _hybrid(config)
    config.retrieval.keyword_max_df = 1.0
    manager = make_manager(config)
    texts = [f"第{i}杯咖啡，今天的心情编号{i}" for i in range(30)]
    texts[3] = "喝第三杯咖啡的时候学会了弹吉他"
    manager.import_interactions({"user_input": t, "response": "好的", "user_id": "alice"} for t in texts)

    def found(query: str) -> list[str]:  # the persona's own memories mention 吉他 too
        return [text for text in _keyword_ranks(manager, query, "alice") if text.startswith("用户：")]

    assert found("咖啡和吉他") == ["用户：喝第三杯咖啡的时候学会了弹吉他"]
    newest = {f"用户：第{i}杯咖啡，今天的心情编号{i}" for i in range(22, 30)}
    coffee = set(found("咖啡"))
    assert coffee and coffee <= newest


@pytest.mark.parametrize("ranked_first", [1, keyword.RANKED_FIRST])
async def test_each_layers_keyword_ranking_is_the_same_whichever_is_read_first(
    make_manager, config, monkeypatch, ranked_first
) -> None:
    """A layer holding most of a user's memories ranks a word's matches before reading their
    rows; one holding few (the summaries) reads its own as it ranks. Both give what the other
    way gives, equal scores in the same order: also when a layer's share of the best matches
    falls short (``ranked_first`` 1)."""
    monkeypatch.setattr(keyword, "RANKED_FIRST", ranked_first)
    config = _hybrid(config)
    config.retrieval.keyword_max_df = 1.0
    manager = make_manager(config)
    manager.import_interactions(  # lines of each length three times: equal scores, broken by age
        {"user_input": f"第{i}杯咖啡{'，很香' * (i // 3)}", "response": "好的", "user_id": "alice"}
        for i in range(30)
    )
    fill(manager, ["我周末去上咖啡拉花课了，老师夸我拉的天鹅"], user_id="alice")
    assert await manager.run_summary_now() == 1
    engine = manager._engine
    index, terms = engine.retriever.search.keywords, {"咖啡", "拉花"}
    for layer, depth in ((Layer.TEMPORARY, 12), (Layer.SUMMARY, 4)):
        rag = engine.layers.rag[layer]
        rankings = []
        for most in (True, False):
            monkeypatch.setattr(rag, "holds_most", most)
            rankings.append(rag.keyword_ranking(index, terms, depth, "alice", with_cold=True))
        assert rankings[0] == rankings[1]
        assert len(rankings[0]) == (12 if layer == Layer.TEMPORARY else 1)


def test_a_word_common_in_any_chinese_text_never_decides_a_keyword_match(make_manager, config) -> None:
    """时候 ("when") is in many sentences of any Chinese text: a memory holding only it is no
    keyword match, however rare it is among this user's memories; the question's own word is."""
    manager = make_manager(_hybrid(config))
    lines = ["我开心的时候会唱歌", "小时候我住在哈尔滨", "上个月我去北京出差了", "今天吃了火锅", "最后"]
    manager.import_interactions({"user_input": t, "response": "好的", "user_id": "u1"} for t in lines)
    ranked = _keyword_ranks(manager, "你什么时候去的北京？", "u1")
    assert set(ranked) == {"用户：上个月我去北京出差了"}
    result = manager.retrieve_memories("你什么时候去的北京？", user_id="u1")
    assert "时候" not in result.keywords and result.keywords["北京"] == "北京"
    assert "北京" in result.memories[0].entry.content


def test_the_common_word_table_read_from_the_cache_is_the_one_computed(tmp_path) -> None:
    script = (
        "from memory.domain.tokens import common_words\n"
        "words = common_words(5.0)\n"
        "print(len(words), '什么' in words, '北京' in words, '咖啡' in words, hash(frozenset(words)))\n"
    )
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path), "PYTHONHASHSEED": "0"}

    def run() -> str:
        done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        return done.stdout

    built = run()  # reads jieba's two tables, keeps the words found in the user cache
    (cached,) = (tmp_path / "persona-memory").glob("common-words-5-*.txt")
    assert run() == built and built.split()[1:4] == ["True", "False", "False"]
    cached.write_bytes(b"\xff\xfe damaged")
    assert run() == built
