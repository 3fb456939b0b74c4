"""What the decaying layers (temporary, summary) share: boost on recall, archive when due."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from datetime import datetime

from memory.layers.rag import RagLayer
from memory.significance import forget_tick, recall_at


class DecayingLayer(RagLayer):
    """A layer whose entries decay per tick and are boosted when recalled."""

    threshold: float = 0.0

    def recall(self, conn: sqlite3.Connection, scope: str, tick: int, entry_ids: Sequence[str]) -> None:
        """Boost the entries a retrieval returned at ``tick`` (writes only those rows)."""
        if not entry_ids:
            return
        updates = []
        coefficient = self.decay_coefficient
        for entry_id, significance, changed_at in self.table.significances(
            conn, self.layer, scope, entry_ids
        ):
            boosted = recall_at(significance, changed_at, tick, coefficient)
            updates.append((entry_id, boosted, tick, forget_tick(boosted, tick, coefficient, self.threshold)))
        self.table.set_significance(conn, updates)

    def archive(
        self, conn: sqlite3.Connection, finals: Sequence[tuple[str, float]], reason: str, at: datetime
    ) -> None:
        """Move entries (id, final significance) to the archived state; exported after commit."""
        self.table.archive(conn, self.layer, finals, reason, at)
