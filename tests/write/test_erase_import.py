"""What a user had forgotten one by one stays forgotten when an export made before comes back."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from langchain_core.language_models.fake_chat_models import FakeListChatModel

from helpers.store import files_holding, fill
from memory import Layer, MemoryConfig, MemoryManager
from memory.domain import tokens
from memory.errors import ImportFileError

MARKER = "qxjvmarker"
"""A word no model, dictionary or other user has: found on disk only where the user's text is."""


def _holding_marker(config: MemoryConfig) -> list[Path]:
    return files_holding([Path(config.data_dir), Path(config.archive_dir)], MARKER.encode())


async def _forgotten_then_erased(manager: MemoryManager, path: Path) -> None:
    """Alice tells a secret that sets her home and keeps a keyed one; a summary quotes her lines;
    an export is made; she forgets the two secrets; then she is erased."""
    moved_home = f"我搬家了，现在住在苏州金鸡湖边{MARKER}小区"
    said = [moved_home, "我最喜欢吃草莓蛋糕", "I went hiking at Fragrant Hills"]
    moved, *_ = fill(manager, said, user_id="alice")
    keyed = manager.remember(f"暗号是{MARKER}", user_id="alice", key="secret_word")
    await manager.run_summary_now()
    (summary,) = manager.inspector.entries(Layer.SUMMARY, "alice")
    assert MARKER in summary.content and MARKER in manager.profile("alice")["home"].value
    manager.export_memories(path, user_id="alice")
    assert manager.forget(moved, user_id="alice") and manager.forget(keyed, user_id="alice")
    manager.forget_user("alice")


def _restored_without_the_secrets(manager: MemoryManager) -> None:
    (summary,) = manager.inspector.entries(Layer.SUMMARY, "alice")
    assert MARKER not in summary.content and "草莓" in summary.content  # its other lines stay
    assert "home" not in manager.profile("alice") and "secret_word" not in manager.profile("alice")
    active, rag = manager.retrieve("我最喜欢吃什么？我住在哪里？暗号是什么？", user_id="alice")
    assert "草莓" in active + rag and MARKER not in active + rag


async def test_restoring_an_erased_user_keeps_what_they_had_forgotten(
    make_manager, config: MemoryConfig, tmp_path: Path
) -> None:
    config.active.capacity = 2
    manager = make_manager(config)
    path = tmp_path / "alice.jsonl"
    await _forgotten_then_erased(manager, path)
    assert MARKER in path.read_text(encoding="utf-8")  # the file was made before the erases
    manager.import_memories(path, allow_erased=True)
    _restored_without_the_secrets(manager)
    manager.close()
    assert _holding_marker(config) == []


def test_an_old_export_does_not_bring_back_a_forgotten_memory(
    make_manager, config: MemoryConfig, tmp_path: Path
) -> None:
    manager = make_manager(config)
    (secret,) = fill(manager, [f"我的秘密暗号是{MARKER}，别告诉别人"], user_id="bob")
    path = tmp_path / "bob.jsonl"
    assert manager.export_memories(path, user_id="bob") == 1
    assert manager.forget(secret, user_id="bob")
    assert manager.import_memories(path) == 0  # bob holds nothing here now: the file is taken...
    assert manager.inspector.entries(Layer.ACTIVE, "bob") == []  # ...without what he forgot
    active, rag = manager.retrieve("暗号是什么？", user_id="bob")
    assert MARKER not in active + rag
    manager.close()
    assert _holding_marker(config) == []


def test_a_history_file_imported_again_does_not_bring_back_a_forgotten_record(
    make_manager, config: MemoryConfig
) -> None:
    config.active.capacity = 1
    manager = make_manager(config)
    history = [
        {"user_input": f"我的秘密暗号是{MARKER}，别告诉别人", "response": "好的", "user_id": "bob",
         "timestamp": "2026-10-01T09:00:00+00:00"},
        {"user_input": "我最喜欢吃草莓蛋糕", "response": "好呀", "user_id": "bob",
         "timestamp": "2026-10-01T09:05:00+00:00"},
    ]  # fmt: skip
    assert manager.import_interactions(history).imported == 2
    (secret,) = [e.id for e in manager.inspector.entries(Layer.TEMPORARY, "bob") if MARKER in e.content]
    assert manager.forget(secret, user_id="bob")
    again = manager.import_interactions(history)  # the same file: each record keeps its id
    assert (again.imported, again.already, again.forgotten) == (0, 1, 1)
    active, rag = manager.retrieve("暗号是什么？我喜欢吃什么？", user_id="bob")
    assert MARKER not in active + rag and "草莓" in active + rag
    manager.forget_user("bob")
    with pytest.raises(ImportFileError, match="'bob' were erased here"):
        manager.import_interactions(history)  # a history imported before an erase does not undo it
    restored = manager.import_interactions(history, allow_erased=True)  # unless asked to
    assert (restored.imported, restored.forgotten) == (1, 1)  # what he forgot stays forgotten
    manager.close()
    assert _holding_marker(config) == []


def test_a_fact_forgotten_by_its_id_is_not_set_again_by_its_statement_imported_again(
    make_manager, config: MemoryConfig
) -> None:
    manager = make_manager(config)
    history = [
        {"user_input": "我住在北京朝阳区，离公司很近。", "response": "好的", "user_id": "bob",
         "timestamp": "2026-10-01T09:00:00+00:00"},
        {"user_input": f"我搬家了，现在住在苏州金鸡湖边{MARKER}小区", "response": "好呀", "user_id": "bob",
         "timestamp": "2026-10-02T09:00:00+00:00"},
    ]  # fmt: skip
    manager.import_interactions(history)
    moved = manager.profile("bob")["home"]
    assert MARKER in moved.value
    assert manager.forget(moved.id, user_id="bob")  # the fact only: what he said stays
    assert "北京" in manager.profile("bob")["home"].value
    again = manager.import_interactions(history)
    assert (again.imported, again.already) == (0, 2)
    assert "北京" in manager.profile("bob")["home"].value  # the statement does not set it again


async def test_an_import_takes_a_model_summary_that_was_shown_a_forgotten_interaction(
    make_manager, config: MemoryConfig, tmp_path: Path
) -> None:
    answers = ["记下了", "记下了", "用户最爱草莓蛋糕。", '{"facts": []}']
    answers += ["记下了", f"用户的暗号是{MARKER}，最近去爬了香山。", '{"facts": []}']  # A in the window
    manager = make_manager(summary_model=FakeListChatModel(responses=answers))
    secret, _ = fill(manager, [f"我的秘密暗号是{MARKER}，别告诉别人", "我最喜欢吃草莓蛋糕"], user_id="alice")
    await manager.run_summary_now()
    fill(manager, ["I went hiking at Fragrant Hills"], user_id="alice")
    await manager.run_summary_now()
    path = tmp_path / "alice.jsonl"
    manager.export_memories(path, user_id="alice")
    assert manager.forget(secret, user_id="alice")
    manager.forget_user("alice")
    manager.import_memories(path, allow_erased=True)
    assert manager.inspector.entries(Layer.SUMMARY, "alice") == []
    assert manager.debug_state()["buffer_count"] == 2  # the other two are summarised again
    manager.close()
    assert _holding_marker(config) == []


@pytest.mark.parametrize("kind", ["interaction", "memory"])
def test_an_export_row_without_its_id_is_refused_whole(make_manager, tmp_path: Path, kind: str) -> None:
    manager = make_manager()
    fill(manager, ["我最喜欢吃草莓蛋糕"], user_id="bob")
    path = tmp_path / "bob.jsonl"
    manager.export_memories(path, user_id="bob")
    manager.forget_user("bob")
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    edited = [{k: v for k, v in row.items() if not (row.get("type") == kind and k == "id")} for row in rows]
    path.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in edited), encoding="utf-8")
    with pytest.raises(ImportFileError, match="nothing was imported"):
        manager.import_memories(path, allow_erased=True)
    assert manager.debug_state()["users_count"] == 0


def _history(user_id: str) -> list[dict[str, str]]:
    said = ["我最喜欢吃草莓蛋糕", f"我的秘密暗号是{MARKER}，别告诉别人", "I went hiking at Fragrant Hills"]
    return [
        {
            "user_input": text,
            "response": "好的",
            "user_id": user_id,
            "timestamp": f"2026-10-0{n}T09:00:00+00:00",
        }
        for n, text in enumerate(said, start=1)
    ]


@pytest.mark.parametrize("erased_before", [False, True])
def test_an_erase_while_a_history_import_runs_is_not_undone_by_its_later_batches(
    make_manager, config: MemoryConfig, erased_before: bool
) -> None:
    manager = make_manager(config)
    if erased_before:  # brought back on purpose, then erased again while the import runs
        fill(manager, ["你好"], user_id="bob")
        manager.forget_user("bob")
    erases = iter([lambda: manager.forget_user("bob")])
    report = manager.import_interactions(
        _history("bob"),
        batch_size=1,
        allow_erased=erased_before,
        progress=lambda _: next(erases, lambda: 0)(),
    )
    assert (report.imported, report.forgotten) == (1, 2)
    assert manager.debug_state()["users_count"] == 0
    manager.close()
    assert _holding_marker(config) == []


def test_an_erase_between_reading_an_export_and_restoring_it_refuses_the_file(
    make_manager, config: MemoryConfig, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    manager = make_manager(config)
    path = tmp_path / "bob.jsonl"
    manager.import_interactions(_history("bob"))
    manager.export_memories(path, user_id="bob")
    manager.forget_user("bob")
    prepare = tokens.prepare_rows

    def erase_meanwhile(*args: object) -> None:  # the file is read, its transaction not begun
        manager.forget_user("bob")
        prepare(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(tokens, "prepare_rows", erase_meanwhile)
    with pytest.raises(ImportFileError, match="'bob' were erased here"):
        manager.import_memories(path, allow_erased=True)  # allowed for the erase before, not this one
    monkeypatch.undo()
    assert manager.debug_state()["users_count"] == 0
    manager.close()
    assert _holding_marker(config) == []


async def test_a_summary_written_again_after_an_erase_is_restored_from_its_export(
    make_manager, config: MemoryConfig, tmp_path: Path
) -> None:
    answers = ["记下了", f"用户的暗号是{MARKER}。", '{"facts": []}']
    answers += ["记下了", f"用户的暗号是{MARKER}，最近去爬了香山。", '{"facts": []}']  # secret in the window
    answers += ["用户最近去爬了香山。", '{"facts": []}']  # the same buffer again, without the secret
    manager = make_manager(config, summary_model=FakeListChatModel(responses=answers))
    (secret,) = fill(manager, [f"我的秘密暗号是{MARKER}，别告诉别人"], user_id="alice")
    await manager.run_summary_now()
    fill(manager, ["I went hiking at Fragrant Hills"], user_id="alice")
    await manager.run_summary_now()
    assert manager.forget(secret, user_id="alice")
    await manager.run_summary_now()
    (summary,) = manager.inspector.entries(Layer.SUMMARY, "alice")
    assert summary.content == "用户最近去爬了香山。"
    path = tmp_path / "alice.jsonl"
    manager.export_memories(path, user_id="alice")
    manager.forget_user("alice")
    manager.import_memories(path, allow_erased=True)
    assert [e.content for e in manager.inspector.entries(Layer.SUMMARY, "alice")] == [summary.content]
    manager.close()
    assert _holding_marker(config) == []


async def test_forget_takes_a_summary_shown_the_interaction_in_a_wider_window_than_today(
    make_manager, config: MemoryConfig
) -> None:
    answers = ["记下了", f"用户的暗号是{MARKER}。", '{"facts": []}', "记下了", "记下了"]
    answers += [f"用户的暗号是{MARKER}，爱吃草莓蛋糕，去爬了香山。", '{"facts": []}']
    config.active.capacity = 3
    manager = make_manager(config, summary_model=FakeListChatModel(responses=answers))
    (secret,) = fill(manager, [f"我的秘密暗号是{MARKER}，别告诉别人"], user_id="alice")
    await manager.run_summary_now()
    fill(manager, ["I went hiking at Fragrant Hills", "我最喜欢吃草莓蛋糕"], user_id="alice")
    await manager.run_summary_now()  # shown the secret, the third newest
    manager.close()
    config.active.capacity = 1
    manager = make_manager(config)
    assert manager.forget(secret, user_id="alice")
    assert manager.inspector.entries(Layer.SUMMARY, "alice") == []
    manager.close()
    assert _holding_marker(config) == []
