"""Keeps what is derived from SQLite in step with it: the vector index and the archive file.

Every step is idempotent by entry id, so it can run after each write, after a crash, or when the
store comes back from an outage. A background worker applies writes soon after they commit, so a
``record_*`` call pays only for its SQLite transaction. A retrieval scores its scope's newest
entries not yet in the index itself, and may ask for a *bounded* catch-up (:meth:`IndexSync.catch_up`):
it never waits longer than its budget; older entries still pending are found by keywords, and
the active window is always current. A second worker enriches (:mod:`memory.write.enrichment`).
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from memory.domain.types import Layer
from memory.errors import ReadOnlyStoreError, StoreUnavailableError
from memory.index.breaker import BreakerState, CircuitBreaker
from memory.index.cores import background
from memory.layers.fact_vectors import FactVectors
from memory.layers.rag import RagLayer
from memory.record.archive import ArchivedMemory, MemoryArchive
from memory.record.entries import EntryTable
from memory.write.archive_sync import ArchiveSync
from memory.write.enrichment import Enricher, Said

logger = logging.getLogger(__name__)

CATCH_UP_BATCH = 16
"""Entries embedded per step of a bounded catch-up (a few milliseconds each)."""
WORK_BATCH = 1024
"""Entries the worker embeds per step (it checks between steps whether to stop): Chroma takes large
upserts faster (a 5,000-interaction import until searchable: 375/s with 256, 447/s with 1,024)."""
SETTLE_SECONDS = 0.25
"""How long the worker, woken by a write, waits for more before indexing: the writes of a moment
go into one upsert, which holds the interpreter lock for the whole call (about 10 ms at least).
A retrieval scores its scope's newest memories not stored yet itself (:class:`RagLayer`)."""
BUSY_SETTLE_SECONDS = 1.0
"""The same wait while requests are served (:meth:`Enricher.busy`): fewer upserts hold them back."""
REPAIR_INDEX_SECONDS = 2.0
"""Longest the start-up repair embeds what the index lacks; the worker does the rest."""


class IndexSync:
    """Applies SQLite state to Chroma (index pending, move vectors between tiers) and to the archive."""

    def __init__(
        self,
        entries: EntryTable,
        layers: dict[Layer, RagLayer],
        archive: MemoryArchive,
        *,
        breaker: CircuitBreaker | None = None,
        export_lock: Path | None = None,
        fact_vectors: FactVectors | None = None,
    ) -> None:
        self.table = entries
        self.layers = layers
        self.archive = archive
        self.archive_sync = ArchiveSync(entries, archive, export_lock)
        self.breaker = breaker
        self._outages_repaired = 0
        self._lock = threading.Lock()
        """Held while one batch is embedded and upserted (a retrieval's catch-up waits only that)."""
        self.enricher = Enricher(entries, layers, index_lock=self._lock, fact_vectors=fact_vectors)
        self._wake = threading.Event()
        self._enrich_wake = threading.Event()
        self._stopping = threading.Event()
        self._workers: list[threading.Thread] = []
        self.retry_seconds = 1.0
        self.last_error: str | None = None
        """The last failure of the background work (cleared by a run that succeeds)."""

    def start_worker(self) -> None:
        """Start the background threads (idempotent): one indexes committed writes, the other
        enriches searchable memories, so a long enrichment batch never holds new writes back."""
        if self._workers and all(worker.is_alive() for worker in self._workers):
            return
        self._stopping.clear()
        self._workers = [
            threading.Thread(target=self._work, name="persona-memory-index", daemon=True),
            threading.Thread(target=self._enrich_work, name="persona-memory-enrich", daemon=True),
        ]
        for worker in self._workers:
            worker.start()

    def stop_worker(self) -> None:
        """Stop the background threads (idempotent); pending work stays in SQLite."""
        self._stopping.set()
        self._wake.set()
        self._enrich_wake.set()
        for worker in self._workers:
            worker.join(timeout=30)
        self._workers = []
        self.enricher.close()

    def notify(self) -> None:
        """Tell the workers that new writes are committed."""
        self._wake.set()
        self._enrich_wake.set()

    def _work(self) -> None:
        with background():  # one core: the others serve requests (a flush's caller takes them all)
            while self._woken(self._wake):
                self._stopping.wait(BUSY_SETTLE_SECONDS if self.enricher.busy() else SETTLE_SECONDS)
                try:
                    if self._recovered_from_outage():
                        self.repair()
                    elif self.has_pending():
                        self.run(worker=True)
                except Exception as exc:  # the worker must survive anything; the data is in SQLite
                    self._failed("background indexing", exc)

    def _enrich_work(self) -> None:
        while self._woken(self._enrich_wake):
            try:
                self.enrich(
                    until=lambda: self._stopping.is_set() or self.enricher.held_back(),
                    shared_until=self._stopping.is_set,
                    give_way=lambda: not self._stopping.is_set() and self.enricher.yields(),
                )
            except Exception as exc:  # the worker must survive anything; the data is in SQLite
                self._failed("background enrichment", exc)

    def _woken(self, wake: threading.Event) -> bool:
        """Wait for ``wake`` (or the retry interval); False once the engine is closing."""
        wake.wait(timeout=self.retry_seconds)
        wake.clear()
        return not self._stopping.is_set()

    def _recovered_from_outage(self) -> bool:
        """True once after each outage, when the store answers again (it may have lost data)."""
        if self.breaker is None or self.breaker.outages == self._outages_repaired:
            return False
        if self.breaker.state != BreakerState.CLOSED:
            return False
        self._outages_repaired = self.breaker.outages
        return True

    def erase_archived(self, drop: Callable[[ArchivedMemory], bool]) -> int:
        """Remove records from the archive file (no export runs meanwhile, in any process); never
        waits for the indexing backlog."""
        return self.archive_sync.erase(drop)

    @contextlib.contextmanager
    def bulk(self) -> Iterator[None]:
        """Hold the background work back while a caller indexes in bulk (an import, a flush)."""
        try:
            with self.enricher.bulk():
                yield
        finally:
            self.notify()

    def has_pending(self) -> bool:
        """Whether anything derived is behind SQLite (cheap: two indexed lookups)."""
        return self.table.has_pending_index() or self.table.has_unexported()

    def writable(self) -> bool:
        """Whether derived state may be written (a read-only folder: the work waits, and a
        failing write does not open the breaker that reads go through)."""
        try:
            self.table.db.check_writable()
        except ReadOnlyStoreError as exc:
            if self.last_error != str(exc):
                logger.warning("index work waits: %s", exc)
            self.last_error = str(exc)
            return False
        return True

    def pending(self) -> int:
        """Live entries not yet in the vector index."""
        return self.table.pending_index_count()

    def flush(self, *, enrich: bool = False) -> bool:
        """Apply all pending work now, waiting for it (``enrich``: the enrichment too); False
        if the store is failing."""
        if not self.writable():
            return False
        with self.bulk():
            done = self.run() if self.has_pending() else True
            return self.enrich(until=lambda: False) if done and enrich else done

    def enrich(self, *, until: Said, shared_until: Said | None = None, give_way: Said | None = None) -> bool:
        """Store the full vectors of searchable entries batch by batch until none is left or
        ``until()`` says to stop (see :meth:`Enricher.run`). Returns False if the store failed."""
        if not self.writable():
            return False
        try:
            self.enricher.run(until, shared_until=shared_until, give_way=give_way)
        except StoreUnavailableError as exc:
            logger.debug("enrichment deferred: %s", exc)
            return False
        return True

    def catch_up(self, budget_seconds: float) -> bool:
        """Index pending entries for at most about ``budget_seconds``; True when none is left.

        Never waits for the background worker longer than the budget (it is doing the same work),
        and stops between small batches once the budget is spent. Store failures end it quietly.
        """
        deadline = time.monotonic() + budget_seconds
        if not self.table.has_pending_index():
            return True
        if not self.writable():
            return False
        if not self._lock.acquire(timeout=max(budget_seconds, 0.0)):
            return False
        try:
            for layer in self.layers.values():
                while time.monotonic() < deadline:
                    if layer.index.index_pending(CATCH_UP_BATCH, once=True) == 0:
                        break
            return not self.table.has_pending_index()
        except StoreUnavailableError as exc:
            logger.debug("catch-up deferred: %s", exc)
            return False
        finally:
            self._lock.release()

    def run(self, *, worker: bool = False, index: bool = True) -> bool:
        """Export archived entries, then index pending ones. Returns False if the store failed.

        The indexing lock is held one batch at a time, so an erase or a retrieval's catch-up
        never waits behind the whole backlog.

        Args:
            worker: the background worker's run: it ends early when stopped or a caller works in bulk.
            index: index pending entries (False: the archive file only; no model is loaded).
        """
        if not self.writable():
            return False
        exported = True
        try:
            self.archive_sync.export()
        except OSError as exc:  # a read-only or full folder: the rows wait in SQLite
            self._failed("archive export", exc)
            exported = False
        try:
            stopped = self._worker_stops if worker else lambda: not index
            for layer in self.layers.values():
                while not stopped() and self._one_batch(layer, WORK_BATCH):
                    pass
        except StoreUnavailableError as exc:
            logger.debug("indexing deferred: %s", exc)
            return False
        if exported:
            self.last_error = None
        return True

    def _worker_stops(self) -> bool:
        return self._stopping.is_set() or self.enricher.bulk_running()

    def _one_batch(self, layer: RagLayer, size: int) -> int:
        with self._lock:
            return layer.index.index_pending(size, once=True)

    def _failed(self, what: str, error: Exception) -> None:
        """Remember the failure for ``debug_state()['health']``; warn once per kind of failure."""
        message = f"{what} failed: {error}"
        if message != self.last_error:
            logger.warning("%s; retrying", message)
        self.last_error = message

    def rebuild(self) -> int:
        """Drop every collection and index all live entries again; returns how many are live.
        No enrichment runs meanwhile (it would write to a dropped collection)."""
        with self.enricher.lock:
            with self._lock:
                for layer in self.layers.values():
                    layer.index.drop_all()
            self.run()
        return sum(layer.count(all_scopes=True) for layer in self.layers.values())

    def repair(self, budget_seconds: float = REPAIR_INDEX_SECONDS) -> dict[str, tuple[int, int]]:
        """Full reconciliation of every layer's index with SQLite (run at start): what the index
        lacks is embedded for up to ``budget_seconds``, the rest by the worker (a store embedded
        again after a model change does not hold the start up for minutes).

        Returns:
            per layer, (entries the index lacked, vectors it held that SQLite does not).
        """
        deadline = time.monotonic() + budget_seconds
        with self._lock:
            self.archive_sync.export()
            report: dict[str, tuple[int, int]] = {}
            for layer_id, layer in self.layers.items():
                try:
                    report[layer_id.value] = layer.index.repair()
                    while time.monotonic() < deadline and layer.index.index_pending(
                        CATCH_UP_BATCH, once=True
                    ):
                        pass
                except StoreUnavailableError as exc:
                    logger.warning("index repair of %s deferred: %s", layer_id.value, exc)
            self.notify()
            return report
