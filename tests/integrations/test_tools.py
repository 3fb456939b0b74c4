"""Memory tools a model calls, and the cognitive loop (recall before answering)."""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.language_models.fake_chat_models import FakeListChatModel, FakeMessagesListChatModel
from langchain_core.messages import AIMessage, ToolMessage

from helpers.store import fill
from memory import InvalidInputError
from memory.domain.formatter import HISTORY_MARKS


class ToolCallingFake(FakeMessagesListChatModel):
    """langchain-core's fake chat model, able to take tools, keeping what it was asked."""

    tools: list[Any] = []  # noqa: RUF012 (pydantic copies field defaults)
    asked: list[list[Any]] = []  # noqa: RUF012

    def bind_tools(self, tools: Any, **kwargs: Any) -> ToolCallingFake:  # type: ignore[override]
        self.tools = list(tools)
        return self

    def _generate(self, messages, stop=None, run_manager=None, **kwargs):  # type: ignore[no-untyped-def]
        self.asked.append(list(messages))
        return super()._generate(messages, stop, run_manager, **kwargs)


def by_name(tools) -> dict[str, Any]:
    return {t.name: t for t in tools}


def test_tools_recall_remember_and_forget_for_one_user(make_manager) -> None:
    manager = make_manager()
    tools = by_name(manager.as_tools(user_id="u1"))
    assert set(tools) == {"recall_memory", "remember", "forget_memory"}
    assert "长期记忆" in tools["recall_memory"].description  # karin speaks Chinese
    assert set(tools["remember"].args) == {"fact", "key"}  # the config is injected, not asked
    saved = tools["remember"].invoke({"fact": "用户的猫叫年糕"})
    memory_id = saved.split("id ")[1].rstrip("）。")
    assert f"[{memory_id}] 用户的猫叫年糕" in tools["recall_memory"].invoke({"query": "我的猫叫什么"})
    tools["remember"].invoke({"fact": "杭州", "key": "home_city"})
    assert manager.profile("u1")["home_city"].value == "杭州"
    assert "home_city: 杭州" in tools["recall_memory"].invoke({"query": "我住哪"})

    other = by_name(manager.as_tools(user_id="u2"))
    assert "年糕" not in other["recall_memory"].invoke({"query": "猫叫什么"})
    assert "没有" in other["forget_memory"].invoke({"memory_id": memory_id})  # not u2's to erase
    assert "已忘记" in tools["forget_memory"].invoke({"memory_id": memory_id})
    assert "年糕" not in tools["recall_memory"].invoke({"query": "我的猫叫什么"})


def test_tools_take_the_user_from_config_and_refuse_without_one(make_manager, config) -> None:
    config.locale = "en"
    manager = make_manager(config)
    tools = by_name(manager.as_tools())
    assert "long-term memory" in tools["recall_memory"].description
    tools["remember"].invoke({"fact": "Allergic to peanuts"}, {"configurable": {"user_id": "u9"}})
    found = tools["recall_memory"].invoke({"query": "allergy"}, {"configurable": {"user_id": "u9"}})
    assert "peanuts" in found
    assert "no user named" in tools["recall_memory"].invoke({"query": "allergy"})
    assert "no user named" in tools["forget_memory"].invoke({"memory_id": "anything"})
    assert "key" in tools["remember"].invoke(
        {"fact": "x", "key": "a key with spaces"}, {"configurable": {"user_id": "u9"}}
    )


def test_cognitive_loop_with_a_tool_calling_model(make_manager) -> None:
    manager = make_manager()
    manager.remember("用户对花生过敏", user_id="u1")
    model = ToolCallingFake(
        responses=[
            AIMessage(
                "", tool_calls=[{"name": "recall_memory", "args": {"query": "用户对什么过敏"}, "id": "c1"}]
            ),
            AIMessage("你对花生过敏，要小心哦～"),
        ]
    )
    model.asked = []
    chain = manager.cognitive_chain(model)
    answer = chain.invoke({"input": "我能吃花生酱吗？"}, {"configurable": {"user_id": "u1"}})
    assert answer.content == "你对花生过敏，要小心哦～"
    assert [t.name for t in model.tools] == ["recall_memory"]
    tool_reply = model.asked[1][-1]
    assert isinstance(tool_reply, ToolMessage) and tool_reply.tool_call_id == "c1"
    assert "花生" in tool_reply.content
    assert "recall_memory" in model.asked[0][0].content  # the system prompt says how to ask
    window = manager.window_interactions("u1")
    assert [(w.user_input, w.response) for w in window] == [("我能吃花生酱吗？", "你对花生过敏，要小心哦～")]


def test_cognitive_loop_answers_directly_when_it_knows(make_manager) -> None:
    manager = make_manager()
    model = ToolCallingFake(responses=[AIMessage("你好呀～")])
    model.asked = []
    assert (
        manager.cognitive_chain(model).invoke("你好", {"configurable": {"user_id": "u1"}}).content
        == "你好呀～"
    )
    assert len(model.asked) == 1


async def test_cognitive_loop_without_tools_uses_a_recall_line_and_stops(make_manager) -> None:
    manager = make_manager()
    manager.remember("用户下周三要去北京出差", user_id="u1")
    model = FakeListChatModel(
        responses=["回忆：用户什么时候出差", "回忆：还有别的吗", "回忆：再想想", "你下周三去北京～"]
    )
    chain = manager.cognitive_chain(model, max_recalls=2)
    answer = await chain.ainvoke({"input": "我什么时候出差？", "user_id": "u1"})
    assert answer.content == "你下周三去北京～"
    assert model.i == 0  # all four replies used: two recalls, a refused third, then the answer
    assert [w.response for w in manager.window_interactions("u1")] == ["你下周三去北京～"]


def test_cognitive_loop_refuses_bad_settings(make_manager) -> None:
    manager = make_manager()
    with pytest.raises(InvalidInputError, match="max_recalls"):
        manager.cognitive_chain(FakeListChatModel(responses=["x"]), max_recalls=-1)
    with pytest.raises(InvalidInputError, match="query"):
        manager.cognitive_chain(FakeListChatModel(responses=["x"])).invoke({"text": "你好"})


def test_the_recall_tool_and_the_documents_mark_what_a_newer_statement_replaced(make_manager, config) -> None:
    """The recall tool's lines and the LangChain Documents say, as the prompt does, that the old
    phone is history once the user said they changed it."""
    config.active.capacity = 1
    manager = make_manager(config)
    old, new = "我用的手机是小米13", "我换手机了，现在用的是华为Mate 60"
    fill(manager, [old, "今天天气真好", new, "晚饭吃了面条", "下午有点困"], user_id="u1")
    manager.flush()
    assert manager.profile("u1")["phone"].value == new
    recall = by_name(manager.as_tools(user_id="u1"))["recall_memory"]
    recalled = recall.invoke({"query": "我现在用什么手机？"})
    assert f"] {HISTORY_MARKS['zh']} 用户：{old}" in recalled and f"] 用户：{new}" in recalled
    documents = manager.retriever.as_langchain_retriever(user_id="u1").invoke("我现在用什么手机？")
    said = {d.page_content.splitlines()[0]: d.metadata for d in documents if d.metadata["source"] == "memory"}
    assert said[f"用户：{old}"]["superseded"] and not said[f"用户：{new}"]["superseded"]
