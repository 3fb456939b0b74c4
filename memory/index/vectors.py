"""One Chroma collection as the layers use it: upsert vectors by id, search, read, delete.

Every call goes through :meth:`memory.index.chroma.ChromaBackend.guard` (time limit, breaker); the
collection handle is fetched lazily and again after the backend reopened its client. An embedded
pooled collection keeps the vectors it last wrote or read in memory (:class:`KeptVectors`).
"""

from __future__ import annotations

import contextlib
import functools
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np
import numpy.typing as npt
from langchain_core.embeddings import Embeddings

from memory.config import StoreMode
from memory.errors import StoreUnavailableError
from memory.index.chroma import ChromaBackend
from memory.index.vector import Vector

Metadata = dict[str, str | int | float | bool]
MAX_BATCH = 5000
KEPT_VECTORS = 4096
"""Vectors an embedded pooled collection (one read by id, not searched) keeps in memory: about
14 MB at 896 dimensions. A small user's search reads all of the user's vectors by id at every
retrieval (:mod:`memory.index.scoped`); under load those reads queued for Chroma."""
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


class KeptVectors:
    """The vectors a store last wrote or read, by id, the least recently used dropped first.

    A read fills it only if no write or delete came between the read's start and its end
    (:attr:`generation`), so a vector read just before it was replaced is never kept.
    """

    def __init__(self, size: int) -> None:
        self.size = size
        self.generation = 0
        self._rows: OrderedDict[str, Vector] = OrderedDict()
        self._lock = threading.Lock()

    def split(self, ids: Sequence[str]) -> tuple[dict[str, Vector], list[str], int]:
        """The kept vectors of ``ids``, the ids not kept, and the generation to fill with."""
        found: dict[str, Vector] = {}
        missing: list[str] = []
        with self._lock:
            for entry_id in ids:
                row = self._rows.get(entry_id)
                if row is None:
                    missing.append(entry_id)
                else:
                    self._rows.move_to_end(entry_id)
                    found[entry_id] = row
            return found, missing, self.generation

    def fill(self, rows: Mapping[str, Vector], generation: int) -> None:
        """Keep vectors read since ``generation`` (nothing, if the store changed meanwhile)."""
        with self._lock:
            if generation == self.generation:
                self._keep(rows)

    def put(self, rows: Mapping[str, Vector]) -> None:
        """Keep vectors just written (as given: Chroma may give them back a rounding apart)."""
        with self._lock:
            self.generation += 1
            self._keep(rows)

    def drop(self, ids: Sequence[str] | None = None) -> None:
        """Forget the vectors of ``ids`` (every vector when None)."""
        with self._lock:
            self.generation += 1
            if ids is None:
                self._rows.clear()
            for entry_id in ids or ():
                self._rows.pop(entry_id, None)

    def _keep(self, rows: Mapping[str, Vector]) -> None:
        if not self.size:
            return
        for entry_id, row in rows.items():
            self._rows[entry_id] = row
            self._rows.move_to_end(entry_id)
        while len(self._rows) > self.size:
            self._rows.popitem(last=False)


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
        # another process may write a Chroma server's collections: nothing is kept from those
        keeps = not searched and backend.config.mode != StoreMode.HTTP
        self.kept = KeptVectors(KEPT_VECTORS if keeps else 0)
        self._kept_for = backend.generation

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
            self.kept.drop(batch_ids)  # a call past its deadline may still land: nothing stale stays
            self._call(upsert)
            if self.kept.size:  # copies: a kept row would hold its whole batch in memory
                self.kept.put({i: row.copy() for i, row in zip(batch_ids, batch_vectors, strict=True)})
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
            self.kept.drop(batch)
            self._call(functools.partial(_delete, ids=batch))
            self.kept.drop(batch)

    def vectors(self, ids: Sequence[str]) -> dict[str, Vector]:
        """The stored vectors of the given ids (missing ids are absent from the result)."""
        if not ids:
            return {}
        if not self.kept.size:
            return self._read_all(ids)
        if self._kept_for != self.backend.generation:  # a reopened client: kept ones may be gone
            self._kept_for = self.backend.generation
            self.kept.drop()
        found, missing, generation = self.kept.split(ids)
        if missing:
            read = self._read_all(missing)
            self.kept.fill(read, generation)
            found.update(read)
        return found

    def _read_all(self, ids: Sequence[str]) -> dict[str, Vector]:
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
        self.kept.drop()
        with contextlib.suppress(StoreUnavailableError):
            self.backend.guard(lambda: self.backend.delete_collection(self.name))
        self.kept.drop()
        self._collection = None
