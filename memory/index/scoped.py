"""Where a persona layer's vectors live: small user scopes pooled in one collection, large ones
in their own.

Measured on embedded Chroma 1.5 (92k vectors, one collection): a ``where``-filtered query costs
77 ms for a 20-memory scope and 165 ms for a 50k one, against 0.9 ms unfiltered, so a search
never filters. A scope with at most :data:`POOL_LIMIT` memories (most chat users) keeps its
vectors in the layer's pooled collection ``<persona>__<layer>``; its search reads them by id
(about 1 ms for 20) and ranks them exactly. A scope that outgrows the pool is moved to its own
collection ``<persona>__<layer>__<digest of the scope>``, searched by HNSW. The state is the
backend's: a scope has its own collection exactly when that collection exists, so a crash in the
middle of a move leaves a state :meth:`memory.layers.rag.RagLayer.repair` finishes. Ten thousand
light users cost one collection per layer instead of ten thousand (file handles, memory, disk).

With an embedded index, a scope with its own collection keeps the cheap vectors of memories
waiting for enrichment in ``<own collection>__waiting`` (:meth:`ScopedStores.add_waiting`):
enrichment adds each full vector to the scope's collection, deletes the cheap one, and drops
the waiting collection once empty. On Chroma 1.5 with 10,000 vectors, replacing a vector in
place costs 2.8 ms of CPU, this 0.7 ms (a delete and an add in one collection, 0.9 ms, leaves
the deleted nodes in its graph: searches 1.7 times slower once all were replaced).

The index never holds a user id: a scope goes by its *tag* there (a keyed hash, the key kept in
the record: :meth:`memory.record.tombstones.Tombstones.index_tag`), in collection names and metadata.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import threading
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence

from langchain_core.embeddings import Embeddings

from memory.config import StoreMode
from memory.index.chroma import ChromaBackend
from memory.index.early import EarlySearch, Once, QuerySoon
from memory.index.exact import best_hits
from memory.index.readers import Readers
from memory.index.vector import Vector
from memory.index.vectors import Metadata, StoreHit, VectorStore

INDEX_LAYOUT = "scopes tagged by a keyed hash"
"""How this module lays scopes out in the index (recorded with the model that built it)."""
DIGEST_CHARS = 24
POOL_LIMIT = 64
"""Memories (hot and cold) a scope may hold in the pooled collection; one more moves it out."""
WAITING_SUFFIX = "__waiting"
"""The suffix of a scope's collection of cheap vectors waiting for enrichment."""
OWN, WAITING = slice(0, 1), slice(1, None)
"""A scope's own store and its waiting one among :meth:`ScopedStores._held`'s."""
WAITING_FROM = 64
"""Vectors of one scope that go to a new waiting collection (fewer, a chat turn's, are replaced
in place: a collection made and dropped for one memory took 25 ms against 13 ms)."""


def plain_tag(scope: str) -> str:
    """An unkeyed tag (SHA-256): for a store with no record key (tests of the layout alone)."""
    return hashlib.sha256(scope.encode("utf-8")).hexdigest()


def _is_digest(text: str) -> bool:
    return len(text) == DIGEST_CHARS and all(c in "0123456789abcdef" for c in text)


class ScopedStores:
    """The collections of one persona layer: the pooled one and those of large scopes.

    Args:
        shared: the layer is shared by every user (static memories): one collection, searched
            by HNSW, never split.
    """

    def __init__(
        self,
        backend: ChromaBackend,
        base_name: str,
        embeddings: Embeddings,
        *,
        shared: bool,
        tag: Callable[[str], str] = plain_tag,
    ) -> None:
        self.backend = backend
        self.tag = tag
        """A scope's name in the index (its collection's suffix, its vectors' ``scope`` metadata)."""
        self.base_name = base_name
        self.embeddings = embeddings
        self.shared = shared
        self.separates_waiting = not shared and backend.config.mode != StoreMode.HTTP
        """Whether a scope with its own collection keeps vectors waiting for enrichment in a
        second one (not on a Chroma server, whose collections other processes may write)."""
        self._stores: dict[str, VectorStore] = {}
        self._own: set[str] | None = None
        self._lock = threading.Lock()
        self._readers = Readers()
        """The waiting collections being read now (not dropped meanwhile)."""

    def own_name(self, scope: str) -> str:
        """The name of a scope's own collection (whether or not it has one)."""
        return f"{self.base_name}__{self.tag(scope)[:DIGEST_CHARS]}"

    def waiting_name(self, scope: str) -> str:
        """The name of a scope's collection of vectors waiting for enrichment."""
        return self.own_name(scope) + WAITING_SUFFIX

    def _owned(self) -> set[str]:
        if self._own is None:
            found = self.existing_names() - {self.base_name}  # guarded: may raise while down
            with self._lock:
                if self._own is None:
                    self._own = found
        return self._own

    def pooled(self, scope: str) -> bool:
        """Whether a scope's vectors live in the pooled collection (searched exactly, by id)."""
        return not self.shared and self.own_name(scope) not in self._owned()

    def name_of(self, scope: str) -> str:
        """The collection holding a scope's vectors."""
        return self.base_name if self.shared or self.pooled(scope) else self.own_name(scope)

    def for_scope(self, scope: str) -> VectorStore:
        """The store holding a scope's vectors (no backend call until it is used)."""
        return self.by_name(self.name_of(scope))

    def promote(self, scope: str, ids: Sequence[str]) -> None:
        """Move a scope's vectors from the pooled collection to its own: copy, then mark, then
        delete (a crash in between leaves copies that repair removes from the pool)."""
        pool, own = self.by_name(self.base_name), self.by_name(self.own_name(scope))
        vectors = pool.vectors(list(ids))
        moved = sorted(vectors)
        own.add(moved, [""] * len(moved), [{"scope": self.tag(scope)}] * len(moved), vectors=vectors)
        own.ensure()
        owned = self._owned()
        with self._lock:
            owned.add(own.name)
        pool.delete(moved)

    def waiting(self, scope: str) -> str | None:
        """The name of a scope's waiting collection, if it has one."""
        name = self.waiting_name(scope)
        held = not self.shared and name in self._owned()
        return name if held and not self._readers.dropping(name) else None

    def names_of(self, scope: str) -> list[str]:
        """The collections holding a scope's vectors (its waiting one last)."""
        waiting = self.waiting(scope)
        return [self.name_of(scope), *([waiting] if waiting else [])]

    @contextlib.contextmanager
    def _held(self, scope: str) -> Iterator[list[VectorStore]]:
        """The stores holding a scope's vectors; a waiting one is not dropped while in use."""
        with self._readers.reading(self.waiting(scope)) as name:
            yield [self.for_scope(scope), *([self.by_name(name)] if name else [])]

    def vectors(
        self, scope: str, ids: Sequence[str], *, waiting: Collection[str] | None = None
    ) -> dict[str, Vector]:
        """A scope's stored vectors of ``ids``: a full one where one is stored.

        Args:
            waiting: the ids the record says wait for enrichment: read from the waiting
                collection first (their cheap vectors), the others from the scope's own. None:
                every id read from both.
        """
        with self._held(scope) as stores:
            if len(stores) == 1 or not ids:
                return stores[0].vectors(ids)
            own, spare = stores
            cheap = list(ids) if waiting is None else [i for i in ids if i in waiting]
            full = list(ids) if waiting is None else [i for i in ids if i not in waiting]
            reads = [(store, part) for store, part in ((own, full), (spare, cheap)) if part]
            found = self._readers.each([functools.partial(store.vectors, part) for store, part in reads])
            merged = {i: v for part in reversed(found) for i, v in part.items()}  # its own's win
            missing = [i for i in cheap if i not in merged]  # cheap vectors stored in its own
            if waiting is not None and missing:
                merged.update(own.vectors(missing))
            return merged

    def search(self, scope: str, vector: Vector, depth: int) -> list[StoreHit]:
        """HNSW search of a scope's own collection and of its waiting one, best first."""
        with self._held(scope) as stores:
            found = self._readers.each([functools.partial(store.search, vector, depth) for store in stores])
        return found[0] if len(found) == 1 else best_hits([hit for part in found for hit in part], depth)

    def search_soon(self, scope: str, query: QuerySoon, depth: int) -> EarlySearch:
        """Search a scope's collections before the retrieval asks for their hits: its waiting one
        with the query's cheap vector, if the query has one, when the caller says
        (:meth:`EarlySearch.search_cheap`) or once the query's whole vector is known, whichever
        comes first; the rest on a reader thread then (:mod:`memory.index.early`)."""
        cheap = query.cheap() if self.waiting(scope) is not None else None
        waiting = None if cheap is None else Once(lambda: self._search_each(scope, cheap, depth, WAITING))
        rest = OWN if cheap is not None else slice(None)
        whole = Once(lambda: self._search_each(scope, query(), depth, rest))
        early = EarlySearch(whole, waiting, cheap, depth)
        query.when_ready(lambda: self._readers.start(early.run))
        return early

    def _search_each(self, scope: str, vector: Vector, depth: int, which: slice) -> list[StoreHit]:
        """A scope's stores (``which`` of its own and its waiting one), one after the other on
        this thread, best first."""
        with self._held(scope) as stores:
            found = [store.search(vector, depth) for store in stores[which]]
        return found[0] if len(found) == 1 else best_hits([hit for part in found for hit in part], depth)

    def scope_ids(self, scope: str) -> set[str]:
        """The ids a scope has vectors for (a pooled scope's read by its metadata)."""
        if self.pooled(scope):
            return self.for_scope(scope).ids(scope=self.tag(scope))
        with self._held(scope) as stores:
            return set().union(*(store.ids() for store in stores))

    def delete(self, scope: str, ids: Sequence[str]) -> None:
        """Remove a scope's vectors of ``ids`` (from its waiting collection too)."""
        with self._held(scope) as stores:
            for store in stores:
                store.delete(ids)

    def keeps_waiting(self, scope: str, count: int) -> bool:
        """Whether ``count`` vectors of a scope waiting for enrichment go to its waiting collection."""
        return self.separates_waiting and (count >= WAITING_FROM or self.waiting(scope) is not None)

    def add_waiting(
        self, scope: str, ids: Sequence[str], metadatas: Sequence[Metadata], vectors: Mapping[str, Vector]
    ) -> None:
        """Store vectors waiting for enrichment of a scope with its own collection: in its waiting
        collection, then none of those ids left in its own (a text that changed). The indexer's
        lock is held (no drop runs meanwhile)."""
        name = self.waiting_name(scope)
        self.by_name(name).add(ids, [""] * len(ids), metadatas, vectors=vectors)
        owned = self._owned()
        with self._lock:
            owned.add(name)
        self.by_name(self.own_name(scope)).delete(ids)

    def finish_waiting(self, scope: str, ids: Sequence[str]) -> None:
        """Delete the waiting vectors of ``ids`` (their full ones are stored), and the waiting
        collection once it is empty. The indexer's lock is held."""
        if (name := self.waiting(scope)) is not None:
            store = self.by_name(name)
            store.delete(ids)
            if not store.count():
                self.drop_waiting(name)

    def drop_waiting(self, name: str) -> None:
        """Drop a waiting collection once no call reads it (one that does not exist: nothing)."""
        with self._readers.drop(name):
            self.by_name(name).drop()
            owned = self._owned()
            with self._lock:
                owned.discard(name)

    def close(self) -> None:
        """Stop the threads that read a waiting collection beside the scope's own (idempotent)."""
        self._readers.close()

    def forget_layout(self) -> None:
        """Read which scopes have their own collections from the backend again (after a drop)."""
        with self._lock:
            self._own = None

    def existing_names(self) -> set[str]:
        """Names of this layer's collections that exist on the backend."""
        prefix = self.base_name + "__"
        return {
            name
            for name in self.backend.collection_names()
            if name == self.base_name
            or (name.startswith(prefix) and _is_digest(name[len(prefix) :].removesuffix(WAITING_SUFFIX)))
        }

    def cached_names(self) -> set[str]:
        """Names of the collections this process has handles for."""
        with self._lock:
            return set(self._stores)

    def by_name(self, name: str) -> VectorStore:
        """A store for an existing collection name (used by repair and rebuild)."""
        with self._lock:
            store = self._stores.get(name)
            if store is None:
                searched = self.shared or name != self.base_name  # a pool is read by id
                store = VectorStore(self.backend, name, self.embeddings, searched=searched)
                self._stores[name] = store
            return store
