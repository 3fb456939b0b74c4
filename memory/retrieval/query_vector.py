"""A query's vector: one embedding of a plain query; for a dialogue, the whole conversation and
its turns, the newest counting most (:mod:`memory.domain.dialogue` says what a query is)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from langchain_core.embeddings import Embeddings

from memory.domain.dialogue import Query

OLDER_TURN_WEIGHT = 0.5
"""Each turn counts this much of the turn after it in the dialogue's turn-by-turn vector."""
QUERY_THREADS = 8
"""Retrievals whose query vector can be computed at once, each while its own record reads run."""
_threads: ThreadPoolExecutor | None = None
_threads_lock = threading.Lock()


def _query_threads() -> ThreadPoolExecutor:
    """The process's threads that embed queries (one set for every engine, like the models)."""
    global _threads
    with _threads_lock:
        if _threads is None:
            _threads = ThreadPoolExecutor(QUERY_THREADS, thread_name_prefix="persona-memory-query")
        return _threads


class QueryVector:
    """A query's vector under way: call it for the vector (waits for it; computed once).
    :meth:`cheap` is its cheap-tier half, known sooner, where there is one."""

    def __init__(
        self,
        query: Query,
        finish: Callable[[], list[list[float]]],
        when_ready: Callable[[Callable[[], None]], None],
        cheap: Callable[[], list[list[float]]] | None = None,
    ) -> None:
        self._query, self._finish, self._when_ready, self._cheap = query, finish, when_ready, cheap
        self._lock = threading.Lock()
        self._vector: list[float] | None = None

    def __call__(self) -> list[float]:
        with self._lock:
            if self._vector is None:
                self._vector = _combined(self._query, self._finish())
            return self._vector

    def cheap(self) -> list[float] | None:
        """The vector a cheap-tier vector is searched with (an embedder with two tiers, a plain
        query): its cosine with a cheap vector ranks as the whole vector's does. None for a
        dialogue (its turns' halves combine differently) or an embedder with one tier."""
        if self._cheap is None or self._query.is_dialogue:
            return None
        return self._cheap()[0]

    def when_ready(self, call: Callable[[], None]) -> None:
        """Run ``call`` once the models' passes are done (on the thread that finishes the last,
        or here if they are): calling this vector then computes it without waiting."""
        self._when_ready(call)


def query_vector_soon(query: Query, embeddings: Embeddings, max_chars: int) -> QueryVector:
    """The query's vector, started now on the query threads (the models run outside the
    interpreter lock while the caller reads the record): one embedding of a plain query; for a
    dialogue, the mean direction of the whole conversation and of its turns weighted newest
    first (one embedding call). ``max_chars``: characters of a text embedded (a dialogue's whole
    text keeps its newest ones).

    A model that embeds in two halves (``embed_queries_soon``: the blend, whose pass says
    ``when_ready``) runs on those threads only the half that leaves the interpreter lock free,
    and the other on the caller's."""
    texts = _texts(query, max_chars)
    start = getattr(embeddings, "embed_queries_soon", None)
    if start is None:
        running = _query_threads().submit(_embed, query, texts, embeddings)
        return QueryVector(query, running.result, lambda call: running.add_done_callback(lambda _: call()))
    halves = start(texts, _query_threads())
    return QueryVector(query, halves, halves.when_ready, getattr(halves, "cheap", None))


def _texts(query: Query, max_chars: int) -> list[str]:
    if not query.is_dialogue:
        return [query.text[:max_chars]]
    return [query.text[-max_chars:], *(turn[:max_chars] for turn in query.turns)]


def _embed(query: Query, texts: list[str], embeddings: Embeddings) -> list[list[float]]:
    if not query.is_dialogue:
        return [embeddings.embed_query(texts[0])]
    # a model that embeds queries and documents apart (E5) says so with ``embed_queries``
    embed = getattr(embeddings, "embed_queries", embeddings.embed_documents)
    return list(embed(texts))


def _unit(vector: np.ndarray) -> np.ndarray:
    norm = float(np.linalg.norm(vector))
    return vector / norm if norm > 0 else vector


def _combined(query: Query, vectors: list[list[float]]) -> list[float]:
    """A plain query's one vector; a dialogue's whole and newest-first turns, one direction."""
    if not query.is_dialogue:
        return vectors[0]
    matrix = np.asarray(vectors, dtype=np.float64)
    whole, turns = _unit(matrix[0]), matrix[1:]
    weights = OLDER_TURN_WEIGHT ** np.arange(len(turns) - 1, -1, -1, dtype=np.float64)
    norms = np.maximum(np.linalg.norm(turns, axis=1, keepdims=True), 1e-12)
    recent = _unit((weights[:, None] * (turns / norms)).sum(axis=0))
    return [float(x) for x in _unit(whole + recent)]
