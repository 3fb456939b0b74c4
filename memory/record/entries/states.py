"""What is derived from ``entries`` rows: their states in the derived stores (waiting for the vector
index, for the archive file), and the slot each indexed interaction leans to."""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence

from memory.domain.types import ExportState, IndexState, Layer, MemoryEntry, user_of
from memory.record.archive import ArchivedMemory
from memory.record.db import Connection, Database, from_epoch
from memory.record.entries.schema import COLUMNS, HOME, SEARCHED, entry_of

LEANING_CHARS = 1000
"""Characters of an entry's content :meth:`DerivedStates.leaning` reads (enough to tell one
statement from another, however long a pasted text)."""


class DerivedStates:
    """Reads and sets :class:`IndexState` and :class:`ExportState` of entries, and their leaning."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def pending_index(
        self, layer: Layer, limit: int, state: IndexState = IndexState.PENDING
    ) -> list[MemoryEntry]:
        """Entries of a layer (its cold ones included) in an index ``state`` (default: waiting
        for the vector index; ``SEARCHABLE``: waiting for enrichment), oldest first."""
        rows = self.db.query(
            f"SELECT {COLUMNS} FROM entries WHERE indexed = ? AND {HOME} ORDER BY seq LIMIT ?",
            (int(state), layer.value, Layer.ARCHIVED.value, layer.value, limit),
        )
        return [entry_of(r) for r in rows]

    def unindexed(self, layer: Layer, scope: str | None, limit: int) -> list[MemoryEntry]:
        """A layer's newest hot entries (of one scope, or every scope) not yet in the vector
        index, newest first."""
        scoped, params = (" AND scope = ?", (scope,)) if scope is not None else ("", ())
        where = f"indexed = ? AND layer = ?{scoped}"
        rows = self.db.query(
            f"SELECT {COLUMNS} FROM entries WHERE {where} ORDER BY seq DESC LIMIT ?",
            (int(IndexState.PENDING), layer.value, *params, limit),
        )
        return [entry_of(r) for r in rows]

    def pending_index_count(self, state: IndexState = IndexState.PENDING) -> int:
        """Searchable-layer entries in an index ``state`` (default: not yet in the vector index)."""
        return self.db.count(
            f"SELECT COUNT(*) FROM entries WHERE indexed = ? AND layer IN ({SEARCHED})",
            (int(state),),
        )

    def has_pending_index(self, state: IndexState = IndexState.PENDING, *, at_least: int = 1) -> bool:
        """Whether at least ``at_least`` searchable entries are in an index ``state`` (an indexed
        lookup that reads no further: never a count of a large backlog)."""
        return bool(
            self.db.query(
                f"SELECT 1 FROM entries WHERE indexed = ? AND layer IN ({SEARCHED}) LIMIT 1 OFFSET ?",
                (int(state), at_least - 1),
            )
        )

    def set_index_state(self, layer: Layer, ids: Sequence[str] | None, state: IndexState) -> None:
        """Set the index state of a layer's entries, cold ones included (the given ids, or all)."""
        home = (layer.value, Layer.ARCHIVED.value, layer.value)
        with self.db.transaction() as conn:
            if ids is None:
                conn.execute(f"UPDATE entries SET indexed = ? WHERE {HOME}", (int(state), *home))
            else:
                conn.executemany(
                    f"UPDATE entries SET indexed = ? WHERE id = ? AND {HOME}",
                    [(int(state), i, *home) for i in ids],
                )

    def store_line_vectors(self, vectors: Mapping[str, bytes]) -> None:
        """Store the sentence embeddings of entries (:mod:`memory.layers.summary_lines`)."""
        with self.db.transaction(durable=False) as conn:
            conn.executemany(
                "UPDATE entries SET line_vectors = ? WHERE id = ?", [(v, i) for i, v in vectors.items()]
            )

    def line_vectors(self, layer: Layer, scope: str, limit: int) -> list[tuple[str, bytes]]:
        """``(id, sentence embeddings)`` of a scope's newest ``limit`` live entries of a layer
        that have them."""
        rows = self.db.query(
            "SELECT id, line_vectors FROM entries WHERE layer = ? AND scope = ? "
            "AND line_vectors IS NOT NULL ORDER BY seq DESC LIMIT ?",
            (layer.value, scope, limit),
        )
        return [(str(i), bytes(v)) for i, v in rows]  # type: ignore[call-overload]

    def drop_line_vectors(self, layer: Layer) -> None:
        """Forget the sentence embeddings of a layer's entries (another embedder made them)."""
        with self.db.transaction() as conn:
            conn.execute("UPDATE entries SET line_vectors = NULL WHERE layer = ?", (layer.value,))

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

    @staticmethod
    def export_again(conn: Connection, ids: Sequence[str]) -> None:
        """Have archived entries written to the archive file again (their text changed)."""
        conn.executemany(
            "UPDATE entries SET exported = ? WHERE id = ?", [(int(ExportState.PENDING), i) for i in ids]
        )

    def set_export_state(self, ids: Sequence[str], state: ExportState) -> None:
        """Move archived entries to an export state in one transaction."""
        with self.db.transaction() as conn:
            conn.executemany("UPDATE entries SET exported = ? WHERE id = ?", [(int(state), i) for i in ids])

    @functools.cached_property
    def leaning_stored(self) -> bool:
        """Whether the record has the ``leans`` column: a read-only one made before it has not
        (only SQLite opens read-only)."""
        found = "SELECT COUNT(*) FROM pragma_table_info('entries') WHERE name = 'leans'"
        return not self.db.read_only or bool(self.db.query(found)[0][0])

    def leaning(self, layer: Layer, scope: str, slot: str, limit: int) -> list[tuple[str, str, float]]:
        """``(id, content, created_at)`` of one scope's newest entries of a layer (its cold ones
        included) stored as leaning to ``slot``, newest first, at most ``limit`` (``content``: its
        first :data:`LEANING_CHARS` characters; ``created_at``: epoch seconds)."""
        if not self.leaning_stored:
            return []
        rows = self.db.query(
            f"SELECT id, SUBSTR(content, 1, {LEANING_CHARS}), created_at FROM entries "
            f"WHERE scope = ? AND leans = ? AND {HOME} ORDER BY created_at DESC LIMIT ?",
            (scope, slot, layer.value, Layer.ARCHIVED.value, layer.value, limit),
        )
        return [(str(r[0]), str(r[1]), float(r[2])) for r in rows]  # type: ignore[arg-type]

    @staticmethod
    def set_leaning(conn: Connection, leaning: Sequence[tuple[str, str]]) -> None:
        """Store ``(entry id, slot)``: the slot each entry's statement is likely about."""
        if leaning:
            conn.executemany("UPDATE entries SET leans = ? WHERE id = ?", [(slot, i) for i, slot in leaning])
