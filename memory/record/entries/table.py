"""Reads and writes of ``entries`` rows: what layers and the decay tick ask of the table."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from datetime import datetime

from memory.domain.types import ExportState, IndexState, Layer, MemoryEntry, scope_of
from memory.record.db import Connection
from memory.record.entries.rows import WholeRows
from memory.record.entries.schema import (
    COLUMNS,
    HOME,
    Significance,
    entry_of,
    marks,
)  # fmt: skip


class EntryTable(WholeRows):
    """All reads and writes of ``entries``; writes take the caller's transaction.

    Args:
        keywords: indexes written rows for keyword search (``None``: the database's triggers do).
    """

    # -- reads -------------------------------------------------------------------------------

    def live(self, layer: Layer, scope: str | None) -> list[MemoryEntry]:
        """Entries of a layer, oldest first (one scope, or every scope when ``scope`` is None)."""
        sql = f"SELECT {COLUMNS} FROM entries WHERE layer = ? ORDER BY seq"
        params: tuple[str, ...] = (layer.value,)
        if scope is not None:
            sql = f"SELECT {COLUMNS} FROM entries WHERE layer = ? AND scope = ? ORDER BY seq"
            params = (layer.value, scope)
        return [entry_of(r) for r in self.db.query(sql, params)]

    def by_ids(self, layer: Layer | None, ids: Sequence[str]) -> list[MemoryEntry]:
        """Entries by id (of one layer, or any), in record order; unknown ids are absent."""
        if not ids:
            return []
        layer_clause, params = ("+layer = ? AND", [layer.value]) if layer is not None else ("", [])
        rows = self.db.query(
            f"SELECT {COLUMNS} FROM entries WHERE {layer_clause} id IN ({marks(ids)}) ORDER BY seq",
            (*params, *ids),
        )
        return [entry_of(r) for r in rows]

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

    def home_ids(self, layer: Layer, scope: str) -> list[str]:
        """Ids of one scope whose vectors the layer's collections hold (its cold ones included)."""
        rows = self.db.query(
            f"SELECT id FROM entries WHERE scope = ? AND {HOME}",
            (scope, layer.value, Layer.ARCHIVED.value, layer.value),
        )
        return [str(r[0]) for r in rows]

    def home_counts(self, layer: Layer, scopes: Sequence[str]) -> dict[str, int]:
        """How many ids of each of ``scopes`` the layer's collections hold (a scope holding
        none is left out): one query for a whole batch of scopes."""
        rows = self.db.query(
            f"SELECT scope, COUNT(*) FROM entries WHERE scope IN ({marks(scopes)}) AND {HOME} GROUP BY scope",
            (*scopes, layer.value, Layer.ARCHIVED.value, layer.value),
        )
        return {str(scope): int(count) for scope, count in rows}  # type: ignore[call-overload]

    def ids_by_scope(self, layer: Layer) -> dict[str, set[str]]:
        """Ids whose vectors a layer's collections hold (its cold ones included), by scope."""
        grouped: dict[str, set[str]] = {}
        params = (layer.value, Layer.ARCHIVED.value, layer.value)
        for entry_id, scope in self.db.query(f"SELECT id, scope FROM entries WHERE {HOME}", params):
            grouped.setdefault(str(scope), set()).add(str(entry_id))
        return grouped

    def indexed_by_scope(self, layer: Layer) -> dict[str, int]:
        """How many of a layer's entries (its cold ones included) the vector index should hold
        (indexed or searchable), by scope."""
        params = (
            layer.value,
            Layer.ARCHIVED.value,
            layer.value,
            int(IndexState.INDEXED),
            int(IndexState.SEARCHABLE),
        )
        rows = self.db.query(
            f"SELECT scope, COUNT(*) FROM entries WHERE {HOME} AND indexed IN (?, ?) GROUP BY scope", params
        )
        return {str(scope): int(count) for scope, count in rows}  # type: ignore[call-overload]

    def ids_between(self, layer: Layer, scope: str, start: float, end: float, limit: int) -> list[str]:
        """Ids of one scope's entries of a layer (its cold ones included) made in ``[start,
        end)`` (epoch seconds), newest first, at most ``limit``."""
        rows = self.db.query(
            f"SELECT id FROM entries WHERE scope = ? AND {HOME} AND created_at >= ? AND created_at < ? "
            "ORDER BY created_at DESC LIMIT ?",
            (scope, layer.value, Layer.ARCHIVED.value, layer.value, start, end, limit),
        )
        return [str(r[0]) for r in rows]

    def of_scope(self, scope: str) -> list[tuple[str, Layer]]:
        """``(id, home layer)`` of every entry of a scope: its layer, or the one it was forgotten from."""
        rows = self.db.query("SELECT id, layer, archived_layer FROM entries WHERE scope = ?", (scope,))
        return [
            (str(i), Layer(str(origin)) if layer == Layer.ARCHIVED.value and origin else Layer(str(layer)))
            for i, layer, origin in rows
        ]

    # -- writes inside a transaction -------------------------------------------------------

    def insert(self, conn: Connection, entries: Iterable[MemoryEntry], state: IndexState) -> int:
        """Insert entries as they are (idempotent by id); returns how many were new."""
        entries = list(entries)
        cursor = conn.executemany(
            "INSERT INTO entries(id, layer, scope, content, note, created_at, significance, "
            "changed_at, indexed, tags, source, pinned, importance, key, item) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
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
                    e.importance,
                    e.key,
                    e.item,
                )
                for e in entries
            ],
        )
        if self.keywords is not None:
            self.keywords(conn, [(e.id, scope_of(e.user_id), e.note, e.content) for e in entries])
        return max(cursor.rowcount, 0)

    @staticmethod
    def beyond_newest(conn: Connection, layer: Layer, scope: str, keep: int) -> list[MemoryEntry]:
        """Entries of a scope older than its newest ``keep``, oldest first."""
        rows = conn.execute(
            f"SELECT {COLUMNS} FROM entries WHERE layer = ? AND scope = ? AND seq <= ("
            "SELECT seq FROM entries WHERE layer = ? AND scope = ? ORDER BY seq DESC LIMIT 1 OFFSET ?"
            ") ORDER BY seq",
            (layer.value, scope, layer.value, scope, keep),
        ).fetchall()
        return [entry_of(r) for r in rows]

    @staticmethod
    def move(
        conn: Connection,
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
        conn: Connection, layer: Layer, scope: str, ids: Sequence[str] | None = None
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
                f"WHERE +layer = ? AND +scope = ? AND pinned = 0 AND id IN ({marks(ids)})",
                (layer.value, scope, *ids),
            ).fetchall()
        return [(str(i), float(s), int(c)) for i, s, c in rows]

    @staticmethod
    def due(conn: Connection, layer: Layer, scope: str, tick: int) -> list[Significance]:
        """Entries of a scope whose forget tick has come."""
        rows = conn.execute(
            "SELECT id, significance, changed_at FROM entries "
            "WHERE layer = ? AND scope = ? AND forget_at <= ?",
            (layer.value, scope, tick),
        ).fetchall()
        return [(str(i), float(s), int(c)) for i, s, c in rows]

    @staticmethod
    def set_significance(conn: Connection, updates: Sequence[tuple[str, float, int, int | None]]) -> None:
        """Store ``(id, significance, changed_at, forget_at)`` after a recall."""
        conn.executemany(
            "UPDATE entries SET significance = ?, changed_at = ?, forget_at = ? WHERE id = ?",
            [(s, c, f, i) for i, s, c, f in updates],
        )

    @staticmethod
    def archive(
        conn: Connection, layer: Layer, finals: Sequence[tuple[str, float]], reason: str, at: datetime
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
    def cold_origin(conn: Connection, entry_id: str) -> tuple[Layer, str] | None:
        """``(origin layer, scope)`` of a cold entry, ``None`` when the id is not cold."""
        row = conn.execute(
            "SELECT archived_layer, scope FROM entries WHERE id = ? AND layer = ?",
            (entry_id, Layer.ARCHIVED.value),
        ).fetchone()
        return None if row is None or row[0] is None else (Layer(str(row[0])), str(row[1]))

    @staticmethod
    def revive(conn: Connection, origin: Layer, updates: Sequence[tuple[str, float, int, int | None]]) -> int:
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
    def existing(conn: Connection, ids: Sequence[str]) -> set[str]:
        """Which of ``ids`` are still recorded (not erased meanwhile)."""
        if not ids:
            return set()
        rows = conn.execute(f"SELECT id FROM entries WHERE id IN ({marks(ids)})", tuple(ids)).fetchall()
        return {str(i) for (i,) in rows}

    @staticmethod
    def delete(conn: Connection, layer: Layer, ids: Sequence[str]) -> None:
        """Delete entries of a layer (static memories removed from their files)."""
        conn.executemany("DELETE FROM entries WHERE id = ? AND layer = ?", [(i, layer.value) for i in ids])
