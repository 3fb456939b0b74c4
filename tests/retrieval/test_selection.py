"""What a retrieval puts in its memory slots: the best of any layer, nothing below the relevance
floor, and a dialogue read as a dialogue (real Chroma, the real USE embedder)."""

from __future__ import annotations

from pathlib import Path

import pytest
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage

from helpers.store import fill
from memory import InputTypeError, InvalidInputError, Layer, MemoryManager
from memory.domain.importance import said_in
from memory.retrieval.relevance import Bar, RelevanceFloor

FACTS = [
    "我对花生过敏，吃了会起疹子",
    "我养了一只橘猫，叫年糕",
    "I work as a nurse at the city hospital",
    "我老家在四川自贡",
    "My sister lives in Toronto",
    "我每天早上六点去游泳",
]
CATS = [
    "我家橘猫年糕今天把花瓶打碎了",
    "年糕最喜欢趴在窗台上晒太阳",
    "带年糕去打了疫苗，它一路都在叫",
    "年糕最近胖了，猫粮要换成减肥的",
    "年糕晚上总是跑酷，吵得我睡不着",
]


def told(manager: MemoryManager, texts: list[str]) -> None:
    """Record the texts and index them all, however slow the machine (a retrieval itself waits
    for the index only ``catch_up_seconds``)."""
    fill(manager, texts)
    manager.flush()


def _manager(make_manager, config, **retrieval: object) -> MemoryManager:  # type: ignore[no-untyped-def]
    config.active.capacity = 1
    for name, value in retrieval.items():
        setattr(config.retrieval, name, value)
    return make_manager(config)


def test_slots_go_to_the_best_memories_of_any_layer(make_manager, config) -> None:
    """Five chats about the cat beat the persona's own memories: quotas no longer reserve slots."""
    manager = _manager(make_manager, config)
    told(manager, [*CATS, *FACTS, "结束"])
    result = manager.retrieve_memories("我家的猫年糕最近怎么样？")
    cat_chats = [m for m in result.memories if m.entry.layer == Layer.TEMPORARY and "年糕" in m.entry.content]
    assert len(cat_chats) >= 4  # quota mode gave the temporary layer 3 slots
    assert len(result.memories) <= config.retrieval.top_k
    assert [m.score for m in result.memories] == sorted((m.score for m in result.memories), reverse=True)


async def test_a_summary_competes_on_the_same_score_and_within_its_cap(make_manager, config) -> None:
    manager = _manager(make_manager, config, caps={"summary": 1})
    told(manager, ["哈哈今天好开心。我对花生过敏，吃了会起疹子。", "外面下雨了", "晚饭吃了面条"])
    await manager.run_summary_now()
    assert manager.inspector.entries(Layer.SUMMARY)
    told(manager, ["我对虾也有点过敏", "最后一句"])
    result = manager.retrieve_memories("我对什么过敏？")
    layers = [m.entry.layer for m in result.memories]
    assert layers.count(Layer.SUMMARY) == 1  # the cap holds
    assert any("花生" in m.entry.content for m in result.memories)


def test_an_unrelated_query_leaves_the_slots_empty(make_manager, config) -> None:
    manager = _manager(make_manager, config)  # the default: on
    told(manager, [*FACTS, *CATS, "结束"])
    for small_talk in ["今天天气怎么样", "哈哈哈你好呀", "Good morning! How are you?"]:
        result = manager.retrieve_memories(small_talk)
        assert result.memories == [], small_talk
        assert "花生" not in result.rag_text
        assert result.near_misses and all(m.below_floor for m in result.near_misses)
    found = manager.retrieve_memories("我对什么东西过敏？").memories
    assert found and "花生" in found[0].entry.content
    assert "Toronto" in manager.retrieve_memories("Where does my sister live?").memories[0].entry.content


def test_a_question_about_the_world_leaves_the_users_life_out(make_manager, config) -> None:
    """A question that does not speak of the user needs a memory past the small talk nearest to
    it; one about the user's life in plain words, in the persona's name for the user, about "the
    user", or naming what the user told, still finds it."""
    toml = Path(config.personas_dir) / "karin" / "persona.toml"
    toml.write_text('name = "karin"\nlocale = "zh"\naddresses_user_as = ["前辈"]\n', encoding="utf-8")
    manager = _manager(make_manager, config)
    told(manager, [*FACTS, *CATS, "结束"])
    for question in [
        "Do you think people will live on Mars one day?",
        "Who invented the telephone?",
        "你会弹钢琴吗？",
    ]:
        found = manager.retrieve_memories(question).memories
        assert [m.entry.content for m in found if m.entry.layer != Layer.STATIC] == [], question
    for question, fact in [
        ("What do I do for work?", "nurse"),
        ("What does the user do for work?", "nurse"),
        ("前辈每天早上做什么运动？", "游泳"),
        ("那只橘猫叫什么名字来着？", "年糕"),
        ("年糕还在减肥吗？", "减肥"),
    ]:
        found = [m.entry.content for m in manager.retrieve_memories(question).memories]
        assert any(fact in text for text in found), (question, found)


def test_a_memory_in_the_other_language_is_held_to_small_talk_in_its_language(embeddings) -> None:
    """A question lies nearer small talk of its own language than a fact said in the other one:
    such a fact must beat small talk in its own language, never more than the whole background."""
    bar = RelevanceFloor(embeddings, margin=0.05).bar(embeddings.embed_query("我是做什么工作的？"))
    english, chinese = bar.said_in[False], bar.said_in[True]
    assert english[0] < chinese[0] <= bar.high and english[1] <= bar.low
    assert bar.passes(english[0], False, "I work as a nurse at the city hospital")
    assert not bar.passes(english[0], False, "我在医院当护士")


def test_a_line_said_again_and_again_takes_one_slot(make_manager, config) -> None:
    """A user asks the same small talk day after day (in two languages): its copies neither crowd
    out the one statement the question is about nor repeat what the active window shows."""
    manager = _manager(make_manager, config, top_k=3)
    manager.record_interaction_sync("I go rock climbing every Saturday morning", "好厉害！")
    for reply in [
        "我也想试试看～",
        "哈哈，好有意思～",
        "下次也带上我吧！",
        "要照顾好自己哦～",
        "诶——真的吗？",
    ]:
        manager.record_interaction_sync("周末你一般做什么呀？", reply)
        manager.record_interaction_sync("What do you usually do on weekends?", reply)
    manager.record_interaction_sync("周末你一般做什么呀？", "唱歌！")  # the active window's one
    manager.flush()
    result = manager.retrieve_memories("我周末一般做什么运动？")
    said = [said_in(m.entry.content) for m in result.memories if m.entry.layer == Layer.TEMPORARY]
    assert any("rock climbing" in line for line in said), said
    assert "周末你一般做什么呀？" not in said
    assert said.count("What do you usually do on weekends?") <= 1


def test_notes_remembered_on_purpose_are_never_taken_for_repeats(make_manager, config) -> None:
    manager = _manager(make_manager, config)
    manager.remember("Meeting notes\nTuesday: the budget review moved to May")
    manager.remember("Meeting notes\nFriday: we hire two designers")
    manager.flush()
    found = " ".join(m.entry.content for m in manager.retrieve_memories("meeting notes").memories)
    assert "budget review" in found and "designers" in found


def test_without_the_floor_every_slot_is_filled(make_manager, config) -> None:
    manager = _manager(make_manager, config, relevance_floor=False)
    told(manager, [*FACTS, *CATS, "结束"])
    assert len(manager.retrieve_memories("今天天气怎么样").memories) == config.retrieval.top_k


def test_the_floor_is_the_querys_own(embeddings) -> None:
    """Small talk sits close to the background, so its bar is high; a specific question's is low."""
    floor = RelevanceFloor(embeddings, margin=0.0)
    chat = floor.bar(embeddings.embed_query("今天天气真不错呀"))
    question = floor.bar(embeddings.embed_query("What did the doctor say about my knee surgery?"))
    assert chat.high > question.high and chat.low <= chat.high
    bar = Bar(0.4, 0.2)
    assert bar.passes(0.3, keyword_match=True) and not bar.passes(0.3, keyword_match=False)
    hello = embeddings.embed_query("你好")
    raised = RelevanceFloor(embeddings, margin=0.1).bar(hello).high
    assert raised == pytest.approx(floor.bar(hello).high + 0.1, abs=1e-6)


DIALOGUE = [
    "我下个月要去参加公司的年会，还要上台表演节目",
    "哇，好厉害！你打算表演什么呀？",
    "还没想好呢，有点紧张",
    "别紧张，你肯定可以的",
    "那我就拿出小时候的老本行吧",
]


def test_a_dialogue_query_reads_the_earlier_turns(make_manager, config) -> None:
    """The newest turn names no topic; the conversation says it is about performing."""
    manager = _manager(make_manager, config)
    told(manager, ["我小时候学过五年的魔术，还在少年宫表演过", *FACTS, *CATS, "结束"])
    result = manager.retrieve_memories(DIALOGUE)
    assert result.memories and "魔术" in result.memories[0].entry.content
    cats = manager.retrieve_memories([*DIALOGUE[:-1], "对了，我家年糕最近又胖了"]).memories
    assert "年糕" in cats[0].entry.content  # the newest turn counts most


def test_a_one_turn_dialogue_is_a_plain_query(make_manager, config) -> None:
    manager = _manager(make_manager, config)
    told(manager, [*FACTS, "结束"])
    manager.flush(enrich=True)  # the same vectors for both: none enriched between them
    plain = manager.retrieve_memories("我对什么过敏？").memories
    listed = manager.retrieve_memories(["我对什么过敏？"]).memories
    assert [m.entry.id for m in plain] == [m.entry.id for m in listed]


def test_bad_dialogues_are_refused_naming_the_turn(make_manager, config) -> None:
    manager = _manager(make_manager, config)
    with pytest.raises(InvalidInputError, match="query"):
        manager.retrieve([])
    with pytest.raises(InputTypeError, match=r"query\[1\]"):
        manager.retrieve(["你好", 3])  # type: ignore[list-item]
    with pytest.raises(InvalidInputError, match=r"query\[0\]"):
        manager.retrieve(["   ", "你好"])
    with pytest.raises(InputTypeError, match="query"):
        manager.retrieve({"turns": ["你好"]})  # type: ignore[arg-type]


def test_the_runnable_reads_a_message_list_as_a_dialogue(make_manager, config) -> None:
    manager = _manager(make_manager, config)
    told(manager, ["我小时候学过五年的魔术，还在少年宫表演过", *FACTS, *CATS, "结束"])
    messages = [SystemMessage("你是karin")]
    for i, turn in enumerate(DIALOGUE):
        messages.append(HumanMessage(turn) if i % 2 == 0 else AIMessage(turn))
    out = manager.retriever.as_runnable().invoke(messages, {"configurable": {"user_id": None}})
    assert "魔术" in out["rag"]


async def test_with_memory_asks_with_the_recent_exchanges(make_manager, config) -> None:
    from langchain_core.language_models import FakeListChatModel
    from langchain_core.prompts import ChatPromptTemplate

    config.active.capacity = 3
    manager = make_manager(config)
    told(manager, ["我小时候学过五年的魔术，还在少年宫表演过", *FACTS, *CATS])
    manager.record_interaction_sync(DIALOGUE[0], DIALOGUE[1])
    manager.record_interaction_sync(DIALOGUE[2], DIALOGUE[3])
    seen: list[str] = []

    def spy(value: dict[str, str]) -> dict[str, str]:
        seen.append(value["rag"])
        return value

    prompt = ChatPromptTemplate.from_messages([("system", "{rag}"), ("human", "{input}")])
    chain = manager.with_memory(spy | prompt | FakeListChatModel(responses=["好呀"]))  # type: ignore[operator]
    await chain.ainvoke({"input": DIALOGUE[4], "user_id": None})
    assert "魔术" in seen[0]
