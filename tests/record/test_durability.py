"""Nothing lost: SIGKILL at random moments, corrupt files, restarts of every kind of state."""

from __future__ import annotations

import contextlib
import logging
import os
import random
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from helpers.paths import HELPERS
from helpers.store import budget, fill, sql
from memory import Layer, MemoryConfig, MemoryManager, StoreError
from memory.record.archive import MemoryArchive

CHILD = HELPERS / "crash_child.py"
TRIALS = 12


def _child_config(config: MemoryConfig, data_dir: Path) -> MemoryConfig:
    config.data_dir = str(data_dir / "memory_store")
    config.archive_dir = str(data_dir / "archive")
    config.active.capacity = 3
    config.temporary.decay_coefficient = 0.6
    return config


def _run_and_kill(personas_dir: str, data_dir: Path, seed: int, dsn: str = "") -> list[str]:
    """Start the child, let it record for a random while after its first acknowledgement (a loaded
    machine starts it slowly), SIGKILL it; return the acked ids."""
    child = subprocess.Popen(
        [sys.executable, str(CHILD), personas_dir, str(data_dir), str(seed), *([dsn] if dsn else [])],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    acked: list[str] = []
    ready, first = threading.Event(), threading.Event()

    def read() -> None:
        assert child.stdout is not None
        for line in child.stdout:
            if not line.endswith("\n"):
                break  # a partial line: not an acknowledgement
            if line.strip() == "ready":
                ready.set()
            else:
                acked.append(line.strip())
                first.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    recording = ready.wait(timeout=60) and first.wait(timeout=60)
    if recording:
        time.sleep(random.Random(seed).uniform(0.2, 2.0))
    os.kill(child.pid, signal.SIGKILL)  # killed whatever happened: no child outlives the test
    child.wait(timeout=30)
    reader.join(timeout=10)
    assert recording, "the child did not start or acknowledged nothing within 60 s"
    return list(acked)


@pytest.mark.slow
def test_sigkill_at_random_moments_loses_no_acknowledged_interaction(config, tmp_path) -> None:
    data_dir = tmp_path / "crash"
    all_acked: list[str] = []
    for trial in range(TRIALS):
        dsn = config.store.postgres_dsn.get_secret_value()
        acked = _run_and_kill(config.personas_dir, data_dir, seed=1000 + trial, dsn=dsn)
        assert acked, f"trial {trial}: the child acknowledged nothing"
        all_acked.extend(acked)
        manager = MemoryManager("karin", _child_config(config, data_dir))
        try:
            rows = sql(
                manager,
                "SELECT id, layer FROM entries WHERE layer IN "
                "('active', 'temporary', 'archived') AND id NOT LIKE 'static-%'",
            )
            layers_of: dict[str, list[str]] = {}
            for entry_id, layer in rows:
                layers_of.setdefault(str(entry_id), []).append(str(layer))
            missing = [i for i in all_acked if i not in layers_of]
            assert not missing, f"trial {trial}: {len(missing)} acknowledged interactions lost"
            assert all(len(v) == 1 for v in layers_of.values())
            records = [(m.id, m.archived_at) for m in manager.inspector.archived()]
            assert len(records) == len(set(records)), "archive holds a duplicate"
            archived_ids = {i for i, _ in records}
            in_sqlite = {i for i, v in layers_of.items() if v == ["archived"]}
            assert in_sqlite <= archived_ids, "a forgotten memory is missing from the archive file"
            known = {str(r[0]) for r in sql(manager, "SELECT id FROM entries")}
            assert archived_ids <= known  # revived ones are back in their layer
            manager.flush()
            hot = {e.id for e in manager.inspector.entries(Layer.TEMPORARY)}
            cold = {e.id for e in manager.inspector.entries(Layer.ARCHIVED) if e.origin == Layer.TEMPORARY}
            assert manager.inspector.indexed_ids(Layer.TEMPORARY) == hot | cold
        finally:
            manager.close()
    assert len(all_acked) == len(set(all_acked))
    print(f"crash trials: {TRIALS}, acknowledged: {len(all_acked)}, lost: 0")


def test_missing_chroma_folder_is_rebuilt_from_sqlite(make_manager, config) -> None:
    import shutil

    config.active.capacity = 1
    manager = make_manager(config)
    fill(manager, ["Deployed 3-node redis cluster, config at /opt/redis/", "猫", "最后"])
    manager.close()
    shutil.rmtree(Path(config.data_dir) / "chroma")
    again = make_manager(config)
    assert len(again.inspector.indexed_ids(Layer.TEMPORARY)) == 2
    assert "/opt/redis/" in again.retrieve("redis 集群的配置在哪里")[1]


def test_corrupt_chroma_folder_is_moved_aside_and_rebuilt(make_manager, config, caplog) -> None:
    config.active.capacity = 1
    manager = make_manager(config)
    fill(manager, ["Deployed 3-node redis cluster, config at /opt/redis/", "最后"])
    manager.close()
    chroma = Path(config.data_dir) / "chroma"
    garbage = b"\x00garbage, not sqlite\x00" * 500
    (chroma / "chroma.sqlite3").write_bytes(garbage)
    with caplog.at_level(logging.WARNING):
        again = make_manager(config)
    aside = [p for p in chroma.parent.iterdir() if p.name.startswith("chroma.corrupt-")]
    assert len(aside) == 1 and (aside[0] / "chroma.sqlite3").read_bytes() == garbage
    assert any("moved aside" in r.message for r in caplog.records)
    assert "/opt/redis/" in again.retrieve("redis 集群的配置在哪里")[1]


def test_corrupt_archive_line_is_skipped_with_warning_and_kept(tmp_path, caplog) -> None:
    archive = MemoryArchive(tmp_path, "karin")
    archive.path.write_text('{"broken": \n', encoding="utf-8")
    with caplog.at_level(logging.WARNING):
        assert archive.read() == []
    assert "line 1" in caplog.text
    assert archive.path.read_text(encoding="utf-8") == '{"broken": \n'


def test_archive_keeps_working_after_a_corrupt_line(make_manager, config) -> None:
    config.temporary.decay_coefficient = 0.5
    config.active.capacity = 1
    budget(config, 0, 0, 0)
    archive_file = Path(config.archive_dir) / "karin.jsonl"
    archive_file.parent.mkdir(parents=True)
    archive_file.write_text("not json at all\n", encoding="utf-8")
    manager = make_manager(config)
    fill(manager, ["要被遗忘的句子", "最后"])
    for _ in range(4):
        manager.retrieve("完全无关的问题")
    manager.flush()
    assert archive_file.read_text(encoding="utf-8").startswith("not json at all\n")
    assert [m.reason for m in manager.inspector.archived()] == ["forgotten"]


@pytest.mark.sqlite_only
def test_corrupt_database_is_never_overwritten(config) -> None:
    db = Path(config.data_dir) / "karin.sqlite3"
    db.parent.mkdir(parents=True)
    header = b"SQLite format 3\x00" + os.urandom(4000)
    db.write_bytes(header)
    with pytest.raises(StoreError, match="unreadable"):
        MemoryManager("karin", config)
    assert db.read_bytes() == header


async def test_restart_keeps_scheduler_bookkeeping(make_manager, config, clock) -> None:
    manager = make_manager(config, now=clock)
    fill(manager, ["一句话"])
    await manager.run_summary_now()
    await manager.stop()
    clock.advance(seconds=100)
    again = make_manager(config, now=clock)
    await again.start()
    next_summary = again.debug_state()["jobs"]["summary"]
    assert next_summary.startswith("2026-11-01T09:05:00")  # last run + 300 s, not now + 300 s
    await again.stop()


def test_second_process_gets_store_locked_error(make_manager, config) -> None:
    make_manager()
    code = (
        "import sys\n"
        "from memory import MemoryConfig, MemoryManager, StoreLockedError\n"
        "c = MemoryConfig()\n"
        f"c.personas_dir = {config.personas_dir!r}\n"
        f"c.data_dir = {config.data_dir!r}\n"
        f"c.archive_dir = {config.archive_dir!r}\n"
        "try:\n    MemoryManager('karin', c)\n"
        "except StoreLockedError as e:\n    print('LOCKED', e); sys.exit(0)\n"
        "sys.exit(1)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert f"pid {os.getpid()}" in result.stdout and "server" in result.stdout


def _forget_one(manager: MemoryManager, text: str) -> None:
    fill(manager, [text, "最后一句"])
    for _ in range(3):
        manager.retrieve("完全无关的问题")
    assert manager.flush()


@pytest.mark.faults
@pytest.mark.parametrize("tail", [b'{"id": "cut-by-a-full-disk", "layer": "temp', b""])
def test_a_torn_last_archive_line_is_mended_before_the_next_append(config, tail: bytes) -> None:
    config.active.capacity = 1
    config.temporary.decay_coefficient = 0.5
    config.temporary.importance = False
    budget(config, 0, 0, 0)
    manager = MemoryManager("karin", config)
    _forget_one(manager, "我喜欢吃草莓蛋糕")
    path = Path(manager.debug_state()["store"]["archive"])
    manager.close()
    whole = path.read_bytes()
    path.write_bytes(whole + tail if tail else whole.rstrip(b"\n"))  # cut mid-record, or just its line end
    again = MemoryManager("karin", config)
    try:
        _forget_one(again, "我下周要去京都旅行")
        records = again.inspector.archived()
        firsts = {r.content.splitlines()[0] for r in records}
        assert {"用户：我下周要去京都旅行", "用户：我喜欢吃草莓蛋糕"} <= firsts
        assert len(path.read_bytes().splitlines()) == len(records)  # every line a whole record
        assert path.read_bytes().endswith(b"\n") and b"cut-by-a-full-disk" not in path.read_bytes()
        torn = list(path.parent.glob(f"{path.name}.torn-*"))
        assert [p.read_bytes() for p in torn] == ([tail] if tail else [])  # kept aside, never lost
    finally:
        again.close()


@pytest.mark.faults
def test_a_chroma_folder_deleted_while_running_is_rebuilt_in_process(config) -> None:
    config.active.capacity = 1
    config.retrieval.mode = "quota"  # dense only: the rebuilt vectors must answer
    config.store.breaker_initial_backoff_seconds = 0.1
    manager = MemoryManager("karin", config)
    try:
        fill(manager, ["我家的柯基叫可乐", "我对花生过敏", "最后"])
        assert manager.flush()
        shutil.rmtree(Path(config.data_dir) / "chroma")
        fill(manager, ["我下周要去京都旅行", "再来一句"])  # acknowledged while the index is gone
        expected = {e.id for e in manager.inspector.entries(Layer.TEMPORARY)}
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:  # the sync rebuilds the index after the next probe
            manager.flush()
            with contextlib.suppress(Exception):
                if manager.inspector.indexed_ids(Layer.TEMPORARY) == expected:
                    break
            time.sleep(0.2)
        _, rag = manager.retrieve("我家的狗叫什么名字？")
        assert "柯基" in rag
        _, rag = manager.retrieve("我什么时候去日本旅行？")
        assert "京都" in rag
        assert manager.debug_state()["store"]["breaker"]["state"] == "closed"
    finally:
        manager.close()
