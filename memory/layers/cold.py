"""ColdLayer: the cold tier, memories forgotten by decay or clean-up, still searchable.

Forgetting demotes an entry to ``archived``: it leaves the hot layers and the prompt, but its text
and keyword rows stay in SQLite and its vector moves to a cold collection per user scope
(``<persona>__archived[__<digest>]``). Deep recall searches this tier beside the hot one; a cold
memory a retrieval returns is revived into the layer it came from (see
:meth:`memory.layers.decaying.DecayingLayer.revive`). The JSONL archive stays the human-readable
log of what was forgotten, when and why.
"""

from __future__ import annotations

from memory.layers.rag import RagLayer, Vector
from memory.model import Layer, RetrievedMemory


class ColdLayer(RagLayer):
    """The cold tier of the temporary and summary layers, one collection per user scope."""

    layer = Layer.ARCHIVED

    def by_origin(
        self, vector: Vector, depth: int, user_id: str | None, tick: int
    ) -> dict[Layer, list[RetrievedMemory]]:
        """The ``depth`` nearest cold entries of a scope, best first, grouped by origin layer."""
        grouped: dict[Layer, list[RetrievedMemory]] = {}
        for found in self.dense_ranking(vector, depth, user_id, tick):
            if found.entry.origin is not None:
                grouped.setdefault(found.entry.origin, []).append(found)
        return grouped
