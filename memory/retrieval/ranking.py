"""Pure ranking rules of a retrieval: tier penalty and bonuses, one interaction per thing said,
hybrid / quota / weighted selection.

Values in, values out: no store, no clock. The retriever gathers each layer's dense and keyword
rankings, fuses them (:mod:`memory.retrieval.fusion`), then asks this module which memories to
return and with what score.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping, Sequence
from dataclasses import replace

from memory.config import RetrievalMode
from memory.domain.importance import said_key
from memory.domain.types import Layer, RetrievedMemory

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
    """The memories rescored by :func:`adjusted_scores`, best first."""
    scores = adjusted_scores(
        memories,
        [m.score for m in memories],
        cold_weight=cold_weight,
        recency_weight=recency_weight,
        importance_weight=importance_weight,
        rrf_k=rrf_k,
    )
    rescored = (replace(m, score=score) for m, score in zip(memories, scores, strict=True))
    return sorted(rescored, key=lambda m: m.score, reverse=True)


def adjusted_scores(
    memories: Sequence[RetrievedMemory],
    scores: Sequence[float],
    *,
    cold_weight: float,
    recency_weight: float,
    importance_weight: float = 0.0,
    rrf_k: int,
) -> list[float]:
    """Each memory's score (``scores``: before) with the tier penalty and the recency and
    importance bonuses.

    ``score x cold_weight`` for a memory from the cold tier (revived, or to be), plus
    ``recency_weight / (rrf_k + r)`` where ``r`` is its 1-based place among the candidates from
    newest to oldest (of two equally good answers, the newer wins; a persona's static memories
    have no age and get none), plus
    ``importance_weight x importance / (rrf_k + 1)`` (what mattered outranks small talk).
    """
    dated = [m for m in memories if m.entry.layer != Layer.STATIC]  # persona memories are timeless
    newest = sorted(dated, key=lambda m: m.entry.created_at, reverse=True)
    recency = {m.entry.id: rank for rank, m in enumerate(newest, start=1)}

    def score(m: RetrievedMemory, value: float) -> float:
        if m.revived or (m.entry.layer == Layer.ARCHIVED and m.entry.origin is not None):
            value *= cold_weight
        if recency_weight and m.entry.id in recency:
            value += recency_weight / (rrf_k + recency[m.entry.id])
        if importance_weight:
            importance = NEUTRAL_IMPORTANCE if m.entry.importance is None else m.entry.importance
            value += importance_weight * importance / (rrf_k + 1)
        return value

    return [score(m, value) for m, value in zip(memories, scores, strict=True)]


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


_said_key = functools.lru_cache(maxsize=8192)(said_key)


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
    at most its cap, ``limit or top_k`` in all; the ones ``below_floor`` among them leave their
    slots empty (the floor takes noise out, it does not bring in what ranked lower).
    Quota mode: each layer's best ``quota`` by score; slots a layer cannot fill (fewer candidates
    than its quota, e.g. a persona without static memories) go to the best remaining candidates
    of the other layers, so the budget is used; merged, cut to ``limit``.
    Weighted mode: every candidate scored ``similarity x layer weight``, best ``limit or top_k``.
    """
    if mode != RetrievalMode.HYBRID:
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
        return [m for m in chosen if not m.below_floor]
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
