"""Read-only data folders: one opened fresh (reads, every write refused), one that turns
read-only under a running engine (reported, a write refused, reads keep working)."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from helpers.store import config_env, fill
from memory import MemoryConfig, MemoryManager
from memory.errors import ReadOnlyStoreError

pytestmark = pytest.mark.faults

ReadOnly = tuple[Path, Callable[[], None]]


def _mount(*args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(["mount", *args], capture_output=True, check=False)


@pytest.fixture
def readonly(tmp_path: Path) -> Iterator[ReadOnly]:
    """A folder that a bind mount makes read-only on demand, under files already open (root on
    Linux; skipped, visibly, where mounting is impossible)."""
    probe = tmp_path / "probe"
    probe.mkdir()
    if _mount("--bind", str(probe), str(probe)).returncode != 0:
        pytest.skip("cannot bind-mount here (needs root on Linux): the read-only folder is not tested")
    subprocess.run(["umount", str(probe)], check=False)
    folder = tmp_path / "data"
    folder.mkdir()
    mounted: list[bool] = []

    def make_readonly() -> None:
        assert _mount("--bind", str(folder), str(folder)).returncode == 0
        mounted.append(True)
        assert _mount("-o", "remount,ro,bind", str(folder)).returncode == 0

    try:
        yield folder, make_readonly
    finally:
        if mounted:
            subprocess.run(["umount", str(folder)], check=False)


def _in(config: MemoryConfig, folder: Path) -> MemoryConfig:
    config.data_dir = str(folder / "memory_store")
    config.archive_dir = str(folder / "archive")
    config.active.capacity = 1
    return config


def test_a_folder_turned_read_only_refuses_writes_and_keeps_reading(
    config: MemoryConfig, readonly: ReadOnly
) -> None:
    folder, make_readonly = readonly
    manager = MemoryManager("karin", _in(config, folder))
    try:
        fill(manager, ["我家的柯基叫可乐", "I am allergic to peanuts", "最后一句"])
        assert manager.flush(enrich=True)
        assert manager.debug_state()["health"]["degraded"] == []
        make_readonly()
        assert "可乐" in manager.retrieve_memories("我家的狗叫什么？").rag_text
        health = manager.debug_state()["health"]
        assert health["record_writable"] is False and health["archive_writable"] is False
        assert {"record_writable", "archive_writable"} <= set(health["degraded"])

        before = manager.debug_state()
        with pytest.raises(ReadOnlyStoreError, match="memory_store"):
            manager.record_interaction_sync("我搬到大阪了", "好的")
        with pytest.raises(ReadOnlyStoreError):
            manager.remember("我的生日是五月一日", key="birthday")
        with pytest.raises(ReadOnlyStoreError):
            manager.forget_user("someone")
        assert manager.debug_state()["store"] == before["store"]  # nothing was accepted
        for query, word in (("我家的狗叫什么？", "可乐"), ("peanuts", "peanuts"), ("柯基", "柯基")):
            result = manager.retrieve_memories(query)
            assert not result.degraded and word in result.rag_text, query
        assert "大阪" not in manager.retrieve_memories("我搬到哪里了").active_text
    finally:
        manager.close()


CHILD = """
import json, sys
from memory import MemoryManager, MemoryConfig
from memory.errors import ReadOnlyStoreError
seen = {}
with MemoryManager("karin", MemoryConfig()) as manager:
    seen["recalled"] = manager.retrieve_memories("我家的狗叫什么？").rag_text
    seen["english"] = manager.retrieve_memories("what am I allergic to").rag_text
    for name, write in (
        ("record", lambda: manager.record_interaction_sync("我搬到大阪了", "好的")),
        ("remember", lambda: manager.remember("生日五月一日", key="birthday")),
        ("forget_user", lambda: manager.forget_user("u1")),
        ("import", lambda: manager.import_memories(sys.argv[1])),
    ):
        try:
            write()
            seen[name] = "accepted"
        except ReadOnlyStoreError as exc:
            seen[name] = str(exc)
    seen["after"] = manager.retrieve_memories("柯基").rag_text
print(json.dumps(seen, ensure_ascii=False))
"""


def _state_read_only(config: MemoryConfig, readonly: ReadOnly) -> dict[Path, bytes]:
    """Make the folder read-only, then check ``python -m memory state`` opens it and reports the
    record unwritable; returns every file's bytes as they were before."""
    folder, make_readonly = readonly
    files = {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()}
    make_readonly()
    state = subprocess.run(
        [sys.executable, "-m", "memory", "state", "--persona", "karin"],
        capture_output=True, text=True, timeout=300, check=False, env=config_env(config),
    )  # fmt: skip
    assert state.returncode == 0, state.stderr
    assert json.loads(state.stdout)["health"]["record_writable"] is False
    return files


def test_a_read_only_folder_opens_for_reading(
    config: MemoryConfig, readonly: ReadOnly, tmp_path: Path
) -> None:
    folder = readonly[0]
    config = _in(config, folder)
    with MemoryManager("karin", config) as manager:
        fill(manager, ["我家的柯基叫可乐", "I am allergic to peanuts", "最后一句"], user_id="u1")
        fill(manager, ["我家的柯基叫可乐", "I am allergic to peanuts", "最后一句"])
        manager.flush(enrich=True)
        exported = tmp_path / "export.jsonl"
        manager.export_memories(exported)
    files = _state_read_only(config, readonly)

    child = subprocess.run(
        [sys.executable, "-c", CHILD, str(exported)],
        capture_output=True, text=True, timeout=300, check=False, env=config_env(config),
    )  # fmt: skip
    assert child.returncode == 0, child.stderr
    assert "Traceback" not in child.stderr
    seen = json.loads(child.stdout)
    assert "可乐" in seen["recalled"] and "peanuts" in seen["english"] and "柯基" in seen["after"]
    for write in ("record", "remember", "forget_user", "import"):
        assert "read-only" in seen[write] and "memory_store" in seen[write], write
    assert {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()} == files  # not a byte changed


@pytest.mark.sqlite_only
def test_a_read_only_record_of_an_earlier_version_opens_without_the_new_indexes(
    config: MemoryConfig, readonly: ReadOnly
) -> None:
    """Made before the speed indexes and the statements' leaning column: it opens and answers,
    a question about a slot too."""
    folder = readonly[0]
    config = _in(config, folder)
    with MemoryManager("karin", config) as manager:
        manager.remember("我住在杭州", user_id="u1", key="home")
        fill(manager, ["I moved into a flat by the river", *["今天天气真好"] * 12], user_id="u1")
        manager.flush()
    database = next((folder / "memory_store").glob("*.sqlite3"))
    with sqlite3.connect(database) as conn:  # as the versions before them left it
        for index in ("profile_value", "profile_now", "entries_scope_time", "entries_leaning"):
            conn.execute(f"DROP INDEX {index}")
        conn.execute("ALTER TABLE entries DROP COLUMN leans")
        conn.execute("UPDATE meta SET value = '2' WHERE key = 'schema:profile'")
        conn.execute("UPDATE meta SET value = '6' WHERE key = 'schema:entries'")
    conn.close()
    files = _state_read_only(config, readonly)
    asked = (
        "from memory import MemoryManager, MemoryConfig\n"
        "with MemoryManager('karin', MemoryConfig()) as manager:\n"
        "    print(manager.retrieve_memories('Where do I live now?', user_id='u1').rag_text)\n"
    )
    child = subprocess.run(
        [sys.executable, "-c", asked], capture_output=True, text=True, timeout=300, check=False,
        env=config_env(config),
    )  # fmt: skip
    assert child.returncode == 0, child.stderr
    assert "杭州" in child.stdout and "river" in child.stdout
    assert {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()} == files
