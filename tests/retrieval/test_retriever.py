"""Cross-layer retrieval: quota vs weighted, user isolation, LCEL, BaseRetriever, formatting."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from langchain_core.language_models.fake_chat_models import FakeListChatModel
from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.retrievers import BaseRetriever
from langchain_core.runnables import RunnableParallel, RunnablePassthrough

from helpers.store import budget, check_user_isolation, fill
from memory import InvalidInputError, Layer
from memory.domain.formatter import relative_time

SHARED = {"configurable": {"user_id": None}}
"""A call that names the persona's shared memory (naming no user is an error)."""


async def _with_summary(manager, texts: list[str]) -> None:
    fill(manager, texts)
    await manager.run_summary_now()


async def test_quota_mode_takes_each_layers_quota(make_manager, config) -> None:
    config.active.capacity = 2
    budget(config, 2, 1, 1)
    config.retrieval.mode = "quota"
    manager = make_manager(config)
    await _with_summary(manager, [f"音乐话题{i}：我喜欢民谣和吉他" for i in range(8)])
    result = manager.retrieve_memories("民谣")
    layers = [m.entry.layer for m in result.memories]
    assert layers.count(Layer.TEMPORARY) == 2
    assert layers.count(Layer.SUMMARY) == 1
    assert layers.count(Layer.STATIC) == 1


async def test_weighted_mode_ranks_by_similarity_times_weight(make_manager, config) -> None:
    config.active.capacity = 2
    config.retrieval.mode = "weighted"
    config.retrieval.top_k = 4
    config.retrieval.weights = {"static": 0.0, "summary": 0.0, "temporary": 1.0}
    manager = make_manager(config)
    await _with_summary(manager, [f"音乐话题{i}：我喜欢民谣和吉他" for i in range(8)])
    result = manager.retrieve_memories("民谣")
    assert len(result.memories) == 4
    assert all(m.entry.layer == Layer.TEMPORARY for m in result.memories)
    scores = [m.score for m in result.memories]
    assert scores == sorted(scores, reverse=True)


def test_weighted_scores_are_similarity_times_layer_weight(make_manager, config) -> None:
    config.retrieval.mode = "weighted"
    manager = make_manager(config)
    for memory in manager.retrieve_memories("你养了什么猫").memories:
        weight = config.retrieval.weights[memory.entry.layer.value]
        assert abs(memory.score - memory.similarity * weight) < 1e-9


def test_one_user_never_sees_another_users_memories(make_manager, config) -> None:
    config.active.capacity = 1
    manager = make_manager(config)
    check_user_isolation(manager)


def test_each_user_has_its_own_active_window(make_manager) -> None:
    manager = make_manager()
    fill(manager, ["alice 的话"], user_id="alice")
    fill(manager, ["bob 的话"], user_id="bob")
    assert "alice" in manager.retrieve("话", user_id="alice")[0]
    assert "bob" not in manager.retrieve("话", user_id="alice")[0]


def test_runnable_accepts_str_and_dict(make_manager) -> None:
    manager = make_manager()
    fill(manager, ["你喜欢什么歌"])
    runnable = manager.retriever.as_runnable()
    out = runnable.invoke("用户喜欢什么", SHARED)
    assert set(out) == {"active", "rag"} and "你喜欢什么歌" in out["active"]
    assert runnable.invoke({"query": "用户喜欢什么", "user_id": None})["active"] == out["active"]


def test_runnable_inside_a_chain_with_a_chat_model(make_manager) -> None:
    manager = make_manager()
    fill(manager, ["我最喜欢的乐队是五月天"])
    seen: list[str] = []

    def capture(prompt_value):  # type: ignore[no-untyped-def]
        seen.append(prompt_value.to_string())
        return prompt_value

    prompt = ChatPromptTemplate.from_messages(
        [("system", "最近的对话：\n{active}\n相关记忆：\n{rag}"), ("human", "{question}")]
    )
    chain = (
        RunnableParallel(memory=manager.retriever.as_runnable(), question=RunnablePassthrough())
        | (lambda x: {"active": x["memory"]["active"], "rag": x["memory"]["rag"], "question": x["question"]})
        | prompt
        | capture
        | FakeListChatModel(responses=["前辈喜欢五月天～"])
        | StrOutputParser()
    )
    assert chain.invoke("我喜欢哪个乐队？", SHARED) == "前辈喜欢五月天～"
    assert "我最喜欢的乐队是五月天" in seen[0] and "我喜欢哪个乐队？" in seen[0]


def test_langchain_retriever_documents_carry_metadata(make_manager, config) -> None:
    config.active.capacity = 1
    manager = make_manager(config)
    fill(manager, ["Deployed 3-node redis cluster, config at /opt/redis/", "最后"])
    retriever = manager.retriever.as_langchain_retriever(user_id=None)
    assert isinstance(retriever, BaseRetriever)
    docs = retriever.invoke("redis 集群的配置在哪里")
    assert docs and "redis" in docs[0].page_content
    assert {"layer", "significance", "timestamp", "score"} <= set(docs[0].metadata)
    assert docs[0].metadata["layer"] == "temporary"
    datetime.fromisoformat(docs[0].metadata["timestamp"])


def test_langchain_retriever_takes_k_and_returns_profile_and_window(make_manager, config) -> None:
    config.active.capacity = 2
    manager = make_manager(config)
    manager.remember("游戏公司的UI设计师", user_id="u1", key="job")
    fill(manager, [f"第{i}次聊到周末去爬山" for i in range(6)] + ["今天下雨了", "晚饭吃了面"], user_id="u1")
    user = {"configurable": {"user_id": "u1"}}
    docs = manager.retriever.as_langchain_retriever().invoke("What do I do for a living?", user)
    assert docs[0].metadata["source"] == "profile" and "设计师" in docs[0].page_content  # the profile first
    memories = [d for d in docs if d.metadata["source"] == "memory"]
    assert len(manager.retriever.as_langchain_retriever(k=2).invoke("爬山", user)) <= 2 + 1
    assert len([d for d in manager.retriever.as_langchain_retriever().invoke("爬山", user, k=1)
                if d.metadata["source"] == "memory"]) == 1  # fmt: skip
    assert memories and all({"layer", "score", "similarity"} <= set(d.metadata) for d in memories)
    with_window = manager.retriever.as_langchain_retriever(
        search_kwargs={"k": 3}, include=("active", "memories")
    ).invoke("爬山", user)
    window = [d.page_content for d in with_window if d.metadata["source"] == "active"]
    assert any("晚饭吃了面" in text for text in window) and len(with_window) - len(window) <= 3
    for bad in ({"include": ("everything",)}, {"search_kwargs": {"fetch_k": 9}}, {"k": 0}):
        with pytest.raises(InvalidInputError):
            manager.retriever.as_langchain_retriever(**bad)


async def test_langchain_retriever_async_invoke(make_manager) -> None:
    manager = make_manager()
    docs = await manager.retriever.as_langchain_retriever(user_id=None).ainvoke("你的猫叫什么")
    assert any("团子" in d.page_content for d in docs)


def test_active_text_lists_oldest_first_with_relative_time(make_manager, clock) -> None:
    manager = make_manager(now=clock)
    manager.record_interaction_sync("第一句", "嗯")
    clock.advance(minutes=3)
    manager.record_interaction_sync("第二句", "嗯")
    active, _ = manager.retrieve("随便")
    assert active.index("第一句") < active.index("第二句")
    assert active.startswith("[3分钟前] 用户：第一句")


def test_english_locale_formats_in_english(make_manager, config, clock) -> None:
    config.locale = "en"
    manager = make_manager(config, now=clock)
    manager.record_interaction_sync("hello", "hi")
    clock.advance(hours=2)
    active, rag = manager.retrieve("cat")
    assert active.startswith("[2 hours ago] User: hello\nkarin: hi")
    assert rag.startswith("[Persona memories]")


def test_relative_time_units() -> None:
    now = datetime(2026, 11, 23, tzinfo=UTC)
    assert relative_time(now - timedelta(seconds=5), now) == "刚刚"
    assert relative_time(now - timedelta(minutes=3), now) == "3分钟前"
    assert relative_time(now - timedelta(days=3), now) == "3天前"
    assert relative_time(now - timedelta(days=15), now) == "2周前"
    assert relative_time(now - timedelta(days=400), now) == "1年前"
    assert relative_time(now - timedelta(minutes=1), now, "en") == "1 minute ago"
    assert relative_time(now - timedelta(days=2), now, "en") == "2 days ago"


def test_slots_a_layer_cannot_fill_go_to_the_other_layers(make_manager, config) -> None:
    config.active.capacity = 1
    manager = make_manager(config)  # no summaries yet: their 2 slots are free
    fill(manager, [f"第{i}次练吉他，弹了民谣" for i in range(8)] + ["最后"])
    result = manager.retrieve_memories("民谣吉他")
    layers = [m.entry.layer for m in result.memories]
    assert len(layers) == 7 and layers.count(Layer.TEMPORARY) >= 5 and layers.count(Layer.STATIC) <= 2


async def test_retrieved_text_never_repeats_a_line_the_prompt_already_holds(make_manager) -> None:
    manager = make_manager()
    fill(manager, ["我家的猫叫年糕。", "我在杭州上班。"])
    await manager.run_summary_now()  # its lines repeat what the active window still shows
    active, rag = manager.retrieve("我家的猫叫什么？")
    assert active.count("我家的猫叫年糕") == 1 and "我家的猫叫年糕" not in rag
    assert "【相关的总结记忆】" not in rag  # nothing new left in the summary: not shown at all


def test_runnable_takes_chat_inputs_and_the_user_from_config(make_manager, config) -> None:
    """A str, {"input"}, {"question"}, a message or a list of messages; the user from the input
    or from config["configurable"], as LangChain and LangGraph pass it."""
    from langchain_core.messages import AIMessage, HumanMessage

    config.active.capacity = 5
    manager = make_manager(config)
    fill(manager, ["我的猫叫团团"], user_id="u1")
    fill(manager, ["我的狗叫可乐"], user_id="u2")
    runnable = manager.retriever.as_runnable()
    as_u1 = {"configurable": {"user_id": "u1"}}
    for payload in (
        "我的宠物叫什么",
        {"input": "我的宠物叫什么"},
        {"question": "我的宠物叫什么"},
        HumanMessage("我的宠物叫什么"),
        [HumanMessage("你好"), AIMessage("前辈好～"), HumanMessage("我的宠物叫什么")],
    ):
        out = runnable.invoke(payload, config=as_u1)
        assert "团团" in out["active"] and "可乐" not in out["active"], payload
    assert "可乐" in runnable.invoke({"query": "宠物", "user_id": "u2"}, config=as_u1)["active"]
    assert "团团" not in runnable.invoke("宠物", SHARED)["active"]  # None: the shared memory only
    schema = runnable.get_input_jsonschema()
    assert "anyOf" in schema or "oneOf" in schema
    with pytest.raises(InvalidInputError, match="query"):
        runnable.invoke({"text": "宠物"})


async def test_the_retriever_takes_its_user_from_config(make_manager, config) -> None:
    config.active.capacity = 1
    manager = make_manager(config)
    fill(manager, ["我的猫叫团团", "随便说说"], user_id="u1")
    retriever = manager.retriever.as_langchain_retriever()
    docs = await retriever.ainvoke("我的猫叫什么", config={"configurable": {"user_id": "u1"}})
    assert any("团团" in d.page_content for d in docs)
    assert not any("团团" in d.page_content for d in retriever.invoke("我的猫叫什么", SHARED))
