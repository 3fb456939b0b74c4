"""SummaryLayer: scheduled summaries of recent interactions; slow decay and periodic clean-up.

Summaries decay per tick of their scope (0.98 by default) and are boosted when recalled. They are
not forgotten by threshold; instead :meth:`SummaryLayer.cleanup` archives the lowest
``cleanup_ratio`` fraction (rounded down) of each scope by current significance.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import replace
from datetime import datetime

from memory.config import SummaryConfig
from memory.domain.types import IndexState, Layer, MemoryEntry, scope_of
from memory.index.scoped import ScopedStores
from memory.layers.decay_rules import significance_at
from memory.layers.decaying import DecayingLayer
from memory.record.db import Connection, Database
from memory.record.entries import EntryTable

CLEANED = "cleanup"


class SummaryLayer(DecayingLayer):
    """The RAG layer of summaries."""

    layer = Layer.SUMMARY
    holds_most = False
    scored_by_lines = True

    def __init__(
        self,
        entries: EntryTable,
        stores: ScopedStores,
        config: SummaryConfig,
        now: Callable[[], datetime],
    ) -> None:
        super().__init__(entries, stores, now)
        self.config = config
        self.decay_coefficient = config.decay_coefficient
        self.threshold = 0.0

    def add(self, conn: Connection, entry: MemoryEntry) -> bool:
        """Insert a summary at the initial significance (idempotent by id); returns whether it was new."""
        tick = Database.tick_in(conn, scope_of(entry.user_id))
        summary = replace(
            entry, layer=self.layer, significance=self.config.initial_significance, changed_at=tick
        )
        return self.table.insert(conn, [summary], IndexState.PENDING) > 0

    def cleanup(self, conn: Connection, scope: str) -> int:
        """Archive the least significant ``cleanup_ratio`` of a scope's summaries."""
        rows = self.table.significances(conn, self.layer, scope)
        quota = math.floor(len(rows) * self.config.cleanup_ratio)
        if quota <= 0:
            return 0
        tick = Database.tick_in(conn, scope)
        values = sorted((significance_at(s, c, tick, self.decay_coefficient), i) for i, s, c in rows)
        self.archive(conn, [(entry_id, value) for value, entry_id in values[:quota]], CLEANED, self.now())
        return quota

    def all_entries(self, scope: str) -> list[MemoryEntry]:
        """A scope's summaries, hot and cold (cleaned up), oldest first."""
        hot = self.table.live(self.layer, scope)
        cold = [e for e in self.table.live(Layer.ARCHIVED, scope) if e.origin == self.layer]
        return sorted([*hot, *cold], key=lambda e: e.created_at)

    def scopes(self) -> list[str]:
        """Scopes that hold summaries."""
        return self.table.scopes(self.layer)
