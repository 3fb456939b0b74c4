"""One sync/async rule: ``x`` and ``ax`` mean the same thing, for every public method."""

from __future__ import annotations

import inspect
from pathlib import Path

from memory import MemoryManager

BLOCKING = [
    "remember",
    "profile",
    "import_interactions",
    "retrieve",
    "retrieve_memories",
    "debug_state",
    "flush",
    "forget",
    "forget_user",
    "restore",
    "export_memories",
    "import_memories",
    "reindex",
    "window_interactions",
]


def test_every_blocking_method_has_an_async_twin_with_its_signature() -> None:
    public = {n for n in dir(MemoryManager) if not n.startswith("_")}
    for name in BLOCKING:
        twin = getattr(MemoryManager, f"a{name}")
        assert inspect.iscoroutinefunction(twin), name
        assert inspect.signature(twin) == inspect.signature(getattr(MemoryManager, name)), name
    plain = {
        n
        for n in public
        if callable(getattr(MemoryManager, n)) and not inspect.iscoroutinefunction(getattr(MemoryManager, n))
    }
    assert plain - set(BLOCKING) <= {
        "close",
        "with_memory",
        "as_chat_history",
        "as_tools",
        "cognitive_chain",
        "as_store",
        "record_interaction_sync",
    }


async def test_the_async_twins_do_what_the_sync_methods_do(make_manager, tmp_path: Path) -> None:
    manager = make_manager()
    fact = await manager.aremember("花生", user_id="u1", key="allergy")
    said = await manager.aremember("I keep a parrot named Kiwi", user_id="u1")
    assert (await manager.aprofile("u1"))["allergy"].value == "花生"
    await manager.arecord_interaction("我每天早上六点去游泳", "好自律呀～", user_id="u1")
    assert await manager.record_interaction("今天好累", "辛苦啦～", user_id="u1")  # the first name, awaited
    assert [i.user_input for i in await manager.awindow_interactions("u1")][-1] == "今天好累"
    assert await manager.aflush()
    _, rag = await manager.aretrieve("What bird do I keep?", user_id="u1")
    assert "Kiwi" in rag
    found = await manager.retriever.aretrieve_memories("我对什么过敏？", user_id="u1")
    assert found.profile and found.profile[0].value == "花生" and fact
    assert await manager.aexport_memories(tmp_path / "u1.jsonl", user_id="u1") >= 1
    assert await manager.aforget(said, user_id="u1")
    assert (await manager.adebug_state(user_id="u1"))["user"]
    assert await manager.aforget_user("u1") >= 1
    assert await manager.aprofile("u1") == {}
