"""Keeps the archive file (the cold tier's JSONL log) in step with the record.

Exactly once per forgetting: rows are marked ``EXPORTING`` before the append and ``DONE`` after;
after a crash between the two, the recovering pass appends only the records the file lacks. An
erase rewrites the file without some records. Both hold a lock of their own (never the index's),
and a file lock across processes that share the data folder (server mode).
"""

from __future__ import annotations

import contextlib
import fcntl
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

from memory.domain.types import ExportState
from memory.record.archive import ArchivedMemory, MemoryArchive
from memory.record.entries import EntryTable


class ArchiveSync:
    """Appends newly archived entries to the archive file, and erases records from it.

    Args:
        entries: the entries table (the export state of archived rows).
        archive: the archive file.
        export_lock: a file serialising exports across processes (``None``: this process only).
    """

    def __init__(self, entries: EntryTable, archive: MemoryArchive, export_lock: Path | None = None) -> None:
        self.table = entries
        self.archive = archive
        self.export_lock = export_lock
        self._lock = threading.Lock()

    def export(self) -> None:
        """Finish an export a crash cut short, then export what was archived since.

        Raises:
            OSError: the archive folder cannot be written (the rows wait in the record).
        """
        with self._lock, self._exclusive():
            self._export(recovering=True)
            self._export()

    def erase(self, drop: Callable[[ArchivedMemory], bool]) -> int:
        """Remove the records ``drop`` selects from the file; returns how many."""
        with self._lock, self._exclusive():
            return self.archive.remove(drop)

    @contextlib.contextmanager
    def _exclusive(self) -> Iterator[None]:
        if self.export_lock is None:
            yield
            return
        with self.export_lock.open("a") as handle:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle.fileno(), fcntl.LOCK_UN)

    def _export(self, *, recovering: bool = False) -> int:
        memories = self.table.to_export(ExportState.EXPORTING if recovering else ExportState.PENDING)
        if not memories:
            return 0
        ids = [m.id for m in memories]
        if recovering:
            present = {(m.id, m.archived_at) for m in self.archive.read()}
            to_write = [m for m in memories if (m.id, m.archived_at) not in present]
        else:
            self.table.set_export_state(ids, ExportState.EXPORTING)
            to_write = memories
        self.archive.append(to_write)
        self.table.set_export_state(ids, ExportState.DONE)
        return len(to_write)
