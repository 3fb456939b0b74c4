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

A large scope's memories recorded in bulk (an import: :data:`BULK` or more in one batch) are
first written, with their cheap vectors, to a collection of their own beside it,
``<own name>_cheap``, searched with it, and leave it when their full vectors are stored in the
scope's collection; it is dropped once empty. An insert into a 100,000-vector graph cost about 1 ms
a vector where replacing a vector cost 3 to 6 ms, and a write to Chroma holds the interpreter lock
(a retrieval waits for it). A few memories at a time (a chat) go to the scope's collection at once.

The index never holds a user id: a scope goes by its *tag* there (a keyed hash, the key kept in
the record: :meth:`memory.record.tombstones.Tombstones.index_tag`), in collection names and metadata.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable, Collection, Mapping, Sequence

import numpy as np
from langchain_core.embeddings import Embeddings

from memory.index.chroma import ChromaBackend
from memory.index.vector import Vector
from memory.index.vectors import Metadata, StoreHit, VectorStore

INDEX_LAYOUT = "scopes tagged by a keyed hash"
"""How this module lays scopes out in the index (recorded with the model that built it)."""
DIGEST_CHARS = 24
POOL_LIMIT = 64
"""Memories (hot and cold) a scope may hold in the pooled collection; one more moves it out."""
BULK = 32
"""Least memories of one large scope in a batch of cheap vectors for them to go to the scope's
collection of cheap vectors (see the module docstring)."""
CHEAP_SUFFIX = "_cheap"


def plain_tag(scope: str) -> str:
    """An unkeyed tag (SHA-256): for a store with no record key (tests of the layout alone)."""
    return hashlib.sha256(scope.encode("utf-8")).hexdigest()


def _is_digest(text: str) -> bool:
    text = text.removesuffix(CHEAP_SUFFIX)
    return len(text) == DIGEST_CHARS and all(c in "0123456789abcdef" for c in text)


def merged(hits: Sequence[StoreHit], more: Sequence[StoreHit], depth: int) -> list[StoreHit]:
    """The ``depth`` best of two searches' hits, an id found by both counted once (its better)."""
    best: dict[str, float] = {}
    for hit in (*hits, *more):
        best[hit.id] = max(hit.similarity, best.get(hit.id, hit.similarity))
    ranked = sorted(best.items(), key=lambda item: (-item[1], item[0]))[:depth]
    return [StoreHit(entry_id, similarity) for entry_id, similarity in ranked]


def unit_matrix(rows: Sequence[Vector]) -> np.ndarray:
    """Vectors as the rows of a float32 matrix, each of length 1."""
    matrix = np.asarray(rows, dtype=np.float32)
    matrix /= np.maximum(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-12)
    return matrix


def closest(matrix: np.ndarray, vector: Vector, depth: int) -> list[tuple[int, float]]:
    """The ``depth`` rows of a :func:`unit_matrix` nearest to ``vector`` by cosine, best first
    (exact): (row, cosine)."""
    query = np.asarray(vector, dtype=np.float32)
    scores = matrix @ (query / (np.linalg.norm(query) or 1.0))
    best = np.argsort(-scores, kind="stable")[:depth]
    return [(int(i), float(scores[i])) for i in best]


def nearest(vector: Vector, vectors: Mapping[str, Vector], depth: int) -> list[StoreHit]:
    """The ``depth`` ids whose vectors are nearest to ``vector`` by cosine, best first (exact)."""
    if not vectors or depth <= 0:
        return []
    ids = list(vectors)
    matrix = unit_matrix([vectors[i] for i in ids])
    return [StoreHit(ids[i], score) for i, score in closest(matrix, vector, depth)]


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
        self._stores: dict[str, VectorStore] = {}
        self._own: set[str] | None = None
        self._lock = threading.Lock()

    def own_name(self, scope: str) -> str:
        """The name of a scope's own collection (whether or not it has one)."""
        return f"{self.base_name}__{self.tag(scope)[:DIGEST_CHARS]}"

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

    def scope_ids(self, scope: str) -> set[str]:
        """The ids a scope has vectors for (a pooled scope's read by its metadata)."""
        if self.pooled(scope):
            return self.for_scope(scope).ids(scope=self.tag(scope))
        return set().union(*(store.ids() for store in self.stores_of(scope)))

    def cheap_name(self, scope: str) -> str:
        """The name of a large scope's collection of cheap vectors (whether or not it has one)."""
        return self.own_name(scope) + CHEAP_SUFFIX

    def stores_of(self, scope: str) -> list[VectorStore]:
        """The collections holding a scope's vectors: its own (or the pooled one), then its
        collection of cheap vectors while it has one."""
        cheap = self._cheap(scope)
        return [self.for_scope(scope), *([cheap] if cheap is not None else [])]

    def _cheap(self, scope: str) -> VectorStore | None:
        if self.shared or self.pooled(scope):
            return None
        name = self.cheap_name(scope)
        return self.by_name(name) if name in self._owned() else None

    def target(self, scope: str, count: int, *, cheap: bool) -> str:
        """The collection ``count`` new vectors of a scope are written to: cheap ones of a large
        scope, :data:`BULK` or more, to its collection of cheap vectors; else its collection."""
        if cheap and count >= BULK and not self.shared and not self.pooled(scope):
            return self.cheap_name(scope)
        return self.name_of(scope)

    def write(
        self, name: str, ids: Sequence[str], metadatas: Sequence[Metadata], vectors: Mapping[str, Vector]
    ) -> None:
        """Upsert vectors into the collection ``name`` (a :meth:`target`)."""
        self.by_name(name).add(ids, [""] * len(ids), metadatas, vectors=vectors)
        if name.endswith(CHEAP_SUFFIX):
            owned = self._owned()
            with self._lock:
                owned.add(name)

    def settle(self, scope: str, ids: Sequence[str]) -> None:
        """Take the cheap vectors of ``ids`` out of the scope's collection of cheap vectors once
        their full ones are stored; the collection is dropped once empty."""
        cheap = self._cheap(scope)
        if cheap is not None:
            cheap.delete(ids)
            if cheap.count() == 0:
                self.drop_cheap(cheap.name)

    def drop_cheap(self, name: str) -> None:
        """Delete an (empty) collection of cheap vectors."""
        self.by_name(name).drop()
        owned = self._owned()
        with self._lock:
            owned.discard(name)

    def search(self, scope: str, vector: Vector, depth: int) -> list[StoreHit]:
        """The ``depth`` nearest of a large scope's vectors, by HNSW (both of its collections)."""
        stores = self.stores_of(scope)
        hits = stores[0].search(vector, depth)
        return merged(hits, stores[1].search(vector, depth), depth) if len(stores) > 1 else hits

    def vectors(self, scope: str, ids: Sequence[str], *, cheap: Collection[str] = ()) -> dict[str, Vector]:
        """The stored vectors of a scope's ``ids``, from whichever collection holds them (those
        in ``cheap``, whose full vectors are not stored yet, looked for in the collection of cheap
        vectors first)."""
        stores = self.stores_of(scope)
        if len(stores) == 1:
            return stores[0].vectors(ids)
        first = [i for i in ids if i in cheap]
        found = stores[1].vectors(first) if first else {}
        found.update(stores[0].vectors([i for i in ids if i not in found]))
        return found

    def drop_scope(self, scope: str) -> None:
        """Delete a large scope's collections."""
        for name in (self.own_name(scope), self.cheap_name(scope)):
            self.by_name(name).drop()
        self.forget_layout()

    def delete(self, scope: str, ids: Sequence[str]) -> None:
        """Remove a scope's vectors by id, wherever they are."""
        for store in self.stores_of(scope):
            store.delete(ids)

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
            if name == self.base_name or (name.startswith(prefix) and _is_digest(name[len(prefix) :]))
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
