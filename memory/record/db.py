"""The system of record's interface: transactions, reads, bookkeeping and decay clocks.

One database per persona; Chroma is derived from it. All writes go through
:meth:`Database.transaction`. :class:`Database` holds what every record shares (the SQL of the
``meta`` and ``clock`` tables, the read helpers); :mod:`memory.record.sqlite` is the embedded record,
:mod:`memory.record.postgres` the server one. SQL is written once, in SQLite's spelling with ``?``
placeholders; the Postgres record translates it (:func:`memory.record.postgres.to_postgres`).
"""

from __future__ import annotations

import abc
import contextlib
import logging
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

from memory.errors import ReadOnlyStoreError

logger = logging.getLogger(__name__)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS clock (scope TEXT PRIMARY KEY, tick INTEGER NOT NULL);
"""
CLOCK_COLUMNS = ("scope", "tick")
"""The columns of a scope's decay clock in an export."""


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
    read_only: bool
    """An installer only checks what it would create (a memory opened read-only)."""

    def execute(self, sql: str, params: Sequence[object] = ()) -> Cursor: ...

    def executemany(self, sql: str, rows: Iterable[Sequence[object]]) -> Cursor: ...

    def script(self, sql: str) -> None:
        """Run statements separated by ``;`` (schema), without parameters."""

    def columns(self, table: str) -> set[str]:
        """The column names of a table (empty when it does not exist)."""


Installer = Callable[[Connection], object]
"""Creates (or migrates) the tables of one owner module when the database is opened."""


def from_epoch(seconds: float) -> datetime:
    """An aware UTC datetime from epoch seconds."""
    return datetime.fromtimestamp(seconds, UTC)


def write_meta(conn: Connection, key: str, value: str, *, keep: bool = False) -> None:
    """The one writer of the ``meta`` table (a key's value; ``keep``: only if it has none)."""
    action = "NOTHING" if keep else "UPDATE SET value = excluded.value"
    conn.execute(f"INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO {action}", (key, value))


class Database(abc.ABC):
    """The database of one persona: transactions, reads, bookkeeping, decay clocks.

    Owns the ``meta`` and ``clock`` tables; every other table is created by the module that owns
    it, through the ``installers`` run when the database is opened. Subclasses provide the
    connection: :meth:`transaction`, :meth:`query`, :attr:`total_changes` and :meth:`close`.
    """

    SCHEMA = _SCHEMA
    location = ""
    """Where the record lives, for messages (a file path, or a server and database)."""
    read_only = False
    """Opened for reading only: every transaction is refused."""
    folder: Path | None = None
    """The data folder the persona's files live in: a write is refused while it is read-only
    (the vector index and the archive could not follow it)."""

    def transaction(self, *, durable: bool = True) -> contextlib.AbstractContextManager[Connection]:
        """One write transaction; commits on success, rolls back on any exception.

        Args:
            durable: the commit waits until the write is on disk (what acknowledges an
                interaction); ``False`` lets a server confirm first (a retrieval's decay tick:
                SQLite's WAL mode with ``synchronous=NORMAL`` gives that to every commit).

        Raises:
            ReadOnlyStoreError: the record or its data folder is read-only; nothing is written.
        """
        self.check_writable()
        return self._transaction(durable=durable)

    def check_writable(self) -> None:
        """Raise :class:`ReadOnlyStoreError` when a write could not be completed everywhere."""
        if self.read_only:
            raise ReadOnlyStoreError(
                f"the memory in {self.folder or self.location} was opened read-only "
                "(its folder could not be written): nothing was written; reads work"
            )
        if self.folder is not None and not os.access(self.folder, os.W_OK):
            raise ReadOnlyStoreError(
                f"the data folder {self.folder} is read-only: nothing was written; reads work"
            )

    @abc.abstractmethod
    def _transaction(self, *, durable: bool) -> contextlib.AbstractContextManager[Connection]:
        """The backend's write transaction (:meth:`transaction` has checked the folder)."""

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
        if conn is not None:
            write_meta(conn, key, value)
            return
        with self.transaction() as own:
            write_meta(own, key, value)

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

    def rows(
        self, table: str, columns: Sequence[str], scopes: Sequence[str], *, ordered: bool = True
    ) -> list[dict[str, object]]:
        """Rows of a table's scopes as dicts (in record order when ``ordered``), for an export;
        ``table`` and ``columns`` are the owner module's constants, never user input."""
        if not scopes:
            return []
        order = " ORDER BY seq" if ordered else ""
        where = f"scope IN ({','.join('?' * len(scopes))})"
        sql = f"SELECT {', '.join(columns)} FROM {table} WHERE {where}{order}"
        return [dict(zip(columns, row, strict=True)) for row in self.query(sql, tuple(scopes))]

    @staticmethod
    def insert_rows(
        conn: Connection, table: str, columns: Sequence[str], rows: Iterable[Mapping[str, object]]
    ) -> None:
        """Insert exported rows as they were (inside the caller's transaction)."""
        sql = f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({','.join('?' * len(columns))})"
        conn.executemany(sql, [tuple(row.get(c) for c in columns) for row in rows])

    def clock_scopes(self) -> list[str]:
        """Every scope whose clock has ticked."""
        return [str(r[0]) for r in self.query("SELECT scope FROM clock ORDER BY scope")]
