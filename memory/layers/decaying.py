"""What the decaying layers (temporary, summary) share: boost on recall, archive when due."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from memory.domain.types import Layer
from memory.layers.decay_rules import boost_significance, forget_tick, recall_at
from memory.layers.rag import RagLayer
from memory.record.db import Connection


class DecayingLayer(RagLayer):
    """A layer whose entries decay per tick and are boosted when recalled."""

    threshold: float = 0.0

    def recall(self, conn: Connection, scope: str, tick: int, entry_ids: Sequence[str]) -> None:
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

    def revive(self, conn: Connection, scope: str, tick: int, entry_ids: Sequence[str]) -> int:
        """Bring cold entries forgotten from this layer back, recalled at ``tick``.

        A recall of a cold memory is a recall like any other: its significance when it was
        forgotten gets the boost ``s + (1 - s) / 2`` (0.0625 -> 0.53), and it decays again from
        there. Returns how many came back.
        """
        if not entry_ids:
            return 0
        updates = []
        for entry_id, significance, _ in self.table.significances(conn, Layer.ARCHIVED, scope, entry_ids):
            boosted = boost_significance(significance)
            forget_at = forget_tick(boosted, tick, self.decay_coefficient, self.threshold)
            updates.append((entry_id, boosted, tick, forget_at))
        return self.table.revive(conn, self.layer, updates)

    def archive(
        self, conn: Connection, finals: Sequence[tuple[str, float]], reason: str, at: datetime
    ) -> None:
        """Move entries (id, final significance) to the archived state; exported after commit."""
        self.table.archive(conn, self.layer, finals, reason, at)
