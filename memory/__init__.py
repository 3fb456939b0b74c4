"""persona-memory: a four-layer long-term memory engine for persona-driven LLM chatbots.

Public names only; everything else lives in private-by-convention modules.
"""

from memory.archive import ArchivedMemory, MemoryArchive
from memory.config import MemoryConfig, RetrievalMode, StoreMode
from memory.errors import (
    ConfigError,
    EmbeddingError,
    InputTooLargeError,
    InputTypeError,
    InvalidInputError,
    MemoryEngineError,
    PersonaNotFoundError,
    StaticMemoryError,
    StoreError,
    StoreLockedError,
    StoreUnavailableError,
)
from memory.layers import (
    ActiveLayer,
    Interaction,
    Layer,
    MemoryEntry,
    RetrievedMemory,
    StaticLayer,
    SummaryLayer,
    TemporaryLayer,
)
from memory.manager import MemoryManager
from memory.retriever import MemoryRetriever, RetrievalResult
from memory.store import VectorStore

__all__ = [
    "ActiveLayer",
    "ArchivedMemory",
    "ConfigError",
    "EmbeddingError",
    "InputTooLargeError",
    "InputTypeError",
    "Interaction",
    "InvalidInputError",
    "Layer",
    "MemoryArchive",
    "MemoryConfig",
    "MemoryEngineError",
    "MemoryEntry",
    "MemoryManager",
    "MemoryRetriever",
    "PersonaNotFoundError",
    "RetrievalMode",
    "RetrievalResult",
    "RetrievedMemory",
    "StaticLayer",
    "StaticMemoryError",
    "StoreError",
    "StoreLockedError",
    "StoreMode",
    "StoreUnavailableError",
    "SummaryLayer",
    "TemporaryLayer",
    "VectorStore",
]
