"""TemporaryLayer: interactions that overflowed from active, recalled by meaning, forgotten lazily.

An entry enters at the initial significance (0.5) with the tick of its scope's clock. Each
retrieval of the scope is a tick: returned entries are boosted, the others decay implicitly.
The tick at which an untouched entry falls below the threshold is stored (``forget_at``), so
forgetting is one indexed query per tick.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import datetime

from memory.config import TemporaryConfig
from memory.db import Database
from memory.entries import EntryTable
from memory.layers.decaying import DecayingLayer
from memory.model import IndexState, Layer, MemoryEntry, scope_of
from memory.scoped import ScopedStores
from memory.significance import forget_tick, significance_at

FORGOTTEN = "forgotten"


class TemporaryLayer(DecayingLayer):
    """The RAG layer of overflowed interactions."""

    layer = Layer.TEMPORARY

    def __init__(
        self,
        entries: EntryTable,
        stores: ScopedStores,
        config: TemporaryConfig,
        now: Callable[[], datetime],
    ) -> None:
        super().__init__(entries, stores, now)
        self.config = config
        self.decay_coefficient = config.decay_coefficient
        self.threshold = config.significance_threshold

    def admit(self, conn: sqlite3.Connection, overflowed: Sequence[MemoryEntry]) -> None:
        """Take overflowed active entries (the ``on_overflow`` callback of the active layer)."""
        initial = self.config.initial_significance
        updates = []
        for entry in overflowed:
            tick = Database.tick_in(conn, scope_of(entry.user_id))
            forget_at = forget_tick(initial, tick, self.decay_coefficient, self.threshold)
            updates.append((entry.id, initial, tick, forget_at))
        self.table.move(conn, Layer.ACTIVE, self.layer, updates)

    def add(self, conn: sqlite3.Connection, entry: MemoryEntry) -> None:
        """Store a memory told explicitly: fully significant; a pinned one never decays."""
        tick = Database.tick_in(conn, scope_of(entry.user_id))
        stored = replace(entry, layer=self.layer, significance=1.0, changed_at=tick)
        self.table.insert(conn, [stored], IndexState.PENDING)
        if not entry.pinned:
            forget_at = forget_tick(1.0, tick, self.decay_coefficient, self.threshold)
            self.table.set_significance(conn, [(entry.id, 1.0, tick, forget_at)])

    def forget_due(self, conn: sqlite3.Connection, scope: str, tick: int) -> int:
        """Archive every entry of ``scope`` whose forget tick has come; returns how many."""
        due = self.table.due(conn, self.layer, scope, tick)
        finals = [(i, significance_at(s, changed, tick, self.decay_coefficient)) for i, s, changed in due]
        if finals:
            self.archive(conn, finals, FORGOTTEN, self.now())
        return len(finals)
