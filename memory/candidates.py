"""The search step of a retrieval: each layer's candidates, hot and cold, scored and ranked.

Per searchable layer: a dense ranking (Chroma) and, in hybrid mode, a keyword ranking (FTS5),
fused by reciprocal rank. Deep recall: a layer's forgotten (cold) entries keep their vectors and
keyword rows, so the same two rankings cover both tiers, and SQLite says which tier each hit is
in. Newer memories get a small recency bonus, important ones an importance bonus, cold ones an
optional tier penalty (:func:`memory.ranking.adjust`); a cold memory returned is ``revived``.
"""

from __future__ import annotations

from dataclasses import replace

from memory import keyword, ranking
from memory.config import RetrievalConfig, RetrievalMode
from memory.layers.rag import RagLayer, Vector
from memory.model import Layer, RetrievedMemory

DEEP_LAYERS = (Layer.TEMPORARY, Layer.SUMMARY)
"""The layers whose forgotten entries deep recall searches (static memories are never forgotten)."""


def _revived(memory: RetrievedMemory) -> RetrievedMemory:
    """A cold hit as the memory it becomes: back in its origin layer."""
    entry = memory.entry
    if entry.layer != Layer.ARCHIVED or entry.origin is None:
        return memory
    return replace(memory, entry=replace(entry, layer=entry.origin, origin=None), revived=True)


class CandidateSearch:
    """Ranks each layer's candidates for one query.

    Args:
        layers: the searchable layers.
        config: the ``retrieval`` section (mode, quotas, fusion and tier weights, ``deep_recall``).
        keywords: the keyword index (statistics per scope).
    """

    def __init__(
        self, layers: dict[Layer, RagLayer], config: RetrievalConfig, keywords: keyword.KeywordIndex
    ) -> None:
        self.layers = layers
        self.config = config
        self.keywords = keywords

    def rank(
        self, vector: Vector, terms: set[str], user_id: str | None, tick: int, limit: int | None
    ) -> dict[Layer, list[RetrievedMemory]]:
        """Every layer's candidates, best first: at least its depth (quota, or ``top_k``) when
        there are, more when the wider rankings hold more (selection may spill unused slots)."""
        config = self.config
        hybrid = config.mode == RetrievalMode.HYBRID
        found: dict[Layer, list[RetrievedMemory]] = {}
        for layer, rag in self.layers.items():
            depth = ranking.depth_of(config.mode, layer, config.quotas, limit or config.top_k)
            if depth <= 0:
                found[layer] = []
                continue
            wide = depth * config.candidate_multiplier
            deep = config.deep_recall and layer in DEEP_LAYERS
            dense = rag.dense_ranking(vector, wide, user_id, tick)
            if not deep:  # forgotten means out of reach
                dense = [m for m in dense if m.entry.layer != Layer.ARCHIVED]
            if hybrid:
                memories = self._fused(rag, dense, vector, terms, user_id, tick, wide, deep)
            else:
                memories = [replace(m, dense_rank=rank) for rank, m in enumerate(dense, start=1)]
            found[layer] = ranking.adjust(
                [_revived(m) for m in memories if m.similarity >= config.min_similarity],
                cold_weight=config.cold_weight,
                recency_weight=config.recency_weight if hybrid else 0.0,
                importance_weight=config.importance_weight if hybrid else 0.0,
                rrf_k=config.rrf_k,
            )
        return found

    def _fused(
        self,
        rag: RagLayer,
        dense: list[RetrievedMemory],
        vector: Vector,
        terms: set[str],
        user_id: str | None,
        tick: int,
        wide: int,
        deep: bool,
    ) -> list[RetrievedMemory]:
        keywords = rag.keyword_ranking(self.keywords, terms, wide, user_id, with_cold=deep)
        fused = ranking.fuse(
            [m.entry.id for m in dense],
            keywords,
            rrf_k=self.config.rrf_k,
            keyword_weight=self.config.keyword_weight,
            top_k=wide,
        )
        by_id = {m.entry.id: m for m in dense}
        missing = [f.id for f in fused if f.id not in by_id]
        by_id.update({m.entry.id: m for m in rag.memories_for(missing, vector, user_id, tick)})
        return [
            replace(by_id[f.id], score=f.score, dense_rank=f.dense_rank, keyword_rank=f.keyword_rank)
            for f in fused
            if f.id in by_id
        ]
