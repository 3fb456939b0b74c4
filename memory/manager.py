"""MemoryManager: the entry point; the only module that knows all four layers.

Data flows one way: manager -> layers -> store / archive. A ``record_*`` call returns once its
SQLite transaction has committed; the vector index and the archive file follow (see
:mod:`memory.sync`), so an acknowledged interaction is never lost.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from collections.abc import Callable, Iterable
from datetime import datetime
from pathlib import Path
from typing import Any

from langchain_core.runnables import Runnable

from memory.archive import MemoryArchive
from memory.config import MemoryConfig, StoreMode
from memory.db import Database, FolderLock
from memory.decay import DecayTick
from memory.embeddings import get_embeddings
from memory.importer import ImportReport
from memory.jobs import SummaryJobs
from memory.journal import Journal
from memory.layers.active import ActiveLayer
from memory.layers.base import Layer, utcnow
from memory.layers.rag import RagLayer
from memory.layers.static import StaticLayer
from memory.layers.summary import SummaryLayer
from memory.layers.temporary import TemporaryLayer
from memory.persona import load_persona
from memory.recorder import NumberedRecord, Record, Recorder
from memory.retriever import MemoryRetriever
from memory.scheduler import MemoryScheduler
from memory.scoped import ScopedStores
from memory.state import build_debug_state, first_runs
from memory.store import ChromaBackend
from memory.summarizer import Summarizer, load_model_factory
from memory.sync import IndexSync
from memory.validation import check_persona

logger = logging.getLogger(__name__)


class MemoryManager:
    """Four-layer memory of one persona.

    Args:
        persona: the folder name under ``config.personas_dir`` (e.g. ``"karin"``).
        config: the engine configuration (defaults when ``None``).
        summary_model: any LangChain chat model or Runnable; ``None`` means extractive summaries.
        now: the clock (aware UTC datetimes); tests and replays may pass their own.

    Raises:
        ConfigError: an invalid config value. PersonaNotFoundError: unknown persona.
        StaticMemoryError: a malformed static memory file. StoreError / StoreLockedError: the
        data folder is unreadable or used by another process. See the README for an example.
    """

    def __init__(
        self,
        persona: str,
        config: MemoryConfig | None = None,
        summary_model: Runnable[Any, Any] | None = None,
        *,
        now: Callable[[], datetime] = utcnow,
    ) -> None:
        self.config = (config or MemoryConfig()).validate()
        self.persona = load_persona(Path(self.config.personas_dir), check_persona(persona))
        self.now = now
        data_dir = Path(self.config.embedding.persist_dir)
        data_dir.mkdir(parents=True, exist_ok=True)
        self._lock: FolderLock | None = None
        if self.config.store.mode == StoreMode.PERSISTENT:
            self._lock = FolderLock(data_dir / f"{persona}.lock")
            self._lock.acquire()
        try:
            self._open(data_dir, summary_model)
        except BaseException:
            for part in (getattr(self, "backend", None), getattr(self, "db", None)):
                if part is not None:
                    part.close()
            self._release()
            raise

    def _open(self, data_dir: Path, summary_model: Runnable[Any, Any] | None) -> None:
        config, persona = self.config, self.persona
        self.db = Database(
            data_dir / f"{persona.id}.sqlite3",
            synchronous=config.store.sqlite_synchronous,
            keyword_tokenizer=config.retrieval.keyword_tokenizer,
        )
        self.embeddings = get_embeddings(config.embedding)
        self.backend = ChromaBackend(config.store, data_dir)
        stores = {
            layer: ScopedStores(
                self.backend, f"{persona.id}__{layer.value}", self.embeddings, shared=layer == Layer.STATIC
            )
            for layer in (Layer.TEMPORARY, Layer.SUMMARY, Layer.STATIC)
        }
        self.archive = MemoryArchive(Path(config.archive_dir), persona.id)
        self.journal = Journal(self.db)
        self.temporary = TemporaryLayer(self.db, stores[Layer.TEMPORARY], config.temporary, self.now)
        self.active = ActiveLayer(self.db, config.active.capacity, self.temporary.admit)
        self.summary = SummaryLayer(self.db, stores[Layer.SUMMARY], config.summary, self.now)
        self.static = StaticLayer(self.db, stores[Layer.STATIC], persona.static_dir, self.now)
        searchable: tuple[RagLayer, ...] = (self.temporary, self.summary, self.static)
        self.rag_layers: dict[Layer, RagLayer] = {layer.layer: layer for layer in searchable}
        self.sync = IndexSync(
            self.db,
            self.rag_layers,
            self.archive,
            breaker=self.backend.breaker,
            export_lock=data_dir / f"{persona.id}.export.lock",
        )
        self.summarizer = Summarizer(
            summary_model if summary_model is not None else load_model_factory(config.summary.model_factory),
            persona=persona.name,
            locale=config.locale,
            timeout=config.summary.model_timeout_seconds,
            max_chars=config.summary.max_summary_chars,
        )
        self.retriever = MemoryRetriever(
            self.active,
            self.rag_layers,
            config.retrieval,
            self.embeddings,
            on_retrieved=DecayTick(self.db, self.temporary, (self.temporary, self.summary), self.sync.notify),
            before_search=self.sync.flush,
            locale=config.locale,
            now=self.now,
            max_text_chars=config.max_text_chars,
        )
        self.recorder = Recorder(
            db=self.db,
            journal=self.journal,
            active=self.active,
            temporary=self.temporary,
            sync=self.sync,
            config=config,
            persona_name=persona.name,
            now=self.now,
        )
        self.jobs = SummaryJobs(
            db=self.db,
            journal=self.journal,
            active=self.active,
            summary=self.summary,
            summarizer=self.summarizer,
            now=self.now,
        )
        self.scheduler = MemoryScheduler(
            self.run_summary_now,
            self.run_cleanup_now,
            summary_interval=config.summary.interval_seconds,
            cleanup_interval=config.summary.cleanup_interval_seconds,
        )
        self.static.load()
        self.sync.repair()
        self.sync.start_worker()
        self._closed = False

    async def start(self) -> None:
        """Start the scheduled summary and clean-up jobs (idempotent; needs a running loop)."""
        self._check_open()
        self.scheduler.start(first_runs(self.db, self.config, self.now()))

    async def stop(self) -> None:
        """Stop the jobs, flush derived state and close files (idempotent)."""
        await self.scheduler.stop()
        self.close()

    def close(self) -> None:
        """Synchronous close for scripts that never started the scheduler (idempotent)."""
        if getattr(self, "_closed", True):
            self._release()
            return
        self._closed = True
        try:
            self.sync.stop_worker()
            self.sync.run()
        finally:
            self.backend.close()
            self.db.close()
            self._release()

    def _release(self) -> None:
        if self._lock is not None:
            self._lock.release()

    def _check_open(self) -> None:
        if getattr(self, "_closed", True):
            raise RuntimeError("this MemoryManager is stopped; create a new one")

    def record_interaction_sync(
        self,
        user_input: str,
        response: str,
        *,
        user_id: str | None = None,
        timestamp: datetime | None = None,
    ) -> str:
        """Record an interaction verbatim; returns its id once committed to SQLite.

        Raises:
            InputTypeError, InvalidInputError, InputTooLargeError: bad arguments (nothing stored).
        """
        self._check_open()
        interaction = self.recorder.build(user_input, response, user_id, timestamp)
        self.recorder.commit([interaction])
        return interaction.id

    async def record_interaction(
        self,
        user_input: str,
        response: str,
        *,
        user_id: str | None = None,
        timestamp: datetime | None = None,
    ) -> str:
        """Record an interaction, then add the summary model's one-line condensation.

        The raw interaction is committed first (it survives a model failure or a crash);
        the note follows when the model answers. Returns the interaction id.
        """
        self._check_open()
        interaction = self.recorder.build(user_input, response, user_id, timestamp)
        await asyncio.to_thread(self.recorder.commit, [interaction])
        note = await self.summarizer.condense(interaction)
        if note:
            await asyncio.to_thread(self.recorder.attach_note, interaction.id, note)
        return interaction.id

    def import_interactions(
        self,
        records: Iterable[Record] | Iterable[NumberedRecord],
        *,
        batch_size: int = 500,
        skip_invalid: bool = False,
        progress: Callable[[int], object] | None = None,
    ) -> ImportReport:
        """Record many interactions in order, with their own timestamps, in batches.

        Every record is validated before anything is written. A record is a mapping with
        ``user_input``, ``response`` and optional ``timestamp`` (datetime or ISO string) and
        ``user_id``; ``(line_number, record)`` pairs (see :func:`memory.importer.read_jsonl`)
        keep file line numbers in the report. The same layer rules apply as one by one: active
        keeps the newest, the rest goes to temporary.

        Raises:
            ImportFileError: some records are bad and ``skip_invalid`` is false (nothing written).
        """
        self._check_open()
        return self.recorder.import_records(
            records, batch_size=batch_size, skip_invalid=skip_invalid, progress=progress
        )

    def retrieve(self, query: str, *, user_id: str | None = None) -> tuple[str, str]:
        """``(active_text, rag_text)`` for a query: the active window and the recalled memories.

        A retrieval is one tick of the user's decay clock. Store failures give empty RAG text.
        """
        self._check_open()
        return self.retriever.retrieve(query, user_id=user_id)

    def flush(self) -> bool:
        """Bring the vector index and archive file up to SQLite now; False while the store fails."""
        self._check_open()
        try:
            return self.sync.flush()
        except (sqlite3.Error, OSError) as exc:
            logger.warning("flush failed (%s); it will be retried", exc)
            return False

    async def run_summary_now(self) -> int:
        """Summarise each user's active window plus buffer into one summary; returns how many."""
        self._check_open()
        written = await self.jobs.summarize()
        await asyncio.to_thread(self.flush)
        return written

    async def run_cleanup_now(self) -> int:
        """Archive the least significant fraction of each user's summaries; returns how many."""
        self._check_open()
        removed = await asyncio.to_thread(self.jobs.cleanup)
        await asyncio.to_thread(self.flush)
        return removed

    def reindex(self) -> int:
        """Rebuild the vector index from SQLite; returns how many entries were indexed."""
        self._check_open()
        return self.sync.rebuild()

    def debug_state(self) -> dict[str, Any]:
        """A JSON-serialisable snapshot: counts per layer, jobs, model, store and breaker."""
        return build_debug_state(self)
