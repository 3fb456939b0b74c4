"""The four layers of one persona's memory, built together (the engine's one place to add one)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from memory.config import MemoryConfig
from memory.domain.types import DECAYING_LAYERS, Layer
from memory.index.scoped import ScopedStores
from memory.layers.active import ActiveLayer
from memory.layers.decaying import DecayingLayer
from memory.layers.rag import RagLayer
from memory.layers.static import StaticLayer
from memory.layers.summary import SummaryLayer
from memory.layers.temporary import TemporaryLayer
from memory.record.entries import EntryTable


@dataclass(frozen=True)
class Layers:
    """The layers of one persona, each once."""

    active: ActiveLayer
    temporary: TemporaryLayer
    summary: SummaryLayer
    static: StaticLayer

    @property
    def rag(self) -> dict[Layer, RagLayer]:
        """The searched layers by :class:`Layer`."""
        return {rag.layer: rag for rag in (self.temporary, self.summary, self.static)}

    @property
    def decaying(self) -> tuple[DecayingLayer, ...]:
        """The searched layers whose memories decay (:data:`DECAYING_LAYERS`)."""
        found = (self.rag[layer] for layer in DECAYING_LAYERS if layer in self.rag)
        return tuple(r for r in found if isinstance(r, DecayingLayer))


def build_layers(
    config: MemoryConfig,
    static_dir: Path,
    table: EntryTable,
    stores: Callable[[Layer], ScopedStores],
    now: Callable[[], datetime],
) -> Layers:
    """Every layer over the entries table, each searched layer with its vector collections."""
    temporary = TemporaryLayer(table, stores(Layer.TEMPORARY), config.temporary, now)
    return Layers(
        active=ActiveLayer(table, config.active.capacity, temporary.admit),
        temporary=temporary,
        summary=SummaryLayer(table, stores(Layer.SUMMARY), config.summary, now),
        static=StaticLayer(table, stores(Layer.STATIC), static_dir, now),
    )
