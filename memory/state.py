"""What the engine holds, as JSON (``debug_state()``), and the scheduler bookkeeping on restart."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from memory.config import MemoryConfig
from memory.db import Database
from memory.embeddings import describe
from memory.layers.base import user_of
from memory.scheduler import CLEANUP_JOB, SUMMARY_JOB

if TYPE_CHECKING:
    from memory.manager import MemoryManager

LAST_SUMMARY = "last_summary_at"
LAST_CLEANUP = "last_cleanup_at"
MAX_USERS_SHOWN = 50
"""``debug_state()['users']`` details at most this many user scopes (``users_count`` has all)."""


def first_runs(db: Database, config: MemoryConfig, now: datetime) -> dict[str, datetime]:
    """When each job should first run after a (re)start: one interval after its last run.

    A job overdue from before the restart runs right away (once), not twice and not skipped.
    """
    runs: dict[str, datetime] = {}
    for job, key, interval in (
        (SUMMARY_JOB, LAST_SUMMARY, config.summary.interval_seconds),
        (CLEANUP_JOB, LAST_CLEANUP, config.summary.cleanup_interval_seconds),
    ):
        last = db.get_meta(key)
        if last is None:
            continue
        due = datetime.fromisoformat(last) + timedelta(seconds=interval)
        runs[job] = max(due, now)
    return runs


def build_debug_state(manager: MemoryManager) -> dict[str, Any]:
    """The snapshot behind ``MemoryManager.debug_state()``."""
    db = manager.db
    scopes = db.scopes()
    shown = scopes[:MAX_USERS_SHOWN]
    per_user = {
        (user_of(s) or "(shared)"): {
            "active": manager.active.count(user_of(s)),
            "temporary": manager.temporary.count(user_of(s)),
            "summary": manager.summary.count(user_of(s)),
            "buffer": manager.journal.buffer_count(s),
            "tick": db.tick_of(s),
        }
        for s in shown
    }
    archived = db.scalar("SELECT COUNT(*) FROM entries WHERE layer = 'archived'")
    return {
        "persona": manager.persona.id,
        "persona_name": manager.persona.name,
        "active_count": manager.active.count(all_scopes=True),
        "active_capacity": manager.config.active.capacity,
        "temporary_count": manager.temporary.count(all_scopes=True),
        "summary_count": manager.summary.count(all_scopes=True),
        "static_count": manager.static.count(all_scopes=True),
        "buffer_count": manager.journal.buffer_count(),
        "archived_count": int(archived or 0),  # type: ignore[call-overload]
        "interactions_recorded": manager.journal.count(),
        "scheduler_running": manager.scheduler.running,
        "jobs": manager.scheduler.next_runs(),
        "last_summary_at": db.get_meta(LAST_SUMMARY),
        "last_cleanup_at": db.get_meta(LAST_CLEANUP),
        "summary_model": "model" if manager.summarizer.uses_model else "extractive",
        "summary_fallbacks": manager.summarizer.fallbacks,
        "embedding_model": describe(manager.config.embedding),
        "retrieval_mode": manager.config.retrieval.mode.value,
        "store": {
            "mode": manager.config.store.mode.value,
            "location": manager.backend.location,
            "database": str(db.path),
            "archive": str(manager.archive.path),
            "pending_index": manager.sync.pending(),
            "breaker": manager.backend.breaker.snapshot(),
        },
        "users_count": len(scopes),
        "users": per_user,
    }
