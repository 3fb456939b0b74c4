"""The ``entries`` table: every memory of every layer, the one owner of its SQL.

Layers hold the rules (capacity, decay, thresholds, clean-up) and call this table with their
:class:`~memory.model.Layer` as a parameter; the sync reads and sets the derived-store states
(:class:`~memory.model.IndexState`, :class:`~memory.model.ExportState`). No other module writes
SQL on ``entries``.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Sequence
from datetime import datetime

from memory.archive import ArchivedMemory
from memory.db import Database, from_epoch
from memory.model import INDEXED_LAYERS, ExportState, IndexState, Layer, MemoryEntry, scope_of, user_of

SCHEMA_KEY = "entries_schema"
SCHEMA_VERSION = "3"

SCHEMA = f"""
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
    indexed INTEGER NOT NULL DEFAULT {IndexState.PENDING},
    tags TEXT NOT NULL DEFAULT '[]',
    source TEXT,
    archived_layer TEXT,
    archived_reason TEXT,
    archived_at REAL,
    exported INTEGER NOT NULL DEFAULT {ExportState.DONE},
    pinned INTEGER NOT NULL DEFAULT 0,
    importance REAL
);
CREATE INDEX IF NOT EXISTS entries_layer_scope ON entries(layer, scope, seq);
CREATE INDEX IF NOT EXISTS entries_forget ON entries(layer, scope, forget_at);
CREATE INDEX IF NOT EXISTS entries_unindexed ON entries(indexed, layer);
CREATE INDEX IF NOT EXISTS entries_unexported ON entries(exported);
"""

_COLUMNS = (
    "id, layer, scope, content, note, created_at, significance, changed_at, tags, source, archived_layer, "
    "pinned, importance"
)
_SEARCHED = ",".join(f"'{layer.value}'" for layer in INDEXED_LAYERS)

_HOME = "(layer = ? OR (layer = ? AND archived_layer = ?))"
"""The rows whose vectors live in one layer's collections: its own and its cold (archived) ones."""

Significance = tuple[str, float, int]
"""``(entry id, significance, changed_at tick)`` as stored."""


def install(conn: sqlite3.Connection) -> None:
    """Create the table; version 1 files marked active rows ``indexed = 1`` to mean "never"."""
    conn.executescript(SCHEMA)
    columns = {str(r[1]) for r in conn.execute("PRAGMA table_info(entries)").fetchall()}
    if "pinned" not in columns:  # version 2 files
        conn.execute("ALTER TABLE entries ADD COLUMN pinned INTEGER NOT NULL DEFAULT 0")
    if "importance" not in columns:
        conn.execute("ALTER TABLE entries ADD COLUMN importance REAL")
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (SCHEMA_KEY,)).fetchone()
    if row is None or row[0] != SCHEMA_VERSION:
        conn.execute(
            "UPDATE entries SET indexed = ? WHERE layer = ?", (IndexState.NOT_SEARCHED, Layer.ACTIVE.value)
        )
        conn.execute(
            "INSERT INTO meta(key, value) VALUES (?, ?) "
            "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            (SCHEMA_KEY, SCHEMA_VERSION),
        )


def _entry(row: Sequence[object]) -> MemoryEntry:
    (
        entry_id,
        layer,
        scope,
        content,
        note,
        created_at,
        significance,
        changed_at,
        tags,
        source,
        origin,
        pinned,
        importance,
    ) = row
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
        origin=Layer(str(origin)) if origin is not None and layer == Layer.ARCHIVED.value else None,
        pinned=bool(pinned),
        importance=None if importance is None else float(importance),  # type: ignore[arg-type]
    )


def _marks(values: Sequence[object]) -> str:
    return ",".join("?" * len(values))


class EntryTable:
    """All reads and writes of ``entries``; writes take the caller's transaction."""

    def __init__(self, db: Database) -> None:
        self.db = db

    # -- reads -------------------------------------------------------------------------------

    def live(self, layer: Layer, scope: str | None) -> list[MemoryEntry]:
        """Entries of a layer, oldest first (one scope, or every scope when ``scope`` is None)."""
        sql = f"SELECT {_COLUMNS} FROM entries WHERE layer = ? ORDER BY seq"
        params: tuple[str, ...] = (layer.value,)
        if scope is not None:
            sql = f"SELECT {_COLUMNS} FROM entries WHERE layer = ? AND scope = ? ORDER BY seq"
            params = (layer.value, scope)
        return [_entry(r) for r in self.db.query(sql, params)]

    def by_ids(self, layer: Layer | None, ids: Sequence[str]) -> list[MemoryEntry]:
        """Entries by id (of one layer, or any), in record order; unknown ids are absent."""
        if not ids:
            return []
        layer_clause, params = ("+layer = ? AND", [layer.value]) if layer is not None else ("", [])
        rows = self.db.query(
            f"SELECT {_COLUMNS} FROM entries WHERE {layer_clause} id IN ({_marks(ids)}) ORDER BY seq",
            (*params, *ids),
        )
        return [_entry(r) for r in rows]

    def count(self, layer: Layer, scope: str | None) -> int:
        """Entries of a layer (one scope, or all)."""
        if scope is None:
            return self.db.count("SELECT COUNT(*) FROM entries WHERE layer = ?", (layer.value,))
        return self.db.count(
            "SELECT COUNT(*) FROM entries WHERE layer = ? AND scope = ?", (layer.value, scope)
        )

    def count_cold(self, origin: Layer, scope: str | None) -> int:
        """Cold (archived) entries forgotten from ``origin`` (one scope, or all)."""
        sql = "SELECT COUNT(*) FROM entries WHERE layer = ? AND archived_layer = ?"
        params: tuple[str, ...] = (Layer.ARCHIVED.value, origin.value)
        if scope is not None:
            sql, params = sql + " AND scope = ?", (*params, scope)
        return self.db.count(sql, params)

    def exists(self, layer: Layer, scope: str | None) -> bool:
        """Whether the layer holds an entry (in one scope, or any): one indexed lookup."""
        if scope is None:
            return bool(self.db.query("SELECT 1 FROM entries WHERE layer = ? LIMIT 1", (layer.value,)))
        return bool(
            self.db.query("SELECT 1 FROM entries WHERE layer = ? AND scope = ? LIMIT 1", (layer.value, scope))
        )

    def scopes(self, layer: Layer) -> list[str]:
        """Scopes that hold entries of a layer."""
        rows = self.db.query("SELECT DISTINCT scope FROM entries WHERE layer = ?", (layer.value,))
        return [str(r[0]) for r in rows]

    def ids_by_scope(self, layer: Layer) -> dict[str, set[str]]:
        """Ids whose vectors a layer's collections hold (its cold ones included), by scope."""
        grouped: dict[str, set[str]] = {}
        params = (layer.value, Layer.ARCHIVED.value, layer.value)
        for entry_id, scope in self.db.query(f"SELECT id, scope FROM entries WHERE {_HOME}", params):
            grouped.setdefault(str(scope), set()).add(str(entry_id))
        return grouped

    # -- writes inside a transaction -------------------------------------------------------

    @staticmethod
    def insert(conn: sqlite3.Connection, entries: Iterable[MemoryEntry], state: IndexState) -> int:
        """Insert entries as they are (idempotent by id); returns how many were new."""
        cursor = conn.executemany(
            "INSERT OR IGNORE INTO entries(id, layer, scope, content, note, created_at, significance, "
            "changed_at, indexed, tags, source, pinned) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (
                    e.id,
                    e.layer.value,
                    scope_of(e.user_id),
                    e.content,
                    e.note,
                    e.created_at.timestamp(),
                    e.significance,
                    e.changed_at,
                    int(state),
                    json.dumps(list(e.tags), ensure_ascii=False),
                    e.source,
                    int(e.pinned),
                )
                for e in entries
            ],
        )
        return max(cursor.rowcount, 0)

    @staticmethod
    def beyond_newest(conn: sqlite3.Connection, layer: Layer, scope: str, keep: int) -> list[MemoryEntry]:
        """Entries of a scope older than its newest ``keep``, oldest first."""
        rows = conn.execute(
            f"SELECT {_COLUMNS} FROM entries WHERE layer = ? AND scope = ? "
            "ORDER BY seq DESC LIMIT -1 OFFSET ?",
            (layer.value, scope, keep),
        ).fetchall()
        return [_entry(r) for r in reversed(rows)]

    @staticmethod
    def move(
        conn: sqlite3.Connection,
        source: Layer,
        target: Layer,
        updates: Sequence[tuple[str, float, int, int | None]],
    ) -> None:
        """Move entries ``(id, significance, changed_at, forget_at)`` to another searchable layer."""
        conn.executemany(
            "UPDATE entries SET layer = ?, significance = ?, changed_at = ?, forget_at = ?, indexed = ? "
            "WHERE id = ? AND layer = ?",
            [(target.value, s, c, f, int(IndexState.PENDING), i, source.value) for i, s, c, f in updates],
        )

    @staticmethod
    def significances(
        conn: sqlite3.Connection, layer: Layer, scope: str, ids: Sequence[str] | None = None
    ) -> list[Significance]:
        """Stored significance of a scope's entries (all, or the given ids)."""
        if ids is None:
            rows = conn.execute(
                "SELECT id, significance, changed_at FROM entries WHERE layer = ? AND scope = ?",
                (layer.value, scope),
            ).fetchall()
        else:
            rows = conn.execute(  # '+': look rows up by id, not through the layer index
                "SELECT id, significance, changed_at FROM entries "
                f"WHERE +layer = ? AND +scope = ? AND pinned = 0 AND id IN ({_marks(ids)})",
                (layer.value, scope, *ids),
            ).fetchall()
        return [(str(i), float(s), int(c)) for i, s, c in rows]

    @staticmethod
    def due(conn: sqlite3.Connection, layer: Layer, scope: str, tick: int) -> list[Significance]:
        """Entries of a scope whose forget tick has come."""
        rows = conn.execute(
            "SELECT id, significance, changed_at FROM entries "
            "WHERE layer = ? AND scope = ? AND forget_at <= ?",
            (layer.value, scope, tick),
        ).fetchall()
        return [(str(i), float(s), int(c)) for i, s, c in rows]

    @staticmethod
    def set_significance(
        conn: sqlite3.Connection, updates: Sequence[tuple[str, float, int, int | None]]
    ) -> None:
        """Store ``(id, significance, changed_at, forget_at)`` after a recall."""
        conn.executemany(
            "UPDATE entries SET significance = ?, changed_at = ?, forget_at = ? WHERE id = ?",
            [(s, c, f, i) for i, s, c, f in updates],
        )

    @staticmethod
    def archive(
        conn: sqlite3.Connection, layer: Layer, finals: Sequence[tuple[str, float]], reason: str, at: datetime
    ) -> None:
        """Demote entries ``(id, final significance)`` of a layer to the cold tier; the sync logs
        them to the archive file. Their vectors stay where they are: cold is a state of the row."""
        archived, pending = Layer.ARCHIVED.value, int(ExportState.PENDING)
        conn.executemany(
            "UPDATE entries SET layer = ?, archived_layer = ?, archived_reason = ?, archived_at = ?, "
            "significance = ?, exported = ? WHERE id = ? AND layer = ?",
            [
                (archived, layer.value, reason, at.timestamp(), value, pending, i, layer.value)
                for i, value in finals
            ],
        )

    @staticmethod
    def cold_origin(conn: sqlite3.Connection, entry_id: str) -> tuple[Layer, str] | None:
        """``(origin layer, scope)`` of a cold entry, ``None`` when the id is not cold."""
        row = conn.execute(
            "SELECT archived_layer, scope FROM entries WHERE id = ? AND layer = ?",
            (entry_id, Layer.ARCHIVED.value),
        ).fetchone()
        return None if row is None or row[0] is None else (Layer(str(row[0])), str(row[1]))

    @staticmethod
    def revive(
        conn: sqlite3.Connection, origin: Layer, updates: Sequence[tuple[str, float, int, int | None]]
    ) -> int:
        """Bring cold entries ``(id, significance, changed_at, forget_at)`` back to ``origin``.

        The ``archived_*`` columns keep describing the last forgetting, so a record not yet in the
        archive file still gets there.
        """
        cursor = conn.executemany(
            "UPDATE entries SET layer = ?, significance = ?, changed_at = ?, forget_at = ? "
            "WHERE id = ? AND layer = ? AND archived_layer = ?",
            [(origin.value, s, c, f, i, Layer.ARCHIVED.value, origin.value) for i, s, c, f in updates],
        )
        return max(cursor.rowcount, 0)

    @staticmethod
    def set_note(conn: sqlite3.Connection, entry_id: str, note: str) -> None:
        """Attach a model note; a searchable entry is re-embedded with it."""
        conn.execute(
            f"UPDATE entries SET note = ?, "
            f"indexed = CASE WHEN layer IN ({_SEARCHED}) THEN ? ELSE indexed END WHERE id = ?",
            (note, int(IndexState.PENDING), entry_id),
        )

    @staticmethod
    def set_importance(conn: sqlite3.Connection, entry_id: str, importance: float) -> None:
        """Record how important the summary model judged an entry (0 to 1)."""
        conn.execute("UPDATE entries SET importance = ? WHERE id = ?", (importance, entry_id))

    @staticmethod
    def delete(conn: sqlite3.Connection, layer: Layer, ids: Sequence[str]) -> None:
        """Delete entries of a layer (static memories removed from their files)."""
        conn.executemany("DELETE FROM entries WHERE id = ? AND layer = ?", [(i, layer.value) for i in ids])

    # -- the vector index state ------------------------------------------------------------

    def pending_index(self, layer: Layer, limit: int) -> list[MemoryEntry]:
        """Entries of a layer (its cold ones included) waiting for the vector index, oldest first."""
        rows = self.db.query(
            f"SELECT {_COLUMNS} FROM entries WHERE indexed = ? AND {_HOME} ORDER BY seq LIMIT ?",
            (int(IndexState.PENDING), layer.value, Layer.ARCHIVED.value, layer.value, limit),
        )
        return [_entry(r) for r in rows]

    def pending_index_count(self) -> int:
        """Searchable entries not yet in the vector index."""
        return self.db.count(
            f"SELECT COUNT(*) FROM entries WHERE indexed = ? AND layer IN ({_SEARCHED})",
            (int(IndexState.PENDING),),
        )

    def has_pending_index(self) -> bool:
        """Whether any searchable entry waits for the index (one indexed lookup)."""
        return bool(
            self.db.query(
                f"SELECT 1 FROM entries WHERE indexed = ? AND layer IN ({_SEARCHED}) LIMIT 1",
                (int(IndexState.PENDING),),
            )
        )

    def set_index_state(self, layer: Layer, ids: Sequence[str] | None, state: IndexState) -> None:
        """Set the index state of a layer's entries, cold ones included (the given ids, or all)."""
        home = (layer.value, Layer.ARCHIVED.value, layer.value)
        with self.db.transaction() as conn:
            if ids is None:
                conn.execute(f"UPDATE entries SET indexed = ? WHERE {_HOME}", (int(state), *home))
            else:
                conn.executemany(
                    f"UPDATE entries SET indexed = ? WHERE id = ? AND {_HOME}",
                    [(int(state), i, *home) for i in ids],
                )

    # -- the archive file state ------------------------------------------------------------

    def has_unexported(self) -> bool:
        """Whether an archived entry still waits for the archive file."""
        states = (int(ExportState.PENDING), int(ExportState.EXPORTING))
        return bool(self.db.query("SELECT 1 FROM entries WHERE exported IN (?, ?) LIMIT 1", states))

    def to_export(self, state: ExportState) -> list[ArchivedMemory]:
        """Archived entries in an export state, in archive order."""
        rows = self.db.query(
            "SELECT id, archived_layer, scope, content, note, created_at, archived_at, significance, "
            "archived_reason FROM entries WHERE exported = ? ORDER BY archived_at",
            (int(state),),
        )
        return [
            ArchivedMemory(
                id=str(r[0]),
                layer=str(r[1]),
                user_id=user_of(str(r[2])),
                content=str(r[3]),
                note=None if r[4] is None else str(r[4]),
                created_at=from_epoch(float(r[5])),  # type: ignore[arg-type]
                archived_at=from_epoch(float(r[6])),  # type: ignore[arg-type]
                significance=float(r[7]),  # type: ignore[arg-type]
                reason=str(r[8]),
            )
            for r in rows
        ]

    def set_export_state(self, ids: Sequence[str], state: ExportState) -> None:
        """Move archived entries to an export state in one transaction."""
        with self.db.transaction() as conn:
            conn.executemany("UPDATE entries SET exported = ? WHERE id = ?", [(int(state), i) for i in ids])
