"""One vector collection per user scope of a persona layer.

A Chroma ``where`` filter costs time linear in the entries it matches (about 0.7 s at 100k
memories), so users are kept apart by collection instead: a search never filters. The shared
scope (``user_id=None``) and shared layers keep the plain name ``<persona>__<layer>``; a user's
collection adds a digest of the user id (ids may hold characters Chroma names cannot).
"""

from __future__ import annotations

import hashlib
import threading

from langchain_core.embeddings import Embeddings

from memory.model import SHARED_SCOPE
from memory.store import ChromaBackend, VectorStore

DIGEST_CHARS = 24


def _is_digest(text: str) -> bool:
    return len(text) == DIGEST_CHARS and all(c in "0123456789abcdef" for c in text)


class ScopedStores:
    """The collections of one persona layer, one per user scope, created lazily."""

    def __init__(
        self, backend: ChromaBackend, base_name: str, embeddings: Embeddings, *, shared: bool
    ) -> None:
        self.backend = backend
        self.base_name = base_name
        self.embeddings = embeddings
        self.shared = shared
        self._stores: dict[str, VectorStore] = {}
        self._lock = threading.Lock()

    def name_of(self, scope: str) -> str:
        """The collection name of a scope."""
        if self.shared or scope == SHARED_SCOPE:
            return self.base_name
        digest = hashlib.sha256(scope.encode("utf-8")).hexdigest()[:DIGEST_CHARS]
        return f"{self.base_name}__{digest}"

    def for_scope(self, scope: str) -> VectorStore:
        """The store of a scope (no backend call until it is used)."""
        name = self.name_of(scope)
        with self._lock:
            store = self._stores.get(name)
            if store is None:
                store = self._stores[name] = VectorStore(self.backend, name, self.embeddings)
            return store

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
                store = self._stores[name] = VectorStore(self.backend, name, self.embeddings)
            return store
