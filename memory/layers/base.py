"""Values that cross module lines: layers, interactions, entries, retrieved memories."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from enum import StrEnum


class Layer(StrEnum):
    """Where an entry lives. ``ARCHIVED`` entries are forgotten or cleaned: kept, never returned."""

    ACTIVE = "active"
    TEMPORARY = "temporary"
    SUMMARY = "summary"
    STATIC = "static"
    ARCHIVED = "archived"


RAG_LAYERS: tuple[Layer, ...] = (Layer.TEMPORARY, Layer.SUMMARY, Layer.STATIC)
SHARED_SCOPE = ""
"""The scope key of ``user_id=None``: the persona's shared memory."""


def scope_of(user_id: str | None) -> str:
    """The storage key of a user scope (``None`` is the shared scope)."""
    return SHARED_SCOPE if user_id is None else user_id


def user_of(scope: str) -> str | None:
    """The inverse of :func:`scope_of`."""
    return None if scope == SHARED_SCOPE else scope


def utcnow() -> datetime:
    """The current time, UTC, aware."""
    return datetime.now(UTC)


@dataclass(frozen=True)
class Interaction:
    """One user message and the persona's reply, as recorded."""

    id: str
    user_input: str
    response: str
    timestamp: datetime
    user_id: str | None = None
    note: str | None = None


@dataclass(frozen=True)
class MemoryEntry:
    """One memory in one layer; ``significance`` is as of tick ``changed_at``."""

    id: str
    layer: Layer
    content: str
    created_at: datetime
    user_id: str | None = None
    significance: float = 1.0
    changed_at: int = 0
    note: str | None = None
    tags: tuple[str, ...] = field(default_factory=tuple)
    source: str | None = None

    @property
    def index_text(self) -> str:
        """The text embedded and keyword-indexed: the note (model summary) and the content."""
        return f"{self.note}\n{self.content}" if self.note else self.content

    @property
    def display_text(self) -> str:
        """The text shown in a prompt for a retrieved memory."""
        return self.note or self.content


@dataclass(frozen=True)
class RetrievedMemory:
    """A memory returned by a retrieval, with how it was scored."""

    entry: MemoryEntry
    score: float
    similarity: float
    significance: float
