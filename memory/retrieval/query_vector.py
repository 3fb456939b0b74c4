"""A query's vector: one embedding of a plain query; for a dialogue, the whole conversation and
its turns, the newest counting most (:mod:`memory.domain.dialogue` says what a query is)."""

from __future__ import annotations

import threading
from concurrent.futures import Future, ThreadPoolExecutor

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


def query_vector_soon(query: Query, embeddings: Embeddings, max_chars: int) -> Future[list[float]]:
    """:func:`query_vector` computed on the query threads (the models run outside the
    interpreter lock while the caller reads the record)."""
    return _query_threads().submit(query_vector, query, embeddings, max_chars)


def _unit(vector: np.ndarray) -> np.ndarray:
    norm = float(np.linalg.norm(vector))
    return vector / norm if norm > 0 else vector


def query_vector(query: Query, embeddings: Embeddings, max_chars: int) -> list[float]:
    """The query's vector: one embedding of a plain query; for a dialogue, the mean direction of
    the whole conversation and of its turns weighted newest first (one embedding call).

    Args:
        max_chars: characters of a text embedded (a dialogue's whole text keeps its newest ones).
    """
    if not query.is_dialogue:
        return embeddings.embed_query(query.text[:max_chars])
    texts = [query.text[-max_chars:], *(turn[:max_chars] for turn in query.turns)]
    # a model that embeds queries and documents apart (E5) says so with ``embed_queries``
    embed = getattr(embeddings, "embed_queries", embeddings.embed_documents)
    vectors = np.asarray(embed(texts), dtype=np.float64)
    whole, turns = _unit(vectors[0]), vectors[1:]
    weights = OLDER_TURN_WEIGHT ** np.arange(len(turns) - 1, -1, -1, dtype=np.float64)
    norms = np.maximum(np.linalg.norm(turns, axis=1, keepdims=True), 1e-12)
    recent = _unit((weights[:, None] * (turns / norms)).sum(axis=0))
    return [float(x) for x in _unit(whole + recent)]
