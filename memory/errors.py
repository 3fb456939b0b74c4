"""The exception tree of persona-memory.

Every error the engine raises on purpose derives from :class:`MemoryEngineError`, so a
chatbot can catch one root. Input and configuration errors also derive from the built-in
``ValueError`` / ``TypeError`` so generic handlers keep working.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator


class MemoryEngineError(Exception):
    """Root of every error raised by persona-memory (``MemoryError`` is a Python built-in)."""


class ClosedError(MemoryEngineError, RuntimeError):
    """The manager was closed (``close()``, ``stop()`` or the end of a ``with`` block)."""


class ConfigError(MemoryEngineError, ValueError):
    """A configuration value is invalid; the message names the field."""

    def __init__(self, field: str, message: str) -> None:
        self.field = field
        super().__init__(f"config field '{field}': {message}")


class ConfigFileError(ConfigError):
    """A config file is missing or not TOML; the message names the file."""

    def __init__(self, path: str, message: str) -> None:
        self.field = "path"
        ValueError.__init__(self, f"config file {path}: {message}")


class InvalidInputError(MemoryEngineError, ValueError):
    """An argument has the right type but an unusable value (empty text, bad ``top_k``...)."""

    def __init__(self, argument: str, message: str) -> None:
        self.argument = argument
        super().__init__(f"argument '{argument}': {message}")


class InputTooLargeError(InvalidInputError):
    """A text is longer than ``MemoryConfig.max_text_chars``."""


class ImportFileError(InvalidInputError):
    """Bad records in an import (nothing was written); the message lists their line numbers."""


class InputTypeError(MemoryEngineError, TypeError):
    """An argument has the wrong type; the message names the argument and the type received."""

    def __init__(self, argument: str, expected: str, received: object) -> None:
        self.argument = argument
        super().__init__(f"argument '{argument}' must be {expected}, got {type(received).__name__}")


class PersonaNotFoundError(MemoryEngineError, ValueError):
    """The persona folder does not exist under ``personas_dir``."""


class StaticMemoryError(MemoryEngineError, ValueError):
    """A static memory file could not be read; the message names the file (and line)."""


class EmbeddingError(MemoryEngineError):
    """The embedding model could not be loaded or failed to encode."""


class StoreError(MemoryEngineError):
    """The state on disk (SQLite or Chroma) could not be opened or written."""


class StoreLockedError(StoreError):
    """Another process holds the embedded data folder of this persona."""


class StoreUnavailableError(StoreError):
    """The vector store is failing; the circuit breaker is open."""


class ReadOnlyStoreError(StoreError):
    """The data folder is read-only: nothing was written (reads still work); the message names it."""


class StorageFullError(StoreError):
    """The disk holding the data folder is full: nothing was written; free space and retry."""


class AccessDeniedError(MemoryEngineError, PermissionError):
    """A scoped server key asked for another persona or user; the message names the argument."""

    def __init__(self, argument: str, message: str) -> None:
        self.argument = argument
        super().__init__(f"argument '{argument}': {message}")


class CallTimeout(TimeoutError):
    """A backend call did not finish before its deadline (it may still be running on its thread).
    Internal: the index turns it into :class:`StoreUnavailableError` before any caller sees it."""


class MissingExtraError(MemoryEngineError, ImportError):
    """A part of the package needs an optional extra that is not installed (the message says
    which ``pip install`` adds it)."""


@contextlib.contextmanager
def needs_extra(extra: str, what: str) -> Iterator[None]:
    """Turn a missing optional module met inside the block into :class:`MissingExtraError`."""
    try:
        yield
    except ModuleNotFoundError as exc:
        raise MissingExtraError(
            f"{what} needs the {extra} extra ({exc.name} is not installed): "
            f"pip install 'persona-memory[{extra}]'"
        ) from exc
