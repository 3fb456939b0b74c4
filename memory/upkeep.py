"""The upkeep half of :class:`memory.manager.MemoryManager`: flush, the jobs, restore, erase,
reindex. The reply path (record, retrieve) stays in :mod:`memory.manager`.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import sqlite3
from pathlib import Path
from typing import Protocol, TextIO

from memory import transfer
from memory.domain.twins import async_twin
from memory.domain.validation import check_memory_id, check_user_id
from memory.engine import Engine
from memory.errors import InvalidInputError, StoreError

logger = logging.getLogger(__name__)


class OpenManager(Protocol):
    """What the upkeep half needs of the manager it is part of."""

    def _check_open(self) -> Engine: ...

    def flush(self, *, enrich: bool = False) -> bool: ...

    async def aflush(self, *, enrich: bool = False) -> bool: ...


class MemoryUpkeep:
    """Maintenance operations of an open manager (a base of :class:`MemoryManager`)."""

    def flush(self: OpenManager, *, enrich: bool = False) -> bool:
        """Bring the vector index and archive file up to SQLite now: every memory recorded is
        searchable when it returns. False while the store fails.

        Args:
            enrich: also wait for the background enrichment (every memory's full vector stored,
                ``debug_state()["store"]["pending_enrichment"]`` 0); without it, a memory may
                still be found by its cheap vector and keywords.
        """
        sync = self._check_open().sync
        try:
            return sync.flush(enrich=enrich)
        except (sqlite3.Error, StoreError, OSError) as exc:
            logger.warning("flush failed (%s); it will be retried", exc)
            return False

    aflush = async_twin(flush)

    async def run_summary_now(self: OpenManager) -> int:
        """Summarise each user's active window plus buffer into one summary; returns how many."""
        written = await self._check_open().jobs.summarize()
        await self.aflush()
        return written

    async def _scheduled_summary(self: OpenManager) -> None:
        # workers sharing a record each schedule the job: it runs once per interval among them
        engine = self._check_open()
        gap = engine.config.summary.interval_seconds / 2
        if await engine.jobs.summarize(unless_ran_within=gap):
            await self.aflush()

    async def _scheduled_cleanup(self: OpenManager) -> None:
        engine = self._check_open()
        gap = engine.config.summary.cleanup_interval_seconds / 2
        if await asyncio.to_thread(functools.partial(engine.jobs.cleanup, unless_ran_within=gap)):
            await self.aflush()

    async def run_cleanup_now(self: OpenManager) -> int:
        """Archive the least significant fraction of each user's summaries; returns how many."""
        removed = await asyncio.to_thread(self._check_open().jobs.cleanup)
        await self.aflush()
        return removed

    def forget(self: OpenManager, memory_id: str, *, user_id: str | None = None) -> bool:
        """Erase one memory from every file (see :meth:`forget_user`), with the profile fact its
        statement set and the summary lines that quote it; or a profile fact, by the id
        :meth:`remember` returned for it. With ``user_id``, only if it is that user's (a tool
        acting for a user can never erase someone else's).

        Returns:
            True when it was erased; False for an unknown id or another user's memory.

        Raises:
            InvalidInputError: an empty id, or a persona (static) memory.
        """
        engine = self._check_open()
        memory, user = check_memory_id(memory_id), check_user_id(user_id)
        return engine.eraser.forget(memory, user, any_user=user_id is None)

    aforget = async_twin(forget)

    def forget_user(self: OpenManager, user_id: str) -> int:
        """Erase everything the engine holds of a user, from every file: interactions, memories
        of every layer and tier, summaries, profile facts, keyword index, vectors and archive
        lines (see :mod:`memory.write.erase`). Other users are untouched. Returns how many memories
        went.

        Raises:
            InvalidInputError: ``user_id`` is empty (the persona's shared memory is not a user's).
        """
        engine = self._check_open()
        user = check_user_id(user_id)
        if user is None:
            raise InvalidInputError("user_id", "name the user to erase (None is the persona's shared memory)")
        return engine.eraser.forget_user(user)

    aforget_user = async_twin(forget_user)

    def restore(self: OpenManager, memory_id: str, *, user_id: str | None = None) -> bool:
        """Bring a forgotten (cold) memory back to its layer, as if just recalled; with
        ``user_id``, only if it is that user's.

        Returns:
            True when it was cold and is back; False for an id that is not in the cold tier, or
            another user's memory.

        Raises:
            InputTypeError, InvalidInputError: ``memory_id`` is not a non-empty str, or a bad
            ``user_id``.
        """
        engine = self._check_open()
        memory, user = check_memory_id(memory_id), check_user_id(user_id)
        if user_id is not None:
            found = engine.entries.by_ids(None, [memory])
            if not found or found[0].user_id != user:
                return False
        restored = engine.decay.restore(memory)
        if restored:
            engine.sync.notify()  # its vector moves back to the hot collection
        return restored

    arestore = async_twin(restore)

    def export_memories(self: OpenManager, path: str | Path | TextIO, *, user_id: str | None = None) -> int:
        """Write one user's memory (or, with ``user_id=None``, every user's and the persona's
        shared memory) to a JSON Lines file (a symlink is written through to its target) or an
        open text stream: every memory of every layer and tier with its
        significance, tick, timestamps, pinned flag and key, the interactions, profile facts and
        decay clocks (see :mod:`memory.transfer`). Returns how many memories.

        Raises:
            InvalidInputError: ``path`` cannot be written, or is not a regular file (nothing is
                left half-written).
        """
        engine = self._check_open()
        user = check_user_id(user_id)
        target = Path(path) if isinstance(path, str | Path) else path
        return transfer.export(engine, target, user_id=user, every_user=user is None)

    aexport_memories = async_twin(export_memories)

    def import_memories(self: OpenManager, path: str | Path, *, allow_erased: bool = False) -> int:
        """Restore an export made by :meth:`export_memories` into this persona (its users must
        hold no memory here yet); retrievals then give what they gave where it was exported.
        A memory or fact forgotten here (``forget``) stays forgotten: it is erased again, with
        what was made of it, as at its first erase. Returns how many memories were restored.

        Args:
            allow_erased: also restore users erased here (``forget_user``); refused by default,
                so an export made before an erase does not bring the user back by accident.

        Raises:
            ImportFileError: not an export, a malformed line, or a user already present or
                erased here.
        """
        engine = self._check_open()
        engine.db.check_writable()
        count = transfer.import_export(engine, Path(path), allow_erased=allow_erased)
        self.flush()
        return count

    aimport_memories = async_twin(import_memories)

    def reindex(self: OpenManager) -> int:
        """Rebuild the vector index from SQLite; returns how many entries were indexed."""
        engine = self._check_open()
        engine.db.check_writable()
        return engine.sync.rebuild()

    areindex = async_twin(reindex)
