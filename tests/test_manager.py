"""MemoryManager as a user drives it: persistence across restarts (T-MEM-STORE-*), debug_state,
concurrency, bad input."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from helpers.store import fill, sql_count
from memory import (
    ClosedError,
    InputTooLargeError,
    InputTypeError,
    InvalidInputError,
    Layer,
    MemoryConfig,
    MemoryEngineError,
    MemoryManager,
    PersonaNotFoundError,
    StoreError,
    StoreLockedError,
)

SPEC_KEYS = {
    "persona",
    "active_count",
    "active_capacity",
    "temporary_count",
    "summary_count",
    "static_count",
    "buffer_count",
    "scheduler_running",
    "jobs",
    "embedding_model",
    "store",
}


def test_store_01_single_memory_is_retrievable_and_on_disk(make_manager, config) -> None:
    manager = make_manager()
    manager.record_interaction_sync("我对花生过敏", "记住了，以后不给前辈花生～")
    active, _ = manager.retrieve("过敏")
    assert "花生过敏" in active
    assert sql_count(manager, "SELECT COUNT(*) FROM interactions") == 1  # read by another connection


def test_store_02_ten_memories_all_retrievable(make_manager) -> None:
    manager = make_manager()
    fill(manager, [f"记忆{i}" for i in range(10)])
    active, _ = manager.retrieve("记忆")
    assert all(f"记忆{i}" in active for i in range(10))


async def test_store_03_restart_keeps_every_layer_and_the_clock(make_manager, config) -> None:
    config.active.capacity = 3
    manager = make_manager(config)
    ids = fill(manager, [f"事情{i}" for i in range(6)])
    await manager.run_summary_now()
    fill(manager, ["缓冲里的新事"])
    manager.retrieve("事情")
    manager.retrieve("事情")
    before = manager.debug_state()
    temporary_before = [
        (e.id, e.significance, e.changed_at) for e in manager.inspector.entries(Layer.TEMPORARY)
    ]
    await manager.stop()

    again = make_manager(config)
    after = again.debug_state()
    for key in ("active_count", "temporary_count", "summary_count", "static_count", "buffer_count"):
        assert after[key] == before[key], key
    assert after["users"]["(shared)"]["tick"] == 2
    assert [(e.id, e.significance, e.changed_at) for e in again.inspector.entries(Layer.TEMPORARY)] == (
        temporary_before
    )
    assert [e.id for e in again.inspector.entries(Layer.ACTIVE)][:2] == ids[4:6]


def test_store_04_fresh_folder_starts_empty_and_works(make_manager) -> None:
    manager = make_manager()
    state = manager.debug_state()
    assert (state["active_count"], state["temporary_count"], state["summary_count"]) == (0, 0, 0)
    manager.record_interaction_sync("你好", "你好呀～")
    assert manager.debug_state()["active_count"] == 1


@pytest.mark.sqlite_only
def test_store_05_corrupt_database_gives_clear_error_and_is_kept(config) -> None:
    folder = Path(config.data_dir)
    folder.mkdir(parents=True)
    db = folder / "karin.sqlite3"
    db.write_bytes(b"this is not a database" * 100)
    with pytest.raises(StoreError, match="karin.sqlite3") as info:
        MemoryManager("karin", config)
    assert "left as it is" in str(info.value)
    assert db.read_bytes() == b"this is not a database" * 100


async def test_store_06_concurrent_writes_all_land(make_manager) -> None:
    manager = make_manager()

    async def writer(n: int) -> list[str]:
        return [await manager.record_interaction(f"任务{n}的第{i}句", "好") for i in range(10)]

    results = await asyncio.gather(*(writer(n) for n in range(10)))
    ids = [i for batch in results for i in batch]
    assert len(set(ids)) == 100
    state = manager.debug_state()
    assert state["active_count"] + state["temporary_count"] == 100
    assert state["interactions_recorded"] == 100


def test_store_07_unicode_survives_restart(make_manager, config) -> None:
    text = "前辈🎸✨ naïve café — 「草莓🍓」\t新行\n第二行 😀"
    manager = make_manager()
    manager.record_interaction_sync(text, "收到～ 🐱")
    manager.close()
    again = make_manager()
    assert again.inspector.entries(Layer.ACTIVE)[0].content == f"用户：{text}\nkarin：收到～ 🐱"


def test_debug_state_is_json_serialisable_with_spec_keys(make_manager) -> None:
    manager = make_manager()
    fill(manager, ["你好"])
    state = manager.debug_state()
    assert set(state) >= SPEC_KEYS
    assert json.loads(json.dumps(state)) == state
    assert state["store"]["mode"] == "persistent"
    assert state["embedding_model"].startswith("use-e5")


def test_record_returns_only_after_commit(make_manager, config) -> None:
    manager = make_manager()
    interaction_id = manager.record_interaction_sync("落盘了吗", "落了")
    assert sql_count(manager, "SELECT COUNT(*) FROM interactions WHERE id = ?", (interaction_id,)) == 1


async def test_record_interaction_adds_the_models_note(make_manager, fake_model) -> None:
    manager = make_manager(summary_model=fake_model)
    interaction_id = await manager.record_interaction("你喜欢什么歌", "我最喜欢民谣啦")
    entry = manager.inspector.entries(Layer.ACTIVE)[0]
    assert entry.id == interaction_id
    assert entry.note == "用户喜欢民谣，karin答应下次唱给他听。"
    assert "我最喜欢民谣啦" in entry.content


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"user_input": "", "response": "嗯"}, InvalidInputError),
        ({"user_input": "   \n\t", "response": "嗯"}, InvalidInputError),
        ({"user_input": None, "response": "嗯"}, InputTypeError),
        ({"user_input": 42, "response": "嗯"}, InputTypeError),
        ({"user_input": "好", "response": b"bytes"}, InputTypeError),
        ({"user_input": "a\ud800b", "response": "嗯"}, InvalidInputError),
        ({"user_input": "x" * 1_000_001, "response": "嗯"}, InputTooLargeError),
        ({"user_input": "好", "response": "嗯", "user_id": ""}, InvalidInputError),
        ({"user_input": "好", "response": "嗯", "user_id": 7}, InputTypeError),
    ],
)
def test_bad_record_input_raises_named_error_and_stores_nothing(make_manager, kwargs, error) -> None:
    manager = make_manager()
    with pytest.raises(error) as info:
        manager.record_interaction_sync(**kwargs)
    assert isinstance(info.value, MemoryEngineError)
    argument = (
        "user_id" if "user_id" in kwargs else ("response" if kwargs["user_input"] == "好" else "user_input")
    )
    assert argument in str(info.value)
    assert manager.debug_state()["interactions_recorded"] == 0


@pytest.mark.parametrize("query", ["", "  ", None, 3.5])
def test_bad_query_raises(make_manager, query) -> None:
    manager = make_manager()
    with pytest.raises((InvalidInputError, InputTypeError), match="query"):
        manager.retrieve(query)


@pytest.mark.parametrize("top_k", [0, -1])
def test_non_positive_top_k_raises(make_manager, top_k) -> None:
    manager = make_manager()
    with pytest.raises(InvalidInputError, match="top_k"):
        manager.retrieve_memories("你好", top_k=top_k)


def test_control_characters_are_dropped_and_cjk_emoji_kept(make_manager) -> None:
    manager = make_manager()
    manager.record_interaction_sync("你好\x00\x07世界🌏", "嗯")
    assert manager.inspector.entries(Layer.ACTIVE)[0].content.startswith("用户：你好世界🌏")


def test_text_limit_is_configurable(make_manager, config) -> None:
    config.max_text_chars = 10
    manager = make_manager(config)
    with pytest.raises(InputTooLargeError, match="max_text_chars"):
        manager.record_interaction_sync("这句话超过了十个字符的限制", "嗯")


def test_unknown_persona_is_named(config) -> None:
    with pytest.raises(PersonaNotFoundError, match="nobody.*karin"):
        MemoryManager("nobody", config)


def test_persona_without_static_memories_works(config) -> None:
    Path(config.personas_dir, "plain").mkdir()
    manager = MemoryManager("plain", config)
    try:
        assert manager.debug_state()["static_count"] == 0
        assert manager.retrieve("你好") == ("", "")
    finally:
        manager.close()


def test_second_manager_on_same_folder_is_refused(make_manager, config) -> None:
    make_manager()
    with pytest.raises(StoreLockedError, match="server"):
        MemoryManager("karin", config)


def test_closed_manager_refuses_work_with_closed_error(make_manager) -> None:
    manager = make_manager()
    manager.close()
    manager.close()  # idempotent
    for call in (
        lambda: manager.record_interaction_sync("好", "嗯"),
        lambda: manager.retrieve("你好"),
        lambda: manager.debug_state(),
        lambda: manager.flush(),
    ):
        with pytest.raises(ClosedError, match="closed"):
            call()
    assert manager.state == "closed"


def test_config_errors_surface_before_anything_opens(config) -> None:
    with pytest.raises(ValueError, match="active.capacity"):
        config.active.capacity = 0
    config.retrieval.quotas["temporary"] = -1  # a dict edited in place is checked at open
    with pytest.raises(ValueError, match="quotas"):
        MemoryManager("karin", config)


def test_two_configs_with_different_folders_share_nothing(tmp_path, config) -> None:
    first = MemoryManager("karin", config)
    other = MemoryConfig()
    other.personas_dir = config.personas_dir
    other.data_dir = str(tmp_path / "elsewhere")
    other.archive_dir = str(tmp_path / "elsewhere-archive")
    second = MemoryManager("karin", other)
    try:
        first.record_interaction_sync("只在第一个", "嗯")
        assert second.debug_state()["interactions_recorded"] == 0
    finally:
        first.close()
        second.close()


def test_a_read_of_a_user_never_seen_creates_no_user(make_manager) -> None:
    manager = make_manager()
    fill(manager, ["我养了一只橘猫"], user_id="alice")
    before = manager.debug_state()["users_count"]
    for _ in range(3):
        manager.retrieve("我养了什么？", user_id="stranger@example.com")
    assert manager.debug_state()["users_count"] == before
    assert "stranger@example.com" not in str(manager.debug_state())
