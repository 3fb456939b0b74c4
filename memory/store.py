"""The Chroma vector index (the only module that imports chromadb).

:class:`ChromaBackend` opens the client (embedded ``PersistentClient`` or ``HttpClient``) and
shares one :class:`~memory.breaker.CircuitBreaker` among its collections. :class:`VectorStore`
wraps one collection (cosine space): upsert, search, delete, read vectors back.
Embeddings are always computed here and passed explicitly: Chroma's default embedding function
would try to download a model.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import shutil
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

import chromadb
import httpx
from chromadb.api.client import SharedSystemClient  # type: ignore[attr-defined]
from chromadb.config import Settings
from chromadb.errors import NotFoundError
from langchain_core.embeddings import Embeddings

from memory.breaker import CircuitBreaker
from memory.config import StoreConfig, StoreMode
from memory.deadline import CallTimeout, Deadline
from memory.errors import StoreError, StoreUnavailableError
from memory.heap import trim_malloc

logger = logging.getLogger(__name__)

Metadata = dict[str, str | int | float | bool]
Vector = list[float]
MAX_BATCH = 5000
HTTP_TIMEOUT = httpx.Timeout(15.0, connect=3.0)
_T = TypeVar("_T")


def _settings() -> Settings:
    return Settings(anonymized_telemetry=False, allow_reset=False)


@dataclass(frozen=True)
class StoreHit:
    """One search result: an id and its cosine similarity to the query."""

    id: str
    similarity: float


class ChromaBackend:
    """One Chroma client and the circuit breaker guarding it.

    Args:
        config: the ``store`` section (mode, host, port...).
        persist_dir: the data folder; the embedded index lives in ``persist_dir/chroma``.
    """

    def __init__(self, config: StoreConfig, persist_dir: Path) -> None:
        self.config = config
        self.path = persist_dir / "chroma"
        self.breaker = CircuitBreaker(
            failure_threshold=config.breaker_failure_threshold,
            initial_backoff=config.breaker_initial_backoff_seconds,
            max_backoff=config.breaker_max_backoff_seconds,
        )
        self.generation = 0
        """Bumped when the client is reopened: collection handles of an older one are stale."""
        self._reopen_lock = threading.Lock()
        self._hung = False
        self.deadline = Deadline(config.call_timeout_seconds, name="persona-memory-chroma")
        try:
            self._client = self._open()
        except BaseException:
            self.deadline.close()
            raise

    @property
    def location(self) -> str:
        """Where the index lives, for ``debug_state()``."""
        if self.config.mode == StoreMode.HTTP:
            scheme = "https" if self.config.ssl else "http"
            return f"{scheme}://{self.config.host}:{self.config.port}"
        return str(self.path)

    def _open(self) -> Any:
        settings = _settings()
        if self.config.mode == StoreMode.HTTP:
            try:
                return self._open_http_or_raise()
            except Exception as exc:
                # The server may come back: start with the breaker open; the client is created
                # lazily by the first call the breaker lets through (see ``client()``).
                self.breaker.record_failure(exc)
                return None
        try:
            client = chromadb.PersistentClient(path=str(self.path), settings=settings)
            client.list_collections()
            return client
        except Exception as exc:
            return self._rebuild_corrupt_folder(settings, exc)

    def _rebuild_corrupt_folder(self, settings: Settings, error: Exception) -> Any:
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%f")
        aside = self.path.with_name(f"{self.path.name}.corrupt-{stamp}")
        logger.warning(
            "Chroma folder %s is unreadable (%s); moved aside to %s and rebuilding from SQLite",
            *(self.path, error, aside),
        )
        _forget_system(str(self.path))  # a system that failed to start stays cached otherwise
        try:
            shutil.move(str(self.path), str(aside))
            client = chromadb.PersistentClient(path=str(self.path), settings=settings)
        except Exception as exc:
            raise StoreError(f"cannot open or rebuild the Chroma folder {self.path}: {exc}") from (exc)
        return client

    def guard(self, operation: Callable[[], _T]) -> _T:
        """Run one backend call through the breaker, waiting for it at most
        ``store.call_timeout_seconds``.

        A call past its deadline counts as a failure (the breaker opens) and the client is
        reopened before the next call the breaker lets through.

        Raises:
            StoreUnavailableError: the breaker is open, or the call failed or timed out.
        """
        if not self.breaker.allow():
            raise StoreUnavailableError(f"vector store unavailable: {self.breaker.last_error}")

        def call() -> _T:
            self._reopen_if_broken()
            return operation()

        try:
            result = self.deadline.run(call)
        except CallTimeout as exc:
            self._hung = True
            self.breaker.record_failure(exc)
            raise StoreUnavailableError(f"vector store call timed out: {exc}") from exc
        except Exception as exc:
            self.breaker.record_failure(exc)
            raise StoreUnavailableError(f"vector store call failed: {exc}") from exc
        self.breaker.record_success()
        return result

    def _reopen_if_broken(self) -> None:
        """Reopen the client after a call hung, or when the embedded folder was deleted.

        A hung client may hold locks forever, and a client whose folder vanished keeps pointing
        at deleted files; a new one starts clean (empty, for a vanished folder: the failure
        recorded here makes the sync rebuild the index from SQLite once a probe succeeds).
        """
        vanished = (
            self.config.mode == StoreMode.PERSISTENT and self._client is not None and not self.path.exists()
        )
        if not (self._hung or vanished):
            return
        with self._reopen_lock:
            if self._hung:
                logger.warning("a call into the vector index %s hung; reopening its client", self.location)
                self._replace_client()
                self._hung = False
            elif self.config.mode == StoreMode.PERSISTENT and not self.path.exists():
                logger.warning(
                    "Chroma folder %s vanished; reopening it empty to rebuild from SQLite", self.path
                )
                self._replace_client()
                raise StoreUnavailableError(f"the vector index folder {self.path} vanished; rebuilding it")

    def _replace_client(self) -> None:
        old, self._client = self._client, None
        if old is not None:  # a hung client may never finish stopping: do not wait for it
            stop = _detach(old)
            threading.Thread(target=stop, name="persona-memory-chroma-close", daemon=True).start()
        if self.config.mode == StoreMode.PERSISTENT:
            self._client = chromadb.PersistentClient(path=str(self.path), settings=_settings())
        else:
            self._client = self._open_http_or_raise()
        self.generation += 1

    def _open_http_or_raise(self) -> Any:
        c = self.config
        client = chromadb.HttpClient(
            host=c.host, port=c.port, ssl=c.ssl, headers=c.headers or None, settings=_settings()
        )
        # chromadb's HTTP session never times out: a hung server would block the reply path.
        session = getattr(getattr(client, "_server", None), "_session", None)
        if isinstance(session, httpx.Client):
            session.timeout = HTTP_TIMEOUT
        return client

    def client(self) -> Any:
        """The Chroma client, created now in http mode if the server was down before (unguarded)."""
        if self._client is None:
            if self.config.mode != StoreMode.HTTP:
                raise StoreError(f"the Chroma client of {self.path} is closed")
            self._client = self._open_http_or_raise()
        return self._client

    def collection(self, name: str) -> Any:
        """Get or create a cosine-space collection with no embedding function (unguarded)."""
        hnsw = {
            "space": "cosine",
            "ef_search": self.config.hnsw_ef_search,
            "ef_construction": self.config.hnsw_ef_construction,
            "max_neighbors": self.config.hnsw_max_neighbors,
        }
        return self.client().get_or_create_collection(
            name=name, configuration={"hnsw": hnsw}, embedding_function=None
        )

    def collection_names(self) -> list[str]:
        """Every collection name on the backend (guarded)."""
        found = self.guard(lambda: self.client().list_collections())
        return [getattr(c, "name", c) for c in found]

    def delete_collection(self, name: str) -> None:
        """Delete a collection; one that does not exist is already gone (unguarded)."""
        with contextlib.suppress(NotFoundError):
            self.client().delete_collection(name)

    def close(self) -> None:
        """Release the client (files, threads) so the folder can be reopened (idempotent)."""
        client, self._client = self._client, None
        if client is not None:
            with contextlib.suppress(Exception):
                self.deadline.run(functools.partial(_close_quietly, client))
        self.deadline.close()
        trim_malloc()


def _close_quietly(client: Any) -> None:
    """Close a Chroma client: its shared system stops once no client in the process uses it."""
    with contextlib.suppress(Exception):
        client.close()


def _forget_system(identifier: str) -> Any:
    """Take one system out of Chroma's per-process cache (keyed by folder for embedded clients),
    leaving other folders' clients alone; returns it."""
    SharedSystemClient._identifier_to_refcount.pop(identifier, None)
    return SharedSystemClient._identifier_to_system.pop(identifier, None)


def _detach(client: Any) -> Callable[[], None]:
    """Take a client's system out of Chroma's cache now (a new client of the same folder then
    gets a new one) and return what stops it."""
    system = _forget_system(str(getattr(client, "_identifier", "")))
    client._closed = True

    def stop() -> None:
        if system is not None:
            with contextlib.suppress(Exception):
                system.stop()

    return stop


def _upsert(collection: Any, *, ids: list[str], vectors: list[Vector], metadatas: list[Metadata]) -> None:
    collection.upsert(ids=ids, embeddings=vectors, metadatas=metadatas)


def _delete(collection: Any, *, ids: list[str]) -> None:
    collection.delete(ids=ids)


class VectorStore:
    """One Chroma collection, with explicit embeddings; Chroma holds ids, vectors and a scope.

    No document text is stored in Chroma (SQLite is the record, and erased text must not linger
    in the index files). The collection handle is fetched lazily, so a store created during an
    outage works once the backend is back.
    """

    def __init__(self, backend: ChromaBackend, name: str, embeddings: Embeddings) -> None:
        self.backend = backend
        self.name = name
        self.embeddings = embeddings
        self._collection: Any = None
        self._generation = backend.generation

    def _call(self, operation: Callable[[Any], _T]) -> _T:
        def run() -> _T:
            if self._collection is None or self._generation != self.backend.generation:
                self._collection = self.backend.collection(self.name)
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
            batch_vectors = [list(v) for v in ordered[start:end]]
            batch_meta = [dict(m) or {"_": 0} for m in metadatas[start:end]]
            self._call(functools.partial(_upsert, ids=batch_ids, vectors=batch_vectors, metadatas=batch_meta))
        # Chroma applies its write log to the collection at the next read; a read now does it here,
        # in the indexer, not in a retrieval (which would also fail on a folder turned read-only)
        self._call(lambda col: col.count())

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
        result = self._call(lambda col: col.get(ids=list(ids), include=["embeddings"]))
        return {i: [float(x) for x in v] for i, v in zip(result["ids"], result["embeddings"], strict=True)}

    def ids(self, *, scope: str | None = None) -> set[str]:
        """The ids the collection holds (of one scope, by its metadata: not for the reply path)."""
        where = {"scope": scope} if scope is not None else None
        return set(self._call(lambda col: col.get(where=where, include=[])["ids"]))

    def ensure(self) -> None:
        """Create the collection if it does not exist yet."""
        self._call(lambda col: None)

    def drop(self) -> None:
        """Delete the collection (used by ``reindex``)."""
        with contextlib.suppress(StoreUnavailableError):
            self.backend.guard(lambda: self.backend.delete_collection(self.name))
        self._collection = None
