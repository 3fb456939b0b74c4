"""What the three searchable layers share: rows in ``entries``, vectors in Chroma, FTS5 keywords.

A layer's rows are the truth; its collections are an index of them, kept in step by its
:class:`~memory.layers.layer_index.LayerIndex`. A search returns only rows SQLite holds live.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime

from memory.domain.importance import said_key
from memory.domain.types import SHARED_SCOPE, Layer, MemoryEntry, RetrievedMemory, scope_of
from memory.domain.when import Window
from memory.index.early import EarlySearch, QuerySoon
from memory.index.exact import nearest
from memory.index.scoped import POOL_LIMIT, ScopedStores
from memory.index.vector import Vector
from memory.index.vectors import StoreHit
from memory.layers.decay_rules import significance_at
from memory.layers.layer_index import LayerIndex
from memory.layers.summary_lines import LINE_SCORED, LINE_WEIGHT, best_lines
from memory.record import keyword
from memory.record.entries import EntryTable

WINDOW_SCANNED = 500
"""Entries of a time window a retrieval compares at most (the newest of the window)."""
PENDING_EMBEDDED = 4
"""Keyword hits not yet in the vector index that a retrieval embeds itself (the best ranked)."""
UNINDEXED_SCORED = 16
"""A scope's newest memories not yet in the vector index that a dense search scores itself."""
LEANING_READ = 64
"""A scope's newest entries about a slot read to find the newest news about it."""


@dataclass(frozen=True)
class Early:
    """A layer's search started before the query's vector is known (:meth:`RagLayer.search_soon`)."""

    pending: list[MemoryEntry]
    """The newest entries the index did not hold yet, read before it was searched."""
    index: EarlySearch


@dataclass(frozen=True)
class Fetched:
    """Entries read by id with their vectors (:meth:`RagLayer.fetch`)."""

    live: list[MemoryEntry]
    vectors: dict[str, Vector]
    fresh: set[str]
    """Ids whose vectors were computed just now (the cheap tier), not read from the index."""


class RagLayer:
    """Base of the temporary, summary and static layers."""

    layer: Layer = Layer.TEMPORARY
    decay_coefficient: float = 1.0
    shared: bool = False
    """Static memories are shared by every user; other layers are kept per user scope."""
    holds_most: bool = True
    """Most keyword matches in its scope are its own (not a summary's: a user's chat holds more)."""
    scored_by_lines: bool = False
    """Whether a dense search also scores each entry by its best sentence
    (:mod:`memory.layers.summary_lines`)."""

    def __init__(self, entries: EntryTable, stores: ScopedStores, now: Callable[[], datetime]) -> None:
        self.table = entries
        self.stores = stores
        self.now = now
        self.index = LayerIndex(self.layer, entries, stores, self.metadata, lines=self.scored_by_lines)
        """The layer's vectors, kept in step with its rows."""
        self.tiers = self.index.tiers
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
        self,
        vector: Vector,
        depth: int,
        user_id: str | None,
        tick: int,
        *,
        read: Fetched | None = None,
        early: Early | None = None,
    ) -> list[RetrievedMemory]:
        """Up to ``depth`` live entries nearest to ``vector``, best first (score = similarity).

        Args:
            read: entries of this retrieval read already (its keyword hits): not read again.
            early: :meth:`search_soon` of this query (its index searched already).
        """
        if early is not None:
            pending, hits = early.pending, early.index.hits(vector)
        elif depth <= 0 or not self.table.exists(self.layer, self._scope(user_id)):
            return []  # an empty collection still costs a query
        else:
            # the record before the index: the worker stores a vector before it marks its entry
            # stored, so an entry it stores meanwhile is found by one of the two
            pending = self.table.unindexed(self.layer, self._scope(user_id), UNINDEXED_SCORED)
            hits = self._nearest(vector, depth, scope_of(user_id))
        if self.scored_by_lines and not self.shared:
            hits = self._with_lines(vector, depth, scope_of(user_id), hits)
        unindexed = self._unindexed(vector, depth, pending, {h.id for h in hits})
        hits = [*hits, *unindexed]
        # SQLite is the truth: it says whether a vector's entry is hot here or cold (forgotten
        # from here: deep recall); an id SQLite does not hold is skipped
        by_id = {e.id: e for e in read.live} if read is not None else {}
        unread = [h.id for h in hits if h.id not in by_id]
        by_id.update((e.id, e) for e in self.table.by_ids(None, unread) if self.accepts(e))
        fresh = {h.id for h in unindexed}
        return [
            self._found(by_id[h.id], h.similarity, tick, provisional=h.id in fresh)
            for h in hits
            if h.id in by_id
        ]

    def _unindexed(
        self, vector: Vector, depth: int, pending: list[MemoryEntry], found: set[str]
    ) -> list[StoreHit]:
        """The scope's newest memories the worker had not stored in the index (``pending``), scored
        by vectors computed here (:meth:`LayerIndex.vectors_now`): searchable once recorded."""
        waiting = [e for e in pending if e.id not in found]
        if not waiting:
            return []
        return nearest(vector, self.index.vectors_now(waiting), depth)

    def _with_lines(self, vector: Vector, depth: int, scope: str, hits: list[StoreHit]) -> list[StoreHit]:
        """``hits`` with each entry scored by the better of its vector and its best sentence
        (entries only a sentence brings in included), best first, ``depth`` at most."""
        lines = best_lines(vector, self.table.line_vectors(self.layer, scope, LINE_SCORED))
        if not lines:
            return hits
        scores = {h.id: h.similarity for h in hits}
        for entry_id, score in lines.items():
            score *= LINE_WEIGHT
            scores[entry_id] = max(score, scores.get(entry_id, score))
        ranked = sorted(scores.items(), key=lambda item: (-item[1], item[0]))[:depth]
        return [StoreHit(entry_id, score) for entry_id, score in ranked]

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

    def said_later(
        self, slot: str, after: datetime | None, vector: Vector, user_id: str | None, tick: int
    ) -> list[RetrievedMemory]:
        """A user's newest entry (hot or cold) stored as likely about ``slot``, made after
        ``after`` (at any time when None) and news: what the user said in it, they said in no
        other of the :data:`LEANING_READ` newest entries about the slot (a line said again and
        again is routine, and a change is told once). Scored against ``vector``; or none."""
        if self.shared:
            return []
        since = after.timestamp() if after is not None else -math.inf
        rows = self.table.leaning(self.layer, scope_of(user_id), slot, LEANING_READ)
        times_said = Counter(said_key(content) for _, content, _ in rows)
        news = [i for i, content, made in rows if made > since and times_said[said_key(content)] == 1]
        return self.memories_for(news[:1], vector, user_id, tick)

    def search_soon(self, query: QuerySoon, depth: int, user_id: str | None) -> Early | None:
        """Start searching the user's own collection and its waiting one, where the user has
        them, while the query's vector is computed (:meth:`ScopedStores.search_soon`)."""
        scope = scope_of(user_id)
        if self.shared or depth <= 0 or self.stores.pooled(scope) or not self.table.exists(self.layer, scope):
            return None
        # the record before the index: see dense_ranking
        pending = self.table.unindexed(self.layer, scope, UNINDEXED_SCORED)
        return Early(pending, self.stores.search_soon(scope, query, depth))

    def _nearest(self, vector: Vector, depth: int, scope: str) -> list[StoreHit]:
        """HNSW search of a scope's own collection, or an exact ranking of a pooled scope's
        vectors read by id (see :mod:`memory.index.scoped`)."""
        if self.stores.pooled(scope):
            ids = self.table.home_ids(self.layer, scope)
            if len(ids) > POOL_LIMIT:  # another process may have moved it out: look again
                self.stores.forget_layout()
            if self.stores.pooled(scope):
                return nearest(vector, self.stores.for_scope(scope).vectors(ids), depth)
        return self.stores.search(scope, vector, depth)

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
            most=self.holds_most,
        )
        return hits

    def fetch(self, ids: Sequence[str], user_id: str | None) -> Fetched:
        """Entries by id (hot here, or cold from here) with their stored vectors: what
        :meth:`memories_for` scores, read before the query's vector is known. An entry not
        embedded yet (found by keywords during an index backlog) is given its cheap vector here,
        the first :data:`PENDING_EMBEDDED` of ``ids`` (not stored: the index worker does that)."""
        live = [e for e in self.table.by_ids(None, ids) if self.accepts(e)] if ids else []
        cheap = {e.id for e in live if e.provisional}
        vectors = self.stores.vectors(scope_of(user_id), [e.id for e in live], waiting=cheap) if live else {}
        order = {entry_id: i for i, entry_id in enumerate(ids)}
        pending = sorted((e for e in live if e.id not in vectors), key=lambda e: order.get(e.id, 0))
        fresh: set[str] = set()
        if pending := pending[:PENDING_EMBEDDED]:
            vectors.update(self.index.vectors_now(pending))
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

    def metadata(self, entry: MemoryEntry) -> dict[str, str | int | float | bool]:
        """The Chroma metadata of an entry: its scope's tag (never the user id) and creation time."""
        return {"scope": self.stores.tag(scope_of(entry.user_id)), "created_at": entry.created_at.timestamp()}
