"""Keeps what is derived from SQLite in step with it: the vector index and the archive file.

Every step is idempotent by entry id, so it can run after each write, after a crash, or when the
store comes back from an outage.
"""

from __future__ import annotations

import logging
import threading

from memory.archive import ArchivedMemory, MemoryArchive
from memory.db import Database, from_epoch
from memory.errors import StoreUnavailableError
from memory.layers.base import Layer, user_of
from memory.layers.rag import RagLayer

logger = logging.getLogger(__name__)


class IndexSync:
    """Applies SQLite state to Chroma (index pending, drop archived) and to the archive JSONL."""

    def __init__(self, db: Database, layers: dict[Layer, RagLayer], archive: MemoryArchive) -> None:
        self.db = db
        self.layers = layers
        self.archive = archive
        self._lock = threading.Lock()

    def pending(self) -> int:
        """Live entries not yet in the vector index."""
        return self.db.count(
            "SELECT COUNT(*) FROM entries WHERE indexed = 0 AND layer IN ('temporary', 'summary', "
            "'static')"
        )

    def run(self) -> bool:
        """Export archived entries, then index pending ones. Returns False if the store failed."""
        with self._lock:
            self.export_archived()
            try:
                for layer in self.layers.values():
                    layer.index_pending()
            except StoreUnavailableError as exc:
                logger.debug("indexing deferred: %s", exc)
                return False
            return True

    def export_archived(self) -> int:
        """Append newly archived entries to the archive file, then drop them from the index."""
        rows = self.db.query(
            "SELECT id, archived_layer, scope, content, note, created_at, archived_at, "
            "significance, archived_reason FROM entries WHERE exported = 0 ORDER BY archived_at"
        )
        if not rows:
            return 0
        memories = [
            ArchivedMemory(
                id=str(r[0]),
                layer=str(r[1]),
                user_id=user_of(str(r[2])),
                content=str(r[3]),
                note=None if r[4] is None else str(r[4]),
                created_at=from_epoch(float(r[5])),  # type: ignore[arg-type]
                archived_at=from_epoch(float(r[6])),  # type: ignore[arg-type]
                significance=float(r[7]),  # type: ignore[arg-type]
                reason=str(r[8]),
            )
            for r in rows
        ]
        self.archive.append(memories)
        with self.db.transaction() as conn:
            conn.executemany(
                "UPDATE entries SET exported = 1 WHERE id = ?", [(m.id,) for m in memories]
            )
        for layer_name in {m.layer for m in memories}:
            layer = self.layers.get(Layer(layer_name))
            if layer is None:
                continue
            try:
                layer.store.delete([m.id for m in memories if m.layer == layer_name])
            except StoreUnavailableError as exc:
                logger.debug("archived entries stay in the index until repair: %s", exc)
        return len(memories)

    def repair(self) -> dict[str, tuple[int, int]]:
        """Full reconciliation of every layer's index with SQLite (run at start)."""
        with self._lock:
            self.export_archived()
            report: dict[str, tuple[int, int]] = {}
            for layer_id, layer in self.layers.items():
                try:
                    report[layer_id.value] = layer.repair()
                except StoreUnavailableError as exc:
                    logger.warning("index repair of %s deferred: %s", layer_id.value, exc)
            return report
