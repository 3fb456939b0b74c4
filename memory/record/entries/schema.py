"""The ``entries`` table's schema, its migrations, and how a row becomes a :class:`MemoryEntry`."""

from __future__ import annotations

import json
from collections.abc import Sequence

from memory.domain.types import INDEXED_LAYERS, ExportState, IndexState, Layer, MemoryEntry, user_of
from memory.record.db import Connection, from_epoch, write_meta

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
    importance REAL,
    key TEXT,
    item TEXT
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


def install(conn: Connection) -> None:
    """Create the table; version 1 files marked active rows ``indexed = 1`` to mean "never"."""
    conn.script(SCHEMA)
    columns = conn.columns("entries")
    if "pinned" not in columns:  # version 2 files
        conn.execute("ALTER TABLE entries ADD COLUMN pinned INTEGER NOT NULL DEFAULT 0")
    if "importance" not in columns:
        conn.execute("ALTER TABLE entries ADD COLUMN importance REAL")
    for column in ("key", "item"):  # version 3 files
        if column not in columns:
            conn.execute(f"ALTER TABLE entries ADD COLUMN {column} TEXT")
    conn.execute("CREATE INDEX IF NOT EXISTS entries_key ON entries(scope, key)")
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (SCHEMA_KEY,)).fetchone()
    if row is None or row[0] != SCHEMA_VERSION:
        conn.execute(
            "UPDATE entries SET indexed = ? WHERE layer = ?", (IndexState.NOT_SEARCHED, Layer.ACTIVE.value)
        )
        write_meta(conn, SCHEMA_KEY, SCHEMA_VERSION)


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
        key=None if key is None else str(key),
        item=None if item is None else str(item),
        provisional=indexed == IndexState.SEARCHABLE,
    )


def marks(values: Sequence[object]) -> str:
    return ",".join("?" * len(values))
