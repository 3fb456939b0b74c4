"""The scheduled jobs' work: summarise each user's recent interactions; clean up old summaries.

Idempotent: a summary's id derives from the interactions it covers, and the buffer is cleared in
the same transaction that stores the summary, so a crash in between neither loses nor doubles.
Database work runs in worker threads, never on the event loop; users are summarised
concurrently, at most ``concurrency`` at a time (the model calls are what takes time).
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable
from datetime import datetime, timedelta

from memory.domain.types import Interaction, Layer, MemoryEntry, user_of
from memory.domain.validation import is_key
from memory.layers.active import ActiveLayer
from memory.layers.summary import SummaryLayer
from memory.record.db import Database
from memory.record.journal import Journal
from memory.record.profile import ProfileTable
from memory.summary.summarizer import MODEL, Summarizer

_SUMMARY_NAMESPACE = uuid.UUID("6f1c1f7e-3a57-4c1e-9d59-8a3f2b0c6d11")
LAST_SUMMARY = "last_summary_at"
LAST_CLEANUP = "last_cleanup_at"
SUMMARY_JOB = "summary"
CLEANUP_JOB = "cleanup"


class SummaryJobs:
    """Summary and clean-up over the layers they concern."""

    def __init__(
        self,
        *,
        db: Database,
        journal: Journal,
        active: ActiveLayer,
        summary: SummaryLayer,
        summarizer: Summarizer,
        profile: ProfileTable,
        now: Callable[[], datetime],
        concurrency: int = 4,
    ) -> None:
        self.db = db
        self.journal = journal
        self.active = active
        self.summary = summary
        self.summarizer = summarizer
        self.profile = profile
        self.now = now
        self.concurrency = concurrency

    async def summarize(self, *, unless_ran_within: float = 0.0) -> int:
        """One summary per user with a non-empty buffer (its active window plus buffer).

        One worker at a time across every process sharing the record; another that finds it
        running returns 0. ``unless_ran_within`` (seconds) skips a run when any worker ran the
        job that recently (a scheduled run: once per interval, not once per worker).
        """
        if not await asyncio.to_thread(self.db.try_exclusive, SUMMARY_JOB):
            return 0
        try:
            if await asyncio.to_thread(self._ran_within, LAST_SUMMARY, unless_ran_within):
                return 0
            return await self._summarize()
        finally:
            await asyncio.to_thread(self.db.release_exclusive, SUMMARY_JOB)

    def _ran_within(self, key: str, seconds: float) -> bool:
        last = self.db.get_meta(key) if seconds > 0 else None
        return last is not None and self.now() - datetime.fromisoformat(last) < timedelta(seconds=seconds)

    async def _summarize(self) -> int:
        scopes = await asyncio.to_thread(self.journal.buffered_scopes)
        gate = asyncio.Semaphore(self.concurrency)

        async def one(scope: str) -> int:
            async with gate:
                buffered, interactions = await asyncio.to_thread(self._gather, scope)
                if not buffered:
                    return 0
                already = await asyncio.to_thread(self._summarised_lines, scope)
                text, method = await self.summarizer.summarize(interactions, fresh=buffered, already=already)
                # a model that just failed to summarise is not asked again for facts
                facts = await self.summarizer.extract_profile(buffered) if method == MODEL else []
                read = [i.id for i in interactions]
                return await asyncio.to_thread(self._store, scope, buffered, read, (text, method), facts)

        written = sum(await asyncio.gather(*(one(scope) for scope in scopes)))
        await asyncio.to_thread(self.db.set_meta, LAST_SUMMARY, self.now().isoformat())
        return written

    def _gather(self, scope: str) -> tuple[list[Interaction], list[Interaction]]:
        """The scope's buffer, and what its summary covers: the active window plus the buffer."""
        buffered = self.journal.buffered(scope)
        if not buffered:
            return [], []
        window_ids = [e.id for e in self.active.entries(user_of(scope))]
        return buffered, self.journal.by_ids(sorted({*window_ids, *(i.id for i in buffered)}))

    def _summarised_lines(self, scope: str) -> list[str]:
        """Every line the user's summaries (hot or cold) already hold."""
        return [line for entry in self.summary.all_entries(scope) for line in entry.content.splitlines()]

    def _store(
        self,
        scope: str,
        buffered: list[Interaction],
        read: list[str],
        summary: tuple[str, str],
        facts: list[tuple[str, str]],
    ) -> int:
        """Store a summary of ``buffered`` (the model read ``read``) as ``(text, method)``, clear
        the buffer, put the facts; nothing when one of ``read`` was erased meanwhile (its words
        may be in the summary: the others stay buffered for the next run)."""
        text, method = summary
        # what it read is in its id: one written again once a read interaction was erased
        # (the others buffered again) never takes the erased one's id
        covered = ",".join(i.id for i in buffered)
        entry = MemoryEntry(
            id=str(uuid.uuid5(_SUMMARY_NAMESPACE, f"{scope}|{covered}|{','.join(sorted(read))}")),
            layer=Layer.SUMMARY,
            content=text,
            created_at=self.now(),
            user_id=user_of(scope),
            source=method,
        )
        with self.db.transaction() as conn:
            if len(Journal.existing(conn, read)) < len(set(read)):
                return 0
            # nothing new worth a line (all said before): the buffer is done, no empty summary
            written = int(self.summary.add(conn, entry)) if text.strip() else 0
            self.journal.clear_buffer(conn, [i.id for i in buffered], entry.id)
            for key, value in facts:
                if is_key(key):
                    self.profile.put(conn, user_of(scope), key, value, since=entry.created_at, source=MODEL)
        return written

    def cleanup(self, *, unless_ran_within: float = 0.0) -> int:
        """Archive the least significant ``cleanup_ratio`` of each user's summaries (one worker at
        a time, see :meth:`summarize`)."""
        if not self.db.try_exclusive(CLEANUP_JOB):
            return 0
        try:
            return 0 if self._ran_within(LAST_CLEANUP, unless_ran_within) else self._cleanup()
        finally:
            self.db.release_exclusive(CLEANUP_JOB)

    def _cleanup(self) -> int:
        removed = 0
        with self.db.transaction() as conn:
            for scope in self.summary.scopes():
                removed += self.summary.cleanup(conn, scope)
            self.db.set_meta(LAST_CLEANUP, self.now().isoformat(), conn)
        return removed


def first_runs(
    db: Database, now: datetime, *, summary_interval: float, cleanup_interval: float
) -> dict[str, datetime]:
    """When each job should first run after a (re)start: one interval after its last run.

    A job overdue from before the restart runs right away (once), not twice and not skipped.
    """
    runs: dict[str, datetime] = {}
    for job, key, interval in (
        (SUMMARY_JOB, LAST_SUMMARY, summary_interval),
        (CLEANUP_JOB, LAST_CLEANUP, cleanup_interval),
    ):
        last = db.get_meta(key)
        if last is not None:
            runs[job] = max(datetime.fromisoformat(last) + timedelta(seconds=interval), now)
    return runs
