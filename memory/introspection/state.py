"""What the engine holds, as JSON: the snapshot behind ``MemoryManager.debug_state()``."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

from memory.domain.types import DECAYING_LAYERS, Layer, scope_of, user_of
from memory.engine import Engine
from memory.index.embeddings import describe
from memory.summary.jobs import LAST_CLEANUP, LAST_SUMMARY

MAX_USERS_SHOWN = 50
"""``debug_state()['users']`` details at most this many user scopes; the totals count every one."""
SHARED_LABEL = "(shared)"


def user_detail(engine: Engine, scope: str) -> dict[str, int]:
    """Counts and clock of one user scope."""
    user_id = user_of(scope)
    return {
        "active": engine.layers.active.count(user_id),
        "temporary": engine.layers.temporary.count(user_id),
        "summary": engine.layers.summary.count(user_id),
        "cold": engine.entries.count(Layer.ARCHIVED, scope),
        "buffer": engine.journal.buffer_count(scope),
        "profile": engine.profile.count(user_id),
        "tick": engine.db.tick_of(scope),
    }


def _writable(folder: Path) -> bool:
    """Whether the engine can write in ``folder`` (or would create it in its nearest parent)."""
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    return os.access(folder, os.W_OK)


def health(engine: Engine, index_reachable: bool) -> dict[str, Any]:
    """What works and what is degraded: record writable, index reachable, archive writable, disk."""
    data = Path(engine.config.data_dir)
    report: dict[str, Any] = {
        "record_writable": _writable(data) and engine.db.writable(),
        "index_reachable": index_reachable,
        "archive_writable": _writable(engine.archive.path.parent),
        "disk_free_bytes": shutil.disk_usage(data).free if data.exists() else None,
        "last_sync_error": engine.sync.last_error,
    }
    report["degraded"] = [
        name for name in ("record_writable", "index_reachable", "archive_writable") if not report[name]
    ] + (["sync"] if engine.sync.last_error else [])
    return report


def build_debug_state(engine: Engine, *, user_id: str | None = None) -> dict[str, Any]:
    """Totals (always exact), the first :data:`MAX_USERS_SHOWN` users, and ``user_id``'s detail.

    Args:
        user_id: a user whose detail is added under ``"user"`` whether or not it is shown.
    """
    db, config = engine.db, engine.config
    scopes = sorted(set(engine.journal.scopes()) | set(db.clock_scopes()))
    state: dict[str, Any] = {
        "persona": engine.persona.id,
        "persona_name": engine.persona.name,
        "active_count": engine.layers.active.count(all_scopes=True),
        "active_capacity": config.active.capacity,
        "temporary_count": engine.layers.temporary.count(all_scopes=True),
        "summary_count": engine.layers.summary.count(all_scopes=True),
        "static_count": engine.layers.static.count(all_scopes=True),
        "buffer_count": engine.journal.buffer_count(),
        "archived_count": engine.entries.count(Layer.ARCHIVED, None),
        "profile_count": engine.profile.count(all_scopes=True),
        "tiers": {
            layer.value: {
                "hot": engine.entries.count(layer, None),
                "cold": engine.entries.count_cold(layer, None),
            }
            for layer in DECAYING_LAYERS
        },
        "interactions_recorded": engine.journal.count(),
        "scheduler_running": engine.scheduler.running,
        "jobs": engine.scheduler.next_runs(),
        "last_summary_at": db.get_meta(LAST_SUMMARY),
        "last_cleanup_at": db.get_meta(LAST_CLEANUP),
        "summary_model": "model" if engine.summarizer.uses_model else "extractive",
        "summary_fallbacks": engine.summarizer.fallbacks,
        "embedding_model": describe(config.embedding),
        "retrieval_mode": config.retrieval.mode.value,
        "store": {
            "mode": config.store.mode.value,
            "location": engine.backend.location,
            "database": db.location,
            "archive": str(engine.archive.path),
            "pending_index": engine.sync.pending(),
            "pending_enrichment": engine.sync.enricher.waiting(),
            "breaker": engine.backend.breaker.snapshot(),
            "calls_timed_out": engine.backend.deadline.stuck,
            "client_reopens": engine.backend.generation,
        },
        "users_count": len(scopes),
        "users_shown": min(len(scopes), MAX_USERS_SHOWN),
        "users": {(user_of(s) or SHARED_LABEL): user_detail(engine, s) for s in scopes[:MAX_USERS_SHOWN]},
    }
    state["health"] = health(engine, state["store"]["breaker"]["state"] == "closed")
    if user_id is not None:
        state["user"] = {"user_id": user_id, **user_detail(engine, scope_of(user_id))}
    return state
