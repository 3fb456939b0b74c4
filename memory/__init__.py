"""persona-memory: a four-layer long-term memory engine for persona-driven LLM chatbots.

The public names are below; every other module is internal and may change. Errors not listed
here live in :mod:`memory.errors` (all derive from :class:`MemoryEngineError`).
"""

import importlib as _importlib
import typing as _typing

if _typing.TYPE_CHECKING:
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
    from memory.retrieval.result import RetrievalResult
    from memory.write.importer import ImportReport

_HOMES = {
    "MemoryConfig": "memory.config",
    "RetrievalMode": "memory.config",
    "StoreMode": "memory.config",
    "Interaction": "memory.domain.types",
    "Layer": "memory.domain.types",
    "MemoryEntry": "memory.domain.types",
    "RetrievedMemory": "memory.domain.types",
    "ClosedError": "memory.errors",
    "ConfigError": "memory.errors",
    "InputTooLargeError": "memory.errors",
    "InputTypeError": "memory.errors",
    "InvalidInputError": "memory.errors",
    "MemoryEngineError": "memory.errors",
    "PersonaNotFoundError": "memory.errors",
    "StoreError": "memory.errors",
    "StoreLockedError": "memory.errors",
    "MemoryManager": "memory.manager",
    "RetrievalResult": "memory.retrieval.retriever",
    "ImportReport": "memory.write.importer",
}
"""Where each public name lives: imported on first use, so ``import memory`` (and the CLI's
``--help``) loads no database, index or model library."""


def __getattr__(name: str) -> object:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'memory' has no attribute {name!r}")
    value = getattr(_importlib.import_module(home), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)


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
