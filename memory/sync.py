"""Keeps what is derived from SQLite in step with it: the vector index and the archive file.

Every step is idempotent by entry id, so it can run after each write, after a crash, or when the
store comes back from an outage. A background worker applies writes soon after they commit, so a
``record_*`` call pays only for its SQLite transaction; a retrieval flushes what is still pending
before it searches, so it never misses an acknowledged interaction.
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import threading
from collections.abc import Iterator
from pathlib import Path

from memory.archive import ArchivedMemory, MemoryArchive
from memory.breaker import BreakerState, CircuitBreaker
from memory.db import Database, from_epoch
from memory.errors import StoreUnavailableError
from memory.layers.base import Layer, scope_of, user_of
from memory.layers.rag import RagLayer

logger = logging.getLogger(__name__)

PENDING_EXPORT = 0
EXPORTING = 2


def _archived(row: tuple[object, ...]) -> ArchivedMemory:
    return ArchivedMemory(
        id=str(row[0]),
        layer=str(row[1]),
        user_id=user_of(str(row[2])),
        content=str(row[3]),
        note=None if row[4] is None else str(row[4]),
        created_at=from_epoch(float(row[5])),  # type: ignore[arg-type]
        archived_at=from_epoch(float(row[6])),  # type: ignore[arg-type]
        significance=float(row[7]),  # type: ignore[arg-type]
        reason=str(row[8]),
    )


class IndexSync:
    """Applies SQLite state to Chroma (index pending, drop archived) and to the archive JSONL."""

    def __init__(
        self,
        db: Database,
        layers: dict[Layer, RagLayer],
        archive: MemoryArchive,
        *,
        breaker: CircuitBreaker | None = None,
        export_lock: Path | None = None,
    ) -> None:
        self.db = db
        self.layers = layers
        self.archive = archive
        self.breaker = breaker
        self.export_lock = export_lock
        self._outages_repaired = 0
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._stopping = threading.Event()
        self._worker: threading.Thread | None = None
        self.retry_seconds = 1.0

    def start_worker(self) -> None:
        """Start the background thread that indexes committed writes (idempotent)."""
        if self._worker is not None and self._worker.is_alive():
            return
        self._stopping.clear()
        self._worker = threading.Thread(target=self._work, name="persona-memory-index", daemon=True)
        self._worker.start()

    def stop_worker(self) -> None:
        """Stop the background thread (idempotent); pending work stays in SQLite."""
        self._stopping.set()
        self._wake.set()
        if self._worker is not None:
            self._worker.join(timeout=30)
            self._worker = None

    def notify(self) -> None:
        """Tell the worker that new writes are committed."""
        self._wake.set()

    def _work(self) -> None:
        while not self._stopping.is_set():
            self._wake.wait(timeout=self.retry_seconds)
            self._wake.clear()
            if self._stopping.is_set():
                return
            try:
                if self._recovered_from_outage():
                    self.repair()
                elif self.has_pending():
                    self.run()
            except Exception as exc:  # the worker must survive anything; the data is in SQLite
                logger.warning("background indexing failed (%s); retrying", exc)

    def _recovered_from_outage(self) -> bool:
        """True once after each outage, when the store answers again (it may have lost data)."""
        if self.breaker is None or self.breaker.outages == self._outages_repaired:
            return False
        if self.breaker.state != BreakerState.CLOSED:
            return False
        self._outages_repaired = self.breaker.outages
        return True

    @contextlib.contextmanager
    def _exclusive_export(self) -> Iterator[None]:
        """Serialise archive export across processes sharing the data folder (server mode)."""
        if self.export_lock is None:
            yield
            return
        with self.export_lock.open("a") as handle:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle.fileno(), fcntl.LOCK_UN)

    def has_pending(self) -> bool:
        """Whether anything derived is behind SQLite (cheap: two indexed lookups)."""
        row = self.db.query(
            "SELECT 1 FROM entries WHERE indexed = 0 AND layer IN ('temporary', 'summary', 'static') LIMIT 1"
        )
        return bool(row) or bool(self.db.query("SELECT 1 FROM entries WHERE exported IN (0, 2) LIMIT 1"))

    def flush(self) -> bool:
        """Apply pending work now if there is any; False if the store is failing."""
        if not self.has_pending():
            return True
        return self.run()

    def pending(self) -> int:
        """Live entries not yet in the vector index."""
        return self.db.count(
            "SELECT COUNT(*) FROM entries WHERE indexed = 0 AND layer IN ('temporary', 'summary', 'static')"
        )

    def run(self) -> bool:
        """Export archived entries, then index pending ones. Returns False if the store failed."""
        with self._lock:
            with self._exclusive_export():
                self.export_archived(recovering=True)
                self.export_archived()
            try:
                for layer in self.layers.values():
                    layer.index_pending()
            except StoreUnavailableError as exc:
                logger.debug("indexing deferred: %s", exc)
                return False
            return True

    def rebuild(self) -> int:
        """Drop every collection and index all live entries again; returns how many are live."""
        for layer in self.layers.values():
            layer.drop_all()
        with self.db.transaction() as conn:
            conn.execute("UPDATE entries SET indexed = 0 WHERE layer IN ('temporary', 'summary', 'static')")
        self.run()
        return sum(layer.count(all_scopes=True) for layer in self.layers.values())

    def export_archived(self, *, recovering: bool = False) -> int:
        """Append newly archived entries to the archive file, then drop them from the index.

        Exactly once: rows are marked "exporting" (2) before the append and "exported" (1) after.
        After a crash between the two, ``recovering`` appends only the ids the file lacks.
        """
        state = EXPORTING if recovering else PENDING_EXPORT
        rows = self.db.query(
            "SELECT id, archived_layer, scope, content, note, created_at, archived_at, "
            "significance, archived_reason FROM entries WHERE exported = ? ORDER BY archived_at",
            (state,),
        )
        if not rows:
            return 0
        memories = [_archived(r) for r in rows]
        ids = [(m.id,) for m in memories]
        if recovering:
            present = {m.id for m in self.archive.read()}
            to_write = [m for m in memories if m.id not in present]
        else:
            with self.db.transaction() as conn:
                conn.executemany(f"UPDATE entries SET exported = {EXPORTING} WHERE id = ?", ids)
            to_write = memories
        self.archive.append(to_write)
        with self.db.transaction() as conn:
            conn.executemany("UPDATE entries SET exported = 1 WHERE id = ?", ids)
        for layer_name in {m.layer for m in memories}:
            layer = self.layers.get(Layer(layer_name))
            if layer is None:
                continue
            by_scope: dict[str, list[str]] = {}
            for m in memories:
                if m.layer == layer_name:
                    by_scope.setdefault(scope_of(m.user_id), []).append(m.id)
            try:
                for scope, scope_ids in by_scope.items():
                    layer.stores.for_scope(scope).delete(scope_ids)
            except StoreUnavailableError as exc:
                logger.debug("archived entries stay in the index until repair: %s", exc)
        return len(to_write)

    def repair(self) -> dict[str, tuple[int, int]]:
        """Full reconciliation of every layer's index with SQLite (run at start)."""
        with self._lock:
            with self._exclusive_export():
                self.export_archived(recovering=True)
                self.export_archived()
            report: dict[str, tuple[int, int]] = {}
            for layer_id, layer in self.layers.items():
                try:
                    report[layer_id.value] = layer.repair()
                except StoreUnavailableError as exc:
                    logger.warning("index repair of %s deferred: %s", layer_id.value, exc)
            return report
