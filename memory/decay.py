"""The decay tick: what one retrieval does to significance, in one SQLite transaction.

The scope's clock advances by one; the entries the retrieval returned are boosted; entries whose
forget tick has come are archived. Nothing else is written (decay is lazy).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from memory.db import Database
from memory.layers.base import RetrievedMemory, scope_of
from memory.layers.decaying import DecayingLayer
from memory.layers.temporary import TemporaryLayer


class DecayTick:
    """The ``on_retrieved`` callback of the retriever."""

    def __init__(
        self,
        db: Database,
        temporary: TemporaryLayer,
        decaying: Sequence[DecayingLayer],
        on_forgotten: Callable[[], object],
    ) -> None:
        self.db = db
        self.temporary = temporary
        self.decaying = decaying
        self.on_forgotten = on_forgotten

    def __call__(self, user_id: str | None, memories: Sequence[RetrievedMemory]) -> int:
        """Apply one tick for ``user_id``; returns how many entries were forgotten."""
        scope = scope_of(user_id)
        with self.db.transaction() as conn:
            conn.execute(
                "INSERT INTO clock(scope, tick) VALUES (?, 1) "
                "ON CONFLICT(scope) DO UPDATE SET tick = tick + 1",
                (scope,),
            )
            tick = int(conn.execute("SELECT tick FROM clock WHERE scope = ?", (scope,)).fetchone()[0])
            for layer in self.decaying:
                recalled = [m.entry.id for m in memories if m.entry.layer == layer.layer]
                layer.recall(conn, scope, tick, recalled)
            forgotten = self.temporary.forget_due(conn, scope, tick)
        if forgotten:
            self.on_forgotten()
        return forgotten
