"""The embedded system of record: one SQLite file (WAL) per persona, and the lock on its folder.

One ``BEGIN IMMEDIATE`` ... ``COMMIT`` under a process-wide lock per write; ``secure_delete`` on,
so erased rows leave zeroed pages (:mod:`memory.write.erase`).
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
import shutil
import sqlite3
import threading
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

from memory.errors import ReadOnlyStoreError, StorageFullError, StoreError, StoreLockedError
from memory.record.db import Connection, Cursor, Database, Installer

logger = logging.getLogger(__name__)


class SqliteConnection:
    """A :class:`Connection` over one ``sqlite3`` connection."""

    dialect = "sqlite"

    def __init__(self, conn: sqlite3.Connection, *, read_only: bool = False) -> None:
        self.raw = conn
        self.read_only = read_only

    def execute(self, sql: str, params: Sequence[object] = ()) -> Cursor:
        return self.raw.execute(sql, tuple(params))

    def executemany(self, sql: str, rows: Iterable[Sequence[object]]) -> Cursor:
        return self.raw.executemany(sql, rows)

    def script(self, sql: str) -> None:
        self.raw.executescript(sql)

    def columns(self, table: str) -> set[str]:
        return {str(r[1]) for r in self.raw.execute(f"PRAGMA table_info({table})").fetchall()}


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


class SqliteDatabase(Database):
    """The embedded record: one SQLite file (WAL) per persona.

    Raises:
        StoreError: the file exists but is not a readable SQLite database; it is left untouched.
    """

    def __init__(
        self,
        path: Path,
        *,
        synchronous: str = "NORMAL",
        installers: Sequence[Installer] = (),
        read_only: bool = False,
    ) -> None:
        self.path = path
        self.location = str(path)
        self.folder = path.parent
        self.read_only = read_only
        self._lock = threading.RLock()
        try:
            self._conn = self._connect(path, read_only)
        except sqlite3.OperationalError as exc:
            raise StoreError(f"cannot open the memory database {path}: {exc}") from exc
        try:
            if not read_only:
                self._conn.execute("PRAGMA journal_mode=WAL")
            self._conn.execute(f"PRAGMA synchronous={synchronous.upper()}")
            self._conn.execute("PRAGMA foreign_keys=ON")
            self._conn.execute("PRAGMA secure_delete=ON")  # freed pages are zeroed: erased is gone
            check = self._conn.execute("PRAGMA quick_check").fetchone()
            if check is None or check[0] != "ok":
                raise sqlite3.DatabaseError(f"integrity check failed: {check}")
            self._wrapped = SqliteConnection(self._conn, read_only=read_only)
            self._wrapped.script(self.SCHEMA)
            with self._lock:
                for install in installers:
                    install(self._wrapped)
        except StoreError:  # read-only and in need of an upgrade, or made by a newer version
            self._conn.close()
            raise
        except sqlite3.OperationalError as exc:
            with contextlib.suppress(Exception):
                self._conn.close()
            if read_only and "readonly" in str(exc).lower():
                raise ReadOnlyStoreError(
                    f"the memory database {path} needs an upgrade, and its folder is read-only: "
                    "open it once where it can be written"
                ) from exc
            raise StoreError(f"cannot open the memory database {path}: {exc}") from exc
        except sqlite3.DatabaseError as exc:
            with contextlib.suppress(Exception):
                self._conn.close()
            raise StoreError(
                f"the memory database {path} is unreadable ({exc}). It was left as it is. "
                "Restore it from a backup, or move it aside (e.g. rename it to "
                f"{path.name}.corrupt) to start this persona with an empty memory."
            ) from exc

    @staticmethod
    def _connect(path: Path, read_only: bool) -> sqlite3.Connection:
        """A connection; read-only ones never create or change a file (``immutable`` when the
        folder cannot hold the WAL's shared-memory file: nothing can write there either)."""
        options = {"isolation_level": None, "check_same_thread": False, "timeout": 30.0}
        if not read_only:
            path.parent.mkdir(parents=True, exist_ok=True)
            return sqlite3.connect(str(path), **options)  # type: ignore[arg-type]
        if not path.is_file():
            raise ReadOnlyStoreError(f"{path.parent} is read-only and holds no memory database {path.name}")
        immutable = "" if Path(f"{path}-shm").exists() else "&immutable=1"
        return sqlite3.connect(f"{path.as_uri()}?mode=ro{immutable}", uri=True, **options)  # type: ignore[arg-type]

    @contextlib.contextmanager
    def _transaction(self, *, durable: bool = True) -> Iterator[Connection]:
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
            return ReadOnlyStoreError(
                f"the memory database {self.path} cannot be written ({error}); nothing was written"
            )
        return None

    def scrub(self) -> None:
        """Copy the WAL into the file and truncate it: old page images of erased rows go (the
        file's freed pages are already zeroed, ``secure_delete``)."""
        with self._lock:
            self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            try:  # rewrites every page: no erased bytes left in the unused space of live pages
                self._conn.execute("VACUUM")
            except sqlite3.OperationalError as exc:  # a reader holds the file: the next scrub does it
                logger.warning("VACUUM after an erase deferred (%s)", exc)
            self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    def writable(self) -> bool:
        """Whether the file may be written (a read-only folder or file says no)."""
        return not self.read_only and os.access(self.path, os.W_OK)

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
