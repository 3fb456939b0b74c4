"""MemoryRetriever: answers a query across layers (quota, weighted or hybrid) for prompts and LCEL.

The retriever reads layers; it never writes a store. What a retrieval returned is handed to the
``on_retrieved`` callback (the manager's decay tick). Failures degrade: the store or the embedder
failing gives empty RAG text and one logged warning per outage, never an exception.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from langchain_core.callbacks import CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.embeddings import Embeddings
from langchain_core.retrievers import BaseRetriever
from langchain_core.runnables import Runnable, RunnableLambda

from memory import keyword
from memory.config import RetrievalConfig, RetrievalMode
from memory.errors import StoreUnavailableError
from memory.formatter import format_active_memories, format_retrieved_memories
from memory.layers.active import ActiveLayer
from memory.layers.base import Layer, MemoryEntry, RetrievedMemory
from memory.layers.rag import Candidate, RagLayer
from memory.validation import check_top_k, check_user_id, clean_text

logger = logging.getLogger(__name__)

RetrievedHandler = Callable[[str | None, Sequence[RetrievedMemory]], object]


@dataclass(frozen=True)
class RetrievalResult:
    """Everything one retrieval produced."""

    active: list[MemoryEntry]
    memories: list[RetrievedMemory]
    active_text: str
    rag_text: str
    degraded: bool = False


class MemoryRetriever:
    """Cross-layer retrieval.

    Args:
        active: the active layer (its window is always returned whole).
        layers: the searchable layers by :class:`Layer`.
        config: the ``retrieval`` section.
        embeddings: the model that embeds the query (once per retrieval).
        on_retrieved: called with the user id and the returned memories (the decay tick).
        before_search: called first (the manager flushes pending index writes there).
        locale: language of the prompt text.
        now: the clock used for relative times.
        max_text_chars: the longest query accepted.
    """

    def __init__(
        self,
        active: ActiveLayer,
        layers: dict[Layer, RagLayer],
        config: RetrievalConfig,
        embeddings: Embeddings,
        *,
        on_retrieved: RetrievedHandler,
        before_search: Callable[[], object] = lambda: None,
        locale: str,
        now: Callable[[], datetime],
        max_text_chars: int,
    ) -> None:
        self.active = active
        self.layers = layers
        self.config = config
        self.embeddings = embeddings
        self.on_retrieved = on_retrieved
        self.before_search = before_search
        self.locale = locale
        self.now = now
        self.max_text_chars = max_text_chars
        self._degraded = False
        self._common_terms = keyword.CommonTerms(active.db.query, config.keyword_max_df)

    def retrieve(self, query: str, *, user_id: str | None = None) -> tuple[str, str]:
        """``(active_text, rag_text)`` for a query; both empty strings on an empty store."""
        result = self.retrieve_memories(query, user_id=user_id)
        return result.active_text, result.rag_text

    def retrieve_memories(
        self, query: str, *, user_id: str | None = None, top_k: int | None = None
    ) -> RetrievalResult:
        """The full retrieval: active window, scored memories and their prompt texts.

        Raises:
            InputTypeError, InvalidInputError: bad ``query``, ``user_id`` or ``top_k``.
        """
        query = clean_text("query", query, self.max_text_chars)
        user_id = check_user_id(user_id)
        limit = None if top_k is None else check_top_k(top_k)
        now = self.now()
        try:
            active = self.active.entries(user_id)
        except Exception as exc:
            logger.warning("active layer unreadable (%s); retrieving without it", exc)
            active = []
        memories, degraded = self._search(query, user_id, limit)
        if not degraded:
            try:
                self.on_retrieved(user_id, memories)
            except Exception as exc:
                logger.warning("decay tick failed (%s); the retrieval is still served", exc)
        return RetrievalResult(
            active=active,
            memories=memories,
            active_text=format_active_memories(active, now, self.locale),
            rag_text=format_retrieved_memories(memories, now, self.locale),
            degraded=degraded,
        )

    def _search(
        self, query: str, user_id: str | None, limit: int | None
    ) -> tuple[list[RetrievedMemory], bool]:
        try:
            self.before_search()
            vector = self.embeddings.embed_query(query)
            candidates = self._candidates(query, vector, user_id, limit)
        except StoreUnavailableError as exc:
            logger.debug("retrieval degraded: %s", exc)
            return [], True
        except Exception as exc:
            if not self._degraded:
                logger.warning(
                    "retrieval failed (%s: %s); returning no RAG memories", type(exc).__name__, exc
                )
            self._degraded = True
            return [], True
        self._degraded = False
        floor = self.config.min_similarity
        for layer, found in candidates.items():
            candidates[layer] = [c for c in found if c.similarity >= floor]
        return self._select(candidates, limit), False

    def _candidates(
        self, query: str, vector: list[float], user_id: str | None, limit: int | None
    ) -> dict[Layer, list[Candidate]]:
        if self.config.mode != RetrievalMode.HYBRID:
            return {
                layer: rag.search(vector, self._depth(layer, limit), user_id)
                for layer, rag in self.layers.items()
            }
        terms = keyword.query_terms(query, self.config.keyword_tokenizer)
        expression = keyword.expression_of(self._common_terms.filter(terms))
        found: dict[Layer, list[Candidate]] = {}
        for layer, rag in self.layers.items():
            depth = self._depth(layer, limit)
            found[layer] = rag.hybrid_search(
                vector,
                expression,
                depth,
                user_id,
                rrf_k=self.config.rrf_k,
                keyword_weight=self.config.keyword_weight,
                depth=max(depth * self.config.candidate_multiplier, depth),
            )
        return found

    def _depth(self, layer: Layer, limit: int | None) -> int:
        if self.config.mode == RetrievalMode.WEIGHTED:
            return limit or self.config.top_k
        return int(self.config.quotas.get(layer.value, 0))

    def _select(self, candidates: dict[Layer, list[Candidate]], limit: int | None) -> list[RetrievedMemory]:
        chosen: list[RetrievedMemory] = []
        if self.config.mode in (RetrievalMode.QUOTA, RetrievalMode.HYBRID):
            hybrid = self.config.mode == RetrievalMode.HYBRID
            for layer, found in candidates.items():
                quota = int(self.config.quotas.get(layer.value, 0))
                ranked = sorted(found, key=lambda c: c.fused if hybrid else c.similarity, reverse=True)
                chosen.extend(_retrieved(c, c.fused if hybrid else c.similarity) for c in ranked[:quota])
            chosen.sort(key=lambda m: m.score, reverse=True)
            return chosen[:limit] if limit else chosen
        for layer, found in candidates.items():
            weight = float(self.config.weights.get(layer.value, 0.0))
            chosen.extend(_retrieved(c, c.similarity * weight) for c in found)
        chosen.sort(key=lambda m: m.score, reverse=True)
        return chosen[: limit or self.config.top_k]

    def as_runnable(self) -> Runnable[Any, dict[str, str]]:
        """An LCEL Runnable: ``str`` or ``{"query": str, "user_id"?: str}`` to
        ``{"active": str, "rag": str}``."""

        def run(payload: Any) -> dict[str, str]:
            if isinstance(payload, dict):
                query, user_id = payload.get("query"), payload.get("user_id")
            else:
                query, user_id = payload, None
            active_text, rag_text = self.retrieve(query, user_id=user_id)  # type: ignore[arg-type]
            return {"active": active_text, "rag": rag_text}

        return RunnableLambda(run, name="persona_memory")

    def as_langchain_retriever(self, *, user_id: str | None = None) -> BaseRetriever:
        """A ``BaseRetriever`` whose Documents carry layer, significance, timestamp and score."""
        return MemoryDocumentRetriever(memory=self, user_id=check_user_id(user_id))


def _retrieved(candidate: Candidate, score: float) -> RetrievedMemory:
    return RetrievedMemory(
        entry=candidate.entry,
        score=score,
        similarity=candidate.similarity,
        significance=candidate.significance,
    )


def to_document(memory: RetrievedMemory) -> Document:
    """A LangChain Document of a retrieved memory."""
    entry = memory.entry
    return Document(
        page_content=entry.display_text,
        id=entry.id,
        metadata={
            "id": entry.id,
            "layer": entry.layer.value,
            "significance": memory.significance,
            "timestamp": entry.created_at.isoformat(),
            "score": memory.score,
            "similarity": memory.similarity,
            "user_id": entry.user_id,
        },
    )


class MemoryDocumentRetriever(BaseRetriever):
    """LangChain retriever over a :class:`MemoryRetriever` (RAG layers; one decay tick a call)."""

    memory: Any
    user_id: str | None = None

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun
    ) -> list[Document]:
        result = self.memory.retrieve_memories(query, user_id=self.user_id)
        return [to_document(m) for m in result.memories]
