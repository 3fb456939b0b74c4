"""SummaryLayer: scheduled summaries of recent interactions; slow decay and periodic clean-up.

Summaries decay per tick of their scope (0.98 by default) and are boosted when recalled. They are
not forgotten by threshold; instead :meth:`SummaryLayer.cleanup` archives the lowest
``cleanup_ratio`` fraction (rounded down) of each scope by current significance.
"""

from __future__ import annotations

import math
import sqlite3
from collections.abc import Callable
from datetime import datetime

from memory.config import SummaryConfig
from memory.db import Database
from memory.layers.base import Layer, MemoryEntry, scope_of
from memory.layers.decaying import DecayingLayer
from memory.scoped import ScopedStores
from memory.significance import significance_at

CLEANED = "cleanup"


class SummaryLayer(DecayingLayer):
    """The RAG layer of summaries."""

    layer = Layer.SUMMARY

    def __init__(
        self,
        db: Database,
        stores: ScopedStores,
        config: SummaryConfig,
        now: Callable[[], datetime],
    ) -> None:
        super().__init__(db, stores, now)
        self.config = config
        self.decay_coefficient = config.decay_coefficient
        self.threshold = 0.0

    def add(self, conn: sqlite3.Connection, entry: MemoryEntry) -> bool:
        """Insert a summary (idempotent by id); returns whether it was new."""
        scope = scope_of(entry.user_id)
        row = conn.execute("SELECT tick FROM clock WHERE scope = ?", (scope,)).fetchone()
        tick = int(row[0]) if row else 0
        cursor = conn.execute(
            "INSERT OR IGNORE INTO entries(id, layer, scope, content, created_at, significance, "
            "changed_at, forget_at, indexed, source) VALUES (?, 'summary', ?, ?, ?, ?, ?, NULL, 0, ?)",
            (
                entry.id,
                scope,
                entry.content,
                entry.created_at.timestamp(),
                self.config.initial_significance,
                tick,
                entry.source,
            ),
        )
        return cursor.rowcount > 0

    def cleanup(self, conn: sqlite3.Connection, scope: str) -> int:
        """Archive the least significant ``cleanup_ratio`` of a scope's summaries."""
        rows = conn.execute(
            "SELECT id, significance, changed_at FROM entries WHERE layer = 'summary' AND scope = ?",
            (scope,),
        ).fetchall()
        quota = math.floor(len(rows) * self.config.cleanup_ratio)
        if quota <= 0:
            return 0
        tick_row = conn.execute("SELECT tick FROM clock WHERE scope = ?", (scope,)).fetchone()
        tick = int(tick_row[0]) if tick_row else 0
        values = sorted(
            (significance_at(float(s), int(c), tick, self.decay_coefficient), str(i)) for i, s, c in rows
        )
        self.archive(conn, [(entry_id, value) for value, entry_id in values[:quota]], CLEANED, self.now())
        return quota

    def scopes(self) -> list[str]:
        """Scopes that hold summaries."""
        return [
            str(r[0]) for r in self.db.query("SELECT DISTINCT scope FROM entries WHERE layer = 'summary'")
        ]
