"""What the decaying layers (temporary, summary) share: boost on recall, archive when due."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from datetime import datetime

from memory.layers.rag import RagLayer
from memory.significance import boost_significance, forget_tick, recall_at


class DecayingLayer(RagLayer):
    """A layer whose entries decay per tick and are boosted when recalled."""

    threshold: float = 0.0
    initial_significance: float = 0.5

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

    def revive(self, conn: sqlite3.Connection, tick: int, entry_ids: Sequence[str]) -> int:
        """Bring cold entries forgotten from this layer back, boosted as if just recalled.

        A revived entry starts again from the initial significance, boosted once (0.5 -> 0.75 by
        default), at ``tick``; its vector moves back from the cold collection. Returns how many.
        """
        if not entry_ids:
            return 0
        significance = boost_significance(self.initial_significance)
        forget_at = forget_tick(significance, tick, self.decay_coefficient, self.threshold)
        return self.table.revive(conn, self.layer, [(i, significance, tick, forget_at) for i in entry_ids])

    def archive(
        self, conn: sqlite3.Connection, finals: Sequence[tuple[str, float]], reason: str, at: datetime
    ) -> None:
        """Move entries (id, final significance) to the archived state; exported after commit."""
        self.table.archive(conn, self.layer, finals, reason, at)
