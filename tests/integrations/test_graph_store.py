"""The LangGraph store: namespace ("memories", user) is that user's memory, with real retrieval."""

from __future__ import annotations

import pytest
from langgraph.store.base import BaseStore

from helpers.store import fill
from memory import InvalidInputError

U1 = ("memories", "u1")
U10 = ("memories", "u10")


def test_put_get_search_delete_like_langmem(make_manager) -> None:
    manager = make_manager()
    store = manager.as_store()
    assert isinstance(store, BaseStore)
    store.put(U1, "m-allergy", {"content": "用户对花生过敏", "kind": "Memory", "confidence": 0.9})
    item = store.get(U1, "m-allergy")
    assert item is not None and item.key == "m-allergy" and item.namespace == U1
    assert item.value == {"content": "用户对花生过敏", "kind": "Memory", "confidence": 0.9}  # kept whole

    hits = store.search(U1, query="我对什么过敏？", limit=3)
    assert hits and hits[0].key == "m-allergy" and hits[0].score is not None
    assert all(0.0 <= (hit.score or 0) <= 1.0 for hit in hits) and (hits[0].score or 0) > 0.3  # similarities
    assert hits[0].value["confidence"] == 0.9
    assert "花生" in manager.retrieve("我对什么过敏？", user_id="u1")[1]  # the chatbot sees it too

    store.put(U1, "m-allergy", {"content": "用户对虾过敏，不再对花生过敏"})  # same key: replaced
    assert store.get(U1, "m-allergy").value == {"content": "用户对虾过敏，不再对花生过敏"}
    assert [h.key for h in store.search(U1, limit=10)] == ["m-allergy"]
    assert "虾" in manager.retrieve("过敏", user_id="u1")[1]

    store.delete(U1, "m-allergy")
    assert store.get(U1, "m-allergy") is None
    assert "过敏" not in manager.retrieve("过敏", user_id="u1")[1]


def test_namespaces_match_whole_segments(make_manager) -> None:
    """u1 and u10: a prefix match on strings would leak one into the other."""
    manager = make_manager()
    store = manager.as_store()
    store.put(U1, "pet", {"content": "u1 has a cat named Mochi"})
    store.put(U10, "pet", {"content": "u10 has a dog named Rex"})
    assert store.get(U1, "pet").value["content"] == "u1 has a cat named Mochi"
    assert store.get(U10, "pet").value["content"] == "u10 has a dog named Rex"
    for query in ("pet", None):
        assert {h.value["content"] for h in store.search(U1, query=query)} == {"u1 has a cat named Mochi"}
    assert store.list_namespaces(prefix=("memories",)) == [U1, U10]
    assert store.list_namespaces(prefix=("memories", "u1")) == [U1]
    assert store.list_namespaces(suffix=("u10",)) == [U10]
    assert store.list_namespaces(prefix=("memories", "*"), max_depth=1) == [("memories",)]
    assert store.list_namespaces(prefix=("other",)) == []

    u10_id = store.search(U10, query="dog")[0]
    store.delete(U1, u10_id.key)  # u1's namespace cannot erase u10's memory by its key
    assert store.get(U10, "pet") is not None
    with pytest.raises(InvalidInputError, match="namespace_prefix"):
        store.search(("memories",), query="pet")  # no search across users
    with pytest.raises(InvalidInputError, match="namespace"):
        store.put(("users", "u1", "memories"), "k", {"content": "x"})
    assert store.get(("other", "u1"), "pet") is None
    assert store.search(("other", "u1"), query="pet") == []


def test_lists_the_chats_memories_with_filters_and_pages(make_manager) -> None:
    manager = make_manager()
    store = manager.as_store()
    ids = fill(manager, ["我喜欢爬山", "我养了一只猫"], user_id="u1")
    store.put(U1, "k1", {"content": "生日是三月五日", "type": "fact"})
    store.put(U1, "k2", {"content": "喜欢喝咖啡", "type": "preference"})
    listed = store.search(U1, limit=10)
    assert [h.key for h in listed] == ["k2", "k1", ids[1], ids[0]]  # newest first
    assert listed[-1].value == {"content": "用户：我喜欢爬山\nkarin：嗯嗯，记住啦～", "layer": "active"}
    assert store.get(U1, ids[0]).value["layer"] == "active"  # a recorded memory by its id
    assert [h.key for h in store.search(U1, filter={"type": "fact"})] == ["k1"]
    assert [h.key for h in store.search(U1, filter={"type": {"$ne": "fact"}}, limit=1, offset=1)] == [ids[1]]
    store.put(U1, ids[0], {"content": "我喜欢爬山，尤其是黄山"})  # a put to a recorded memory's id edits it
    assert store.get(U1, ids[0]).value == {"content": "我喜欢爬山，尤其是黄山"}
    assert len(store.search(U1, limit=10)) == 4


def test_bad_values_are_refused_and_nothing_is_written(make_manager) -> None:
    manager = make_manager()
    store = manager.as_store()
    with pytest.raises(InvalidInputError, match="value"):
        store.put(U1, "k", {"text": "no content"})
    with pytest.raises(InvalidInputError, match="value"):
        store.put(U1, "k", {"content": object()})
    with pytest.raises(InvalidInputError, match="key"):
        store.put(U1, " ", {"content": "x"})
    with pytest.raises(InvalidInputError, match="value"):
        store.put(U1, "k", {"content": "  "})
    with pytest.raises(InvalidInputError, match="filter"):
        store.search(U1, filter={"type": {"$like": "x"}})
    assert store.search(U1) == [] and store.list_namespaces() == []


async def test_async_operations(make_manager) -> None:
    manager = make_manager()
    store = manager.as_store(prefix="mem")
    await store.aput(("mem", "小明"), "hobby", {"content": "小明喜欢下围棋"})
    item = await store.aget(("mem", "小明"), "hobby")
    assert item.value["content"] == "小明喜欢下围棋"
    hits = await store.asearch(("mem", "小明"), query="围棋")
    assert hits[0].key == "hobby"
    await store.adelete(("mem", "小明"), "hobby")
    assert await store.aget(("mem", "小明"), "hobby") is None
    assert await store.alist_namespaces() == []


def test_a_langgraph_graph_uses_it_as_its_store(make_manager) -> None:
    """Compiled into a real LangGraph graph, nodes remember and recall through it."""
    from langgraph.graph import END, START, StateGraph
    from langgraph.runtime import Runtime
    from typing_extensions import TypedDict

    class State(TypedDict, total=False):
        user: str
        said: str
        recalled: list[str]

    def remember(state: State, runtime: Runtime) -> State:
        runtime.store.put(("memories", state["user"]), "said", {"content": state["said"]})
        return {}

    def recall(state: State, runtime: Runtime) -> State:
        hits = runtime.store.search(("memories", state["user"]), query="宠物", limit=2)
        return {"recalled": [h.value["content"] for h in hits]}

    manager = make_manager()
    builder = StateGraph(State)
    builder.add_node("remember", remember)
    builder.add_node("recall", recall)
    builder.add_edge(START, "remember")
    builder.add_edge("remember", "recall")
    builder.add_edge("recall", END)
    graph = builder.compile(store=manager.as_store())
    out = graph.invoke({"user": "u1", "said": "我养了一只叫年糕的猫"})
    assert out["recalled"] == ["我养了一只叫年糕的猫"]
    assert graph.invoke({"user": "u2", "said": "I like tea"})["recalled"] == ["I like tea"]
    assert "年糕" in manager.retrieve("我的猫叫什么", user_id="u1")[1]


def test_a_ttl_is_refused_as_langgraph_stores_refuse_it_and_nothing_is_written(make_manager) -> None:
    store = make_manager().as_store()
    assert store.supports_ttl is False
    with pytest.raises(NotImplementedError, match="TTL is not supported by MemoryStore"):
        store.put(U1, "m-trip", {"content": "I fly to Osaka on Friday"}, ttl=60)
    assert store.get(U1, "m-trip") is None
    store.put(U1, "m-trip", {"content": "I fly to Osaka on Friday"}, ttl=None)  # no expiry: kept
    assert store.get(U1, "m-trip") is not None
