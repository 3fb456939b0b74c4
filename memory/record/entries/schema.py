"""The ``entries`` table's schema, its numbered migrations, and how a row becomes a
:class:`MemoryEntry`."""

from __future__ import annotations

import json
from collections.abc import Sequence

from memory.domain.types import INDEXED_LAYERS, ExportState, IndexState, Layer, MemoryEntry, user_of
from memory.record.db import Connection, from_epoch
from memory.record.migrations import Migrations, add_column, speed_index

_VERSION_1 = f"""
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
    exported INTEGER NOT NULL DEFAULT {ExportState.DONE}
);
CREATE INDEX IF NOT EXISTS entries_layer_scope ON entries(layer, scope, seq);
CREATE INDEX IF NOT EXISTS entries_forget ON entries(layer, scope, forget_at);
CREATE INDEX IF NOT EXISTS entries_unindexed ON entries(indexed, layer);
CREATE INDEX IF NOT EXISTS entries_unexported ON entries(exported);
"""

COLUMNS = (
    "id, layer, scope, content, note, created_at, significance, changed_at, tags, source, archived_layer, "
    "pinned, importance, key, item, indexed"
)
EXPORTED = (
    "id", "layer", "scope", "content", "note", "created_at", "significance", "changed_at", "forget_at",
    "tags", "source", "archived_layer", "archived_reason", "archived_at", "pinned", "importance", "key",
    "item",
)  # fmt: skip
"""The columns of a memory in an export; its index and archive-file states are derived on import."""
RESTORED = (*EXPORTED, "indexed", "exported")


def restored(row: dict[str, object]) -> dict[str, object]:
    """An exported row as it is inserted: to be embedded unless active, to be written to the
    new archive file when cold."""
    active, cold = row["layer"] == Layer.ACTIVE.value, row["layer"] == Layer.ARCHIVED.value
    return {
        **row,
        "indexed": int(IndexState.NOT_SEARCHED if active else IndexState.PENDING),
        "exported": int(ExportState.PENDING if cold else ExportState.DONE),
    }


SEARCHED = ",".join(f"'{layer.value}'" for layer in INDEXED_LAYERS)

HOME = "(layer = ? OR (layer = ? AND archived_layer = ?))"
"""The rows whose vectors live in one layer's collections: its own and its cold (archived) ones."""

Significance = tuple[str, float, int]
"""``(entry id, significance, changed_at tick)`` as stored."""


def _pinned_and_importance(conn: Connection) -> None:
    add_column(conn, "entries", "pinned", "INTEGER NOT NULL DEFAULT 0")
    add_column(conn, "entries", "importance", "REAL")


def _store_keys(conn: Connection) -> None:
    add_column(conn, "entries", "key", "TEXT")
    add_column(conn, "entries", "item", "TEXT")
    conn.execute("CREATE INDEX IF NOT EXISTS entries_key ON entries(scope, key)")


def _active_never_indexed(conn: Connection) -> None:
    """Version 1 files marked active rows ``indexed = 1``, meaning "never"."""
    conn.execute(
        "UPDATE entries SET indexed = ? WHERE layer = ?", (IndexState.NOT_SEARCHED, Layer.ACTIVE.value)
    )


def _line_vectors(conn: Connection) -> None:
    add_column(conn, "entries", "line_vectors", "BLOB")  # a summary's sentences' embeddings


def _unindexed_by_scope(conn: Connection) -> None:
    """A retrieval reads its scope's newest rows not yet in the vector index (one lookup)."""
    conn.execute("CREATE INDEX IF NOT EXISTS entries_unindexed_scope ON entries(indexed, layer, scope, seq)")
    conn.execute("DROP INDEX IF EXISTS entries_unindexed")  # the new one's first columns


def _leaning(conn: Connection) -> None:
    """The slot an interaction's statement is likely about (:func:`memory.domain.slots.vector_looks`),
    stored when it is indexed; rows indexed before this column lean nowhere. Only reads use it: a
    read-only record made before it is read without it (see :attr:`EntryTable.leaning_stored`)."""
    if not conn.read_only:
        add_column(conn, "entries", "leans", "TEXT")


def _legacy(conn: Connection) -> int:
    columns = conn.columns("entries")
    if not columns:
        return 0
    marked = conn.execute("SELECT value FROM meta WHERE key = ?", ("entries_schema",)).fetchone()
    if marked is not None and marked[0] == "3":
        return 4
    return 3 if "key" in columns else 2 if "pinned" in columns else 1


install = Migrations(
    "entries",
    (
        lambda conn: conn.script(_VERSION_1),
        _pinned_and_importance,
        _store_keys,
        _active_never_indexed,
        _line_vectors,
        _unindexed_by_scope,
        # a retrieval that names a time reads its scope's rows of that window, newest first
        speed_index("CREATE INDEX IF NOT EXISTS entries_scope_time ON entries(scope, created_at)"),
        _leaning,
        speed_index(
            "CREATE INDEX IF NOT EXISTS entries_leaning ON entries(scope, leans, created_at) "
            "WHERE leans IS NOT NULL"
        ),
    ),
    legacy=_legacy,
)
"""Create or migrate the ``entries`` table (an :data:`memory.record.db.Installer`)."""


_LAYERS = {layer.value: layer for layer in Layer}
"""Layers by stored name (a dict lookup, cheaper than the enum's own for every row read)."""
_NO_TAGS = "[]"


def entry_of(row: Sequence[object]) -> MemoryEntry:
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
        key,
        item,
        indexed,
    ) = row
    return MemoryEntry(
        id=str(entry_id),
        layer=_LAYERS[str(layer)],
        content=str(content),
        created_at=from_epoch(float(created_at)),  # type: ignore[arg-type]
        user_id=user_of(str(scope)),
        significance=float(significance),  # type: ignore[arg-type]
        changed_at=int(changed_at),  # type: ignore[call-overload]
        note=None if note is None else str(note),
        tags=() if tags == _NO_TAGS else tuple(json.loads(str(tags))),
        source=None if source is None else str(source),
        origin=_LAYERS[str(origin)] if origin is not None and layer == Layer.ARCHIVED.value else None,
        pinned=bool(pinned),
        importance=None if importance is None else float(importance),  # type: ignore[arg-type]
        key=None if key is None else str(key),
        item=None if item is None else str(item),
        provisional=indexed == IndexState.SEARCHABLE,
    )


def marks(values: Sequence[object]) -> str:
    return ",".join("?" * len(values))
