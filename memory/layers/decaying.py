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
        marks = ",".join("?" * len(entry_ids))
        rows = conn.execute(
            f"SELECT id, significance, changed_at FROM entries "
            f"WHERE +layer = ? AND +scope = ? AND id IN ({marks})",  # '+': look up by id, not by layer
            (self.layer.value, scope, *entry_ids),
        ).fetchall()
        updates = []
        for entry_id, significance, changed_at in rows:
            boosted = recall_at(float(significance), int(changed_at), tick, self.decay_coefficient)
            forget_at = forget_tick(boosted, tick, self.decay_coefficient, self.threshold)
            updates.append((boosted, tick, forget_at, entry_id))
        conn.executemany(
            "UPDATE entries SET significance = ?, changed_at = ?, forget_at = ? WHERE id = ?",
            updates,
        )

    def archive(
        self,
        conn: sqlite3.Connection,
        archived: Sequence[tuple[str, float]],
        reason: str,
        archived_at: datetime,
    ) -> None:
        """Move entries (id, final significance) to the archived state; exported after commit."""
        conn.executemany(
            "UPDATE entries SET layer = 'archived', archived_layer = ?, archived_reason = ?, "
            "archived_at = ?, significance = ?, exported = 0 WHERE id = ? AND layer = ?",
            [
                (
                    self.layer.value,
                    reason,
                    archived_at.timestamp(),
                    value,
                    entry_id,
                    self.layer.value,
                )
                for entry_id, value in archived
            ],
        )
