"""A full disk: a clear error naming the folder, nothing half-written, writes resume with space."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from helpers.paths import HELPERS
from memory import MemoryConfig, MemoryManager
from memory.errors import MemoryEngineError, StorageFullError

pytestmark = [pytest.mark.faults, pytest.mark.sqlite_only]


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 24 MB tmpfs (root on Linux; skipped, visibly, where mounting is impossible)."""
    folder = tmp_path / "disk"
    folder.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=24m", "tmpfs", str(folder)], check=False)
    if mounted.returncode != 0:
        pytest.skip("cannot mount a tmpfs here (needs root on Linux): the full disk is not tested")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=False)


def _fill_up(folder: Path) -> Path:
    """A file taking all but a little of the disk's free space."""
    filler = folder / "filler.bin"
    with filler.open("wb", buffering=0) as handle:  # unbuffered: nothing left over for close to write
        try:
            while True:
                handle.write(b"\0" * 65536)
        except OSError:
            pass
    return filler


def test_a_full_disk_refuses_writes_clearly_and_they_resume_when_space_returns(
    config: MemoryConfig, small_disk: Path
) -> None:
    config.data_dir = str(small_disk / "memory_store")
    config.archive_dir = str(small_disk / "archive")
    config.active.capacity = 3
    manager = MemoryManager("karin", config)
    try:
        manager.record_interaction_sync("我家的柯基叫可乐", "记住啦～")
        manager.flush()
        filler = _fill_up(small_disk)
        acknowledged = 1
        with pytest.raises(StorageFullError, match="full") as refused:
            for i in range(5000):
                manager.record_interaction_sync(f"第{i}句：{'很长的闲聊内容' * 40}", "嗯嗯")
                acknowledged += 1
        assert isinstance(refused.value, MemoryEngineError) and str(small_disk) in str(refused.value)
        assert manager.debug_state()["interactions_recorded"] == acknowledged  # nothing half-written
        active, _ = manager.retrieve("我家的狗叫什么")  # reads keep working
        assert active
        filler.unlink()  # space returns: no restart needed
        manager.record_interaction_sync("我对花生过敏", "记住啦～")
        assert manager.debug_state()["interactions_recorded"] == acknowledged + 1
    finally:
        manager.close()


def test_a_full_then_freed_disk_never_freezes_the_process(config: MemoryConfig, small_disk: Path) -> None:
    """The embedded index's write after a full disk used to hang holding the interpreter lock:
    every thread stopped, a heartbeat included (3 runs of 3). The process must go on, never
    pausing a second, and recall once space returns."""
    child = subprocess.run(
        [
            sys.executable,
            str(HELPERS / "disk_full_child.py"),
            str(small_disk),
            config.personas_dir,
        ],
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert "closed" in child.stdout, child.stdout[-2000:] + child.stderr[-3000:]
    gap = float(child.stdout.split("gap ")[1].split()[0])
    assert gap < 1.0 and "found" in child.stdout
    assert "in vain 0" in child.stdout, child.stdout  # no index write while the disk is known full
