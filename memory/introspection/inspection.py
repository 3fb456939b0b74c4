"""A read-only view of what the engine holds, for tests, tools and people debugging a bot.

``manager.inspector`` returns one. Nothing here writes: it reads SQLite, the vector index and
the archive file as they are.
"""

from __future__ import annotations

from memory.domain.types import Interaction, Layer, MemoryEntry, scope_of
from memory.engine import Engine
from memory.layers.decaying import DecayingLayer
from memory.record.archive import ArchivedMemory


class MemoryInspector:
    """Reads one persona's memory without changing it."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine

    def entries(self, layer: Layer, user_id: str | None = None) -> list[MemoryEntry]:
        """The entries of a layer in a user's scope, oldest first (static: the shared ones;
        archived: the cold tier)."""
        engine = self._engine
        if layer == Layer.ACTIVE:
            return engine.layers.active.entries(user_id)
        if layer == Layer.ARCHIVED:
            return self._engine.entries.live(Layer.ARCHIVED, scope_of(user_id))
        return self._engine.layers.rag[layer].entries(user_id)

    def entry(self, entry_id: str) -> MemoryEntry | None:
        """One entry of any layer by id."""
        found = self._engine.entries.by_ids(None, [entry_id])
        return found[0] if found else None

    def interaction(self, interaction_id: str) -> Interaction | None:
        """One recorded interaction by id, as the journal holds it."""
        found = self._engine.journal.by_ids([interaction_id])
        return found[0] if found else None

    def tick(self, user_id: str | None = None) -> int:
        """The current tick of a user's decay clock (one per retrieval)."""
        return self._engine.db.tick_of(scope_of(user_id))

    def significance(self, entry_id: str) -> float | None:
        """The current (lazily decayed) significance of a temporary or summary entry."""
        entry = self.entry(entry_id)
        layer = self._engine.layers.rag.get(entry.layer) if entry is not None else None
        if entry is None or layer is None:
            return None
        return layer.current_significance(entry, self.tick(entry.user_id))

    def decay_rule(self, layer: Layer) -> tuple[float, float] | None:
        """``(coefficient, threshold)`` of a decaying layer (temporary, summary), else ``None``:
        per retrieval an untouched entry's significance is multiplied by the coefficient, and
        below the threshold it is forgotten (threshold 0: only clean-up archives)."""
        rag = self._engine.layers.rag.get(layer)
        if not isinstance(rag, DecayingLayer):
            return None
        return rag.decay_coefficient, rag.threshold

    def indexed_ids(self, layer: Layer, user_id: str | None = None) -> set[str]:
        """The ids the vector index holds for a layer and user scope (its cold entries included:
        a forgotten memory keeps its vector, deep recall searches it)."""
        return self._engine.layers.rag[layer].stores.scope_ids(scope_of(user_id))

    def collection_names(self) -> set[str]:
        """Every vector collection of this persona on the backend."""
        return {name for rag in self._engine.layers.rag.values() for name in rag.stores.existing_names()}

    def pending_index(self) -> int:
        """Searchable entries not yet in the vector index."""
        return self._engine.sync.pending()

    def archived(self) -> list[ArchivedMemory]:
        """The archive file's records, oldest first (unreadable lines skipped with a warning)."""
        return self._engine.archive.read()
