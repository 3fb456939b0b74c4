"""A searchable layer's vectors in Chroma, kept in step with its rows in the record.

Rows in :attr:`IndexState.PENDING` are embedded with the cheap tier and stored
(:meth:`LayerIndex.index_pending`: searchable); their full vectors come later, from background
enrichment (:meth:`~LayerIndex.prepare_enrichment`, :meth:`~LayerIndex.store_enrichment`);
:meth:`~LayerIndex.repair` makes the collections match the record at start.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Collection, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field

from memory.domain.types import IndexState, Layer, MemoryEntry, scope_of
from memory.index.embeddings import tiered
from memory.index.scoped import POOL_LIMIT, ScopedStores
from memory.index.vector import Vector
from memory.layers.index_repair import repair
from memory.layers.summary_lines import lines_of, pack
from memory.record.entries import EntryTable

EMBED_MAX_CHARS = 2000
"""Characters of a memory embedded (the keyword index still reads all of it): the embedder reads
a few hundred words at most, a longer text costs memory, not meaning."""
KEPT_FOR_WORKER = 4096
"""First vectors a retrieval computed for memories not yet indexed, kept (the newest) until the
worker stores them instead of embedding them again."""


@dataclass(frozen=True)
class Enrichment:
    """Full vectors computed for a batch of entries (:meth:`LayerIndex.prepare_enrichment`)."""

    batch: list[MemoryEntry]
    vectors: dict[str, list[float]]
    lines: dict[str, bytes] = field(default_factory=dict)
    """Sentence vectors of the batch's entries (a layer scored by lines)."""


def _by_scope(batch: Sequence[MemoryEntry]) -> dict[str, list[MemoryEntry]]:
    grouped: dict[str, list[MemoryEntry]] = {}
    for entry in batch:
        grouped.setdefault(scope_of(entry.user_id), []).append(entry)
    return grouped


class LayerIndex:
    """The vector index of one layer's rows (its collections in ``stores``)."""

    def __init__(
        self,
        layer: Layer,
        entries: EntryTable,
        stores: ScopedStores,
        metadata: Callable[[MemoryEntry], dict[str, str | int | float | bool]],
        *,
        lines: bool = False,
    ) -> None:
        self.layer = layer
        self.lines = lines
        """Whether its entries' sentences get vectors too (:mod:`memory.layers.summary_lines`)."""
        self.table = entries
        self.stores = stores
        self.metadata = metadata
        """The Chroma metadata an entry's vector is stored with."""
        self.tiers = tiered(stores.embeddings)
        """The embedder's two tiers, if it has them."""
        self.on_indexed: Callable[[list[MemoryEntry], Sequence[Vector]], None] | None = None
        """Called with each batch indexed and its vectors (after their index state is stored)."""
        self.on_enriched: Callable[[list[MemoryEntry], Sequence[Vector]], None] | None = None
        """Called with the entries of each batch enriched and their full vectors (once stored)."""
        self._computed: OrderedDict[str, tuple[str, list[float]]] = OrderedDict()
        """Entry id -> (the text embedded, its first vector): :meth:`vectors_now`."""
        self._computed_lock = threading.Lock()

    def embed(self, texts: list[str]) -> list[list[float]]:
        """The vectors a memory is first indexed with: the cheap tier when there are two."""
        if self.tiers is not None:
            return self.tiers.embed_cheap(texts)
        return self.stores.embeddings.embed_documents(texts)

    def vectors_now(self, entries: Sequence[MemoryEntry]) -> dict[str, list[float]]:
        """The first vectors of entries not yet indexed, computed now (a retrieval finds a
        memory before the worker stores it) and kept for the worker."""
        texts = {e.id: e.index_text[:EMBED_MAX_CHARS] for e in entries}
        with self._computed_lock:
            known = {i: self._computed[i][1] for i in texts if self._computed.get(i, ("",))[0] == texts[i]}
        missing = [i for i in texts if i not in known]
        if missing:
            made = dict(zip(missing, self.embed([texts[i] for i in missing]), strict=True))
            with self._computed_lock:
                self._computed.update((i, (texts[i], vector)) for i, vector in made.items())
                while len(self._computed) > KEPT_FOR_WORKER:
                    self._computed.popitem(last=False)
            known.update(made)
        return known

    def _first_vectors(self, batch: Sequence[MemoryEntry]) -> list[list[float]]:
        """The vectors a batch is first indexed with: those a retrieval computed, the rest now."""
        texts = [e.index_text[:EMBED_MAX_CHARS] for e in batch]
        with self._computed_lock:
            kept = [self._computed.pop(e.id, None) for e in batch]
        vectors = [
            k[1] if k is not None and k[0] == text else None for k, text in zip(kept, texts, strict=True)
        ]
        missing = [i for i, vector in enumerate(vectors) if vector is None]
        for i, vector in zip(
            missing, self.embed([texts[i] for i in missing]) if missing else [], strict=True
        ):
            vectors[i] = vector
        return [vector for vector in vectors if vector is not None]

    def forget_computed(self, ids: Collection[str]) -> None:
        """Drop the vectors computed for ``ids`` (erased before the worker stored them)."""
        with self._computed_lock:
            for entry_id in ids:
                self._computed.pop(entry_id, None)

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
            embedded = self._first_vectors(batch)
            self._index_batch(batch, embedded, waiting=self.tiers is not None)
            if self.lines and self.tiers is None:  # one tier: these are the full vectors
                self.table.store_line_vectors(self._line_vectors(batch, self.embed))
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
            stored.update(self.stores.vectors(scope, [e.id for e in group]))
        todo = [e for e in batch if e.id not in stored or not self.tiers.is_enriched(stored[e.id])]
        texts = [e.index_text[:EMBED_MAX_CHARS] for e in todo]
        cheap = [stored.get(e.id) for e in todo]
        full = dict(zip((e.id for e in todo), self.tiers.enrich(texts, cheap), strict=True))
        tiers = self.tiers
        lines = self._line_vectors(batch, lambda t: tiers.enrich(t, [None] * len(t))) if self.lines else {}
        return Enrichment(batch, full, lines)

    @staticmethod
    def _line_vectors(
        batch: Sequence[MemoryEntry], embed: Callable[[list[str]], Sequence[Vector]]
    ) -> dict[str, bytes]:
        """The packed sentence vectors of the entries that have sentences (one embedding call)."""
        lines = {e.id: lines_of(e.content) for e in batch}
        texts = [line[:EMBED_MAX_CHARS] for found in lines.values() for line in found]
        vectors = iter(embed(texts) if texts else [])
        return {i: pack([next(vectors) for _ in found]) for i, found in lines.items() if found}

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
                self._index_batch(changed, [full[e.id] for e in changed], waiting=False)
            lines = {e.id: prepared.lines[e.id] for e in same if e.id in prepared.lines}
            if lines:  # before the state: a kill in between leaves them waiting, not without lines
                self.table.store_line_vectors(lines)
            self.table.set_index_state(self.layer, [e.id for e in same], IndexState.INDEXED)
            for scope, group in _by_scope(same).items():  # their cheap vectors go after the full ones
                self.stores.finish_waiting(scope, [e.id for e in group])
            self._drop_erased(changed)
        if changed and self.on_enriched is not None:
            self.on_enriched(changed, [full[e.id] for e in changed])
        return len(batch)

    def _drop_erased(self, batch: list[MemoryEntry]) -> None:
        """Remove the vectors just written for entries erased meanwhile (an erase does not wait
        for the indexer: whichever of the two deletes last, no vector of it stays)."""
        kept = {e.id for e in self.table.by_ids(None, [e.id for e in batch])}
        for scope, group in _by_scope([e for e in batch if e.id not in kept]).items():
            self.stores.delete(scope, [e.id for e in group])

    def _index_batch(self, batch: list[MemoryEntry], embedded: Sequence[Vector], *, waiting: bool) -> None:
        """Upsert a batch's vectors, one upsert per collection it touches (a batch of many light
        users is one upsert into the pooled collection, not one per user). ``waiting``: cheap
        vectors, kept apart in a scope's waiting collection where the stores do that."""
        by_scope = _by_scope(batch)
        pooled = [scope for scope in by_scope if self.stores.pooled(scope)]
        counts = self.table.home_counts(self.layer, pooled) if pooled else {}
        for scope in pooled:
            if counts.get(scope, 0) > POOL_LIMIT:  # outgrown the pool: its own collection from now on
                self.stores.promote(scope, self.table.home_ids(self.layer, scope))
        vectors = {e.id: v for e, v in zip(batch, embedded, strict=True)}
        base = self.stores.base_name
        in_base = [
            e for scope, group in by_scope.items() if self.stores.name_of(scope) == base for e in group
        ]
        own = {scope: group for scope, group in by_scope.items() if self.stores.name_of(scope) != base}
        if in_base:  # the pooled scopes', or a shared layer's
            ids = [e.id for e in in_base]
            metadatas = [self.metadata(e) for e in in_base]
            self.stores.by_name(base).add(ids, [""] * len(ids), metadatas, vectors=vectors)
        for scope, group in own.items():
            ids, metadatas = [e.id for e in group], [self.metadata(e) for e in group]
            if waiting and self.stores.keeps_waiting(scope, len(ids)):
                self.stores.add_waiting(scope, ids, metadatas, vectors)
            else:
                self.stores.for_scope(scope).add(ids, [""] * len(ids), metadatas, vectors=vectors)

    def repair(self) -> tuple[int, int]:
        """Make the index match SQLite (see :func:`memory.layers.index_repair.repair`).

        Returns:
            (marked pending, removed) counts.
        """
        return repair(self.layer, self.table, self.stores)

    def erase_vectors(self, scope: str, ids: Sequence[str]) -> None:
        """Remove a scope's vectors: its ids from the pooled collection, or its own collection."""
        self.forget_computed(ids)
        if self.stores.pooled(scope):
            self.stores.by_name(self.stores.base_name).delete(list(ids))
        else:
            self.stores.drop_waiting(self.stores.waiting_name(scope))
            self.stores.by_name(self.stores.own_name(scope)).drop()
            self.stores.forget_layout()

    def drop_all(self) -> None:
        """Delete every collection of this layer and mark its rows pending (``reindex``)."""
        for name in self.stores.existing_names() | self.stores.cached_names():
            self.stores.by_name(name).drop()
        self.stores.forget_layout()
        self.table.set_index_state(self.layer, None, IndexState.PENDING)
        if self.lines:
            self.table.drop_line_vectors(self.layer)
