"""ActiveLayer: the newest ``capacity`` interactions of each user scope, verbatim, in order.

First in, first out: appending past capacity hands the oldest entries to ``on_overflow`` inside
the same SQLite transaction, so an interaction is always in exactly one layer.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Sequence

from memory.db import ENTRY_COLUMNS, Database, entry_from_row
from memory.layers.base import Layer, MemoryEntry, scope_of

OverflowHandler = Callable[[sqlite3.Connection, Sequence[MemoryEntry]], None]


class ActiveLayer:
    """The verbatim window; not searched, injected whole into the prompt."""

    layer = Layer.ACTIVE

    def __init__(self, db: Database, capacity: int, on_overflow: OverflowHandler) -> None:
        self.db = db
        self.capacity = capacity
        self.on_overflow = on_overflow

    def append(self, conn: sqlite3.Connection, entries: Sequence[MemoryEntry]) -> list[MemoryEntry]:
        """Insert entries (in order) and overflow the oldest beyond capacity.

        Returns:
            The entries that overflowed (already handed to ``on_overflow``).
        """
        conn.executemany(
            "INSERT OR IGNORE INTO entries(id, layer, scope, content, note, created_at, "
            "significance, changed_at, indexed, tags) VALUES (?, 'active', ?, ?, ?, ?, 1.0, 0, 1, ?)",
            [
                (
                    e.id,
                    scope_of(e.user_id),
                    e.content,
                    e.note,
                    e.created_at.timestamp(),
                    json.dumps(list(e.tags), ensure_ascii=False),
                )
                for e in entries
            ],
        )
        overflowed: list[MemoryEntry] = []
        for scope in dict.fromkeys(scope_of(e.user_id) for e in entries):
            rows = conn.execute(
                f"SELECT {ENTRY_COLUMNS} FROM entries WHERE layer = 'active' AND scope = ? "
                "ORDER BY seq DESC LIMIT -1 OFFSET ?",
                (scope, self.capacity),
            ).fetchall()
            overflowed.extend(entry_from_row(r) for r in reversed(rows))
        if overflowed:
            self.on_overflow(conn, overflowed)
        return overflowed

    def entries(self, user_id: str | None = None) -> list[MemoryEntry]:
        """The window of a scope, oldest first."""
        rows = self.db.query(
            f"SELECT {ENTRY_COLUMNS} FROM entries WHERE layer = 'active' AND scope = ? ORDER BY seq",
            (scope_of(user_id),),
        )
        return [entry_from_row(r) for r in rows]

    def count(self, user_id: str | None = None, *, all_scopes: bool = False) -> int:
        """How many interactions the window holds (one scope, or all)."""
        if all_scopes:
            return self.db.count("SELECT COUNT(*) FROM entries WHERE layer = 'active'")
        else:
            return self.db.count(
                "SELECT COUNT(*) FROM entries WHERE layer = 'active' AND scope = ?",
                (scope_of(user_id),),
            )
