"""How the parts of one persona's memory are built from each other (for :func:`open_engine`)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import TYPE_CHECKING, Any

from langchain_core.embeddings import Embeddings

from memory.config import MemoryConfig
from memory.domain.persona import Persona
from memory.domain.types import Layer
from memory.index.chroma import ChromaBackend
from memory.index.embeddings import BLEND_PROVIDER, leads_with_use, tiered
from memory.index.scoped import ScopedStores
from memory.layers.built import Layers, build_layers
from memory.layers.decay_tick import DecayTick
from memory.layers.fact_vectors import FactVectors
from memory.record.backends import KeywordBackend
from memory.record.db import Database
from memory.record.entries import EntryTable
from memory.record.journal import Journal
from memory.record.profile import ProfileTable
from memory.record.tombstones import Tombstones
from memory.retrieval.retriever import MemoryRetriever
from memory.retrieval.same_topic import SameTopic
from memory.summary.jobs import SummaryJobs
from memory.summary.scheduler import MemoryScheduler
from memory.summary.summarizer import Summarizer, load_model_factory
from memory.write.index_sync import IndexSync
from memory.write.recorder import Recorder
from memory.write.said_slots import SaidSlots

if TYPE_CHECKING:
    from langchain_core.runnables import Runnable

Job = Callable[[], Awaitable[object]]
"""A coroutine function the scheduler runs (the summary job, the clean-up job)."""


def summarizer_of(
    config: MemoryConfig, persona: Persona, summary_model: Runnable[Any, Any] | None
) -> Summarizer:
    model = summary_model if summary_model is not None else load_model_factory(config.summary.model_factory)
    return Summarizer(
        model,
        persona=persona.name,
        locale=config.locale,
        timeout=config.summary.model_timeout_seconds,
        max_chars=config.summary.max_summary_chars,
    )


def writers_of(
    config: MemoryConfig,
    persona: Persona,
    db: Database,
    history: Journal,
    layers: Layers,
    profile: ProfileTable,
    sync: IndexSync,
    summarizer: Summarizer,
    now: Callable[[], datetime],
    jobs: tuple[Job, Job],
    erased: Tombstones,
) -> tuple[Recorder, SummaryJobs, MemoryScheduler]:
    """What writes to the layers: the recorder of interactions, the summary and clean-up jobs,
    and the scheduler that runs ``jobs``."""
    recorder = Recorder(
        db=db,
        journal=history,
        active=layers.active,
        temporary=layers.temporary,
        profile=profile,
        sync=sync,
        summarizer=summarizer,
        config=config,
        persona_name=persona.name,
        now=now,
        erased=erased,
    )
    summary_jobs = SummaryJobs(
        db=db,
        journal=history,
        active=layers.active,
        summary=layers.summary,
        summarizer=summarizer,
        profile=profile,
        now=now,
        concurrency=config.summary.concurrency,
    )
    scheduler = MemoryScheduler(
        *jobs,
        summary_interval=config.summary.interval_seconds,
        cleanup_interval=config.summary.cleanup_interval_seconds,
    )
    return recorder, summary_jobs, scheduler


def layers_of(
    config: MemoryConfig,
    persona: Persona,
    db: Database,
    table: EntryTable,
    backend: ChromaBackend,
    embeddings: Embeddings,
    erased: Tombstones,
    now: Callable[[], datetime],
) -> Layers:
    """The persona's layers, each searched one with its collections (named by persona and layer)."""

    def stores(layer: Layer) -> ScopedStores:
        name, shared = f"{persona.id}__{layer.value}", layer == Layer.STATIC
        return ScopedStores(backend, name, embeddings, shared=shared, tag=erased.index_tag)

    layers = build_layers(config, persona.static_dir, table, stores, now)
    if config.temporary.slots and leads_with_use(config.embedding):
        said = SaidSlots(db, erased)
        layers.temporary.index.on_indexed = said
        if config.embedding.provider == BLEND_PROVIDER:
            layers.temporary.index.on_enriched = said.enriched
    return layers


def reader_of(
    config: MemoryConfig,
    persona: Persona,
    db: Database,
    layers: Layers,
    profile: ProfileTable,
    embeddings: Embeddings,
    fact_vectors: FactVectors,
    sync: IndexSync,
    decay: DecayTick,
    now: Callable[[], datetime],
    keywords: KeywordBackend,
) -> MemoryRetriever:
    """The read path over the layers, the profile and the keyword index."""
    return MemoryRetriever(
        db,
        layers.active,
        layers.rag,
        profile,
        config.retrieval,
        embeddings,
        fact_vectors=fact_vectors,
        sync=sync,
        decay=decay,
        locale=config.locale,
        now=now,
        max_text_chars=config.max_text_chars,
        ranker=keywords.search,
        related=SameTopic(_use_of(embeddings)) if leads_with_use(config.embedding) else None,
        reads_use=leads_with_use(config.embedding),
        user_terms=persona.addresses_user_as,
    )


def _use_of(embeddings: Embeddings) -> Callable[[list[str]], list[list[float]]]:
    """Embeds texts with vectors that begin with USE's: the cheap tier, or the model itself."""
    tiers = tiered(embeddings)
    return embeddings.embed_documents if tiers is None else tiers.embed_cheap
