"""persona-memory: a four-layer long-term memory engine for persona-driven LLM chatbots.

The public names are below; every other module is internal and may change. Errors not listed
here live in :mod:`memory.errors` (all derive from :class:`MemoryEngineError`).
"""

from memory.config import MemoryConfig, RetrievalMode, StoreMode
from memory.domain.types import Interaction, Layer, MemoryEntry, RetrievedMemory
from memory.errors import (
    ClosedError,
    ConfigError,
    InputTooLargeError,
    InputTypeError,
    InvalidInputError,
    MemoryEngineError,
    PersonaNotFoundError,
    StoreError,
    StoreLockedError,
)
from memory.manager import MemoryManager
from memory.retrieval.retriever import RetrievalResult
from memory.write.importer import ImportReport

__all__ = [
    "ClosedError",
    "ConfigError",
    "ImportReport",
    "InputTooLargeError",
    "InputTypeError",
    "Interaction",
    "InvalidInputError",
    "Layer",
    "MemoryConfig",
    "MemoryEngineError",
    "MemoryEntry",
    "MemoryManager",
    "PersonaNotFoundError",
    "RetrievalMode",
    "RetrievalResult",
    "RetrievedMemory",
    "StoreError",
    "StoreLockedError",
    "StoreMode",
]
