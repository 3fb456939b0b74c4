"""Background enrichment: the full vectors of searchable memories (the cheap tier's E5 half),
computed at a lower priority than requests and stored batch by batch. It resumes after a restart
or a kill by itself: what is left is each entry's index state in SQLite."""

from __future__ import annotations

import contextlib
import math
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from concurrent import futures
from concurrent.futures import Future, ThreadPoolExecutor

from memory.domain.types import IndexState, Layer, MemoryEntry
from memory.index.cores import giving_way
from memory.layers.fact_vectors import FactVectors
from memory.layers.layer_index import Enrichment
from memory.layers.rag import RagLayer
from memory.record.entries import EntryTable

ENRICH_BATCH = 64
"""Entries enriched per step while requests come (about a second of E5 on 2 cores; requests go
first meanwhile)..."""
QUIET_BATCH = 256
"""...and with no request for :data:`BUSY_SECONDS`: E5 reads longer batches faster (1,536 chat
texts on 2 cores, two batches at a time: 109-112 texts/s in batches of 64, 115-119 of 128,
119-123 of 256, 123-126 of 512; 131/s in one call)."""
Said = Callable[[], bool]
"""A condition looked at while work runs (when to stop, when to give way)."""
BUSY_SECONDS = 1.0
"""Enrichment waits while a request came within this long (it takes a core from requests)..."""
BACKLOG_UNDER_LOAD = 1000
"""...unless the backlog grew by this many memories since requests began coming (it stays bounded
under sustained load; what waited before them, an import's, waits for a quiet moment)."""
SHARED_LOOK_SECONDS = 5.0
"""How often the worker looks for static memories to enrich once it found none (they come at
a start, and again after a reindex)."""
BACKLOG_SEEN_SECONDS = 0.5
"""How long a look at the backlog's size stands (each look reads up to that many index rows)."""


class Enricher:
    """Stores full vectors for the entries that wait for them.

    Args:
        index_lock: the indexer's lock, held while a batch's vectors are stored.
    """

    def __init__(
        self,
        table: EntryTable,
        layers: dict[Layer, RagLayer],
        *,
        index_lock: threading.Lock,
        fact_vectors: FactVectors | None = None,
    ) -> None:
        self.table = table
        self.layers = layers
        self.fact_vectors = fact_vectors
        self._index_lock = index_lock
        self.lock = threading.Lock()
        """Held by the one enricher at a time (the worker, a flush): no text is embedded twice."""
        self._counting = threading.Lock()
        self._bulk = 0
        self._last_request = -math.inf
        self._backlog_seen = (-math.inf, False)
        """When the backlog was last looked at, and whether it had grown by :data:`BACKLOG_UNDER_LOAD`."""
        self._floor: int | None = None
        """The smallest backlog seen since requests began coming (None: no request came lately)."""
        self._pool: ThreadPoolExecutor | None = None
        self._shared_look = -math.inf

    def serving(self) -> None:
        """A request (a retrieval, a write) is being served: enrichment gives way for a while."""
        self._last_request = time.monotonic()

    @contextlib.contextmanager
    def bulk(self) -> Iterator[None]:
        """Hold background work back while a caller's bulk work (an import, a flush) runs."""
        with self._counting:
            self._bulk += 1
        try:
            yield
        finally:
            with self._counting:
                self._bulk -= 1

    def bulk_running(self) -> bool:
        """Whether a caller's bulk work runs (it indexes on every core; the background waits)."""
        return self._bulk > 0

    def busy(self) -> bool:
        """Whether a request came within :data:`BUSY_SECONDS`."""
        return time.monotonic() - self._last_request < BUSY_SECONDS

    def held_back(self) -> bool:
        """Whether background enrichment waits now: a caller's bulk work runs, or a request came
        just now and the backlog grew by less than :data:`BACKLOG_UNDER_LOAD` since they began."""
        if self.bulk_running():
            return True
        if not self.busy():
            self._floor, self._backlog_seen = None, (-math.inf, False)
            return False
        now = time.monotonic()
        seen_at, over = self._backlog_seen
        if now - seen_at >= BACKLOG_SEEN_SECONDS:
            over = self._grown()
            self._backlog_seen = (now, over)
        return not over

    def yields(self) -> bool:
        """Whether enrichment under way pauses between its chunks: it is :meth:`held_back` by
        requests, not by a caller's bulk work (which may be waiting for it)."""
        return not self.bulk_running() and self.held_back()

    def _grown(self) -> bool:
        """Whether the backlog grew by :data:`BACKLOG_UNDER_LOAD` above its smallest since requests
        began (counted only once it holds that many: a small one is never counted)."""
        if not self.table.has_pending_index(IndexState.SEARCHABLE, at_least=BACKLOG_UNDER_LOAD):
            self._floor = 0
            return False
        backlog = self.table.pending_index_count(IndexState.SEARCHABLE)
        self._floor = backlog if self._floor is None else min(self._floor, backlog)
        return backlog >= self._floor + BACKLOG_UNDER_LOAD

    def waiting(self) -> int:
        """Live entries searchable by their cheap vector, their full one not stored yet."""
        return self.table.pending_index_count(IndexState.SEARCHABLE)

    def run(self, until: Said, *, shared_until: Said | None = None, give_way: Said | None = None) -> None:
        """Enrich until nothing waits or ``until()`` (raises what the store raises); a batch under
        way pauses while ``give_way()`` (:func:`memory.index.cores.giving_way`).

        The static layer goes first. Its few memories are read by every retrieval, which
        searches them in memory only once they all have full vectors, so with ``shared_until``
        (the worker's) requests never hold them back: it alone stops them, and once none was
        found waiting the layer is looked at again only after :data:`SHARED_LOOK_SECONDS`."""
        for kind, layer in sorted(self.layers.items(), key=lambda item: item[0] != Layer.STATIC):
            if kind != Layer.STATIC or shared_until is None:
                self._enrich(layer, until, give_way)
            elif time.monotonic() >= self._shared_look and not self._enrich(layer, shared_until, None):
                self._shared_look = time.monotonic() + SHARED_LOOK_SECONDS
        if self.fact_vectors is not None:
            with self.lock:
                self.fact_vectors.fill(until=until)

    def _enrich(self, layer: RagLayer, until: Said, give_way: Said | None) -> bool:
        """Enrich a layer's waiting entries batch by batch; whether any was found. Two batches
        are computed at a time and each is stored while the next is computed: E5's cores are not
        left idle between batches (at 10,000 memories writing the full vectors into the index
        alone took about a tenth of the time)."""
        with self.lock:
            under_way: deque[tuple[set[str], Future[Enrichment]]] = deque()

            def start_next() -> None:
                skip = set().union(*(ids for ids, _ in under_way))
                size = ENRICH_BATCH if self.busy() else QUIET_BATCH
                batch = [] if until() else layer.index.waiting_enrichment(size, skip=skip)
                if batch:
                    ids = {e.id for e in batch}
                    computing = self._computing().submit(_prepared, layer, batch, give_way)
                    under_way.append((ids, computing))

            try:
                start_next()
                start_next()
                found = bool(under_way)
                while under_way:
                    _, computing = under_way.popleft()
                    layer.index.store_enrichment(computing.result(), commit=self._index_lock)
                    start_next()
            finally:  # after a failure the vectors under way are dropped: computed again next time
                futures.wait([computing for _, computing in under_way])
            return found

    def _computing(self) -> ThreadPoolExecutor:
        with self._counting:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(2, thread_name_prefix="persona-memory-enrich-batch")
            return self._pool

    def close(self) -> None:
        """Stop the threads that compute batches (idempotent; started again when needed)."""
        with self._counting:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=True)


def _prepared(layer: RagLayer, batch: list[MemoryEntry], give_way: Said | None) -> Enrichment:
    """A batch's full vectors (on an enricher's thread), its model work giving way as told."""
    with giving_way(give_way) if give_way is not None else contextlib.nullcontext():
        return layer.index.prepare_enrichment(batch)
