"""The embedded index's folder on disk: a full disk remembered, a read-only folder copied."""

from __future__ import annotations

import logging
import shutil
import tempfile
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
