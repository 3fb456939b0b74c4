"""MemoryManager: the entry point; the only public object that knows all four layers.

Data flows one way: manager -> layers -> store / archive. A ``record_*`` call returns once its
SQLite transaction has committed; the vector index and the archive file follow (see
:mod:`memory.write.index_sync`), so an acknowledged interaction is never lost.

Lifecycle, like an httpx client: the constructor opens the files; ``with`` closes them;
``async with`` also starts and stops the scheduled jobs. A closed manager raises
:class:`~memory.errors.ClosedError`.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterable
from datetime import datetime
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, Self

from memory.config import MemoryConfig
from memory.domain.persona import Persona
from memory.domain.twins import async_twin
from memory.domain.types import ManagerState, ProfileFact, utcnow
from memory.domain.validation import check_persona, check_user_id
from memory.engine import Engine, open_engine
from memory.errors import ClosedError
from memory.introspection.inspection import MemoryInspector
from memory.introspection.state import build_debug_state
from memory.personas import load_persona
from memory.retrieval.result import QueryInput, RetrievalResult
from memory.summary.jobs import first_runs
from memory.surface import LangChainSurface
from memory.upkeep import MemoryUpkeep
from memory.write.importer import ImportReport
from memory.write.recorder import NumberedRecord, Record

if TYPE_CHECKING:
    from langchain_core.runnables import Runnable

    from memory.integrations.runnables import RetrieverFace

logger = logging.getLogger(__name__)


class MemoryManager(MemoryUpkeep, LangChainSurface):
    """Four-layer memory of one persona.

    Args:
        persona: the folder name under ``config.personas_dir`` (e.g. ``"karin"``).
        config: the engine configuration (defaults and environment when ``None``).
        summary_model: any LangChain chat model or Runnable; ``None`` means the model named in
            config, else extractive summaries.
        now: the clock (aware UTC datetimes); tests and replays may pass their own.
        background: load the embedding models on a background thread while the store opens and
            run the background indexer (default). ``False`` is for maintenance that embeds
            nothing (export, erase, restore, state): no model is loaded unless a call needs
            one, and what is written waits in the record for the next manager to index it.

    Raises:
        ConfigError: an invalid config value. PersonaNotFoundError: unknown persona.
        StaticMemoryError: a malformed static memory file. StoreError / StoreLockedError: the
        data folder is unreadable or used by another process.

    Example:
        >>> async with MemoryManager("karin") as memory:  # doctest: +SKIP
        ...     await memory.record_interaction("我对花生过敏", "记住啦～", user_id="u42")
        ...     active_text, rag_text = await memory.aretrieve("我对什么过敏？", user_id="u42")
    """

    def __init__(
        self,
        persona: str,
        config: MemoryConfig | None = None,
        summary_model: Runnable[Any, Any] | None = None,
        *,
        now: Callable[[], datetime] = utcnow,
        background: bool = True,
    ) -> None:
        self._state = ManagerState.UNOPENED
        self.config = (config or MemoryConfig()).validate()
        self._persona = load_persona(Path(self.config.personas_dir), check_persona(persona))
        self._now = now
        jobs = (self._scheduled_summary, self._scheduled_cleanup)
        self._engine: Engine = open_engine(
            self.config, self._persona, summary_model, now, jobs, background=background
        )
        self._state = ManagerState.OPEN

    # -- lifecycle ---------------------------------------------------------------------------

    @property
    def state(self) -> ManagerState:
        """``OPEN`` from construction until ``close()`` / ``stop()``, then ``CLOSED``."""
        return self._state

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()

    async def __aenter__(self) -> Self:
        await self.start()
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        await self.stop()

    async def start(self) -> None:
        """Start the scheduled summary and clean-up jobs (idempotent; needs a running loop; none
        on a memory opened read-only)."""
        self._check_open()
        engine = self._engine
        if engine.db.read_only:
            return
        runs = await asyncio.to_thread(
            first_runs,
            engine.db,
            self._now(),
            summary_interval=self.config.summary.interval_seconds,
            cleanup_interval=self.config.summary.cleanup_interval_seconds,
        )
        engine.scheduler.start(runs)

    async def stop(self) -> None:
        """Stop the jobs, flush derived state and close files (idempotent)."""
        if self._state == ManagerState.OPEN:
            await self._engine.scheduler.stop()
            await asyncio.to_thread(self.close)

    def close(self) -> None:
        """Stop the jobs, flush derived state and close files (idempotent; no loop needed)."""
        if self._state != ManagerState.OPEN:
            return
        self._state = ManagerState.CLOSED
        self._engine.close()

    def _check_open(self) -> Engine:
        if self._state != ManagerState.OPEN:
            raise ClosedError(f"this MemoryManager of {self._persona.id!r} is closed; create a new one")
        return self._engine

    # -- what it is ----------------------------------------------------------------------------

    @property
    def persona(self) -> Persona:
        """The persona: id (folder name), display name, description, locale."""
        return self._persona

    @property
    def retriever(self) -> RetrieverFace:
        """The cross-layer retriever (``retrieve``, ``retrieve_memories``) and its LangChain
        faces (``as_runnable()``, ``as_langchain_retriever()``)."""
        from memory.integrations.runnables import RetrieverFace

        return RetrieverFace(self._check_open().retriever)

    @property
    def inspector(self) -> MemoryInspector:
        """A read-only view of the layers, the vector index and the archive."""
        return MemoryInspector(self._check_open())

    # -- recording ---------------------------------------------------------------------------

    def record_interaction_sync(
        self, user_input: str, response: str, *, user_id: str | None = None, timestamp: datetime | None = None
    ) -> str:
        """Record an interaction verbatim; returns its id once committed (see
        :meth:`arecord_interaction`: the same, the summary model's gate included).

        Raises:
            InputTypeError, InvalidInputError, InputTooLargeError: bad arguments (nothing stored).
            ClosedError: the manager is closed.
        """
        return self._check_open().recorder.record(user_input, response, user_id, timestamp)

    async def arecord_interaction(
        self, user_input: str, response: str, *, user_id: str | None = None, timestamp: datetime | None = None
    ) -> str:
        """Record an interaction, then ask the summary model whether and how much it matters.

        The raw interaction is committed first (in a worker thread: the loop never waits on
        SQLite), so it survives a model failure or a crash; the model's one-line note and
        importance follow when it answers (the recording gate). Returns the interaction id.
        """
        return await self._check_open().recorder.arecord(user_input, response, user_id, timestamp)

    async def record_interaction(
        self, user_input: str, response: str, *, user_id: str | None = None, timestamp: datetime | None = None
    ) -> str:
        """:meth:`arecord_interaction` under its first name (awaited, as existing callers do)."""
        return await self.arecord_interaction(user_input, response, user_id=user_id, timestamp=timestamp)

    def remember(
        self, text: str, *, user_id: str | None = None, key: str | None = None, pinned: bool = True
    ) -> str:
        """Store a fact on purpose; returns its id.

        With a ``key`` ("allergy", "home_city", ...) it is a profile fact: it supersedes the
        key's previous value (kept as history) and reaches the prompt on every retrieval (see
        :meth:`profile`). Without one it is a memory found by search; ``pinned`` memories never
        decay.

        Raises:
            InputTypeError, InvalidInputError: a bad ``text``, ``user_id``, ``key`` or ``pinned``.
        """
        return self._check_open().recorder.remember(text, user_id=user_id, key=key, pinned=pinned)

    aremember = async_twin(remember)

    def profile(self, user_id: str | None = None) -> dict[str, ProfileFact]:
        """A user's current profile facts by key (value, since, source)."""
        facts = self._check_open().profile.current(check_user_id(user_id))
        return {fact.key: fact for fact in facts}

    aprofile = async_twin(profile)

    def import_interactions(
        self,
        records: Iterable[Record] | Iterable[NumberedRecord],
        *,
        batch_size: int = 500,
        skip_invalid: bool = False,
        progress: Callable[[int], object] | None = None,
        allow_erased: bool = False,
    ) -> ImportReport:
        """Record many interactions in order, with their own timestamps, in batches.

        Every record is validated before anything is written. A record is a mapping with
        ``user_input``, ``response`` and optional ``timestamp`` (datetime or ISO string) and
        ``user_id``; ``(line_number, record)`` pairs (see :func:`memory.write.importer.read_jsonl`)
        keep file line numbers in the report. The same layer rules apply as one by one. A record
        with a timestamp gets an id made from it, so the same file imported again adds nothing, and
        what was forgotten here (``forget``) is not recorded again.

        Args:
            allow_erased: also record users erased here (``forget_user``); refused by default,
                so a history imported before an erase does not bring the user back by accident.

        Raises:
            ImportFileError: some records are bad and ``skip_invalid`` is false, or some are of
                users erased here (nothing written).
        """
        engine = self._check_open()
        return engine.recorder.import_records(
            records,
            batch_size=batch_size,
            skip_invalid=skip_invalid,
            progress=progress,
            allow_erased=allow_erased,
        )

    aimport_interactions = async_twin(import_interactions)

    # -- retrieval -----------------------------------------------------------------------------

    def retrieve(self, query: QueryInput, *, user_id: str | None = None) -> tuple[str, str]:
        """``(active_text, rag_text)`` for a query: the active window and the recalled memories.

        ``query`` is a text, or the recent dialogue as a list of turns, oldest first (the user's
        newest turn last: it counts most). A retrieval is one tick of the user's decay clock.
        Store failures give empty RAG text.
        """
        return self._check_open().retriever.retrieve(query, user_id=user_id)

    aretrieve = async_twin(retrieve)

    def retrieve_memories(
        self, query: QueryInput, *, user_id: str | None = None, top_k: int | None = None
    ) -> RetrievalResult:
        """The full retrieval: active window, scored memories (with ranks) and prompt texts."""
        return self._check_open().retriever.retrieve_memories(query, user_id=user_id, top_k=top_k)

    aretrieve_memories = async_twin(retrieve_memories)

    # -- maintenance ---------------------------------------------------------------------------

    def debug_state(self, *, user_id: str | None = None) -> dict[str, Any]:
        """A JSON-serialisable snapshot: exact totals per layer, the first users' counts, jobs,
        model, store and breaker; with ``user_id``, that user's counts under ``"user"``."""
        return build_debug_state(self._check_open(), user_id=check_user_id(user_id))

    adebug_state = async_twin(debug_state)
