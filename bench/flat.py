"""The flat baseline: one ``langchain_chroma.Chroma`` collection holding every memory text.

What a plain RAG memory would do: no layers, no SQLite, no decay; ``similarity_search(query, k)``
with the engine's embedder. The vectors are copied from the engine's own collections (same
texts, same model), so building the baseline does not embed everything a second time; queries
are embedded by ``similarity_search`` itself, as in the engine. A benchmark tool, not part of the
engine: it talks to Chroma directly on purpose (the engine's only chromadb importer is index/chroma.py).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, cast

from langchain_core.embeddings import Embeddings

from bench import latency_ms

PAGE = 5000


def _hnsw(space: str, ef_search: int, ef_construction: int, max_neighbors: int) -> dict[str, Any]:
    return {
        "space": space,
        "ef_search": ef_search,
        "ef_construction": ef_construction,
        "max_neighbors": max_neighbors,
    }


class FlatBaseline:
    """A single langchain-chroma collection in its own folder.

    Args:
        folder: a persist directory used by nothing else.
        embeddings: the same ``Embeddings`` object the engine uses.
        hnsw: the HNSW settings (``space``, ``ef_search``, ``ef_construction``, ``max_neighbors``);
            the bench passes the engine's so the comparison measures layering, not index tuning.
    """

    def __init__(self, folder: Path, embeddings: Embeddings, hnsw: dict[str, Any]) -> None:
        import chromadb
        from chromadb.config import Settings
        from langchain_chroma import Chroma

        self.folder = folder
        self._client = chromadb.PersistentClient(
            path=str(folder), settings=Settings(anonymized_telemetry=False)
        )
        self.store = Chroma(
            collection_name="flat",
            embedding_function=embeddings,
            client=self._client,
            collection_configuration=cast(Any, {"hnsw": hnsw}),
        )

    def add_vectors(
        self, ids: Sequence[str], texts: Sequence[str], vectors: Sequence[Sequence[float]]
    ) -> None:
        """Add precomputed vectors in pages (the collection's own ``upsert``)."""
        collection: Any = self.store._collection
        for start in range(0, len(ids), PAGE):
            end = start + PAGE
            collection.upsert(
                ids=list(ids[start:end]),
                embeddings=[list(v) for v in vectors[start:end]],
                documents=list(texts[start:end]),
            )

    def copy_from(self, collections: Sequence[Any]) -> tuple[int, float]:
        """Copy every (id, text, vector) of the engine's Chroma collections; ``(count, seconds)``."""
        started = time.perf_counter()
        total = 0
        for source in collections:
            offset = 0
            while True:
                page = source.get(include=["documents", "embeddings"], limit=PAGE, offset=offset)
                ids = page["ids"]
                if not ids:
                    break
                texts = [t or "" for t in page["documents"]]
                self.add_vectors(ids, texts, page["embeddings"])
                total += len(ids)
                offset += len(ids)
        return total, time.perf_counter() - started

    def count(self) -> int:
        """Documents held."""
        return int(self.store._collection.count())

    def close(self) -> None:
        """Release the client so the folder can be removed."""
        from chromadb.api.client import SharedSystemClient  # type: ignore[attr-defined]

        SharedSystemClient.clear_system_cache()


def raw_query_latency(collection: Any, vectors: Sequence[Sequence[float]], k: int) -> dict[str, float]:
    """p50/p95 (ms) of a bare Chroma ``query`` on a collection (no embedding, no SQLite, no
    filter, as the engine queries a scope's collection): where retrieval time goes."""
    durations: list[float] = []
    for vector in vectors:
        started = time.perf_counter()
        collection.query(
            query_embeddings=[list(vector)],
            n_results=k,
            include=["documents", "metadatas", "distances"],
        )
        durations.append(time.perf_counter() - started)
    return latency_ms(durations)


def engine_hnsw(store_config: Any) -> dict[str, Any]:
    """The HNSW settings the engine's collections use (from the ``store`` config section)."""
    return _hnsw(
        "cosine",
        int(store_config.hnsw_ef_search),
        int(store_config.hnsw_ef_construction),
        int(store_config.hnsw_max_neighbors),
    )
