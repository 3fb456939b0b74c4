"""Whole-row operations on ``entries``: export and restore, erasure, LangGraph store keys, and
what the summary model adds to a row (a note, an importance)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from memory.domain.types import IndexState, Layer, MemoryEntry
from memory.record.db import Connection, Database
from memory.record.entries.schema import COLUMNS, EXPORTED, RESTORED, SEARCHED, entry_of, marks, restored
from memory.record.entries.states import DerivedStates

KeywordWriter = Callable[[Connection, Iterable[tuple[str, str, str | None, str]]], None]
"""Indexes ``(entry id, scope, note, content)`` rows for keyword search inside a write (a record
whose keyword index cannot keep itself in step by triggers: Postgres)."""


class WholeRows(DerivedStates):
    """Reads and writes of whole entries (a base of :class:`~memory.record.entries.EntryTable`).

    Args:
        keywords: indexes written rows for keyword search (``None``: the database's triggers do).
    """

    def __init__(self, db: Database, keywords: KeywordWriter | None = None) -> None:
        super().__init__(db)
        self.keywords = keywords

    def by_key(self, scope: str, key: str) -> MemoryEntry | None:
        """The entry a store key names in a scope (the static layer has no keys)."""
        rows = self.db.query(f"SELECT {COLUMNS} FROM entries WHERE scope = ? AND key = ?", (scope, key))
        return entry_of(rows[0]) if rows else None

    def exported(self, scopes: Sequence[str]) -> list[dict[str, object]]:
        """Every memory of some scopes as export rows, in record order (static memories live in
        the persona's files, not here)."""
        rows = self.db.rows("entries", EXPORTED, scopes)
        return [row for row in rows if row["layer"] != Layer.STATIC.value]

    def restore(self, conn: Connection, rows: Sequence[dict[str, object]]) -> None:
        """Insert exported rows as they were; the index and the archive file follow."""
        Database.insert_rows(conn, "entries", RESTORED, [restored(row) for row in rows])
        if self.keywords is not None:
            self.keywords(conn, [(str(r["id"]), str(r["scope"]), r["note"], str(r["content"])) for r in rows])  # type: ignore[misc]

    @staticmethod
    def told_before(
        conn: Connection, layer: Layer, scope: str, content: str, source: str
    ) -> tuple[str, bool, bool] | None:
        """``(id, cold, pinned)`` of a scope's entry of ``layer`` (or forgotten from it) with this
        exact text and source: what ``remember`` refreshes rather than stores twice."""
        row = conn.execute(
            "SELECT id, layer, pinned FROM entries WHERE scope = ? AND content = ? AND source = ? "
            "AND (layer = ? OR (layer = ? AND archived_layer = ?)) ORDER BY seq DESC LIMIT 1",
            (scope, content, source, layer.value, Layer.ARCHIVED.value, layer.value),
        ).fetchone()
        return None if row is None else (str(row[0]), str(row[1]) == Layer.ARCHIVED.value, bool(row[2]))

    @staticmethod
    def set_pinned(conn: Connection, entry_id: str) -> None:
        """Pin an entry: it never decays from now on."""
        conn.execute("UPDATE entries SET pinned = 1, forget_at = NULL WHERE id = ?", (entry_id,))

    @staticmethod
    def id_of_key(conn: Connection, scope: str, key: str) -> str | None:
        """The id of the entry a store key names inside a write: its keyed entry, else the entry of
        that id (a store lists memories without a key by their id)."""
        row = conn.execute(
            "SELECT id FROM entries WHERE scope = ? AND (key = ? OR (key IS NULL AND id = ?)) "
            "ORDER BY key IS NULL LIMIT 1",
            (scope, key, key),
        ).fetchone()
        return None if row is None else str(row[0])

    def set_content(self, conn: Connection, entry_id: str, content: str, item: str | None) -> None:
        """Replace an entry's text (a store ``put`` to its key); it is re-embedded and re-indexed."""
        conn.execute(
            f"UPDATE entries SET content = ?, item = ?, line_vectors = NULL, "
            f"indexed = CASE WHEN layer IN ({SEARCHED}) THEN ? ELSE indexed END WHERE id = ?",
            (content, item, int(IndexState.PENDING), entry_id),
        )
        if self.keywords is not None:
            rows = conn.execute("SELECT id, scope, note, content FROM entries WHERE id = ?", (entry_id,))
            self.keywords(conn, [(str(i), str(s), n, str(c)) for i, s, n, c in rows.fetchall()])

    @staticmethod
    def erase_ids(conn: Connection, ids: Sequence[str]) -> None:
        """Delete entries by id, whatever their layer."""
        conn.executemany("DELETE FROM entries WHERE id = ?", [(i,) for i in ids])

    @staticmethod
    def erase_scope(conn: Connection, scope: str) -> int:
        """Delete every entry of a scope, in every layer and tier; returns how many."""
        return max(conn.execute("DELETE FROM entries WHERE scope = ?", (scope,)).rowcount, 0)

    def set_note(self, conn: Connection, entry_id: str, note: str) -> None:
        """Attach a model note; a searchable entry is re-embedded (and re-indexed) with it."""
        conn.execute(
            f"UPDATE entries SET note = ?, "
            f"indexed = CASE WHEN layer IN ({SEARCHED}) THEN ? ELSE indexed END WHERE id = ?",
            (note, int(IndexState.PENDING), entry_id),
        )
        if self.keywords is not None:
            rows = conn.execute("SELECT id, scope, note, content FROM entries WHERE id = ?", (entry_id,))
            self.keywords(conn, [(str(i), str(s), str(n), str(c)) for i, s, n, c in rows.fetchall()])

    @staticmethod
    def importances(conn: Connection, ids: Sequence[str]) -> dict[str, float]:
        """The stored importance of entries that have one."""
        if not ids:
            return {}
        rows = conn.execute(
            f"SELECT id, importance FROM entries WHERE id IN ({marks(ids)}) AND importance IS NOT NULL",
            tuple(ids),
        ).fetchall()
        return {str(i): float(v) for i, v in rows}

    @staticmethod
    def set_importance(conn: Connection, entry_id: str, importance: float) -> None:
        """Record how important the summary model judged an entry (0 to 1)."""
        conn.execute("UPDATE entries SET importance = ? WHERE id = ?", (importance, entry_id))
