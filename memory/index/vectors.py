"""One Chroma collection as the layers use it: upsert vectors by id, search, read, delete.

Every call goes through :meth:`memory.index.chroma.ChromaBackend.guard` (time limit, breaker); the
collection handle is fetched lazily and again after the backend reopened its client.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np
import numpy.typing as npt
from langchain_core.embeddings import Embeddings

from memory.errors import StoreUnavailableError
from memory.index.chroma import ChromaBackend
from memory.index.vector import Vector

Metadata = dict[str, str | int | float | bool]
MAX_BATCH = 5000
_T = TypeVar("_T")


@dataclass(frozen=True)
class StoreHit:
    """One search result: an id and its cosine similarity to the query."""

    id: str
    similarity: float


def _row(vector: Any) -> npt.NDArray[np.float32]:
    """A stored vector as a float32 row (Chroma returns numpy arrays: no Python floats are made)."""
    return np.asarray(vector, dtype=np.float32)


def _upsert(
    collection: Any, *, ids: list[str], vectors: npt.NDArray[np.float32], metadatas: list[Metadata]
) -> None:
    collection.upsert(ids=ids, embeddings=vectors, metadatas=metadatas)


def _delete(collection: Any, *, ids: list[str]) -> None:
    collection.delete(ids=ids)


def _settle(collection: Any) -> None:
    # Chroma applies its write log to the collection at the next read: a write of its own
    collection.count()


class VectorStore:
    """One Chroma collection, with explicit embeddings; Chroma holds ids, vectors and a scope.

    No document text is stored in Chroma (SQLite is the record, and erased text must not linger
    in the index files). The collection handle is fetched lazily, so a store created during an
    outage works once the backend is back.
    """

    def __init__(
        self, backend: ChromaBackend, name: str, embeddings: Embeddings, *, searched: bool = True
    ) -> None:
        self.backend = backend
        self.name = name
        self.embeddings = embeddings
        self.searched = searched
        """Whether it is searched by its HNSW graph (else only read by id)."""
        self._collection: Any = None
        self._generation = backend.generation

    def _call(self, operation: Callable[[Any], _T]) -> _T:
        def run() -> _T:
            if self._collection is None or self._generation != self.backend.generation:
                self._collection = self.backend.collection(self.name, searched=self.searched)
                self._generation = self.backend.generation
            try:
                return operation(self._collection)
            except Exception:
                self._collection = None
                raise

        return self.backend.guard(run)

    def add(
        self,
        ids: Sequence[str],
        texts: Sequence[str],
        metadatas: Sequence[Metadata],
        *,
        vectors: Mapping[str, Vector] | None = None,
    ) -> None:
        """Upsert vectors by id (idempotent): the given ones, else embeddings of ``texts``.

        The texts are embedded, never stored.
        """
        if not ids:
            return
        known = vectors or {}
        missing = [i for i, entry_id in enumerate(ids) if entry_id not in known]
        embedded = self.embeddings.embed_documents([texts[i] for i in missing]) if missing else []
        by_position = dict(zip(missing, embedded, strict=True))
        ordered = [known[entry_id] if entry_id in known else by_position[i] for i, entry_id in enumerate(ids)]
        for start in range(0, len(ids), MAX_BATCH):
            end = start + MAX_BATCH
            batch_ids = list(ids[start:end])
            batch_vectors = np.asarray(ordered[start:end], dtype=np.float32)
            batch_meta = [dict(m) or {"_": 0} for m in metadatas[start:end]]
            upsert = functools.partial(_upsert, ids=batch_ids, vectors=batch_vectors, metadatas=batch_meta)
            self._call(upsert)
        # settled here, in the indexer, not in a retrieval (which would fail on a read-only folder)
        self._call(_settle)

    def search(self, vector: Vector, top_k: int) -> list[StoreHit]:
        """The ``top_k`` nearest ids to ``vector`` with their cosine similarity, best first."""
        if top_k <= 0:
            return []
        result = self._call(
            lambda col: col.query(query_embeddings=[list(vector)], n_results=top_k, include=["distances"])
        )
        return [
            StoreHit(doc_id, 1.0 - float(distance))
            for doc_id, distance in zip(result["ids"][0], result["distances"][0], strict=True)
        ]

    def delete(self, ids: Sequence[str]) -> None:
        """Remove vectors by id; unknown ids are ignored."""
        for start in range(0, len(ids), MAX_BATCH):
            batch = list(ids[start : start + MAX_BATCH])
            self._call(functools.partial(_delete, ids=batch))

    def vectors(self, ids: Sequence[str]) -> dict[str, Vector]:
        """The stored vectors of the given ids (missing ids are absent from the result)."""
        if not ids:
            return {}
        read = self._read(ids)
        if read is None:  # fewer vectors than ids, unaligned: one id at a time
            return {i: v for entry_id in ids for i, v in (self._read([entry_id]) or {}).items()}
        return read

    def _read(self, ids: Sequence[str]) -> dict[str, Vector] | None:
        """The stored vectors of ``ids``; None when the answer holds fewer vectors than ids (a
        Chroma server whose vector segment has not caught up with its record yet)."""
        result = self._call(lambda col: col.get(ids=list(ids), include=["embeddings"]))
        found, rows = result["ids"], result["embeddings"]
        if rows is None or len(rows) != len(found):
            return None
        return {i: _row(v) for i, v in zip(found, rows, strict=True)}

    def ids(self, *, scope: str | None = None) -> set[str]:
        """The ids the collection holds (of one scope, by its metadata: not for the reply path)."""
        where = {"scope": scope} if scope is not None else None
        return set(self._call(lambda col: col.get(where=where, include=[])["ids"]))

    def count(self) -> int:
        """How many vectors the collection holds (no id is read)."""
        return int(self._call(lambda col: col.count()))

    def ensure(self) -> None:
        """Create the collection if it does not exist yet."""
        self._call(lambda col: None)

    def drop(self) -> None:
        """Delete the collection (used by ``reindex``)."""
        with contextlib.suppress(StoreUnavailableError):
            self.backend.guard(lambda: self.backend.delete_collection(self.name))
        self._collection = None
