"""The decay tick: what one retrieval does to significance, in one SQLite transaction.

The scope's clock advances by one; the entries the retrieval returned are boosted; entries whose
forget tick has come are archived. Nothing else is written (decay is lazy).
"""

from __future__ import annotations

from collections.abc import Sequence

from memory.db import Database
from memory.layers.decaying import DecayingLayer
from memory.layers.temporary import TemporaryLayer
from memory.model import RetrievedMemory, scope_of


class DecayTick:
    """The last step of a retrieval (see :meth:`memory.retriever.MemoryRetriever.retrieve_memories`)."""

    def __init__(self, db: Database, temporary: TemporaryLayer, decaying: Sequence[DecayingLayer]) -> None:
        self.db = db
        self.temporary = temporary
        self.decaying = decaying

    def apply(self, user_id: str | None, memories: Sequence[RetrievedMemory]) -> int:
        """Apply one tick for ``user_id``; returns how many entries were forgotten."""
        scope = scope_of(user_id)
        with self.db.transaction() as conn:
            tick = self.db.advance_clock(conn, scope)
            for layer in self.decaying:
                recalled = [m.entry.id for m in memories if m.entry.layer == layer.layer]
                layer.recall(conn, scope, tick, recalled)
            return self.temporary.forget_due(conn, scope, tick)
