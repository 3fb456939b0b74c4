"""What a retrieval takes and gives: the query (a text or a dialogue) and the result."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from memory.domain.types import MemoryEntry, ProfileFact, RetrievedMemory
from memory.retrieval.relevance import Bar

QueryInput = str | Sequence[str]
"""A query: one text, or the recent dialogue as turns, oldest first (the user's newest last)."""


@dataclass(frozen=True)
class RetrievalResult:
    """Everything one retrieval produced."""

    active: list[MemoryEntry]
    memories: list[RetrievedMemory]
    active_text: str
    rag_text: str
    degraded: bool = False
    profile: list[ProfileFact] = field(default_factory=list)
    """The user's current profile facts, in the prompt ahead of the memories."""
    near_misses: list[RetrievedMemory] = field(default_factory=list)
    """The best candidates just below the cut (not returned, not boosted), best first."""
    floor: Bar | None = None
    """The relevance floor's bar for this query (None: no floor applied)."""
    keywords: dict[str, str] = field(default_factory=dict)
    """The words the keyword search looked for, each with the query word it stands for: itself,
    or the word the bilingual bridge translated (``{"宠物": "pet"}``)."""
