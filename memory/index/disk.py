"""The embedded index's folder on disk: a full disk remembered, a read-only folder copied, the
files of dropped collections removed."""

from __future__ import annotations

import contextlib
import logging
import shutil
import sqlite3
import tempfile
import uuid
from pathlib import Path

from memory.errors import StoreError, StoreUnavailableError

logger = logging.getLogger(__name__)

LOW_DISK_BYTES = 4 << 20
"""An embedded call that failed with less free space than this left the disk known to be full;
no call is made until this much more is free than at the failure."""


class FullDisk:
    """Whether the disk holding ``path`` is known to be full (a call into the index failed with
    less than :data:`LOW_DISK_BYTES` free), until that much more is free again."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._full_at: int | None = None
        """Free bytes when a call failed on a full disk (None: the disk is not known to be full)."""
        self.failures = 0
        """Calls that failed on a full disk so far."""

    def refuse_while_full(self) -> None:
        """Raise unless the disk is not known to be full, or space came back since it was."""
        full_at = self._full_at
        if full_at is None:
            return
        free = self._free_bytes()
        if free < full_at + LOW_DISK_BYTES:
            raise StoreUnavailableError(
                f"the disk of the vector index {self.path} is full ({free} bytes free); "
                "the index waits for free space"
            )

    def call_failed(self) -> None:
        """A call failed in the backend: the disk is known to be full if little space is left."""
        free = self._free_bytes()
        if free < LOW_DISK_BYTES:
            self._full_at = free
            self.failures += 1

    def call_succeeded(self, failures_before: int) -> None:
        """A call begun when :attr:`failures` was ``failures_before`` succeeded: the disk is no
        longer known to be full, unless a call failed on it meanwhile."""
        if failures_before == self.failures:
            self._full_at = None

    def _free_bytes(self) -> int:
        try:
            return shutil.disk_usage(self.path if self.path.exists() else self.path.parent).free
        except OSError:
            return 0


def copied(index: Path) -> tempfile.TemporaryDirectory[str]:
    """A temporary folder holding a copy of ``index`` (as ``chroma``)."""
    copy = tempfile.TemporaryDirectory(prefix="persona-memory-read-only-")
    try:
        if index.is_dir():
            shutil.copytree(index, Path(copy.name) / "chroma")
    except OSError as exc:
        copy.cleanup()
        raise StoreError(f"cannot copy the read-only vector index {index} to read it: {exc}") from exc
    logger.info("the read-only vector index %s is read from a copy in %s", index, copy.name)
    return copy


def _is_uuid(name: str) -> bool:
    try:
        return str(uuid.UUID(name)) == name
    except ValueError:
        return False


def remove_dropped_segments(path: Path) -> int:
    """Remove the folders of vector segments no collection in the embedded index at ``path`` has
    (Chroma 1.x leaves a dropped collection's HNSW files, its vectors, on disk); returns how many.

    The folders are listed before the segments are read: a folder made meanwhile is a new
    collection's, and its segment is then read too."""
    try:
        folders = [p for p in path.iterdir() if p.is_dir() and _is_uuid(p.name)]
        if not folders:
            return 0
        record = (path / "chroma.sqlite3").resolve().as_uri() + "?mode=rw"  # never made here
        with contextlib.closing(sqlite3.connect(record, uri=True, timeout=5.0)) as db:
            kept = {str(row[0]) for row in db.execute("SELECT id FROM segments")}
    except (OSError, sqlite3.Error) as exc:  # no folder yet, or another Chroma layout: leave them
        logger.debug("segments of %s not read: %s", path, exc)
        return 0
    dropped = [folder for folder in folders if folder.name not in kept]
    for folder in dropped:
        shutil.rmtree(folder, ignore_errors=True)
    return len(dropped)
