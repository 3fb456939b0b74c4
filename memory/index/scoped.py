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

The index never holds a user id: a scope goes by its *tag* there (a keyed hash, the key kept in
the record: :meth:`memory.record.tombstones.Tombstones.index_tag`), in collection names and metadata.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable, Mapping, Sequence

import numpy as np
from langchain_core.embeddings import Embeddings

from memory.index.chroma import ChromaBackend
from memory.index.vector import Vector
from memory.index.vectors import StoreHit, VectorStore

INDEX_LAYOUT = "scopes tagged by a keyed hash"
"""How this module lays scopes out in the index (recorded with the model that built it)."""
DIGEST_CHARS = 24
POOL_LIMIT = 64
"""Memories (hot and cold) a scope may hold in the pooled collection; one more moves it out."""


def plain_tag(scope: str) -> str:
    """An unkeyed tag (SHA-256): for a store with no record key (tests of the layout alone)."""
    return hashlib.sha256(scope.encode("utf-8")).hexdigest()


def _is_digest(text: str) -> bool:
    return len(text) == DIGEST_CHARS and all(c in "0123456789abcdef" for c in text)


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
        store = self.for_scope(scope)
        return store.ids(scope=self.tag(scope)) if self.pooled(scope) else store.ids()

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
