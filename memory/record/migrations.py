"""Numbered schema migrations, one list per table owner, and the version each record reached.

Each module that owns tables (the journal, entries, the profile, the tombstones) declares its
:class:`Migrations`: steps in order, step *n* bringing its tables from version *n - 1* to *n*.
The version a record has reached is kept in its ``meta`` table (``schema:<owner>``); opening
the record runs the steps after it, writing the version after each. A step may run again after
a crash before its version was written: it creates only what is missing. A record made before
versions were kept is given its version once, from its columns (``legacy``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from memory.errors import StoreError
from memory.record.db import Connection, write_meta

Step = Callable[[Connection], None]
"""One migration: brings an owner's tables one version up."""


def _none_kept(conn: Connection) -> int:
    return 0


@dataclass(frozen=True)
class Migrations:
    """An owner's migration steps (an :data:`~memory.record.db.Installer`: run when the record
    opens).

    Args:
        owner: names the version's ``meta`` row.
        steps: the migrations in order.
        legacy: the version of a record that names none (made before versions were kept).
    """

    owner: str
    steps: Sequence[Step]
    legacy: Callable[[Connection], int] = _none_kept

    @property
    def version(self) -> int:
        """The version the steps reach."""
        return len(self.steps)

    def __call__(self, conn: Connection) -> None:
        key = f"schema:{self.owner}"
        row = conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        reached = int(row[0]) if row is not None else self.legacy(conn)
        if reached > self.version:
            raise StoreError(
                f"the record's {self.owner} tables are at version {reached}, made by a newer "
                f"persona-memory (this one knows up to {self.version}): upgrade persona-memory"
            )
        for number, step in enumerate(self.steps[reached:], start=reached + 1):
            step(conn)
            if not conn.read_only:
                write_meta(conn, key, str(number))
        if row is None and not conn.read_only:
            write_meta(conn, key, str(self.version))


def add_column(conn: Connection, table: str, column: str, definition: str) -> None:
    """Add a column unless the table has it (a step run again after a crash)."""
    if column not in conn.columns(table):
        conn.script(f"ALTER TABLE {table} ADD COLUMN {column} {definition}")


def speed_index(sql: str) -> Step:
    """A step that creates an index (``CREATE INDEX IF NOT EXISTS ...``) that only speeds reads
    up: a read-only record made before it is read without it, and the next writable open adds
    it."""

    def step(conn: Connection) -> None:
        if not conn.read_only:
            conn.script(sql)

    return step


def version_by_columns(table: str, *added: str) -> Callable[[Connection], int]:
    """The ``legacy`` of an owner whose versions after the first each added one column, in
    ``added`` order: 0 without ``table``, else 1 plus the number of those columns it has."""

    def legacy(conn: Connection) -> int:
        columns = conn.columns(table)
        return 0 if not columns else 1 + sum(column in columns for column in added)

    return legacy
