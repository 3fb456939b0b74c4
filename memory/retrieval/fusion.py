"""Fusion of a retrieval's rankings: its candidates pooled across layers, their dense and keyword
rankings fused by relative scores (the default: similarity placed between the candidates' lowest
and highest, plus bm25 over its best) or by reciprocal ranks. The keyword ranking weighs less as
the query's words grow many (a whole dialogue carries many words that do not matter).

Values in, values out: no store, no clock (:mod:`memory.retrieval.candidates` gathers the pool).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from memory.config import RetrievalConfig
from memory.domain.types import RetrievedMemory


@dataclass(frozen=True)
class Pool:
    """The candidates of one retrieval across layers, before fusion."""

    dense: list[RetrievedMemory]
    timed: list[RetrievedMemory]
    hits: list[tuple[str, float]]
    by_id: dict[str, RetrievedMemory]


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


def fused(pool: Pool, config: RetrievalConfig, terms_count: int, *, two_tiers: bool) -> list[Fused]:
    """The pool's dense and keyword rankings fused (score or rank fusion, as configured).

    Args:
        terms_count: the query's words (:func:`keyword_trust`).
        two_tiers: the embedder has two tiers (:func:`keyword_weight`).
    """
    trust = keyword_trust(terms_count, config.keyword_terms)
    weight = keyword_weight(config.keyword_weight, two_tiers=False) * trust
    if config.fusion != "score":
        return fuse(
            [m.entry.id for m in pool.dense],
            [entry_id for entry_id, _ in pool.hits],
            extra_ids=[m.entry.id for m in pool.timed],
            rrf_k=config.rrf_k,
            keyword_weight=weight,
            top_k=len(pool.by_id),
        )
    # a memory still waiting for its full vector keeps the keyword weight of one tier
    enriched = keyword_weight(config.keyword_weight, two_tiers=two_tiers) * trust
    pending = None
    if enriched != weight:
        pending = {i: weight for i, m in pool.by_id.items() if m.entry.provisional}
    return fuse_scores(
        [(m.entry.id, m.similarity) for m in pool.dense],
        pool.hits,
        {entry_id: m.similarity for entry_id, m in pool.by_id.items()},
        keyword_weight=enriched,
        keyword_weights=pending,
        scale=1.0 / (config.rrf_k + 1),
        extra=[m.entry.id for m in pool.timed],
    )
