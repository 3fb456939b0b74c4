"""The scheduled jobs' work: summarise each user's recent interactions; clean up old summaries.

Idempotent: a summary's id derives from the interactions it covers, and the buffer is cleared in
the same transaction that stores the summary, so a crash in between neither loses nor doubles.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from datetime import datetime

from memory.db import Database
from memory.journal import Journal
from memory.layers.active import ActiveLayer
from memory.layers.base import Layer, MemoryEntry
from memory.layers.summary import SummaryLayer
from memory.state import LAST_CLEANUP, LAST_SUMMARY
from memory.summarizer import Summarizer

_SUMMARY_NAMESPACE = uuid.UUID("6f1c1f7e-3a57-4c1e-9d59-8a3f2b0c6d11")


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
        now: Callable[[], datetime],
    ) -> None:
        self.db = db
        self.journal = journal
        self.active = active
        self.summary = summary
        self.summarizer = summarizer
        self.now = now

    async def summarize(self) -> int:
        """One summary per user with a non-empty buffer (its active window plus buffer)."""
        written = 0
        for scope in self.journal.buffered_scopes():
            buffered = self.journal.buffered(scope)
            if not buffered:
                continue
            user_id = buffered[0].user_id
            window_ids = [e.id for e in self.active.entries(user_id)]
            interactions = self.journal.by_ids(sorted({*window_ids, *(i.id for i in buffered)}))
            text, method = await self.summarizer.summarize(interactions)
            covered = ",".join(i.id for i in buffered)
            entry = MemoryEntry(
                id=str(uuid.uuid5(_SUMMARY_NAMESPACE, f"{scope}|{covered}")),
                layer=Layer.SUMMARY,
                content=text,
                created_at=self.now(),
                user_id=user_id,
                source=method,
            )
            with self.db.transaction() as conn:
                written += int(self.summary.add(conn, entry))
                self.journal.clear_buffer(conn, [i.id for i in buffered])
        self.db.set_meta(LAST_SUMMARY, self.now().isoformat())
        return written

    def cleanup(self) -> int:
        """Archive the least significant ``cleanup_ratio`` of each user's summaries."""
        removed = 0
        with self.db.transaction() as conn:
            for scope in self.summary.scopes():
                removed += self.summary.cleanup(conn, scope)
        self.db.set_meta(LAST_CLEANUP, self.now().isoformat())
        return removed
