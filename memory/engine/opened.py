"""The engine: every part of one persona's memory, opened together and closed in order."""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from langchain_core.embeddings import Embeddings

from memory.config import MemoryConfig, StoreMode
from memory.domain.persona import Persona
from memory.engine.wiring import Job, layers_of, reader_of, summarizer_of, writers_of
from memory.errors import ReadOnlyStoreError
from memory.index.chroma import ChromaBackend
from memory.index.embeddings import describe, get_embeddings, warm_up_in_background
from memory.index.heap import cap_malloc_arenas, scrub_freed_memory
from memory.index.scoped import INDEX_LAYOUT
from memory.layers.built import Layers
from memory.layers.decay_tick import DecayTick
from memory.layers.fact_vectors import FactVectors
from memory.record.archive import MemoryArchive
from memory.record.backends import open_record
from memory.record.db import Database
from memory.record.entries import EntryTable
from memory.record.journal import Journal
from memory.record.profile import ProfileTable
from memory.record.sqlite import FolderLock
from memory.record.tombstones import Tombstones
from memory.retrieval.retriever import MemoryRetriever
from memory.summary.jobs import SummaryJobs
from memory.summary.scheduler import MemoryScheduler
from memory.summary.summarizer import Summarizer
from memory.write.erase import Eraser
from memory.write.index_model import adopt_index, adopt_line_vectors
from memory.write.index_sync import IndexSync
from memory.write.recorder import Recorder

if TYPE_CHECKING:
    from langchain_core.runnables import Runnable

logger = logging.getLogger(__name__)


@dataclass
class Engine:
    """Every part of one persona's memory, opened."""

    config: MemoryConfig
    persona: Persona
    lock: FolderLock | None
    db: Database
    entries: EntryTable
    journal: Journal
    embeddings: Embeddings
    backend: ChromaBackend
    archive: MemoryArchive
    layers: Layers
    profile: ProfileTable
    sync: IndexSync
    summarizer: Summarizer
    retriever: MemoryRetriever
    decay: DecayTick
    """The decay clock: a tick per retrieval, and a cold memory brought back (``restore``)."""
    recorder: Recorder
    jobs: SummaryJobs
    scheduler: MemoryScheduler
    eraser: Eraser
    background: bool = True
    """Whether the index worker runs (and close indexes what is pending)."""

    def close(self) -> None:
        """Stop the jobs and the worker, flush derived state, close files, release the lock."""
        self.scheduler.shutdown()
        try:
            self.sync.stop_worker()
            if not self.db.read_only:
                self.sync.run(index=self.background)
        finally:
            for layer in self.layers.rag.values():
                layer.stores.close()
            self.backend.close()
            self.db.close()
            if self.lock is not None:
                self.lock.release()


def open_engine(
    config: MemoryConfig,
    persona: Persona,
    summary_model: Runnable[Any, Any] | None,
    now: Callable[[], datetime],
    jobs: tuple[Job, Job],
    *,
    background: bool = True,
) -> Engine:
    """Open a persona's memory: lock the folder, open SQLite and Chroma, load static memories,
    repair the index, start the index worker. Everything opened is closed again on failure.

    Args:
        jobs: the coroutine functions the scheduler runs (summary, clean-up).
        background: load the models on a background thread while the store opens, and run the
            index worker; without it nothing is embedded unless a call needs it (maintenance).
    """
    if background:
        warm_up_in_background(get_embeddings(config.embedding))
    cap_malloc_arenas(config.store.malloc_arena_max)
    scrub_freed_memory(config.store.scrub_freed_memory)
    data_dir = Path(config.data_dir)
    read_only = data_dir.is_dir() and not os.access(data_dir, os.W_OK)
    if read_only:  # reads need no lock: nothing here can be written, by this process or another
        logger.warning("%s is read-only: the memory is open for reading; writes are refused", data_dir)
        background = False
    else:
        _make_folder(data_dir)
    lock = None
    if config.store.mode == StoreMode.PERSISTENT and not read_only:
        lock = FolderLock(data_dir / f"{persona.id}.lock")
        lock.acquire()
    opened: list[Callable[[], object]] = [lock.release] if lock is not None else []
    try:
        engine = _wire(config, persona, summary_model, now, jobs, data_dir, lock, opened, read_only)
        engine.background = background
        if read_only:
            return engine
        if background or engine.eraser.tombstones.unfinished():  # maintenance reads no index
            engine.sync.repair(**({} if background else {"budget_seconds": 0.0}))
            engine.eraser.finish_unfinished()
        if background:
            engine.sync.start_worker()
        return engine
    except BaseException:
        for close in reversed(opened):
            with contextlib.suppress(Exception):
                close()
        raise


def _make_folder(data_dir: Path) -> None:
    try:
        data_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ReadOnlyStoreError(f"cannot make the data folder {data_dir}: {exc.strerror}") from exc


def _adopt(config: MemoryConfig, db: Database, sync: IndexSync, fact_vectors: FactVectors) -> None:
    """Adopt the index as it is on disk: built by another embedder or layout (its fact vectors
    dropped), its summaries' line vectors."""
    if adopt_index(db, sync.layers.values(), f"{describe(config.embedding)}; {INDEX_LAYOUT}"):
        fact_vectors.drop()
    adopt_line_vectors(db, sync.layers.values())


def _wire(
    config: MemoryConfig,
    persona: Persona,
    summary_model: Runnable[Any, Any] | None,
    now: Callable[[], datetime],
    jobs: tuple[Job, Job],
    data_dir: Path,
    lock: FolderLock | None,
    opened: list[Callable[[], object]],
    read_only: bool,
) -> Engine:
    db, keywords = open_record(config, persona.id, data_dir, read_only)
    opened.append(db.close)
    embeddings = get_embeddings(config.embedding)
    backend = ChromaBackend(config.store, data_dir, snapshot=read_only)
    opened.append(backend.close)
    erased = Tombstones(db)
    table = EntryTable(db, keywords=keywords.index_rows)
    layers = layers_of(config, persona, db, table, backend, embeddings, erased, now)
    profile, history = ProfileTable(db), Journal(db)
    archive = MemoryArchive(Path(config.archive_dir), persona.id)
    fact_vectors = FactVectors(profile, embeddings)
    lock_file = data_dir / f"{persona.id}.export.lock"
    sync = IndexSync(
        table, layers.rag, archive, breaker=backend.breaker, export_lock=lock_file, fact_vectors=fact_vectors
    )
    summarizer = summarizer_of(config, persona, summary_model)
    decay = DecayTick(db, layers.temporary, layers.decaying)
    retriever = reader_of(
        config, persona, db, layers, profile, embeddings, fact_vectors, sync, decay, now, keywords
    )
    _adopt(config, db, sync, fact_vectors)
    if not read_only:
        layers.static.load()
    recorder, summary_jobs, scheduler = writers_of(
        config, persona, db, history, layers, profile, sync, summarizer, now, jobs, erased
    )
    return Engine(
        config=config,
        persona=persona,
        lock=lock,
        db=db,
        entries=table,
        journal=history,
        embeddings=embeddings,
        backend=backend,
        archive=archive,
        layers=layers,
        profile=profile,
        sync=sync,
        summarizer=summarizer,
        retriever=retriever,
        decay=decay,
        recorder=recorder,
        jobs=summary_jobs,
        scheduler=scheduler,
        eraser=Eraser(db, table, layers.rag, sync, keywords.purge, erased, config.active.capacity),
    )
