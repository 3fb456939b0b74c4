"""SQLite (WAL) system of record: the journal, entries, summary buffer, decay clocks, bookkeeping.

One database per persona. Chroma is derived from it. All writes go through
:meth:`Database.transaction`, one ``BEGIN IMMEDIATE`` ... ``COMMIT`` under a process-wide lock.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import logging
import os
import sqlite3
import threading
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

from memory import keyword
from memory.errors import StoreError, StoreLockedError
from memory.layers.base import Layer, MemoryEntry, user_of

logger = logging.getLogger(__name__)

SCHEMA_VERSION = "1"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS interactions (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT UNIQUE NOT NULL,
    scope TEXT NOT NULL,
    user_input TEXT NOT NULL,
    response TEXT NOT NULL,
    timestamp REAL NOT NULL,
    note TEXT,
    buffered INTEGER NOT NULL DEFAULT 1
);
CREATE INDEX IF NOT EXISTS interactions_buffer ON interactions(scope, buffered, seq);
CREATE TABLE IF NOT EXISTS entries (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT UNIQUE NOT NULL,
    layer TEXT NOT NULL,
    scope TEXT NOT NULL,
    content TEXT NOT NULL,
    note TEXT,
    created_at REAL NOT NULL,
    significance REAL NOT NULL,
    changed_at INTEGER NOT NULL DEFAULT 0,
    forget_at INTEGER,
    indexed INTEGER NOT NULL DEFAULT 0,
    tags TEXT NOT NULL DEFAULT '[]',
    source TEXT,
    archived_layer TEXT,
    archived_reason TEXT,
    archived_at REAL,
    exported INTEGER NOT NULL DEFAULT 1
);
CREATE INDEX IF NOT EXISTS entries_layer_scope ON entries(layer, scope, seq);
CREATE INDEX IF NOT EXISTS entries_forget ON entries(layer, scope, forget_at);
CREATE INDEX IF NOT EXISTS entries_unindexed ON entries(indexed, layer);
CREATE INDEX IF NOT EXISTS entries_unexported ON entries(exported);
CREATE TABLE IF NOT EXISTS clock (scope TEXT PRIMARY KEY, tick INTEGER NOT NULL);
"""

ENTRY_COLUMNS = "id, layer, scope, content, note, created_at, significance, changed_at, tags, source"


def to_epoch(moment: datetime) -> float:
    """Seconds since the epoch of an aware datetime."""
    return moment.timestamp()


def from_epoch(seconds: float) -> datetime:
    """An aware UTC datetime from epoch seconds."""
    return datetime.fromtimestamp(seconds, UTC)


def entry_from_row(row: sqlite3.Row | tuple[object, ...]) -> MemoryEntry:
    """Build a :class:`MemoryEntry` from a row selected with :data:`ENTRY_COLUMNS`."""
    (entry_id, layer, scope, content, note, created_at, significance, changed_at, tags, source) = tuple(row)
    return MemoryEntry(
        id=str(entry_id),
        layer=Layer(str(layer)),
        content=str(content),
        created_at=from_epoch(float(created_at)),  # type: ignore[arg-type]
        user_id=user_of(str(scope)),
        significance=float(significance),  # type: ignore[arg-type]
        changed_at=int(changed_at),  # type: ignore[call-overload]
        note=None if note is None else str(note),
        tags=tuple(json.loads(str(tags))),
        source=None if source is None else str(source),
    )


class FolderLock:
    """An exclusive advisory lock (``fcntl.flock``) on a persona's embedded data folder.

    The kernel drops it when the process dies, so a crash never leaves a stale lock behind.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd: int | None = None

    def acquire(self) -> None:
        """Take the lock or raise :class:`StoreLockedError` naming the owner's pid."""
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            owner = os.pread(fd, 32, 0).decode("ascii", "replace").strip() or "unknown"
            os.close(fd)
            raise StoreLockedError(
                f"{self.path.parent} is in use by another process (pid {owner}). The embedded "
                "store serves one process; to share memory across processes, run a Chroma "
                "server (store.mode = 'http', see README 'Server mode')."
            ) from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, str(os.getpid()).encode("ascii"), 0)
        self._fd = fd

    def release(self) -> None:
        """Release the lock (idempotent)."""
        if self._fd is not None:
            with contextlib.suppress(OSError):
                fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None


class Database:
    """The SQLite database of one persona.

    Raises:
        StoreError: the file exists but is not a readable SQLite database; it is left untouched.
    """

    def __init__(
        self, path: Path, *, synchronous: str = "NORMAL", keyword_tokenizer: str = keyword.JIEBA
    ) -> None:
        self.path = path
        self._lock = threading.RLock()
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self._conn = sqlite3.connect(
                str(path), isolation_level=None, check_same_thread=False, timeout=30.0
            )
            self._conn.execute("PRAGMA journal_mode=WAL")
            self._conn.execute(f"PRAGMA synchronous={synchronous.upper()}")
            self._conn.execute("PRAGMA foreign_keys=ON")
            check = self._conn.execute("PRAGMA quick_check").fetchone()
            if check is None or check[0] != "ok":
                raise sqlite3.DatabaseError(f"integrity check failed: {check}")
            self._conn.executescript(_SCHEMA)
            self._conn.execute(
                "INSERT OR IGNORE INTO meta(key, value) VALUES ('schema_version', ?)",
                (SCHEMA_VERSION,),
            )
            with self._lock:
                keyword.install(self._conn, keyword_tokenizer, cache_dir=path.parent)
        except sqlite3.OperationalError as exc:
            with contextlib.suppress(Exception):
                self._conn.close()
            raise StoreError(f"cannot open the memory database {path}: {exc}") from exc
        except sqlite3.DatabaseError as exc:
            with contextlib.suppress(Exception):
                self._conn.close()
            raise StoreError(
                f"the memory database {path} is unreadable ({exc}). It was left as it is. "
                "Restore it from a backup, or move it aside (e.g. rename it to "
                f"{path.name}.corrupt) to start this persona with an empty memory."
            ) from exc

    @contextlib.contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One write transaction; commits on success, rolls back on any exception."""
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield self._conn
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            self._conn.execute("COMMIT")

    def query(self, sql: str, params: tuple[object, ...] = ()) -> list[tuple[object, ...]]:
        """Run a read query and return all rows."""
        with self._lock:
            return list(self._conn.execute(sql, params).fetchall())

    def scalar(self, sql: str, params: tuple[object, ...] = ()) -> object:
        """Run a read query returning one value (``None`` when there is no row)."""
        rows = self.query(sql, params)
        return rows[0][0] if rows else None

    def count(self, sql: str, params: tuple[object, ...] = ()) -> int:
        """Run a ``SELECT COUNT(*)`` style query and return the number."""
        value = self.scalar(sql, params)
        return int(value) if isinstance(value, (int, float)) else 0

    def get_meta(self, key: str) -> str | None:
        """A bookkeeping value (last summary time...) or ``None``."""
        value = self.scalar("SELECT value FROM meta WHERE key = ?", (key,))
        return None if value is None else str(value)

    def set_meta(self, key: str, value: str) -> None:
        """Store a bookkeeping value in its own transaction."""
        with self.transaction() as conn:
            conn.execute(
                "INSERT INTO meta(key, value) VALUES (?, ?) "
                "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                (key, value),
            )

    def tick_of(self, scope: str) -> int:
        """The current tick of a scope's decay clock (0 before its first retrieval)."""
        return self.count("SELECT tick FROM clock WHERE scope = ?", (scope,))

    def scopes(self) -> list[str]:
        """Every user scope that has an interaction or a clock."""
        rows = self.query("SELECT DISTINCT scope FROM interactions UNION SELECT scope FROM clock ORDER BY 1")
        return [str(r[0]) for r in rows]

    def close(self) -> None:
        """Checkpoint the WAL and close (idempotent)."""
        with self._lock:
            with contextlib.suppress(sqlite3.Error):
                self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            with contextlib.suppress(sqlite3.Error):
                self._conn.close()
