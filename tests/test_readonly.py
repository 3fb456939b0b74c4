"""A data folder that turns read-only under a running engine: reported, reads keep working."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import fill

from memory import MemoryConfig, MemoryManager

pytestmark = pytest.mark.faults


def _mount(*args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(["mount", *args], capture_output=True, check=False)


@pytest.fixture
def readonly(tmp_path: Path) -> Iterator[tuple[Path, object]]:
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


def test_a_read_only_folder_is_reported_and_reads_keep_working(config: MemoryConfig, readonly) -> None:
    folder, make_readonly = readonly
    config.data_dir = str(folder / "memory_store")
    config.archive_dir = str(folder / "archive")
    config.active.capacity = 1
    manager = MemoryManager("karin", config)
    try:
        fill(manager, ["我家的柯基叫可乐", "我对花生过敏", "最后一句"])
        assert manager.flush()
        assert manager.debug_state()["health"]["degraded"] == []
        make_readonly()
        result = manager.retrieve_memories("我家的狗叫什么？")
        assert not result.degraded and "可乐" in result.rag_text
        health = manager.debug_state()["health"]
        assert health["record_writable"] is False and health["archive_writable"] is False
        assert {"record_writable", "archive_writable"} <= set(health["degraded"])
    finally:
        manager.close()
