"""Pure ranking rules of a retrieval: score and reciprocal-rank fusion, hybrid / quota / weighted selection.

Values in, values out: no store, no clock. The retriever gathers each layer's dense and keyword
rankings, then asks this module which memories to return and with what score.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from memory.config import RetrievalMode
from memory.domain.importance import said_in
from memory.domain.types import Layer, RetrievedMemory


@dataclass(frozen=True)
class Fused:
    """One id's place after fusing a dense and a keyword ranking (ranks are 1-based)."""

    id: str
    score: float
    dense_rank: int | None
    keyword_rank: int | None


def fuse(
    dense_ids: Sequence[str],
    keyword_ids: Sequence[str],
    *,
    rrf_k: int,
    keyword_weight: float = 1.0,
    top_k: int,
    extra_ids: Sequence[str] = (),
) -> list[Fused]:
    """Reciprocal-rank fusion, best ``top_k`` first: ``sum(weight / (rrf_k + rank))``.

    The dense ranking weighs 1, and so does ``extra_ids`` (the memories of a time window the
    query names, best match first); ties keep the dense ranking's order, then the keyword one's.
    """
    scores: dict[str, float] = {}
    dense_rank = {entry_id: rank for rank, entry_id in enumerate(dense_ids, start=1)}
    keyword_rank = {entry_id: rank for rank, entry_id in enumerate(keyword_ids, start=1)}
    extra_rank = {entry_id: rank for rank, entry_id in enumerate(extra_ids, start=1)}
    for ranks, weight in ((dense_rank, 1.0), (keyword_rank, keyword_weight), (extra_rank, 1.0)):
        for entry_id, rank in ranks.items():
            scores[entry_id] = scores.get(entry_id, 0.0) + weight / (rrf_k + rank)
    best = sorted(scores, key=lambda i: scores[i], reverse=True)[:top_k]
    return [Fused(i, scores[i], dense_rank.get(i), keyword_rank.get(i)) for i in best]


def fuse_scores(
    dense: Sequence[tuple[str, float]],
    keyword: Sequence[tuple[str, float]],
    similarity: Mapping[str, float],
    *,
    keyword_weight: float,
    scale: float,
    extra: Sequence[str] = (),
    keyword_weights: Mapping[str, float] | None = None,
) -> list[Fused]:
    """Relative-score fusion, best first: ``scale x (d + keyword_weight x k + t)``.

    ``d`` is a candidate's cosine similarity placed between the dense ranking's lowest (0) and
    highest (1), ``k`` its bm25 score over the keyword ranking's best (0 when keywords missed
    it). Unlike reciprocal ranks, a clear winner keeps its lead, and a memory found by keywords
    alone still counts its similarity.

    Args:
        dense: ``(id, similarity)``, best first.
        keyword: ``(id, bm25 score)``, best first.
        similarity: every candidate's similarity (keyword-only ones too).
        extra: the memories of a time window the query names, best match first: ``t`` falls
            from 1 (the first) toward 0 (0 outside the window).
        keyword_weights: the keyword weight of some candidates, in place of ``keyword_weight``.
        scale: puts the scores on the scale of the bonuses :func:`adjust` adds
            (``1 / (rrf_k + 1)``: a memory first in both rankings scores as under RRF).
    """
    # float32 cosines differ in the 7th digit between an exact and an HNSW search of the same vectors
    similarity = {entry_id: round(value, 6) for entry_id, value in similarity.items()}
    values = [round(value, 6) for _, value in dense]
    low, high = (min(values), max(values)) if values else (0.0, 0.0)
    best = max((value for _, value in keyword), default=0.0)
    bm25 = dict(keyword)
    dense_rank = {entry_id: rank for rank, (entry_id, _) in enumerate(dense, start=1)}
    keyword_rank = {entry_id: rank for rank, (entry_id, _) in enumerate(keyword, start=1)}
    timed = {entry_id: 1.0 - n / len(extra) for n, entry_id in enumerate(extra)}

    def score(entry_id: str) -> float:
        d = (similarity.get(entry_id, low) - low) / (high - low) if high > low else 0.0
        k = bm25.get(entry_id, 0.0) / best if best > 0 else 0.0
        w = keyword_weights.get(entry_id, keyword_weight) if keyword_weights else keyword_weight
        return scale * (min(1.0, max(0.0, d)) + w * k + timed.get(entry_id, 0.0))

    ids = list(dict.fromkeys([*dense_rank, *keyword_rank, *timed]))
    scores = {entry_id: score(entry_id) for entry_id in ids}
    ranked = sorted(ids, key=lambda i: scores[i], reverse=True)  # stable: dense order breaks ties
    return [Fused(i, scores[i], dense_rank.get(i), keyword_rank.get(i)) for i in ranked]


TWO_TIER_KEYWORD_WEIGHT = 0.5
"""The keyword weight of a memory with its full vector, under score fusion, when
``keyword_weight`` is unset and the embedder has two tiers: beside the USE + E5 blend, a keyword
match normalised over the best one let everyday words outrank the memory the question asks for.
Chosen on the tune halves: retention facts @1000 88 -> 90 %, MADial R@7 77.0 -> 78.5, LoCoMo
-0.5. A memory ranked by its cheap vector (USE alone, before enrichment) keeps 1.0: there the
keyword side carries more of the recall (MADial tune R@3 57.3 against 54.5 at 0.5)."""


def keyword_weight(configured: float | None, *, two_tiers: bool) -> float:
    """The keyword ranking's weight: as configured, else by the embedder's tiers."""
    if configured is not None:
        return configured
    return TWO_TIER_KEYWORD_WEIGHT if two_tiers else 1.0


def keyword_trust(terms: int, fully_trusted: int) -> float:
    """The keyword ranking's weight for a query of ``terms`` words: 1 up to ``fully_trusted``, then
    ``sqrt(fully_trusted / terms)`` (a query of four times as many words weighs half)."""
    return 1.0 if terms <= fully_trusted else math.sqrt(fully_trusted / terms)


NEUTRAL_IMPORTANCE = 0.5
"""The importance assumed for a memory nobody judged."""


def adjust(
    memories: Sequence[RetrievedMemory],
    *,
    cold_weight: float,
    recency_weight: float,
    importance_weight: float = 0.0,
    rrf_k: int,
) -> list[RetrievedMemory]:
    """Tier penalty, recency and importance bonuses, best first.

    ``score x cold_weight`` for a memory revived from the cold tier, plus
    ``recency_weight / (rrf_k + r)`` where ``r`` is its 1-based place among the candidates from
    newest to oldest (of two equally good answers, the newer wins; a persona's static memories
    have no age and get none), plus
    ``importance_weight x importance / (rrf_k + 1)`` (what mattered outranks small talk).
    """
    dated = [m for m in memories if m.entry.layer != Layer.STATIC]  # persona memories are timeless
    newest = sorted(dated, key=lambda m: m.entry.created_at, reverse=True)
    recency = {m.entry.id: rank for rank, m in enumerate(newest, start=1)}

    def score(m: RetrievedMemory) -> float:
        value = m.score * (cold_weight if m.revived else 1.0)
        if recency_weight and m.entry.id in recency:
            value += recency_weight / (rrf_k + recency[m.entry.id])
        if importance_weight:
            importance = NEUTRAL_IMPORTANCE if m.entry.importance is None else m.entry.importance
            value += importance_weight * importance / (rrf_k + 1)
        return value

    return sorted((replace(m, score=score(m)) for m in memories), key=lambda m: m.score, reverse=True)


def depth_of(
    mode: RetrievalMode, layer: Layer, quotas: Mapping[str, int], caps: Mapping[str, int], top_k: int
) -> int:
    """How many memories a layer may contribute: its quota (quota mode), ``top_k`` (weighted
    mode), ``top_k`` or the layer's cap when lower (hybrid mode)."""
    if mode == RetrievalMode.QUOTA:
        return int(quotas.get(layer.value, 0))
    if mode == RetrievalMode.HYBRID:
        return min(top_k, int(caps.get(layer.value, top_k)))
    return top_k


_NOT_ALNUM = re.compile(r"[\W_]+")
"""What ``str.isalnum`` rejects (``\\w`` is exactly it plus the underscore)."""


def _said_key(rendered: str) -> str:
    """What the user said in an interaction, case folded, letters and digits only."""
    return _NOT_ALNUM.sub("", said_in(rendered).casefold())


def distinct(
    found: Mapping[Layer, Sequence[RetrievedMemory]], shown: Sequence[str] = ()
) -> dict[Layer, list[RetrievedMemory]]:
    """The candidates with one interaction per thing the user said: of the interactions whose
    user turn says the same (letters and digits, case folded), only the best scored stays, and
    none whose user turn is one of ``shown`` (the active window's interactions). A line said
    again and again ("周末你一般做什么呀？") takes one slot, not the whole budget. What was
    remembered or stored on purpose (an entry with a ``source``) is never left out."""
    seen = {key for key in map(_said_key, shown) if key}
    kept: dict[Layer, list[RetrievedMemory]] = {}
    for layer, memories in found.items():
        if layer != Layer.TEMPORARY:
            kept[layer] = list(memories)
            continue
        kept[layer] = []
        for memory in sorted(memories, key=lambda m: m.score, reverse=True):
            key = _said_key(memory.entry.content) if memory.entry.source is None else ""
            if key in seen:
                continue
            if key:
                seen.add(key)
            kept[layer].append(memory)
    return kept


def select(
    mode: RetrievalMode,
    found: Mapping[Layer, Sequence[RetrievedMemory]],
    *,
    quotas: Mapping[str, int],
    caps: Mapping[str, int],
    weights: Mapping[str, float],
    top_k: int,
    limit: int | None,
) -> list[RetrievedMemory]:
    """The memories a retrieval returns, best first; never one ``below_floor``.

    Hybrid mode: the best candidates of any layer by score (comparable across layers), each layer
    at most its cap, ``limit or top_k`` in all; slots nothing relevant fills stay empty.
    Quota mode: each layer's best ``quota`` by score; slots a layer cannot fill (fewer candidates
    than its quota, e.g. a persona without static memories) go to the best remaining candidates
    of the other layers, so the budget is used; merged, cut to ``limit``.
    Weighted mode: every candidate scored ``similarity x layer weight``, best ``limit or top_k``.
    """
    found = {layer: [m for m in memories if not m.below_floor] for layer, memories in found.items()}
    chosen: list[RetrievedMemory] = []
    if mode == RetrievalMode.WEIGHTED:
        for layer, memories in found.items():
            weight = float(weights.get(layer.value, 0.0))
            chosen.extend(replace(m, score=m.similarity * weight) for m in memories)
        chosen.sort(key=lambda m: m.score, reverse=True)
        return chosen[: limit or top_k]
    if mode == RetrievalMode.HYBRID:
        wanted = limit or top_k
        taken: dict[Layer, int] = {}
        for memory in sorted((m for ms in found.values() for m in ms), key=lambda m: m.score, reverse=True):
            layer = memory.entry.layer
            if taken.get(layer, 0) < int(caps.get(layer.value, wanted)):
                chosen.append(memory)
                taken[layer] = taken.get(layer, 0) + 1
                if len(chosen) == wanted:
                    break
        return chosen
    spare: list[RetrievedMemory] = []
    unused = 0
    for layer, memories in found.items():
        quota = int(quotas.get(layer.value, 0))
        ranked = sorted(memories, key=lambda m: m.score, reverse=True)
        chosen.extend(ranked[:quota])
        if quota > 0:
            spare.extend(ranked[quota:])
            unused += max(0, quota - len(ranked))
    if unused:
        chosen.extend(sorted(spare, key=lambda m: m.score, reverse=True)[:unused])
    chosen.sort(key=lambda m: m.score, reverse=True)
    return chosen[:limit] if limit else chosen


def near_misses(
    mode: RetrievalMode,
    found: Mapping[Layer, Sequence[RetrievedMemory]],
    chosen: Sequence[RetrievedMemory],
    *,
    weights: Mapping[str, float],
    count: int,
) -> list[RetrievedMemory]:
    """The best ``count`` candidates a selection left out, best first: what almost made the cut
    (scored as :func:`select` scores, ``similarity x layer weight`` in weighted mode)."""
    taken = {m.entry.id for m in chosen}
    left = [m for memories in found.values() for m in memories if m.entry.id not in taken]
    if mode == RetrievalMode.WEIGHTED:
        left = [replace(m, score=m.similarity * float(weights.get(m.entry.layer.value, 0.0))) for m in left]
    return sorted(left, key=lambda m: m.score, reverse=True)[:count]


def place(memory: RetrievedMemory) -> float:
    """A memory's best place in the dense and keyword rankings (infinite: in neither)."""
    return min((r for r in (memory.dense_rank, memory.keyword_rank) if r is not None), default=math.inf)
