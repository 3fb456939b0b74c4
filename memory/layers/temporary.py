"""TemporaryLayer: interactions that overflowed from active, recalled by meaning, forgotten lazily.

An entry enters at the initial significance (0.5) with the tick of its scope's clock. Each
retrieval of the scope is a tick: returned entries are boosted, the others decay implicitly.
The tick at which an untouched entry falls below the threshold is stored (``forget_at``), so
forgetting is one indexed query per tick.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import datetime

from memory.config import TemporaryConfig
from memory.domain.types import IndexState, Layer, MemoryEntry, scope_of
from memory.index.scoped import ScopedStores
from memory.layers.decay_rules import forget_tick, significance_at
from memory.layers.decaying import DecayingLayer
from memory.record.db import Connection, Database
from memory.record.entries import EntryTable

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

    def admit(self, conn: Connection, overflowed: Sequence[MemoryEntry]) -> None:
        """Take overflowed active entries (the ``on_overflow`` callback of the active layer).

        An entry starts at :meth:`initial_for` its importance; its forget tick follows from it.
        """
        updates = []
        stored = self.table.importances(conn, [e.id for e in overflowed])  # the gate may have judged since
        for entry in overflowed:
            initial = self.initial_for(stored.get(entry.id, entry.importance))
            tick = Database.tick_in(conn, scope_of(entry.user_id))
            forget_at = forget_tick(initial, tick, self.decay_coefficient, self.threshold)
            updates.append((entry.id, initial, tick, forget_at))
        self.table.move(conn, Layer.ACTIVE, self.layer, updates)

    def initial_for(self, importance: float | None) -> float:
        """The starting significance of an interaction of this importance.

        ``initial_significance x (0.6 + 0.8 x importance)``: with the default 0.5, small talk
        (importance about 0.1) starts near 0.34 and is forgotten after about 24 untouched ticks, a
        stated allergy (about 0.9) near 0.66 (after about 37); unjudged entries start at 0.5.
        """
        base = self.config.initial_significance
        if importance is None or not self.config.importance:
            return base
        return min(1.0, max(self.threshold * 1.5, base * (0.6 + 0.8 * importance)))

    def add(self, conn: Connection, entry: MemoryEntry) -> None:
        """Store a memory told explicitly: fully significant; a pinned one never decays."""
        tick = Database.tick_in(conn, scope_of(entry.user_id))
        stored = replace(entry, layer=self.layer, significance=1.0, changed_at=tick)
        self.table.insert(conn, [stored], IndexState.PENDING)
        if not entry.pinned:
            forget_at = forget_tick(1.0, tick, self.decay_coefficient, self.threshold)
            self.table.set_significance(conn, [(entry.id, 1.0, tick, forget_at)])

    def refresh(self, conn: Connection, entry: MemoryEntry) -> str | None:
        """Told again: the memory with the same text (hot or cold) is fully significant again, and
        pinned if ``entry`` is; returns its id (None: nothing told before, nothing changed)."""
        scope = scope_of(entry.user_id)
        found = self.table.told_before(conn, self.layer, scope, entry.content, entry.source or "")
        if found is None:
            return None
        entry_id, cold, was_pinned = found
        tick = Database.tick_in(conn, scope)
        pinned = entry.pinned or was_pinned
        forget_at = None if pinned else forget_tick(1.0, tick, self.decay_coefficient, self.threshold)
        if cold:
            self.table.revive(conn, self.layer, [(entry_id, 1.0, tick, forget_at)])
        self.table.set_significance(conn, [(entry_id, 1.0, tick, forget_at)])
        if pinned:
            self.table.set_pinned(conn, entry_id)
        return entry_id

    def forget_due(self, conn: Connection, scope: str, tick: int) -> int:
        """Archive every entry of ``scope`` whose forget tick has come; returns how many."""
        due = self.table.due(conn, self.layer, scope, tick)
        finals = [(i, significance_at(s, changed, tick, self.decay_coefficient)) for i, s, changed in due]
        if finals:
            self.archive(conn, finals, FORGOTTEN, self.now())
        return len(finals)
