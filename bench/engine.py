"""The one place the quality and retention benchmarks call into the engine.

Everything here goes through the public API (``MemoryManager``, ``MemoryConfig``, ``retrieve``,
``record_interaction_sync``, ``import_interactions``, the two ``run_*_now`` jobs,
``debug_state()``, the ``now=`` clock) plus ``manager.retrieve_memories`` for the
entries behind a retrieval. When the engine's names change, this file changes; the benchmarks
do not.
"""

from __future__ import annotations

import asyncio
import shutil
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from langchain_core.embeddings import Embeddings

from memory.config import EmbeddingConfig, MemoryConfig
from memory.domain.types import RetrievedMemory
from memory.index.embeddings import PACKAGED_MINILM, USE_PROVIDER, get_embeddings
from memory.manager import MemoryManager

PROVIDERS = {
    "use-e5": EmbeddingConfig(),
    "use": EmbeddingConfig(provider=USE_PROVIDER),
    "minilm": EmbeddingConfig(provider="huggingface", model_name=PACKAGED_MINILM),
}
"""The embedders the benchmarks compare, by short name (``use-e5`` is the engine's default; ``use``
was the default before it)."""
DEFAULT_PROVIDER = "use-e5"

DEFAULT = MemoryConfig()
ACTIVE_CAPACITY = DEFAULT.active.capacity
MEMORY_SLOTS = DEFAULT.retrieval.top_k
BUDGET = ACTIVE_CAPACITY + MEMORY_SLOTS
"""Memories a default retrieval can show: the active window plus the memory slots (10 + 7)."""


def embedder(provider: str) -> Embeddings:
    """The engine's embedding model named ``provider`` (loaded once per process)."""
    return get_embeddings(PROVIDERS[provider])


class Clock:
    """A settable clock handed to the engine as ``now=``."""

    def __init__(self, moment: datetime | None = None) -> None:
        self.moment = moment

    def __call__(self) -> datetime:
        assert self.moment is not None, "set the bench clock before using the engine"
        return self.moment


ENRICHED = True
"""The default of :attr:`Settings.enriched` (``--before-enrichment`` of the quality benches)."""


@dataclass(frozen=True)
class Settings:
    """How a benchmark engine is configured; everything else is the engine's default."""

    persona: str
    personas_dir: Path
    locale: str = "zh"
    provider: str = DEFAULT_PROVIDER
    forgetting: bool = True
    mode: str | None = None
    quotas: dict[str, int] | None = None
    top_k: int | None = None
    no_cleanup: bool = False
    retrieval: tuple[tuple[str, object], ...] = ()
    """Further ``retrieval`` settings, ``(field, value)`` (an ablation names what it changes)."""
    enriched: bool = field(default_factory=lambda: ENRICHED)
    """Questions are asked once every memory is enriched (``flush(enrich=True)``); False: no
    enrichment at all (no background work), the store as it is right after an import."""


def _config(settings: Settings, folder: Path) -> MemoryConfig:
    config = MemoryConfig()
    config.locale = settings.locale
    config.personas_dir = str(settings.personas_dir)
    config.embedding = PROVIDERS[settings.provider].model_copy()
    config.data_dir = str(folder / "store")
    config.archive_dir = str(folder / "archive")
    if settings.mode is not None:
        config.retrieval.mode = settings.mode  # type: ignore[assignment]
    if settings.quotas is not None:
        config.retrieval.quotas = dict(settings.quotas)
    if settings.top_k is not None:
        config.retrieval.top_k = settings.top_k
    if not settings.forgetting:
        config.temporary.decay_coefficient = 1.0
        config.summary.decay_coefficient = 1.0
    if settings.no_cleanup:
        config.summary.cleanup_ratio = 0.0
    for name, value in settings.retrieval:
        setattr(config.retrieval, name, value)
    return config


HISTORY = "[history] "
"""Marks a memory, or a summary's line, the prompt shows as history (a newer statement replaced
it)."""


def _lines_marked(memory: RetrievedMemory) -> str:
    """A memory's text, each line quoting an outdated statement marked with :data:`HISTORY`."""
    outdated = getattr(memory, "outdated", ())
    lines = memory.entry.display_text.split("\n")
    return "\n".join(HISTORY + line if any(q in line for q in outdated) else line for line in lines)


@dataclass(frozen=True)
class Recalled:
    """What one retrieval showed: the active window and the RAG memories, as texts."""

    active: list[str]
    """The active window, oldest first."""
    memories: list[tuple[str, str]] = field(default_factory=list)
    """``(layer, text)`` of each RAG memory, best first (one shown as history starts with
    :data:`HISTORY`, as does each line of a summary shown as history)."""
    profile: list[str] = field(default_factory=list)
    """The profile facts shown, ``key: value``."""

    @property
    def text(self) -> str:
        """Everything shown, one block."""
        return "\n".join([*self.profile, *self.active, *(text for _, text in self.memories)])

    def ranked(self, *, without: str | None = None) -> list[str]:
        """Texts best first: the profile facts, the active window newest first, then the RAG
        memories by score (the order of the prompt's memory blocks).

        ``without`` drops one RAG layer (``"static"``: the persona's own memories).
        """
        memories = (text for layer, text in self.memories if layer != without)
        return [*self.profile, *reversed(self.active), *memories]

    @property
    def shown(self) -> int:
        """How many memories were shown."""
        return len(self.active) + len(self.memories)


@dataclass(frozen=True)
class Counts:
    """What the engine holds (from ``debug_state()``)."""

    active: int
    temporary: int
    summary: int
    archived: int
    recorded: int

    @property
    def hot(self) -> int:
        """Interactions still live: the active window plus the temporary layer."""
        return self.active + self.temporary


class Engine:
    """One benchmark engine in its own folder; ``close()`` removes nothing, ``discard()`` all."""

    def __init__(self, settings: Settings, clock: Clock, folder: Path | None = None) -> None:
        self.settings = settings
        self.clock = clock
        self.folder = folder or Path(tempfile.mkdtemp(prefix="persona-memory-bench-"))
        self.manager: MemoryManager | None = None
        self.open()

    def open(self) -> None:
        """(Re)open the manager on this engine's folder."""
        self.manager = MemoryManager(
            self.settings.persona,
            _config(self.settings, self.folder),
            now=self.clock,
            background=self.settings.enriched,
        )

    def _live(self) -> MemoryManager:
        assert self.manager is not None, "engine is closed"
        return self.manager

    def close(self) -> None:
        """Close the manager (the folder stays)."""
        if self.manager is not None:
            self.manager.close()
            self.manager = None

    def discard(self) -> None:
        """Close and delete the folder."""
        self.close()
        shutil.rmtree(self.folder, ignore_errors=True)

    def chat_turn(self, user_input: str, response: str, *, user_id: str | None, timestamp: datetime) -> None:
        """The reply path: retrieve for the user's text (one decay tick), then record the turn."""
        manager = self._live()
        manager.retrieve(user_input, user_id=user_id)
        manager.record_interaction_sync(user_input, response, user_id=user_id, timestamp=timestamp)

    def import_turns(self, turns: Iterable[tuple[str, str, datetime]]) -> None:
        """Bulk-record ``(user_input, response, timestamp)`` turns in order (no retrieval)."""
        self._live().import_interactions(
            {"user_input": u, "response": r, "timestamp": t} for u, r, t in turns
        )

    def run_jobs(self, *, summary: bool = True, cleanup: bool = True) -> None:
        """Run the summary and/or clean-up job now, on the engine's clock."""
        manager = self._live()
        if summary:
            asyncio.run(manager.run_summary_now())
        if cleanup:
            asyncio.run(manager.run_cleanup_now())

    def recall(self, query: str | list[str], *, user_id: str | None = None) -> Recalled:
        """One retrieval (one decay tick) as texts (once enriched, when the settings say so)."""
        if self.settings.enriched:
            self._live().flush(enrich=True)
        result = self._live().retrieve_memories(query, user_id=user_id)
        return Recalled(
            active=[entry.content for entry in result.active],
            memories=[
                (m.entry.layer.value, HISTORY * getattr(m, "superseded", False) + _lines_marked(m))
                for m in result.memories
            ],
            profile=[f"{f.key}: {f.value}" for f in result.profile],
        )

    def recall_each(self, queries: Sequence[str], *, user_id: str | None = None) -> list[Recalled]:
        """Every query against the store as it is now, none ticking the clock for the next.

        The engine is closed and its folder copied; each query runs on a fresh copy of that
        snapshot, then the engine reopens unchanged.
        """
        if self.settings.enriched:
            self._live().flush(enrich=True)
        self.close()
        results = []
        try:
            for query in queries:
                scratch = Path(tempfile.mkdtemp(prefix="persona-memory-probe-"))
                shutil.copytree(self.folder, scratch, dirs_exist_ok=True)
                probe = Engine(self.settings, self.clock, scratch)
                try:
                    results.append(probe.recall(query, user_id=user_id))
                finally:
                    probe.discard()
        finally:
            self.open()
        return results

    def said_values(self, user_id: str | None) -> set[str]:
        """Every value a slot has had for the user from what they said (current or history)."""
        from memory.domain.slot_corpus import SLOTS

        table = self._live()._engine.profile  # the bench reads the engine's own record
        self._live().flush()  # what waits to be indexed is looked at again when it is
        return {f.value for key in SLOTS for f in table.history(user_id, key) if f.source == "said"}

    def counts(self) -> Counts:
        """Layer counts from ``debug_state()``."""
        state = self._live().debug_state()
        return Counts(
            active=int(state["active_count"]),
            temporary=int(state["temporary_count"]),
            summary=int(state["summary_count"]),
            archived=int(state["archived_count"]),
            recorded=int(state["interactions_recorded"]),
        )
