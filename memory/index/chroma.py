"""The Chroma vector index (the only module that imports chromadb).

:class:`ChromaBackend` opens the client (embedded ``PersistentClient`` or ``HttpClient``) and
shares one :class:`~memory.index.breaker.CircuitBreaker` among its collections; each collection is a
:class:`memory.index.vectors.VectorStore` (cosine space). Embeddings are always computed by the engine
and passed explicitly: Chroma's default embedding function would try to download a model.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import shutil
import tempfile
import threading
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

import chromadb
import httpx
from chromadb.api.client import SharedSystemClient  # type: ignore[attr-defined]
from chromadb.config import Settings
from chromadb.errors import NotFoundError

from memory.config import StoreConfig, StoreMode
from memory.errors import CallTimeout, StoreError, StoreUnavailableError
from memory.index.breaker import CircuitBreaker
from memory.index.deadline import Deadline
from memory.index.disk import FullDisk, copied, remove_dropped_segments
from memory.index.heap import trim_malloc

logger = logging.getLogger(__name__)

HTTP_TIMEOUT = httpx.Timeout(15.0, connect=3.0)
UNSEARCHED_EF_CONSTRUCTION = 16
UNSEARCHED_MAX_NEIGHBORS = 4
"""The HNSW graph of a collection never searched by it (Chroma builds one for every collection)."""
_T = TypeVar("_T")


def _settings() -> Settings:
    return Settings(anonymized_telemetry=False, allow_reset=False)


class ChromaBackend:
    """One Chroma client and the circuit breaker guarding it.

    Args:
        config: the ``store`` section (mode, host, port...).
        persist_dir: the data folder; the embedded index lives in ``persist_dir/chroma``.
        snapshot: open a private copy of the embedded index, removed at close (a read-only
            folder: Chroma cannot open an index it may not write).
    """

    def __init__(self, config: StoreConfig, persist_dir: Path, *, snapshot: bool = False) -> None:
        self.config = config
        self.path = persist_dir / "chroma"
        self._copy: tempfile.TemporaryDirectory[str] | None = None
        if snapshot and config.mode != StoreMode.HTTP:
            self._copy = copied(self.path)
            self.path = Path(self._copy.name) / "chroma"
        self.breaker = CircuitBreaker(
            failure_threshold=config.breaker_failure_threshold,
            initial_backoff=config.breaker_initial_backoff_seconds,
            max_backoff=config.breaker_max_backoff_seconds,
        )
        self.generation = 0
        """Bumped when the client is reopened: collection handles of an older one are stale."""
        self._reopen_lock = threading.Lock()
        self._stale = ""
        """Why the client must be replaced before the next call ("": it need not)."""
        self.disk = FullDisk(self.path)
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
            return f"{'https' if self.config.ssl else 'http'}://{self.config.host}:{self.config.port}"
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
            remove_dropped_segments(self.path)  # left by an older version, or a kill after a drop
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
        reopened before the next call the breaker lets through; so is an embedded client whose
        call failed in the backend (not on bad input). While the embedded index's disk is known to
        be full, no call is attempted: the index waits for free space (a failed client's next
        write may hang holding the interpreter lock) and the engine answers from the record.

        Raises:
            StoreUnavailableError: the breaker is open, the disk is full, or the call failed or
                timed out.
        """
        self.disk.refuse_while_full()
        if not self.breaker.allow():
            raise StoreUnavailableError(f"vector store unavailable: {self.breaker.last_error}")
        failures = self.disk.failures

        def call() -> _T:
            self.disk.refuse_while_full()  # another call may have failed on a full disk meanwhile
            try:
                self._reopen_if_broken()
                return operation()
            except Exception as exc:  # marked here, at once: no other call starts on a full disk
                self._failed_in_backend(exc)
                raise

        try:
            result = self.deadline.run(call)
        except StoreUnavailableError:
            raise
        except CallTimeout as exc:
            self._stale = "hung"
            self.breaker.record_failure(exc)
            raise StoreUnavailableError(f"vector store call timed out: {exc}") from exc
        except Exception as exc:
            self.breaker.record_failure(exc)
            raise StoreUnavailableError(f"vector store call failed: {exc}") from exc
        self.disk.call_succeeded(failures)
        self.breaker.record_success()
        return result

    def _failed_in_backend(self, exc: Exception) -> None:
        """A failed embedded client (a full disk) may hang in its next write, holding the GIL."""
        if isinstance(exc, ValueError | LookupError | TypeError | StoreUnavailableError):
            return  # bad input, or a folder that vanished: the client is not at fault
        if self.config.mode == StoreMode.PERSISTENT:
            self._stale = "failed"
            self.disk.call_failed()

    def _reopen_if_broken(self) -> None:
        """Reopen the client after a call hung or failed, or when the embedded folder was deleted.

        A hung client may hold locks forever, and a client whose folder vanished keeps pointing
        at deleted files; a new one starts clean (empty, for a vanished folder: the failure
        recorded here makes the sync rebuild the index from SQLite once a probe succeeds).
        """
        embedded = self.config.mode == StoreMode.PERSISTENT
        if not (self._stale or (embedded and self._client is not None and not self.path.exists())):
            return
        with self._reopen_lock:
            if self._stale:
                where, why = self.location, self._stale
                logger.warning("a call into the vector index %s %s; reopening its client", where, why)
                self._replace_client()
                self._stale = ""
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

    def collection(self, name: str, *, searched: bool = True) -> Any:
        """Get or create a cosine-space collection with no embedding function (unguarded).

        Args:
            searched: whether it is searched by its HNSW graph; one only read by id (a pool of
                small scopes) is created with the smallest graph (writing into a 30,000-vector
                pool: 0.24 ms a vector against 5.2 ms with the configured graph). A collection
                that exists keeps the graph it was made with.
        """
        graph = (
            (self.config.hnsw_ef_construction, self.config.hnsw_max_neighbors)
            if searched
            else (UNSEARCHED_EF_CONSTRUCTION, UNSEARCHED_MAX_NEIGHBORS)
        )
        hnsw = {
            "space": "cosine",
            "ef_search": self.config.hnsw_ef_search,
            "ef_construction": graph[0],
            "max_neighbors": graph[1],
            "sync_threshold": self.config.hnsw_sync_threshold,
        }
        return self.client().get_or_create_collection(
            name=name, configuration={"hnsw": hnsw}, embedding_function=None
        )

    def collection_names(self) -> list[str]:
        """Every collection name on the backend (guarded)."""
        found = self.guard(lambda: self.client().list_collections())
        return [getattr(c, "name", c) for c in found]

    def delete_collection(self, name: str) -> None:
        """Delete a collection and its files; one that does not exist is already gone (unguarded)."""
        with contextlib.suppress(NotFoundError):
            self.client().delete_collection(name)
        if self.config.mode != StoreMode.HTTP:
            remove_dropped_segments(self.path)

    def close(self) -> None:
        """Release the client (files, threads) so the folder can be reopened (idempotent)."""
        client, self._client = self._client, None
        if client is not None:
            with contextlib.suppress(Exception):
                self.deadline.run(functools.partial(_close_quietly, client))
        self.deadline.close()
        if self._copy is not None:
            self._copy.cleanup()
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
