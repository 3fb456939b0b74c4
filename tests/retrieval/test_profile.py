"""Profile facts that scale: with a thousand keys the question finds its fact, and no prompt
holds more profile text than its budget in characters (real embedder, real SQLite)."""

from __future__ import annotations

from memory import MemoryConfig, MemoryManager
from memory.domain.formatter import format_profile
from memory.index.embeddings import get_embeddings
from memory.samples import floor_sentences

THINGS = ["邮票", "硬币", "明信片", "书签", "徽章", "钥匙扣", "贴纸", "磁铁"]


def _thousand_keys(manager: MemoryManager) -> None:
    manager.remember("花生，吃一点就会起疹子", user_id="u1", key="allergy")  # the first one set
    for i in range(999):
        value = f"第{i}号藏品是一枚{1950 + i % 70}年的{THINGS[i % len(THINGS)]}"
        manager.remember(value, user_id="u1", key=f"collection_{i}")


def test_the_first_of_a_thousand_keys_is_found_by_its_question(make_manager, config: MemoryConfig) -> None:
    manager = make_manager(config)
    _thousand_keys(manager)
    assert len(manager.profile("u1")) == 1000
    for question in ["我对什么过敏？", "What am I allergic to?"]:
        result = manager.retrieve_memories(question, user_id="u1")
        assert "花生" in result.rag_text, question
        assert len(format_profile(result.profile)) <= config.retrieval.profile_chars + 20  # the title


def test_no_prompt_holds_more_profile_than_its_budget(make_manager, config: MemoryConfig) -> None:
    config.retrieval.profile_chars = 300
    manager = make_manager(config)
    manager.remember("很长的故事：" + "从前有座山，山里有座庙。" * 1600, user_id="u1", key="story")
    for i in range(12):
        manager.remember("蓝色" * 900, user_id="u1", key=f"favourite_{i}")
    for question in ["讲讲那个故事", "我喜欢什么颜色？", "hello"]:
        facts = manager.retrieve_memories(question, user_id="u1").profile
        shown = sum(len(f.key) + len(f.value) + 4 for f in facts)
        assert facts and shown <= 300, question
    story = manager.retrieve_memories("讲讲那个故事", user_id="u1").profile
    assert story[0].key == "story" and story[0].value.endswith("…")  # cut, not left out


def test_a_key_asked_by_its_name_is_shown_before_its_neighbours(make_manager, config: MemoryConfig) -> None:
    manager = make_manager(config)
    _thousand_keys(manager)
    for question in ["collection_500 是什么", "what is my collection_500?"]:
        shown = manager.retrieve_memories(question, user_id="u1").profile
        assert shown and shown[0].key == "collection_500", (question, [f.key for f in shown[:3]])


def test_a_thousand_keys_are_embedded_once_not_at_every_start(
    make_manager, config: MemoryConfig, monkeypatch
) -> None:
    first = make_manager(config)
    _thousand_keys(first)
    first.flush(enrich=True)  # the worker stores each fact's vector beside it
    first.close()
    again = make_manager(config)
    embedder = get_embeddings(config.embedding)
    embedded: list[str] = []
    for name in ("embed_documents", "embed_cheap"):
        original = getattr(embedder, name)
        monkeypatch.setattr(embedder, name, lambda texts, _f=original: embedded.extend(texts) or _f(texts))
    result = again.retrieve_memories("What am I allergic to?", user_id="u1")
    assert "花生" in result.rag_text
    assert not set(embedded) - set(floor_sentences())  # no fact again (the floor's small talk: once)
    again.remember("上海", user_id="u1", key="home_city")
    assert "上海" in again.retrieve_memories("我住在哪个城市？", user_id="u1").rag_text
    new = [text for text in embedded if text not in floor_sentences()]
    assert new in ([], ["home city: 上海"])  # the new one, at most once (the worker may be first)
