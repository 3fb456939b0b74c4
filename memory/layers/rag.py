"""What the three searchable layers share: rows in ``entries``, vectors in Chroma, FTS5 keywords.

A layer's rows are the truth; its collections are an index of them, kept in step by
:meth:`RagLayer.index_pending` (rows in :attr:`IndexState.PENDING`), by the sync dropping archived
rows, and by :meth:`RagLayer.repair` at start. A search returns only rows SQLite holds live.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Collection, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from datetime import datetime

from memory.domain.types import SHARED_SCOPE, IndexState, Layer, MemoryEntry, RetrievedMemory, scope_of
from memory.domain.when import Window
from memory.index.embeddings import tiered
from memory.index.scoped import POOL_LIMIT, ScopedStores, nearest
from memory.index.vector import Vector
from memory.index.vectors import StoreHit
from memory.layers.decay_rules import significance_at
from memory.record import keyword
from memory.record.entries import EntryTable

logger = logging.getLogger(__name__)

WINDOW_SCANNED = 500
"""Entries of a time window a retrieval compares at most (the newest of the window)."""
PENDING_EMBEDDED = 4
"""Keyword hits not yet in the vector index that a retrieval embeds itself (the best ranked)."""
EMBED_MAX_CHARS = 2000
"""Characters of a memory embedded (the keyword index still reads all of it): the embedder reads
a few hundred words at most, a longer text costs memory, not meaning."""


@dataclass(frozen=True)
class Fetched:
    """Entries read by id with their vectors (:meth:`RagLayer.fetch`)."""

    live: list[MemoryEntry]
    vectors: dict[str, Vector]
    fresh: set[str]
    """Ids whose vectors were computed just now (the cheap tier), not read from the index."""


@dataclass(frozen=True)
class Enrichment:
    """Full vectors computed for a batch of entries (:meth:`RagLayer.prepare_enrichment`)."""

    batch: list[MemoryEntry]
    vectors: dict[str, list[float]]


def _by_scope(batch: Sequence[MemoryEntry]) -> dict[str, list[MemoryEntry]]:
    grouped: dict[str, list[MemoryEntry]] = {}
    for entry in batch:
        grouped.setdefault(scope_of(entry.user_id), []).append(entry)
    return grouped


class RagLayer:
    """Base of the temporary, summary and static layers."""

    layer: Layer = Layer.TEMPORARY
    decay_coefficient: float = 1.0
    shared: bool = False
    """Static memories are shared by every user; other layers are kept per user scope."""

    def __init__(self, entries: EntryTable, stores: ScopedStores, now: Callable[[], datetime]) -> None:
        self.table = entries
        self.stores = stores
        self.now = now
        self.tiers = tiered(stores.embeddings)
        self.on_indexed: Callable[[list[MemoryEntry], Sequence[Vector]], None] | None = None
        """Called with each batch indexed and its vectors (after their index state is stored)."""
        """The embedder's two tiers (a memory searchable by its cheap vector at once), if it has them."""

    def _scope(self, user_id: str | None) -> str | None:
        """The rows' scope key of a user (``None``: every scope, for a shared layer)."""
        return None if self.shared else scope_of(user_id)

    def count(self, user_id: str | None = None, *, all_scopes: bool = False) -> int:
        """The number of live entries (in one scope, or all)."""
        return self.table.count(self.layer, None if all_scopes else self._scope(user_id))

    def entries(self, user_id: str | None = None) -> list[MemoryEntry]:
        """Live entries of a scope, oldest first."""
        return self.table.live(self.layer, self._scope(user_id))

    def current_significance(self, entry: MemoryEntry, tick: int) -> float:
        """The lazily decayed significance of ``entry`` at ``tick`` (a pinned entry keeps its own)."""
        if entry.pinned:
            return entry.significance
        return significance_at(entry.significance, entry.changed_at, tick, self.decay_coefficient)

    def _found(
        self, entry: MemoryEntry, similarity: float, tick: int, *, provisional: bool = False
    ) -> RetrievedMemory:
        """A hit scored by its similarity; a cheap-tier vector's stands in for the full one."""
        if (entry.provisional or provisional) and self.tiers is not None:
            similarity = min(1.0, similarity * self.tiers.cheap_scale)
        return RetrievedMemory(entry, similarity, similarity, self.current_significance(entry, tick))

    def dense_ranking(
        self, vector: Vector, depth: int, user_id: str | None, tick: int
    ) -> list[RetrievedMemory]:
        """Up to ``depth`` live entries nearest to ``vector``, best first (score = similarity)."""
        if depth <= 0 or not self.table.exists(self.layer, self._scope(user_id)):
            return []  # an empty collection still costs a query
        hits = self._nearest(vector, depth, scope_of(user_id))
        # SQLite is the truth: it says whether a vector's entry is hot here or cold (forgotten
        # from here: deep recall); an id SQLite does not hold is skipped
        by_id = {e.id: e for e in self.table.by_ids(None, [h.id for h in hits]) if self.accepts(e)}
        return [self._found(by_id[h.id], h.similarity, tick) for h in hits if h.id in by_id]

    def window_ranking(
        self, vector: Vector, window: Window, depth: int, user_id: str | None, tick: int
    ) -> list[RetrievedMemory]:
        """Up to ``depth`` of a user's entries made inside ``window`` (hot or cold), nearest to
        ``vector`` first; the newest :data:`WINDOW_SCANNED` of the window are compared."""
        if depth <= 0 or self.shared:
            return []
        start, end = window.start.timestamp(), window.end.timestamp()
        ids = self.table.ids_between(self.layer, scope_of(user_id), start, end, WINDOW_SCANNED)
        found = self.memories_for(ids, vector, user_id, tick)
        return sorted(found, key=lambda m: (-m.similarity, m.entry.id))[:depth]

    def _nearest(self, vector: Vector, depth: int, scope: str) -> list[StoreHit]:
        """HNSW search of a scope's own collection, or an exact ranking of a pooled scope's
        vectors read by id (see :mod:`memory.index.scoped`)."""
        if self.stores.pooled(scope):
            ids = self.table.home_ids(self.layer, scope)
            if len(ids) > POOL_LIMIT:  # another process may have moved it out: look again
                self.stores.forget_layout()
            if self.stores.pooled(scope):
                return nearest(vector, self.stores.for_scope(scope).vectors(ids), depth)
        return self.stores.for_scope(scope).search(vector, depth)

    def accepts(self, entry: MemoryEntry) -> bool:
        """Whether a search of this layer may return ``entry``: it is live here, or it is this
        layer's forgotten entry (deep recall marks it revived)."""
        return entry.layer == self.layer or (entry.layer == Layer.ARCHIVED and entry.origin == self.layer)

    def keyword_ranking(
        self,
        index: keyword.KeywordIndex,
        terms: set[str],
        depth: int,
        user_id: str | None,
        *,
        with_cold: bool = False,
        extra: set[str] | None = None,
    ) -> list[tuple[str, float]]:
        """``(id, bm25 score)`` ranked by FTS5 bm25 on any of ``terms`` within the user's scope (a
        shared layer's: the shared one), best first; empty scopes cost nothing.

        Args:
            with_cold: rank this layer's cold (forgotten) entries in the same ranking.
            extra: words matched within the budgets ``terms`` leave (see :meth:`KeywordIndex.search`).
        """
        scope = self._scope(user_id)
        if depth <= 0 or not (terms or extra):
            return []
        if not self.table.exists(self.layer, scope) and not (
            with_cold and self.table.exists(Layer.ARCHIVED, scope)
        ):
            return []
        hits = index.search(
            terms,
            layer=self.layer.value,
            scope=SHARED_SCOPE if scope is None else scope,
            limit=depth,
            with_cold=with_cold,
            extra=extra or (),
        )
        return hits

    def fetch(self, ids: Sequence[str], user_id: str | None) -> Fetched:
        """Entries by id (hot here, or cold from here) with their stored vectors: what
        :meth:`memories_for` scores, read before the query's vector is known. An entry not
        embedded yet (found by keywords during an index backlog) is given its cheap vector here,
        the first :data:`PENDING_EMBEDDED` of ``ids`` (not stored: the index worker does that)."""
        live = [e for e in self.table.by_ids(None, ids) if self.accepts(e)] if ids else []
        vectors = self.stores.for_scope(scope_of(user_id)).vectors([e.id for e in live]) if live else {}
        order = {entry_id: i for i, entry_id in enumerate(ids)}
        pending = sorted((e for e in live if e.id not in vectors), key=lambda e: order.get(e.id, 0))
        fresh: set[str] = set()
        if pending := pending[:PENDING_EMBEDDED]:
            embedded = self._embed([e.index_text[:EMBED_MAX_CHARS] for e in pending])
            vectors.update(zip((e.id for e in pending), embedded, strict=True))
            fresh = {e.id for e in pending}
        return Fetched(live, vectors, fresh)

    def memories_for(
        self,
        ids: Sequence[str],
        vector: Vector,
        user_id: str | None,
        tick: int,
        *,
        fetched: Fetched | None = None,
    ) -> list[RetrievedMemory]:
        """Entries by id, scored by the similarity of their vectors to ``vector`` (see
        :meth:`fetch`, whose result may be passed when it was read ahead; any entry without a
        vector gets similarity 0)."""
        if not ids:
            return []
        known = fetched if fetched is not None else self.fetch(ids, user_id)
        wanted = set(ids)
        live = [e for e in known.live if e.id in wanted]
        vectors = {e.id: known.vectors[e.id] for e in live if e.id in known.vectors}
        similarity = {hit.id: hit.similarity for hit in nearest(vector, vectors, len(vectors))}
        return [
            self._found(entry, similarity.get(entry.id, 0.0), tick, provisional=entry.id in known.fresh)
            for entry in live
        ]

    def _embed(self, texts: list[str]) -> list[list[float]]:
        """The vectors a memory is first indexed with: the cheap tier when there are two."""
        if self.tiers is not None:
            return self.tiers.embed_cheap(texts)
        return self.stores.embeddings.embed_documents(texts)

    def index_pending(self, limit: int = 2000, *, once: bool = False) -> int:
        """Embed live entries not yet in the vector index; returns how many were indexed.

        Args:
            limit: entries per batch (one embedding call and one upsert per scope).
            once: stop after one batch (a bounded catch-up); else until none is pending.
        """
        total = 0
        while True:
            batch = self.table.pending_index(self.layer, limit)
            if not batch:
                return total
            embedded = self._embed([e.index_text[:EMBED_MAX_CHARS] for e in batch])
            self._index_batch(batch, embedded)
            done = IndexState.SEARCHABLE if self.tiers is not None else IndexState.INDEXED
            self.table.set_index_state(self.layer, [e.id for e in batch], done)
            if self.on_indexed is not None:
                self.on_indexed(batch, embedded)
            self._drop_erased(batch)
            total += len(batch)
            if once:
                return total

    def waiting_enrichment(self, limit: int, *, skip: Collection[str] = ()) -> list[MemoryEntry]:
        """Up to ``limit`` entries waiting for their full vectors, oldest first (not those in
        ``skip``: batches under way)."""
        if self.tiers is None:
            return []
        waiting = self.table.pending_index(self.layer, limit + len(skip), IndexState.SEARCHABLE)
        return [e for e in waiting if e.id not in skip][:limit]

    def prepare_enrichment(self, batch: list[MemoryEntry]) -> Enrichment:
        """The full vectors of ``batch``, computed as background work (a request's embedding
        goes first). A vector already full (stored before a kill, its state not yet) is marked,
        not embedded again."""
        assert self.tiers is not None, "only a layer with two tiers waits for enrichment"
        stored: dict[str, Vector] = {}
        for scope, group in _by_scope(batch).items():
            stored.update(self.stores.for_scope(scope).vectors([e.id for e in group]))
        todo = [e for e in batch if e.id not in stored or not self.tiers.is_enriched(stored[e.id])]
        texts = [e.index_text[:EMBED_MAX_CHARS] for e in todo]
        cheap = [stored.get(e.id) for e in todo]
        full = dict(zip((e.id for e in todo), self.tiers.enrich(texts, cheap), strict=True))
        return Enrichment(batch, full)

    def store_enrichment(
        self, prepared: Enrichment, *, commit: AbstractContextManager[object] | None = None
    ) -> int:
        """Store prepared full vectors under ``commit`` (the indexer's lock), for the entries
        whose text did not change meanwhile; returns how many entries it finished."""
        batch, full = prepared.batch, prepared.vectors
        with commit or nullcontext():
            now = {e.id: e for e in self.table.by_ids(None, [e.id for e in batch])}
            same = [
                e
                for e in batch
                if e.id in now and now[e.id].provisional and now[e.id].index_text == e.index_text
            ]
            changed = [e for e in same if e.id in full]
            if changed:
                self._index_batch(changed, [full[e.id] for e in changed])
            self.table.set_index_state(self.layer, [e.id for e in same], IndexState.INDEXED)
            self._drop_erased(changed)
        return len(batch)

    def _drop_erased(self, batch: list[MemoryEntry]) -> None:
        """Remove the vectors just written for entries erased meanwhile (an erase does not wait
        for the indexer: whichever of the two deletes last, no vector of it stays)."""
        kept = {e.id for e in self.table.by_ids(None, [e.id for e in batch])}
        for scope, group in _by_scope([e for e in batch if e.id not in kept]).items():
            self.stores.for_scope(scope).delete([e.id for e in group])

    def _index_batch(self, batch: list[MemoryEntry], embedded: Sequence[Vector]) -> None:
        """Upsert a batch's vectors, one upsert per collection it touches (a batch of many light
        users is one upsert into the pooled collection, not one per user)."""
        by_scope = _by_scope(batch)
        for scope in by_scope:
            if self.stores.pooled(scope):
                ids = self.table.home_ids(self.layer, scope)
                if len(ids) > POOL_LIMIT:  # outgrown the pool: its own collection from now on
                    self.stores.promote(scope, ids)
        vectors = {e.id: v for e, v in zip(batch, embedded, strict=True)}
        by_name: dict[str, list[MemoryEntry]] = {}
        for scope, group in by_scope.items():
            by_name.setdefault(self.stores.name_of(scope), []).extend(group)
        for name, group in by_name.items():
            ids = [e.id for e in group]
            metadatas = [self.metadata(e) for e in group]
            self.stores.by_name(name).add(ids, [""] * len(ids), metadatas, vectors=vectors)

    def metadata(self, entry: MemoryEntry) -> dict[str, str | int | float | bool]:
        """The Chroma metadata of an entry: its scope's tag (never the user id) and creation time."""
        return {"scope": self.stores.tag(scope_of(entry.user_id)), "created_at": entry.created_at.timestamp()}

    def repair(self) -> tuple[int, int]:
        """Make the index match SQLite: drop what SQLite does not hold live, and mark what it
        lacks pending (the caller embeds it: :meth:`index_pending`). A collection holding as many
        vectors as the record says it should is taken as in step (its ids are not read: that
        costs a second a few thousand memories at every start).

        Returns:
            (marked pending, removed) counts.
        """
        by_scope = self.table.ids_by_scope(self.layer)
        for scope, ids in by_scope.items():  # scopes that outgrew the pool (or an older layout)
            if len(ids) > POOL_LIMIT and self.stores.pooled(scope):
                self.stores.promote(scope, sorted(ids))
        live: dict[str, set[str]] = {}
        for scope, ids in by_scope.items():
            live.setdefault(self.stores.name_of(scope), set()).update(ids)
        held: dict[str, int] = {}
        for scope, count in self.table.indexed_by_scope(self.layer).items():
            held[self.stores.name_of(scope)] = held.get(self.stores.name_of(scope), 0) + count
        missing: list[str] = []
        removed = 0
        existing = self.stores.existing_names()
        for name in existing | set(live):
            store = self.stores.by_name(name)
            if name in existing and store.count() == held.get(name, 0):
                continue  # as many vectors as the record has indexed: in step (no id read)
            in_store = store.ids() if name in existing else set()
            expected = live.get(name, set())
            missing.extend(expected - in_store)
            extra = sorted(in_store - expected)
            if extra:
                store.delete(extra)
                removed += len(extra)
        if missing:
            self.table.set_index_state(self.layer, sorted(missing), IndexState.PENDING)
        return len(missing), removed

    def erase_vectors(self, scope: str, ids: Sequence[str]) -> None:
        """Remove a scope's vectors: its ids from the pooled collection, or its own collection."""
        if self.stores.pooled(scope):
            self.stores.by_name(self.stores.base_name).delete(list(ids))
        else:
            self.stores.by_name(self.stores.own_name(scope)).drop()
            self.stores.forget_layout()

    def drop_all(self) -> None:
        """Delete every collection of this layer and mark its rows pending (``reindex``)."""
        for name in self.stores.existing_names() | self.stores.cached_names():
            self.stores.by_name(name).drop()
        self.stores.forget_layout()
        self.table.set_index_state(self.layer, None, IndexState.PENDING)
