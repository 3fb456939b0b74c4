"""TemporaryLayer: interactions that overflowed from active, recalled by meaning, forgotten lazily.

An entry enters at the initial significance (0.5) with the tick of its scope's clock. Each
retrieval of the scope is a tick: returned entries are boosted, the others decay implicitly.
The tick at which an untouched entry falls below the threshold is stored (``forget_at``), so
forgetting is one indexed query per tick.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from datetime import datetime

from memory.config import TemporaryConfig
from memory.db import Database
from memory.layers.base import Layer, MemoryEntry, scope_of
from memory.layers.decaying import DecayingLayer
from memory.scoped import ScopedStores
from memory.significance import forget_tick, significance_at

FORGOTTEN = "forgotten"


class TemporaryLayer(DecayingLayer):
    """The RAG layer of overflowed interactions."""

    layer = Layer.TEMPORARY

    def __init__(
        self,
        db: Database,
        stores: ScopedStores,
        config: TemporaryConfig,
        now: Callable[[], datetime],
    ) -> None:
        super().__init__(db, stores, now)
        self.config = config
        self.decay_coefficient = config.decay_coefficient
        self.threshold = config.significance_threshold

    def admit(self, conn: sqlite3.Connection, entries: Sequence[MemoryEntry]) -> None:
        """Take overflowed active entries (the ``on_overflow`` callback of the active layer)."""
        initial = self.config.initial_significance
        updates = []
        for entry in entries:
            scope = scope_of(entry.user_id)
            row = conn.execute("SELECT tick FROM clock WHERE scope = ?", (scope,)).fetchone()
            tick = int(row[0]) if row else 0
            forget_at = forget_tick(initial, tick, self.decay_coefficient, self.threshold)
            updates.append((initial, tick, forget_at, entry.id))
        conn.executemany(
            "UPDATE entries SET layer = 'temporary', significance = ?, changed_at = ?, "
            "forget_at = ?, indexed = 0 WHERE id = ? AND layer = 'active'",
            updates,
        )

    def forget_due(self, conn: sqlite3.Connection, scope: str, tick: int) -> int:
        """Archive every entry of ``scope`` whose forget tick has come; returns how many."""
        rows = conn.execute(
            "SELECT id, significance, changed_at FROM entries "
            "WHERE layer = 'temporary' AND scope = ? AND forget_at <= ?",
            (scope, tick),
        ).fetchall()
        if not rows:
            return 0
        finals = [
            (str(entry_id), significance_at(float(s), int(changed), tick, self.decay_coefficient))
            for entry_id, s, changed in rows
        ]
        self.archive(conn, finals, FORGOTTEN, self.now())
        return len(finals)
