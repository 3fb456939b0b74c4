"""The search step of a retrieval: each layer's candidates, hot and cold, scored and ranked.

Per searchable layer: a dense ranking (Chroma) and, in hybrid mode, a keyword ranking (FTS5),
fused by reciprocal rank. Deep recall puts the layer's cold tier (its forgotten entries) into the
same rankings: one cold vector search per retrieval, split by origin, and one keyword query per
layer covering both tiers. Cold candidates pay a tier penalty and newer memories get a small
recency bonus (:func:`memory.ranking.adjust`); a cold memory returned is marked ``revived``.
"""

from __future__ import annotations

from dataclasses import replace

from memory import ranking
from memory.config import RetrievalConfig, RetrievalMode
from memory.layers.cold import ColdLayer
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
        layers: the hot searchable layers.
        cold: the cold tier (``None``: deep recall off).
        config: the ``retrieval`` section (mode, quotas, fusion and tier weights).
    """

    def __init__(
        self, layers: dict[Layer, RagLayer], cold: ColdLayer | None, config: RetrievalConfig
    ) -> None:
        self.layers = layers
        self.cold = cold
        self.config = config

    def rank(
        self, vector: Vector, terms: set[str], user_id: str | None, tick: int, limit: int | None
    ) -> dict[Layer, list[RetrievedMemory]]:
        """Every layer's candidates, best first: at least its depth (quota, or ``top_k``) when
        there are, more when the wider rankings hold more (selection may spill unused slots)."""
        config = self.config
        hybrid = config.mode == RetrievalMode.HYBRID
        depths = {
            layer: ranking.depth_of(config.mode, layer, config.quotas, limit or config.top_k)
            for layer in self.layers
        }
        widths = {layer: depth * config.candidate_multiplier for layer, depth in depths.items()}
        deep = [layer for layer in DEEP_LAYERS if layer in self.layers and depths[layer] > 0]
        cold: dict[Layer, list[RetrievedMemory]] = {}
        if self.cold is not None and deep:
            cold = self.cold.by_origin(vector, sum(widths[layer] for layer in deep), user_id, tick)
        found: dict[Layer, list[RetrievedMemory]] = {}
        for layer, rag in self.layers.items():
            depth, wide = depths[layer], widths[layer]
            if depth <= 0:
                found[layer] = []
                continue
            dense = rag.dense_ranking(vector, wide, user_id, tick)
            if cold.get(layer):
                dense = sorted([*dense, *cold[layer]], key=lambda m: m.similarity, reverse=True)[:wide]
            if hybrid:
                memories = self._fused(rag, dense, vector, terms, user_id, tick, wide, layer in deep)
            else:
                memories = [replace(m, dense_rank=rank) for rank, m in enumerate(dense, start=1)]
            memories = ranking.adjust(
                [_revived(m) for m in memories if m.similarity >= config.min_similarity],
                cold_weight=config.cold_weight,
                recency_weight=config.recency_weight if hybrid else 0.0,
                rrf_k=config.rrf_k,
            )
            found[layer] = memories
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
        with_cold = deep and self.cold is not None
        keywords = rag.keyword_ranking(terms, wide, user_id, with_cold=with_cold)
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
        missing = [i for i in missing if i not in by_id]
        if missing and self.cold is not None:
            by_id.update({m.entry.id: m for m in self.cold.memories_for(missing, vector, user_id, tick)})
        return [
            replace(by_id[f.id], score=f.score, dense_rank=f.dense_rank, keyword_rank=f.keyword_rank)
            for f in fused
            if f.id in by_id
        ]
