"""The decay tick: what one retrieval does to significance, in one SQLite transaction.

The scope's clock advances by one; the hot entries the retrieval returned are boosted, the cold
ones it returned are revived; entries whose forget tick has come are demoted to the cold tier.
Nothing else is written (decay is lazy).
"""

from __future__ import annotations

from collections.abc import Sequence

from memory.domain.types import DECAYING_LAYERS, Layer, RetrievedMemory, scope_of
from memory.layers.decaying import DecayingLayer
from memory.layers.temporary import TemporaryLayer
from memory.record.db import Database


class DecayTick:
    """The last step of a retrieval (see
    :meth:`memory.retrieval.retriever.MemoryRetriever.retrieve_memories`)."""

    def __init__(self, db: Database, temporary: TemporaryLayer, decaying: Sequence[DecayingLayer]) -> None:
        self.db = db
        self.temporary = temporary
        self.decaying = decaying

    def apply(self, user_id: str | None, memories: Sequence[RetrievedMemory]) -> int:
        """Apply one tick for ``user_id``; returns how many entries changed tier (both ways)."""
        scope = scope_of(user_id)
        decaying = {layer.layer for layer in self.decaying}
        if not any(m.entry.layer in decaying for m in memories) and not self._holds_any(scope):
            return 0  # nothing to decay: a read of a user never seen writes nothing (creates no user)
        moved = 0
        # a tick lost with the server is a recall that counts a little less: no acknowledgement
        with self.db.transaction(durable=False) as conn:
            tick = self.db.advance_clock(conn, scope)
            for layer in self.decaying:
                mine = [m for m in memories if m.entry.layer == layer.layer]
                layer.recall(conn, scope, tick, [m.entry.id for m in mine if not m.revived])
                moved += layer.revive(conn, scope, tick, [m.entry.id for m in mine if m.revived])
            return moved + self.temporary.forget_due(conn, scope, tick)

    def _holds_any(self, scope: str) -> bool:
        table = self.temporary.table
        return any(table.exists(layer, scope) for layer in (*DECAYING_LAYERS, Layer.ARCHIVED))

    def restore(self, entry_id: str) -> bool:
        """Revive one cold memory now, at its scope's current tick; False if it is not cold."""
        with self.db.transaction() as conn:
            found = self.temporary.table.cold_origin(conn, entry_id)
            layer = next((d for d in self.decaying if found is not None and d.layer == found[0]), None)
            if found is None or layer is None:
                return False
            return layer.revive(conn, found[1], self.db.tick_in(conn, found[1]), [entry_id]) > 0
