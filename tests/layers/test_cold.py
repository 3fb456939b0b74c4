"""The cold tier: forgetting demotes, deep recall finds, a returned cold memory is revived."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from helpers.store import budget, fill
from memory import InvalidInputError, Layer, MemoryConfig

PEANUT = "我对花生过敏，吃了会起疹子"
FILLER = [
    f"今天第{i}件小事：{topic}" for i, topic in enumerate(["吃火锅", "去公园", "看电影", "写代码", "买咖啡"])
]


def _forgetful(config: MemoryConfig) -> MemoryConfig:
    """Forget after three untouched ticks (0.5 -> 0.25 -> 0.125 -> 0.0625 < 0.1)."""
    config.active.capacity = 1
    config.temporary.decay_coefficient = 0.5
    config.temporary.importance = False  # every one starts at 0.5: the arithmetic below is exact
    budget(config, 4, 0, 0)  # the 4 small things
    config.retrieval.relevance_floor = False  # "今天做了什么小事" is small talk; the arithmetic needs 4
    return config


def _forget_the_allergy(manager, user_id: str | None = None) -> str:  # type: ignore[no-untyped-def]
    allergy = fill(manager, [PEANUT, *FILLER], user_id=user_id)[0]
    manager.flush(enrich=True)  # all of them in the index, enriched: the arithmetic is about forgetting
    for _ in range(3):
        manager.retrieve("今天做了什么小事", user_id=user_id)
    assert [e.id for e in manager.inspector.entries(Layer.ARCHIVED, user_id)] == [allergy]
    return allergy


def test_forgetting_demotes_to_the_cold_tier_out_of_the_prompt(make_manager, config) -> None:
    manager = make_manager(_forgetful(config))
    allergy = _forget_the_allergy(manager)
    assert allergy not in {e.id for e in manager.inspector.entries(Layer.TEMPORARY)}
    state = manager.debug_state()
    assert state["tiers"]["temporary"]["cold"] == 1 and state["archived_count"] == 1
    assert manager.flush() and allergy in manager.inspector.indexed_ids(Layer.TEMPORARY)  # kept
    assert [a.id for a in manager.inspector.archived()] == [allergy]  # the log says what and why


def test_deep_recall_finds_a_forgotten_memory_and_revives_it(make_manager, config) -> None:
    manager = make_manager(_forgetful(config))
    allergy = _forget_the_allergy(manager)
    manager.flush()
    result = manager.retrieve_memories("what am I allergic to? 过敏")
    revived = [m for m in result.memories if m.entry.id == allergy]
    assert revived and revived[0].revived and revived[0].entry.layer == Layer.TEMPORARY
    assert "花生过敏" in result.rag_text
    entry = manager.inspector.entry(allergy)
    assert entry is not None and entry.layer == Layer.TEMPORARY
    assert manager.inspector.significance(allergy) == 0.53125  # 0.0625 when forgotten, then boosted


def test_a_cold_memory_is_found_by_meaning_across_languages(make_manager, config) -> None:
    config = _forgetful(config)
    config.retrieval.mode = "quota"  # dense only: no shared word with the question
    manager = make_manager(config)
    allergy = _forget_the_allergy(manager)
    manager.flush()
    result = manager.retrieve_memories("Which food gives me a rash?")
    assert allergy in {m.entry.id for m in result.memories}


def test_with_deep_recall_off_forgotten_means_out_of_reach(make_manager, config) -> None:
    config = _forgetful(config)
    config.retrieval.deep_recall = False
    manager = make_manager(config)
    _forget_the_allergy(manager)
    _, rag = manager.retrieve("我对什么过敏")
    assert "花生" not in rag


def test_restore_brings_a_memory_back_on_request(make_manager, config) -> None:
    manager = make_manager(_forgetful(config))
    allergy = _forget_the_allergy(manager)
    assert manager.restore(allergy, user_id="u2") is False  # not u2's: stays cold
    assert manager.restore(allergy) is True
    assert manager.restore(allergy) is False  # no longer cold
    assert manager.restore("no-such-memory") is False
    with pytest.raises(InvalidInputError, match="memory_id"):
        manager.restore("  ")
    assert allergy in {e.id for e in manager.inspector.entries(Layer.TEMPORARY)}
    assert manager.debug_state()["tiers"]["temporary"] == {"hot": 5, "cold": 0}


def test_a_revived_memory_can_be_forgotten_again_and_is_logged_twice(make_manager, config) -> None:
    manager = make_manager(_forgetful(config))
    allergy = _forget_the_allergy(manager)
    manager.restore(allergy)
    manager.flush(enrich=True)  # its vector as full as the others': ranked alike
    for _ in range(3):
        manager.retrieve("今天做了什么小事")
    manager.flush()
    records = [a for a in manager.inspector.archived() if a.id == allergy]
    assert len(records) == 2 and records[0].archived_at < records[1].archived_at


def test_one_users_cold_memories_never_reach_another(make_manager, config) -> None:
    manager = make_manager(_forgetful(config))
    _forget_the_allergy(manager, user_id="alice")
    fill(manager, ["我喜欢踢足球", "最后"], user_id="bob")
    _, rag = manager.retrieve("我对花生过敏吗", user_id="bob")
    assert "花生" not in rag
    assert manager.debug_state(user_id="alice")["user"]["cold"] == 1


def test_with_a_tier_penalty_a_hot_memory_wins_a_tie_with_a_cold_one(make_manager, config) -> None:
    config = _forgetful(config)
    config.retrieval.cold_weight = 0.9  # the default 1.0 ranks both tiers by relevance alone
    manager = make_manager(config)
    _forget_the_allergy(manager)
    config.retrieval.top_k = 1
    fill(manager, [PEANUT, "最后一句"])  # the same words again, now hot
    manager.flush(enrich=True)  # its vector the same as the cold one's: a tie
    result = manager.retrieve_memories(PEANUT)
    assert len(result.memories) == 1 and not result.memories[0].revived


def test_the_cached_word_dictionary_segments_as_jieba_does(tmp_path) -> None:
    script = (
        "import jieba; from memory.domain import tokens\n"
        "tokens.load_jieba()\n"
        "print(' '.join(jieba.cut_for_search('我上次说喜欢打羽毛球，周末去了颐和园')), len(jieba.dt.FREQ))\n"
    )
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path)}

    def run() -> str:
        return subprocess.run(
            [sys.executable, "-c", script], capture_output=True, text=True, check=True, env=env
        ).stdout

    first = run()  # builds the cache from jieba's own dictionary
    (cached,) = (tmp_path / "persona-memory").glob("jieba-prefix-dict-*.bin")
    assert run() == first and "羽毛球" in first  # read from the cache
    cached.write_bytes(cached.read_bytes()[:1000])  # damaged: jieba's own dictionary serves
    assert run() == first
    assert cached.stat().st_size > 1000  # and written again
