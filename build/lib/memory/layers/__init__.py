"""The four memory layers, one per module; ``rag`` and ``decaying`` hold what they share."""

from memory.layers.active import ActiveLayer
from memory.layers.rag import RagLayer
from memory.layers.static import StaticLayer
from memory.layers.summary import SummaryLayer
from memory.layers.temporary import TemporaryLayer

__all__ = ["ActiveLayer", "RagLayer", "StaticLayer", "SummaryLayer", "TemporaryLayer"]
