"""Export and import: every memory of every layer and tier, and the same retrievals after."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from helpers.store import Clock, fill, write_persona
from memory import InvalidInputError, Layer, MemoryManager
from memory.cli import main
from memory.errors import ImportFileError
from memory.retrieval.raised import RAISED

QUERIES = [("我喜欢什么运动？", "u1"), ("猫叫什么", "u1"), ("coffee", "u2"), ("吉他", None), ("过敏", "u1")]
QUERIES += [("How do I get to work now?", "u3")]  # the statement it leans to, found again after import
LATER = "mostly on the train in these days"


async def _lived_in(manager: MemoryManager, clock: Clock) -> None:
    """Some weeks of a bot's life: overflow, decay, forgetting, a summary, profile and store."""
    sports = ["我喜欢打羽毛球", "周末去游泳了", "我在学攀岩", "跑了十公里", "篮球赛输了"]
    for i in range(24):
        clock.advance(hours=5)
        fill(manager, [f"{sports[i % 5]}（{i}）"], user_id="u1")
    manager.remember("我的猫叫年糕", user_id="u1")
    manager.remember("花生", user_id="u1", key="allergy")
    manager.remember("虾", user_id="u1", key="allergy")  # supersedes: the history is kept too
    manager.as_store().put(("memories", "u1"), "pref", {"content": "喜欢手冲咖啡", "source": "agent"})
    fill(manager, ["I drink coffee every morning", "My dog is called Rex"], user_id="u2")
    fill(manager, ["大家好，我是新来的"])
    fill(manager, ["I take the bus to work"], user_id="u3")
    clock.advance(hours=1)  # said after the commute's fact
    fill(manager, [LATER, *["今天天气真好"] * 10], user_id="u3")
    for _ in range(12):
        clock.advance(hours=1)
        manager.retrieve("随便聊聊天气", user_id="u1")  # decay ticks: some memories go cold
    await manager.run_summary_now()
    manager.flush()


def _seen(manager: MemoryManager) -> list[tuple]:
    """What a retrieval gives, memory by memory (static ids differ by persona; their text does
    not), each score last: the two stores' vectors were computed in other batches, and a BLAS
    sums a batch in another order (they differ in the seventh significant digit)."""
    seen = []
    for query, user in QUERIES:
        result = manager.retrieve_memories(query, user_id=user)
        memories = [
            (m.entry.layer, m.entry.id if m.entry.layer != Layer.STATIC else m.entry.content,
             m.significance, m.revived, pytest.approx(m.score, rel=1e-5))
            for m in result.memories
        ]  # fmt: skip
        seen.append((result.active_text, result.rag_text, memories))
    return seen


def _rows(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()[1:]  # without the header (its time)


async def test_export_then_import_gives_the_same_retrievals(make_manager, config, tmp_path, clock) -> None:
    config.temporary.decay_coefficient = 0.5  # forgetting within a dozen retrievals
    original = make_manager(config, now=clock)
    await _lived_in(original, clock)
    state = original.debug_state(user_id="u1")["user"]
    assert state["cold"] > 0 and state["summary"] > 0 and state["temporary"] > 0  # every tier is there
    exported = tmp_path / "karin.jsonl"
    count = original.export_memories(exported)
    lines = [json.loads(line) for line in exported.read_text(encoding="utf-8").splitlines()]
    assert lines[0]["format"] == "persona-memory-export"
    assert set(lines[0]["users"]) == {"u1", "u2", "u3", None}
    memories = [r for r in lines if r["type"] == "memory"]
    assert count == len(memories)
    assert {r["tier"] for r in memories} == {"hot", "cold"}
    assert {"significance", "changed_at", "created_at", "pinned", "key", "layer"} <= set(memories[0])
    assert any(r["key"] == "pref" and r["item"] for r in memories)
    assert not any(r["layer"] == "static" for r in memories)
    profile = [(r["scope"], r["key"]) for r in lines if r["type"] == "profile"]
    assert sorted(profile) == [("u1", "allergy")] * 2 + [("u2", "favourite_drink"), ("u3", "commute")]

    copy = config.model_copy(deep=True)
    write_persona(Path(config.personas_dir), "karin_copy")
    copy.data_dir, copy.archive_dir = str(tmp_path / "b" / "store"), str(tmp_path / "b" / "archive")
    restored = MemoryManager("karin_copy", copy, now=clock)
    try:
        assert restored.import_memories(exported) == count
        assert restored.debug_state(user_id="u1")["user"] == original.debug_state(user_id="u1")["user"]
        assert restored.profile("u1") == original.profile("u1")
        assert restored.as_store().get(("memories", "u1"), "pref").value == {
            "content": "喜欢手冲咖啡",
            "source": "agent",
        }
        original.flush(enrich=True)
        restored.flush(enrich=True)  # the same vectors: each full, not one side still cheap
        assert _seen(restored) == _seen(original)  # each retrieval ticks both the same way
        for manager in (original, restored):  # the same tick on both
            first = manager.retrieve_memories(QUERIES[-1][0], user_id="u3").memories[0]
            assert LATER in first.entry.content and first.score >= RAISED  # raised: its leaning came along
        again_a, again_b = tmp_path / "a2.jsonl", tmp_path / "b2.jsonl"
        original.export_memories(again_a)
        restored.export_memories(again_b)
        assert _rows(again_b) == _rows(again_a)  # row for row, after the same retrievals
        original.flush()
        restored.flush()  # what those retrievals forgot reaches each archive file in the background
        archived = {m.id for m in restored.inspector.archived()}
        assert archived == {m.id for m in original.inspector.archived()} and archived  # the archive file too
    finally:
        restored.close()


def test_one_user_export_and_a_refused_import(make_manager, config, tmp_path) -> None:
    manager = make_manager()
    fill(manager, ["我住在杭州"], user_id="u1")
    fill(manager, ["我住在成都"], user_id="u2")
    path = tmp_path / "u1.jsonl"
    assert manager.export_memories(path, user_id="u1") == 1
    text = path.read_text(encoding="utf-8")
    assert "杭州" in text and "成都" not in text
    before = manager.debug_state()
    with pytest.raises(ImportFileError, match="'u1' already have memories"):
        manager.import_memories(path)  # u1 is here already: nothing written
    assert manager.debug_state()["active_count"] == before["active_count"]
    manager.forget_user("u1")
    with pytest.raises(ImportFileError, match="'u1' were erased here"):
        manager.import_memories(path)  # an export made before the erase does not undo it
    assert manager.import_memories(path, allow_erased=True) == 1  # unless asked to
    assert "杭州" in manager.retrieve("我住在哪里", user_id="u1")[0]
    with pytest.raises(InvalidInputError, match="path"):
        manager.export_memories(tmp_path / "no-such-folder" / "u1.jsonl", user_id="u1")
    broken = tmp_path / "broken.jsonl"
    broken.write_text(path.read_text(encoding="utf-8").splitlines()[0] + "\n{not json\n", encoding="utf-8")
    with pytest.raises(ImportFileError, match="line 2"):
        manager.import_memories(broken)


def test_cli_export_and_import(make_manager, config, tmp_path, capsys, monkeypatch) -> None:
    if config.store.record == "postgres":  # the CLI reads its record from the environment
        monkeypatch.setenv("PERSONA_MEMORY__STORE__RECORD", "postgres")
        monkeypatch.setenv(
            "PERSONA_MEMORY__STORE__POSTGRES_DSN", config.store.postgres_dsn.get_secret_value()
        )
    manager = make_manager()
    fill(manager, ["我的生日是三月五日"], user_id="u1")
    manager.close()
    data = str(Path(config.data_dir).parent)
    base = ["--personas-dir", config.personas_dir, "--data-dir", data]
    out = tmp_path / "out.jsonl"
    assert main([*base, "export", "--persona", "karin", "--user", "u1", str(out)]) == 0
    assert "exported 1 memories" in capsys.readouterr().err
    assert main([*base, "forget-user", "u1", "--persona", "karin", "--yes"]) == 0
    assert main([*base, "import", "--persona", "karin", str(out)]) != 0
    assert "erased here" in capsys.readouterr().err
    assert main([*base, "import", "--persona", "karin", "--allow-erased", str(out)]) == 0
    assert "restored 1 memories" in capsys.readouterr().out
    with MemoryManager("karin", config) as again:
        assert "三月五日" in again.retrieve("生日", user_id="u1")[0]


def test_an_export_racing_an_erase_holds_the_user_whole_or_not_at_all(make_manager, tmp_path) -> None:
    manager = make_manager()
    count = 150
    for attempt in range(3):
        user = f"racer{attempt}"
        fill(manager, [f"第{i}句：我喜欢吃草莓" for i in range(count)], user_id=user)
        manager.remember("我对花生过敏", user_id=user, key="allergy")
        path = tmp_path / f"all{attempt}.jsonl"
        exporting = threading.Thread(target=manager.export_memories, args=(path,))
        exporting.start()
        manager.forget_user(user)
        exporting.join()
        rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()[1:]]
        kinds = {row["type"] for row in rows if row["scope"] == user}
        interactions = sum(row["type"] == "interaction" and row["scope"] == user for row in rows)
        assert kinds == set() or {"interaction", "memory", "profile"} <= kinds, kinds
        assert interactions in (0, count)
