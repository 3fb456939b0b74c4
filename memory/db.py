"""The system of record: transactions, bookkeeping and decay clocks, over SQLite (WAL) here.

One database per persona. Chroma is derived from it. All writes go through
:meth:`Database.transaction`. :class:`Database` holds what every engine shares (the SQL of the
``meta`` and ``clock`` tables, the read helpers); :class:`SqliteDatabase` is the embedded one:
one ``BEGIN IMMEDIATE`` ... ``COMMIT`` under a process-wide lock. SQL is written once, in
SQLite's spelling with ``?`` placeholders; another engine translates it (:func:`portable`).
"""

from __future__ import annotations

import abc
import contextlib
import fcntl
import logging
import os
import shutil
import sqlite3
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

from memory.errors import StorageFullError, StoreError, StoreLockedError

logger = logging.getLogger(__name__)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS clock (scope TEXT PRIMARY KEY, tick INTEGER NOT NULL);
"""



class Cursor(Protocol):
    """The result of one statement (sqlite3's and psycopg's cursors both fit)."""

    @property
    def rowcount(self) -> int: ...

    def fetchone(self) -> Any: ...

    def fetchall(self) -> list[Any]: ...


class Connection(Protocol):
    """What a write transaction and an installer are given: statements in SQLite's spelling."""

    dialect: str
    """``"sqlite"`` or ``"postgres"``."""

    def execute(self, sql: str, params: Sequence[object] = ()) -> Cursor: ...

    def executemany(self, sql: str, rows: Iterable[Sequence[object]]) -> Cursor: ...

    def script(self, sql: str) -> None:
        """Run statements separated by ``;`` (schema), without parameters."""

    def columns(self, table: str) -> set[str]:
        """The column names of a table (empty when it does not exist)."""


Installer = Callable[[Connection], object]
"""Creates (or migrates) the tables of one owner module when the database is opened."""


class SqliteConnection:
    """A :class:`Connection` over one ``sqlite3`` connection."""

    dialect = "sqlite"

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.raw = conn

    def execute(self, sql: str, params: Sequence[object] = ()) -> Cursor:
        return self.raw.execute(sql, tuple(params))

    def executemany(self, sql: str, rows: Iterable[Sequence[object]]) -> Cursor:
        return self.raw.executemany(sql, rows)

    def script(self, sql: str) -> None:
        self.raw.executescript(sql)

    def columns(self, table: str) -> set[str]:
        return {str(r[1]) for r in self.raw.execute(f"PRAGMA table_info({table})").fetchall()}


def from_epoch(seconds: float) -> datetime:
    """An aware UTC datetime from epoch seconds."""
    return datetime.fromtimestamp(seconds, UTC)


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


class Database(abc.ABC):
    """The database of one persona: transactions, reads, bookkeeping, decay clocks.

    Owns the ``meta`` and ``clock`` tables; every other table is created by the module that owns
    it, through the ``installers`` run when the database is opened. Subclasses provide the
    connection: :meth:`transaction`, :meth:`query`, :attr:`total_changes` and :meth:`close`.
    """

    SCHEMA = _SCHEMA
    location = ""
    """Where the record lives, for messages (a file path, or a server and database)."""

    @abc.abstractmethod
    def transaction(self, *, durable: bool = True) -> contextlib.AbstractContextManager[Connection]:
        """One write transaction; commits on success, rolls back on any exception.

        Args:
            durable: the commit waits until the write is on disk (what acknowledges an
                interaction); ``False`` lets a server confirm first (a retrieval's decay tick:
                SQLite's WAL mode with ``synchronous=NORMAL`` gives that to every commit).
        """

    @abc.abstractmethod
    def query(self, sql: str, params: Sequence[object] = ()) -> list[tuple[object, ...]]:
        """Run a read query and return all rows."""

    @property
    @abc.abstractmethod
    def total_changes(self) -> int:
        """Rows written through this database since it opened (to check what a call writes)."""

    @abc.abstractmethod
    def close(self) -> None:
        """Release the connection (idempotent)."""

    def writable(self) -> bool:
        """Whether a write could be accepted now (as far as can be told without writing)."""
        return True

    def try_exclusive(self, name: str) -> bool:
        """Claim a job across every process sharing this record, without waiting; False when
        another holds it. One process per embedded record: always True here."""
        return True

    def release_exclusive(self, name: str) -> None:  # noqa: B027 (nothing to release here)
        """Release a claim taken by :meth:`try_exclusive`."""

    def scalar(self, sql: str, params: Sequence[object] = ()) -> object:
        """Run a read query returning one value (``None`` when there is no row)."""
        rows = self.query(sql, params)
        return rows[0][0] if rows else None

    def count(self, sql: str, params: Sequence[object] = ()) -> int:
        """Run a ``SELECT COUNT(*)`` style query and return the number."""
        value = self.scalar(sql, params)
        return int(value) if isinstance(value, (int, float)) else 0

    def get_meta(self, key: str) -> str | None:
        """A bookkeeping value (last summary time...) or ``None``."""
        value = self.scalar("SELECT value FROM meta WHERE key = ?", (key,))
        return None if value is None else str(value)

    def set_meta(self, key: str, value: str, conn: Connection | None = None) -> None:
        """Store a bookkeeping value (in ``conn``'s transaction, or its own)."""
        sql = (
            "INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value"
        )
        if conn is not None:
            conn.execute(sql, (key, value))
            return
        with self.transaction() as own:
            own.execute(sql, (key, value))

    def tick_of(self, scope: str) -> int:
        """The current tick of a scope's decay clock (0 before its first retrieval)."""
        return self.count("SELECT tick FROM clock WHERE scope = ?", (scope,))

    @staticmethod
    def tick_in(conn: Connection, scope: str) -> int:
        """The current tick of a scope's clock, read inside a write transaction."""
        row = conn.execute("SELECT tick FROM clock WHERE scope = ?", (scope,)).fetchone()
        return int(row[0]) if row else 0

    @staticmethod
    def advance_clock(conn: Connection, scope: str) -> int:
        """Advance a scope's clock by one tick inside a write transaction; returns the new tick."""
        row = conn.execute(
            "INSERT INTO clock(scope, tick) VALUES (?, 1) "
            "ON CONFLICT(scope) DO UPDATE SET tick = clock.tick + 1 RETURNING tick",
            (scope,),
        ).fetchone()
        return int(row[0])

    @staticmethod
    def erase_clock(conn: Connection, scope: str) -> None:
        """Forget a scope's decay clock."""
        conn.execute("DELETE FROM clock WHERE scope = ?", (scope,))

    def scrub(self) -> None:  # noqa: B027 (a server reclaims its own space)
        """Make deleted rows gone from the files (not only unreachable): see the subclasses."""

    def clock_scopes(self) -> list[str]:
        """Every scope whose clock has ticked."""
        return [str(r[0]) for r in self.query("SELECT scope FROM clock ORDER BY scope")]



class SqliteDatabase(Database):
    """The embedded record: one SQLite file (WAL) per persona.

    Raises:
        StoreError: the file exists but is not a readable SQLite database; it is left untouched.
    """

    def __init__(
        self, path: Path, *, synchronous: str = "NORMAL", installers: Sequence[Installer] = ()
    ) -> None:
        self.path = path
        self.location = str(path)
        self._lock = threading.RLock()
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self._conn = sqlite3.connect(
                str(path), isolation_level=None, check_same_thread=False, timeout=30.0
            )
            self._conn.execute("PRAGMA journal_mode=WAL")
            self._conn.execute(f"PRAGMA synchronous={synchronous.upper()}")
            self._conn.execute("PRAGMA foreign_keys=ON")
            self._conn.execute("PRAGMA secure_delete=ON")  # freed pages are zeroed: erased is gone
            check = self._conn.execute("PRAGMA quick_check").fetchone()
            if check is None or check[0] != "ok":
                raise sqlite3.DatabaseError(f"integrity check failed: {check}")
            self._wrapped = SqliteConnection(self._conn)
            self._wrapped.script(self.SCHEMA)
            with self._lock:
                for install in installers:
                    install(self._wrapped)
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
    def transaction(self, *, durable: bool = True) -> Iterator[Connection]:
        """One write transaction; commits on success, rolls back on any exception."""
        with self._lock:
            try:
                self._conn.execute("BEGIN IMMEDIATE")
                try:
                    yield self._wrapped
                except BaseException:
                    with contextlib.suppress(sqlite3.Error):
                        self._conn.execute("ROLLBACK")
                    raise
                try:
                    self._conn.execute("COMMIT")
                except sqlite3.Error:
                    with contextlib.suppress(sqlite3.Error):
                        self._conn.execute("ROLLBACK")
                    raise
            except sqlite3.OperationalError as exc:
                engine_error = self._write_error(exc)
                if engine_error is None:
                    raise
                raise engine_error from exc

    def _write_error(self, error: sqlite3.OperationalError) -> StoreError | None:
        """A write refused by the disk, as an engine error naming the folder (``None``: another
        kind of error)."""
        folder = self.path.parent
        text = str(error).lower()
        if "full" in text:
            free = shutil.disk_usage(folder).free if folder.exists() else 0
            return StorageFullError(
                f"the disk holding {folder} is full ({free:,} bytes free): nothing was written; "
                "free some space and retry (the engine resumes by itself)"
            )
        if "readonly" in text or "read-only" in text:
            return StoreError(
                f"the memory database {self.path} cannot be written ({error}); nothing was written"
            )
        return None

    def scrub(self) -> None:
        """Copy the WAL into the file and truncate it: old page images of erased rows go (the
        file's freed pages are already zeroed, ``secure_delete``)."""
        with self._lock:
            self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    def writable(self) -> bool:
        """Whether the file may be written (a read-only folder or file says no)."""
        return os.access(self.path, os.W_OK)

    def query(self, sql: str, params: Sequence[object] = ()) -> list[tuple[object, ...]]:
        """Run a read query and return all rows."""
        with self._lock:
            return list(self._conn.execute(sql, tuple(params)).fetchall())

    @property
    def total_changes(self) -> int:
        """Rows written through this connection since it opened (to check what a call writes)."""
        with self._lock:
            return self._conn.total_changes

    def close(self) -> None:
        """Checkpoint the WAL and close (idempotent)."""
        with self._lock:
            with contextlib.suppress(sqlite3.Error):
                self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            with contextlib.suppress(sqlite3.Error):
                self._conn.close()
