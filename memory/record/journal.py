"""The journal: every interaction as recorded, and the summary buffer (SQLite table ``interactions``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from memory.domain.types import Interaction, scope_of, user_of
from memory.record.db import Connection, Database, from_epoch
from memory.record.migrations import Migrations, add_column, version_by_columns

_COLUMNS = "id, scope, user_input, response, timestamp, note"
EXPORTED = ("id", "scope", "user_input", "response", "timestamp", "note", "buffered", "summary_id")
"""The columns of an interaction in an export (see :mod:`memory.transfer`)."""

SCHEMA = """
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
"""


install = Migrations(
    "journal",
    (
        lambda conn: conn.script(SCHEMA),
        # the summary that read it (an erase takes what a model made of its words)
        lambda conn: add_column(conn, "interactions", "summary_id", "TEXT"),
    ),
    legacy=version_by_columns("interactions", "summary_id"),
)
"""Create or migrate the ``interactions`` table (an :data:`memory.record.db.Installer`)."""


def _from_row(row: Sequence[object]) -> Interaction:
    entry_id, scope, user_input, response, timestamp, note = row
    return Interaction(
        id=str(entry_id),
        user_input=str(user_input),
        response=str(response),
        timestamp=from_epoch(float(timestamp)),  # type: ignore[arg-type]
        user_id=user_of(str(scope)),
        note=None if note is None else str(note),
    )


def readers(order: Sequence[str | None], window: int) -> set[str]:
    """The summaries that read an interaction, from the ``summary_id`` of it and of every
    interaction of its user recorded after it, in record order (``order[0]`` is its own): the
    one that took it from the buffer, and each written while it was among the ``window`` newest
    (a summary is shown the active window beside its buffer, and its buffer's newest interaction
    is the newest recorded when it was written). An interaction erased since counts as never
    recorded: one summary more may be counted, never one less."""
    newest: dict[str, int] = {}
    for place, summary_id in enumerate(order):
        if summary_id is not None:
            newest[summary_id] = place
    own = {order[0]} if order and order[0] is not None else set()
    return own | {summary_id for summary_id, place in newest.items() if place < window}


def interaction_of(row: Mapping[str, object]) -> Interaction:
    """An interaction from its row in an export."""
    return _from_row(tuple(row.get(column) for column in _COLUMNS.split(", ")))


class Journal:
    """Append-only record of interactions plus the ``buffered`` flag of the summary buffer."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def append(self, conn: Connection, interactions: Sequence[Interaction]) -> int:
        """Record interactions (ignored when the id is already there: retries are idempotent).

        Returns:
            How many were new.
        """
        cursor = conn.executemany(
            "INSERT INTO interactions(id, scope, user_input, response, timestamp, note) "
            "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
            [
                (
                    i.id,
                    scope_of(i.user_id),
                    i.user_input,
                    i.response,
                    i.timestamp.timestamp(),
                    i.note,
                )
                for i in interactions
            ],
        )
        return max(cursor.rowcount, 0)

    @staticmethod
    def erase_ids(conn: Connection, ids: Sequence[str]) -> None:
        """Delete interactions by id."""
        conn.executemany("DELETE FROM interactions WHERE id = ?", [(i,) for i in ids])

    @staticmethod
    def erase_scope(conn: Connection, scope: str) -> int:
        """Delete every interaction of a scope; returns how many."""
        return max(conn.execute("DELETE FROM interactions WHERE scope = ?", (scope,)).rowcount, 0)

    def set_note(self, conn: Connection, interaction_id: str, note: str) -> None:
        """Attach the model's one-line summary to a recorded interaction."""
        conn.execute("UPDATE interactions SET note = ? WHERE id = ?", (note, interaction_id))

    def exported(self, scopes: Sequence[str]) -> list[dict[str, object]]:
        """Every interaction of some scopes as export rows, in record order."""
        return self.db.rows("interactions", EXPORTED, scopes)

    @staticmethod
    def restore(conn: Connection, rows: Sequence[dict[str, object]]) -> None:
        """Insert exported interactions as they were."""
        Database.insert_rows(conn, "interactions", EXPORTED, rows)

    def get(self, interaction_id: str) -> Interaction | None:
        """One interaction by id."""
        rows = self.db.query(f"SELECT {_COLUMNS} FROM interactions WHERE id = ?", (interaction_id,))
        return _from_row(rows[0]) if rows else None

    def buffered(self, scope: str) -> list[Interaction]:
        """Interactions of a scope recorded since its last summary, oldest first."""
        rows = self.db.query(
            f"SELECT {_COLUMNS} FROM interactions WHERE scope = ? AND buffered = 1 ORDER BY seq",
            (scope,),
        )
        return [_from_row(r) for r in rows]

    def by_ids(self, ids: Sequence[str]) -> list[Interaction]:
        """Interactions by id, in record order."""
        if not ids:
            return []
        marks = ",".join("?" * len(ids))
        rows = self.db.query(
            f"SELECT {_COLUMNS} FROM interactions WHERE id IN ({marks}) ORDER BY seq", tuple(ids)
        )
        return [_from_row(r) for r in rows]

    def scopes(self) -> list[str]:
        """Every scope that has recorded an interaction."""
        return [str(r[0]) for r in self.db.query("SELECT DISTINCT scope FROM interactions ORDER BY 1")]

    def buffered_scopes(self) -> list[str]:
        """Scopes with a non-empty buffer."""
        rows = self.db.query("SELECT DISTINCT scope FROM interactions WHERE buffered = 1")
        return [str(r[0]) for r in rows]

    def clear_buffer(self, conn: Connection, ids: Sequence[str], summary_id: str) -> None:
        """Mark interactions as summarised, by the summary ``summary_id``."""
        conn.executemany(
            "UPDATE interactions SET buffered = 0, summary_id = ? WHERE id = ?",
            [(summary_id, i) for i in ids],
        )

    @staticmethod
    def existing(conn: Connection, ids: Sequence[str]) -> set[str]:
        """Which of ``ids`` are still recorded (not erased meanwhile)."""
        if not ids:
            return set()
        marks = ",".join("?" * len(ids))
        rows = conn.execute(f"SELECT id FROM interactions WHERE id IN ({marks})", tuple(ids)).fetchall()
        return {str(i) for (i,) in rows}

    def read_by(self, interaction_id: str, window: int) -> set[str]:
        """The summaries that read an interaction (:func:`readers`)."""
        found = self.db.query("SELECT seq, scope FROM interactions WHERE id = ?", (interaction_id,))
        if not found:
            return set()
        seq, scope = found[0]
        rows = self.db.query(
            "SELECT summary_id FROM interactions WHERE scope = ? AND seq >= ? ORDER BY seq", (scope, seq)
        )
        return readers([None if r[0] is None else str(r[0]) for r in rows], window)

    @staticmethod
    def rebuffer(conn: Connection, summary_id: str) -> int:
        """Put the interactions one summary read back in the buffer (the summary is gone: the
        next summary job reads them again); returns how many."""
        cursor = conn.execute(
            "UPDATE interactions SET buffered = 1, summary_id = NULL WHERE summary_id = ?", (summary_id,)
        )
        return max(cursor.rowcount, 0)

    def buffer_count(self, scope: str | None = None) -> int:
        """Buffered interactions (one scope, or all when ``scope`` is None)."""
        if scope is None:
            return self.db.count("SELECT COUNT(*) FROM interactions WHERE buffered = 1")
        return self.db.count("SELECT COUNT(*) FROM interactions WHERE buffered = 1 AND scope = ?", (scope,))

    def count(self) -> int:
        """Every interaction ever recorded."""
        return self.db.count("SELECT COUNT(*) FROM interactions")
