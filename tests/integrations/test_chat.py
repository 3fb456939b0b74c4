"""A chat chain with memory (with_memory) and the active window as a message history."""

from __future__ import annotations

import logging
import warnings

import pytest
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage
from langchain_core.prompts import ChatPromptTemplate, MessagesPlaceholder
from langchain_core.runnables import RunnableLambda
from langchain_core.runnables.history import RunnableWithMessageHistory

from memory import InputTypeError, InvalidInputError

PROMPT = ChatPromptTemplate.from_messages(
    [
        ("system", "你是karin。关于用户你记得：\n{rag}"),
        MessagesPlaceholder("history"),
        ("human", "{input}"),
    ]
)

FILLER = [
    "今天去了{}，天气不错",
    "我最近在看一本关于{}的书",
    "周末打算和朋友去{}玩",
    "昨天晚饭吃了{}",
    "I watched a documentary about {} last night",
]
TOPICS = ["西湖", "宇宙", "海边", "火锅", "whales", "故宫", "历史", "山里", "饺子", "volcanoes"]


def filler(n: int) -> list[str]:
    return [FILLER[i % len(FILLER)].format(TOPICS[(i * 3) % len(TOPICS)]) + f"（第{i}次）" for i in range(n)]


class Spy:
    """Keeps the prompts the model was given (the chain's real input)."""

    def __init__(self) -> None:
        self.prompts: list[str] = []

    def __call__(self, value):
        self.prompts.append(value.to_string())
        return value


def chat_chain(answers: list[str], spy: Spy):
    model = GenericFakeChatModel(messages=iter([AIMessage(a) for a in answers]))
    return PROMPT | RunnableLambda(spy) | model


def test_recalls_a_fact_told_fifty_turns_earlier(make_manager) -> None:
    """A retrieval before every reply, and the fact still comes back."""
    manager = make_manager()
    spy = Spy()
    turns = ["我对花生过敏，吃了会起疹子", *filler(50), "我对什么过敏来着？"]
    chat = manager.with_memory(chat_chain([f"好的～{i}" for i in range(len(turns))], spy))
    config = {"configurable": {"user_id": "u42"}}
    for text in turns:
        chat.invoke({"input": text}, config)
    last = spy.prompts[-1]
    assert "花生" in last.split("Human: 我对什么过敏来着？")[0]
    assert "花生" not in "\n".join(
        m.content
        for m in PROMPT.invoke(  # not in the verbatim window
            {"rag": "", "history": manager.as_chat_history("u42").messages, "input": "x"}
        ).to_messages()
    )
    assert len(manager.window_interactions("u42")) == manager.config.active.capacity
    user = manager.debug_state(user_id="u42")["user"]
    assert user["active"] + user["temporary"] + user["cold"] == len(turns)  # every turn was recorded


def test_passes_memory_into_the_input_and_records_the_pair(make_manager) -> None:
    manager = make_manager()
    manager.remember("我家住在杭州", user_id="u1")
    seen: list[dict] = []
    chain = RunnableLambda(lambda d: seen.append(d) or AIMessage("杭州很美呀"))
    chat = manager.with_memory(chain)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no beta warning from langchain-core on every call
        answer = chat.invoke({"input": "我住在哪里？", "mood": "开心"}, {"configurable": {"user_id": "u1"}})
    assert answer.content == "杭州很美呀"
    given = seen[0]
    assert given["mood"] == "开心" and given["input"] == "我住在哪里？"
    assert "杭州" in given["rag"] and given["active"] == "" and given["history"] == []
    window = manager.window_interactions("u1")
    assert [(w.user_input, w.response) for w in window] == [("我住在哪里？", "杭州很美呀")]
    second = chat.invoke("还记得吗？", {"configurable": {"user_id": "u1"}})  # a str input works too
    assert second.content == "杭州很美呀"
    assert seen[1]["history"] == [HumanMessage("我住在哪里？"), AIMessage("杭州很美呀")]


def test_user_in_the_input_and_users_never_see_each_other(make_manager) -> None:
    manager = make_manager()
    spy = Spy()
    chat = manager.with_memory(chat_chain(["记住了", "嗯", "嗯"], spy))
    chat.invoke({"input": "My secret code word is tangerine", "user_id": "alice"})
    chat.invoke({"input": "What is my secret code word?", "user_id": "bob"})
    chat.invoke({"input": "What is my secret code word?"}, {"configurable": {"user_id": "carol"}})
    assert "tangerine" not in spy.prompts[1] and "tangerine" not in spy.prompts[2]
    assert len(manager.window_interactions("alice")) == 1
    assert [w.user_input for w in manager.window_interactions("bob")] == ["What is my secret code word?"]


async def test_async_and_streaming_record_once_the_answer_is_complete(make_manager) -> None:
    manager = make_manager()
    spy = Spy()
    chat = manager.with_memory(chat_chain(["我 记得 你 喜欢 猫", "好 的", "last one"], spy))
    config = {"configurable": {"user_id": "u7"}}
    answer = await chat.ainvoke({"input": "我喜欢猫"}, config)
    assert answer.content == "我 记得 你 喜欢 猫"
    chunks = [c.content for c in chat.stream({"input": "你好"}, config)]
    assert len(chunks) > 1 and "".join(chunks) == "好 的"
    chunks = [c.content async for c in chat.astream({"input": "bye"}, config)]
    assert "".join(chunks) == "last one"
    pairs = [(w.user_input, w.response) for w in manager.window_interactions("u7")]
    assert pairs == [("我喜欢猫", "我 记得 你 喜欢 猫"), ("你好", "好 的"), ("bye", "last one")]


def test_bad_input_is_refused_before_the_chain_runs(make_manager) -> None:
    manager = make_manager()
    calls: list[object] = []
    chat = manager.with_memory(RunnableLambda(lambda d: calls.append(d) or "ok"))
    with pytest.raises(InvalidInputError, match="input"):
        chat.invoke({"question": "我是谁？"})
    with pytest.raises(InvalidInputError, match="user_id"):
        chat.invoke({"input": "你好", "user_id": " "})
    with pytest.raises(InputTypeError, match="chain"):
        manager.with_memory("not a chain")  # type: ignore[arg-type]
    assert calls == [] and manager.debug_state()["active_count"] == 0


def test_a_failed_record_does_not_break_the_reply(make_manager, caplog) -> None:
    manager = make_manager()
    chat = manager.with_memory(RunnableLambda(lambda d: {"output": "   "}))  # an empty answer: unrecordable
    with caplog.at_level(logging.WARNING, logger="memory.integrations.chat"):
        assert chat.invoke({"input": "你好"}, {"configurable": {"user_id": "u1"}}) == {"output": "   "}
    assert "not recorded" in caplog.text
    assert manager.window_interactions("u1") == []


def test_chat_history_serves_runnable_with_message_history(make_manager) -> None:
    manager = make_manager()
    spy = Spy()
    model = GenericFakeChatModel(messages=iter([AIMessage("你好呀"), AIMessage("你叫小明")]))
    chain = RunnableWithMessageHistory(
        PROMPT.partial(rag="") | RunnableLambda(spy) | model,
        manager.as_chat_history,
        input_messages_key="input",
        history_messages_key="history",
    )
    config = {"configurable": {"session_id": "小明"}}
    chain.invoke({"input": "我叫小明"}, config)
    chain.invoke({"input": "我叫什么？"}, config)
    assert "Human: 我叫小明\nAI: 你好呀" in spy.prompts[1]
    history = manager.as_chat_history("小明")
    assert history.messages == [
        HumanMessage("我叫小明"),
        AIMessage("你好呀"),
        HumanMessage("我叫什么？"),
        AIMessage("你叫小明"),
    ]
    history.add_messages([SystemMessage("ignored"), HumanMessage("再见"), AIMessage("拜拜～")])
    assert history.messages[-2:] == [HumanMessage("再见"), AIMessage("拜拜～")]
    history.clear()  # erases the user
    assert history.messages == [] and manager.debug_state(user_id="小明")["user"]["buffer"] == 0
    with pytest.raises(InvalidInputError, match="user_id"):
        manager.as_chat_history(None)  # type: ignore[arg-type]


def test_a_bare_chat_model_gets_the_memory_and_takes_any_chat_input(make_manager, config) -> None:
    config.active.capacity = 2
    manager = make_manager(config)
    seen: list[list] = []

    class Model(GenericFakeChatModel):
        def invoke(self, input, config=None, **kwargs):
            seen.append(list(input))
            return super().invoke(input, config, **kwargs)

    model = Model(messages=iter([AIMessage(a) for a in ["好的～", "嗯嗯", "哈哈", "是花生哦"]]))
    chat = manager.with_memory(model)  # no prompt: the memory goes in as a system message
    user = {"configurable": {"user_id": "u1"}}
    chat.invoke("我对花生过敏", user)
    chat.invoke(HumanMessage("今天下雨了"), user)
    chat.invoke({"input": "晚饭吃了面"}, user)
    answer = chat.invoke([SystemMessage("你是karin"), HumanMessage("我对什么过敏来着？")], user)
    assert answer.content == "是花生哦"
    last = seen[-1]
    assert isinstance(last[0], SystemMessage) and "花生" in last[0].content  # recalled past the window
    assert isinstance(last[-1], HumanMessage) and last[-1].content == "我对什么过敏来着？"
    assert [m.content for m in last[1:-1]] == ["今天下雨了", "嗯嗯", "晚饭吃了面", "哈哈"]  # the window
    user_state = manager.debug_state(user_id="u1")["user"]
    assert user_state["active"] + user_state["temporary"] == 4  # every exchange recorded
    with pytest.raises(InvalidInputError, match="input_key"):
        chat.invoke({"question": "?"}, user)


def test_every_langchain_face_refuses_a_call_that_names_no_user(make_manager) -> None:
    """One rule: a call that names no user is an error naming ``user_id``; ``None``, said, is the
    persona's shared memory."""
    manager = make_manager()
    manager.record_interaction_sync("我的猫叫年糕", "好可爱～", user_id="u1")
    manager.record_interaction_sync("The shared note says the lab opens at nine", "ok", user_id=None)
    shared = {"configurable": {"user_id": None}}
    runnable = manager.retriever.as_runnable()
    retriever = manager.retriever.as_langchain_retriever()
    chat = manager.with_memory(RunnableLambda(lambda d: "好的"))
    recall = {t.name: t for t in manager.as_tools()}["recall_memory"]
    for call in (
        lambda: runnable.invoke("我的猫叫什么"),
        lambda: runnable.invoke({"query": "我的猫叫什么"}),
        lambda: retriever.invoke("我的猫叫什么"),
        lambda: chat.invoke("我的猫叫什么"),
    ):
        with pytest.raises(InvalidInputError, match="user_id"):
            call()
    assert "user_id" in recall.invoke({"query": "我的猫叫什么"})  # a tool answers the model in text
    assert "年糕" in runnable.invoke("我的猫叫什么", {"configurable": {"user_id": "u1"}})["active"]
    in_shared = runnable.invoke("When does the lab open?", shared)["active"]
    assert "nine" in in_shared and "年糕" not in in_shared
    window = manager.retriever.as_langchain_retriever(include=("active",)).invoke("lab", shared)
    assert "nine" in " ".join(d.page_content for d in window)
    shared_tools = {t.name: t for t in manager.as_tools(user_id=None)}
    shared_tools["remember"].invoke({"fact": "The lab's door code is 4711"})
    assert "4711" in shared_tools["recall_memory"].invoke({"query": "What is the lab's door code?"})
    assert chat.invoke({"input": "Is the lab open?", "user_id": None}) == "好的"
    assert "Is the lab open?" in runnable.invoke("lab", shared)["active"]  # recorded, shared
