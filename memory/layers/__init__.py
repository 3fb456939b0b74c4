"""The four memory layers, one per module."""

from memory.layers.active import ActiveLayer
from memory.layers.base import Interaction, Layer, MemoryEntry, RetrievedMemory
from memory.layers.static import StaticLayer
from memory.layers.summary import SummaryLayer
from memory.layers.temporary import TemporaryLayer

__all__ = [
    "ActiveLayer",
    "Interaction",
    "Layer",
    "MemoryEntry",
    "RetrievedMemory",
    "StaticLayer",
    "SummaryLayer",
    "TemporaryLayer",
]
