"""The search step of a retrieval: every layer's candidates, hot and cold, scored and ranked.

Hybrid mode (the default) ranks across layers: each layer's dense hits (Chroma) join one ranking
by cosine similarity (one embedder, so comparable), its keyword hits (FTS5 bm25) one keyword
ranking, and the two are fused (:mod:`memory.retrieval.fusion`). A summary and a chat memory then
compete for a slot on the same score. Quota and weighted modes rank each layer on its own by
similarity.

Deep recall: a layer's forgotten (cold) entries keep their vectors and keyword rows, so the same
rankings cover both tiers, and SQLite says which tier each hit is in. Newer memories get a small
recency bonus, important ones an importance bonus, cold ones an optional tier penalty
(:func:`memory.retrieval.ranking.adjusted_scores`); a cold memory returned is ``revived``. Every
candidate is marked ``below_floor`` when it matches no better than small talk
(:mod:`memory.retrieval.relevance`). A time the query names, or a slot of the user's life it asks
about, raises the memories it points at above the rest (:mod:`memory.retrieval.raised`).
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

from memory.config import RetrievalConfig, RetrievalMode
from memory.domain.types import DECAYING_LAYERS, Layer, RetrievedMemory
from memory.domain.when import Window
from memory.index.early import QuerySoon
from memory.index.vector import Vector
from memory.layers.rag import Early, Fetched, RagLayer
from memory.record import keyword
from memory.retrieval import ranking
from memory.retrieval.fusion import Pool, fused
from memory.retrieval.raised import Asked, dated, said_later
from memory.retrieval.relevance import Bar, floored

KeywordHits = dict[Layer, tuple[list[tuple[str, float]], Fetched]]
"""Per layer: a query's keyword ranking (``(entry id, bm25 score)``, best first), its hits read."""
Started = dict[Layer, Early]
"""Per layer: its search of the user's collections, started before the query's vector is known."""
NOTHING = Fetched([], {}, set())
DEEP_LAYERS = DECAYING_LAYERS
"""The layers whose forgotten entries deep recall searches (static memories are never forgotten)."""


def _revived(memory: RetrievedMemory, **changes: Any) -> RetrievedMemory:
    """``memory`` with ``changes``, in one copy; a cold hit also back in its origin layer (revived)."""
    entry = memory.entry
    if entry.layer == Layer.ARCHIVED and entry.origin is not None:
        changes.update(entry=replace(entry, layer=entry.origin, origin=None), revived=True)
    return replace(memory, **changes) if changes else memory


class CandidateSearch:
    """Ranks the candidates of every layer for one query.

    Args:
        layers: the searchable layers.
        config: the ``retrieval`` section (mode, caps, quotas, fusion and tier weights, ``deep_recall``).
        keywords: the keyword index (statistics per scope).
        two_tiers: the embedder has two tiers (:func:`memory.retrieval.fusion.keyword_weight`).
    """

    def __init__(
        self,
        layers: dict[Layer, RagLayer],
        config: RetrievalConfig,
        keywords: keyword.KeywordIndex,
        *,
        two_tiers: bool = False,
    ) -> None:
        self.layers = layers
        self.config = config
        self.keywords = keywords
        self.two_tiers = two_tiers

    def rank(
        self,
        vector: Vector,
        terms: set[str],
        user_id: str | None,
        tick: int,
        limit: int | None,
        bar: Bar | None = None,
        *,
        bridged: set[str] | None = None,
        window: Window | None = None,
        keyword_hits: KeywordHits | None = None,
        asked: Asked | None = None,
        early: Started | None = None,
    ) -> dict[Layer, list[RetrievedMemory]]:
        """Every layer's candidates, best first, more than selection needs (it may skip some).

        Args:
            bar: the relevance floor's similarity for this query (``None``: no floor).
            bridged: the query's words in the other language (:mod:`memory.retrieval.bridge`), matched
                beside ``terms`` without counting as more query words.
            window: the time the query names (:mod:`memory.domain.when`): that window's memories,
                best match first, are one more ranking (hybrid mode).
            keyword_hits: :meth:`keyword_hits` of the same query, found while its vector was
                being computed (else searched here).
            asked: the slot the query asks about (:mod:`memory.retrieval.raised`): the newest
                statement about it made after its profile fact comes first (hybrid mode).
            early: :meth:`search_soon` of the same query.
        """
        if self.config.mode == RetrievalMode.HYBRID:
            if keyword_hits is None:
                keyword_hits = self.keyword_hits(terms, bridged or set(), user_id, limit, {})
            return self._across_layers(
                vector, keyword_hits, len(terms), user_id, tick, limit, bar, window=window, asked=asked,
                early=early or {},
            )  # fmt: skip
        return self._per_layer(vector, user_id, tick, limit, bar)

    def keyword_hits(
        self, terms: set[str], bridged: set[str], user_id: str | None, limit: int | None, then: Started
    ) -> KeywordHits:
        """Each layer's keyword ranking for a hybrid retrieval (needs no query vector), then the
        cheap searches of :meth:`search_soon` (``then``), before the retrieval waits for E5."""
        if self.config.mode != RetrievalMode.HYBRID:
            return {}
        found: KeywordHits = {}
        for layer, rag in self.layers.items():
            depth = self._depth(layer, limit)
            if depth > 0:
                wide = depth * self.config.candidate_multiplier
                hits = rag.keyword_ranking(
                    self.keywords, terms, wide, user_id, with_cold=self._deep(layer), extra=bridged
                )
                found[layer] = (hits, rag.fetch([entry_id for entry_id, _ in hits], user_id))
        for started in then.values():
            started.index.search_cheap()
        return found

    def search_soon(self, query: QuerySoon, user_id: str | None, limit: int | None) -> Started:
        """Start each layer's search of the user's collections, where the user has their own,
        while the ``query``'s vector is computed (hybrid mode; other searches come with the rest)."""
        if self.config.mode != RetrievalMode.HYBRID:
            return {}
        multiplier = self.config.candidate_multiplier
        started = {
            layer: rag.search_soon(query, self._depth(layer, limit) * multiplier, user_id)
            for layer, rag in self.layers.items()
        }
        return {layer: search for layer, search in started.items() if search is not None}

    def _depth(self, layer: Layer, limit: int | None) -> int:
        config = self.config
        # a smaller limit searches as deep as the configured slots: its first is their first
        return ranking.depth_of(config.mode, layer, config.quotas, config.caps, max(limit or 0, config.top_k))

    def _dense(
        self,
        rag: RagLayer,
        vector: Vector,
        wide: int,
        user_id: str | None,
        tick: int,
        read: Fetched | None = None,
        early: Early | None = None,
    ) -> list[RetrievedMemory]:
        dense = rag.dense_ranking(vector, wide, user_id, tick, read=read, early=early)
        if not self._deep(rag.layer):  # forgotten means out of reach
            dense = [m for m in dense if m.entry.layer != Layer.ARCHIVED]
        return dense

    def _deep(self, layer: Layer) -> bool:
        return self.config.deep_recall and layer in DEEP_LAYERS

    def _adjusted(self, memories: list[RetrievedMemory]) -> list[RetrievedMemory]:
        """Revived where cold, above ``min_similarity``, the cold tier's penalty applied
        (:func:`memory.retrieval.ranking.adjust`, no bonuses)."""
        config = self.config
        return ranking.adjust(
            [_revived(m) for m in memories if m.similarity >= config.min_similarity],
            cold_weight=config.cold_weight,
            recency_weight=0.0,
            rrf_k=config.rrf_k,
        )

    def _per_layer(
        self, vector: Vector, user_id: str | None, tick: int, limit: int | None, bar: Bar | None
    ) -> dict[Layer, list[RetrievedMemory]]:
        config = self.config
        found: dict[Layer, list[RetrievedMemory]] = {}
        for layer, rag in self.layers.items():
            depth = self._depth(layer, limit)
            wide = depth * config.candidate_multiplier
            dense = self._dense(rag, vector, wide, user_id, tick) if depth > 0 else []
            memories = [replace(m, dense_rank=rank) for rank, m in enumerate(dense, start=1)]
            found[layer] = [floored(m, bar) for m in self._adjusted(memories)]
        return found

    def _across_layers(
        self,
        vector: Vector,
        keyword_hits: KeywordHits,
        terms_count: int,
        user_id: str | None,
        tick: int,
        limit: int | None,
        bar: Bar | None,
        *,
        window: Window | None,
        asked: Asked | None,
        early: Started,
    ) -> dict[Layer, list[RetrievedMemory]]:
        pool = self._pool(vector, keyword_hits, window, user_id, tick, limit, early)
        config = self.config
        ranked = fused(pool, config, terms_count, two_tiers=self.two_tiers)
        kept = [(pool.by_id[f.id], f) for f in ranked if pool.by_id[f.id].similarity >= config.min_similarity]
        scores = ranking.adjusted_scores(
            [m for m, _ in kept],
            [f.score for _, f in kept],
            cold_weight=config.cold_weight,
            recency_weight=config.recency_weight,
            importance_weight=config.importance_weight,
            rrf_k=config.rrf_k,
        )
        adjusted = sorted(
            (
                _revived(m, score=score, dense_rank=f.dense_rank, keyword_rank=f.keyword_rank)
                for (m, f), score in zip(kept, scores, strict=True)
            ),
            key=lambda m: m.score,
            reverse=True,
        )
        if window is not None:  # the question names a time: what happened then comes first
            adjusted = dated(adjusted, window)
        later = self._said_later(asked, vector, user_id, tick) if asked is not None else None
        if later is not None:  # the slot asked about was spoken of since its profile fact was set
            adjusted = said_later(adjusted, later)
        found: dict[Layer, list[RetrievedMemory]] = {layer: [] for layer in self.layers}
        for memory in adjusted:
            vouched = later is not None and memory.entry.id == later.entry.id
            answer = replace(memory, answers=asked.slot) if vouched and asked is not None else memory
            found.setdefault(memory.entry.layer, []).append(floored(answer, None if vouched else bar))
        return found

    def _said_later(
        self, asked: Asked, vector: Vector, user_id: str | None, tick: int
    ) -> RetrievedMemory | None:
        """The user's newest statement likely about the slot asked, made after its profile fact."""
        rag = self.layers.get(Layer.TEMPORARY)
        found = rag.said_later(asked.slot, asked.since, vector, user_id, tick) if rag is not None else []
        found = [m for m in found if self._deep(Layer.TEMPORARY) or m.entry.layer != Layer.ARCHIVED]
        return _revived(found[0]) if found else None

    def _pool(
        self,
        vector: Vector,
        keyword_hits: KeywordHits,
        window: Window | None,
        user_id: str | None,
        tick: int,
        limit: int | None,
        early: Started,
    ) -> Pool:
        """Every layer's dense candidates, keyword hits and memories of a named time, in one pool."""
        config = self.config
        dense: list[RetrievedMemory] = []
        timed: list[RetrievedMemory] = []
        hits: list[tuple[str, float]] = []
        home: dict[str, RagLayer] = {}
        fetched: dict[int, Fetched] = {}
        for layer, rag in self.layers.items():
            depth = self._depth(layer, limit)
            if depth <= 0:
                continue
            wide = depth * config.candidate_multiplier
            layer_hits, fetched[id(rag)] = keyword_hits.get(layer, ([], NOTHING))
            layer_dense = self._dense(rag, vector, wide, user_id, tick, fetched[id(rag)], early.get(layer))
            if window is not None and layer in DEEP_LAYERS:
                timed.extend(rag.window_ranking(vector, window, wide, user_id, tick))
            dense.extend(layer_dense)
            hits.extend(layer_hits)
            home.update({m.entry.id: rag for m in layer_dense})
            home.update({entry_id: rag for entry_id, _ in layer_hits})
        # a tie (the same words twice) breaks by text, then id: never by the index's layout
        dense.sort(key=lambda m: (-round(m.similarity, 6), m.entry.content, m.entry.id))
        hits.sort(key=lambda hit: (-round(hit[1], 6), hit[0]))
        timed.sort(key=lambda m: (-round(m.similarity, 6), m.entry.content, m.entry.id))
        by_id = {m.entry.id: m for m in timed} | {m.entry.id: m for m in dense}
        missing: dict[int, tuple[RagLayer, list[str]]] = {}
        for entry_id, _ in hits:
            if entry_id not in by_id:
                missing.setdefault(id(home[entry_id]), (home[entry_id], []))[1].append(entry_id)
        for rag, ids in missing.values():
            read = rag.memories_for(ids, vector, user_id, tick, fetched=fetched.get(id(rag)))
            by_id.update({m.entry.id: m for m in read})
        hits = [hit for hit in hits if hit[0] in by_id]  # what SQLite holds live
        # a keyword hit's similarity is known (from its stored vector): one as similar as the
        # dense hits was missed by the approximate search, and takes its place in the ranking
        lowest = min((m.similarity for m in dense), default=math.inf)
        found_dense = {m.entry.id for m in dense}
        dense = sorted(
            (m for i, m in by_id.items() if i in found_dense or m.similarity >= lowest),
            key=lambda m: (-round(m.similarity, 6), m.entry.content, m.entry.id),
        )
        return Pool(dense, timed, hits, by_id)
