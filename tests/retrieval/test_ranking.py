"""Ranking rules the inspector relies on: the near misses of a selection."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

from hypothesis import given
from hypothesis import strategies as st

from memory import Layer, MemoryEntry, RetrievalMode, RetrievedMemory
from memory.retrieval.fusion import fuse_scores
from memory.retrieval.ranking import near_misses, select

QUOTAS = {"temporary": 3, "summary": 2, "static": 2}
WEIGHTS = {"temporary": 0.8, "summary": 0.9, "static": 1.0}
LAYERS = (Layer.TEMPORARY, Layer.SUMMARY, Layer.STATIC)


def _found(scores: list[tuple[int, float, float]]) -> dict[Layer, list[RetrievedMemory]]:
    found: dict[Layer, list[RetrievedMemory]] = {layer: [] for layer in LAYERS}
    for number, (layer, score, similarity) in enumerate(scores):
        entry = MemoryEntry(f"m{number}", LAYERS[layer], f"记忆 {number}", datetime(2026, 11, 1, tzinfo=UTC))
        found[entry.layer].append(RetrievedMemory(entry, score, similarity, 0.5))
    return found


candidates = st.lists(st.tuples(st.integers(0, 2), st.floats(0, 1), st.floats(-1, 1)), max_size=25)


@given(candidates, st.sampled_from(list(RetrievalMode)), st.integers(0, 5))
def test_near_misses_are_the_best_left_out_never_a_returned_one(scores, mode, count) -> None:
    found = _found(scores)
    chosen = select(mode, found, quotas=QUOTAS, caps=QUOTAS, weights=WEIGHTS, top_k=6, limit=None)
    misses = near_misses(mode, found, chosen, weights=WEIGHTS, count=count)
    chosen_ids = {m.entry.id for m in chosen}
    assert not chosen_ids & {m.entry.id for m in misses}
    assert len(misses) == min(count, len(scores) - len(chosen))
    assert [m.score for m in misses] == sorted((m.score for m in misses), reverse=True)
    left = [m for ms in found.values() for m in ms if m.entry.id not in chosen_ids]
    if mode == RetrievalMode.WEIGHTED:  # scored like the selection: similarity x layer weight
        best = sorted((m.similarity * WEIGHTS[m.entry.layer.value] for m in left), reverse=True)
        assert [m.score for m in misses] == best[:count]
        assert all(m.score <= min(c.score for c in chosen) for m in misses)
    else:
        assert [m.score for m in misses] == sorted((m.score for m in left), reverse=True)[:count]


@given(candidates, st.sets(st.integers(0, 24)))
def test_the_floor_empties_slots_and_brings_in_nothing_ranked_lower(scores, below) -> None:
    """Small talk ranked first leaves its slot empty: no memory the ranking put below it comes in."""
    found = _found(scores)
    floored = {
        layer: [replace(m, below_floor=int(m.entry.id[1:]) in below) for m in memories]
        for layer, memories in found.items()
    }
    pick = {"quotas": QUOTAS, "caps": QUOTAS, "weights": WEIGHTS, "top_k": 6, "limit": None}
    everything = select(RetrievalMode.HYBRID, found, **pick)
    chosen = select(RetrievalMode.HYBRID, floored, **pick)
    kept = [m.entry.id for m in everything if int(m.entry.id[1:]) not in below]
    assert [m.entry.id for m in chosen] == kept


hits = st.dictionaries(st.sampled_from([f"m{i}" for i in range(12)]), st.floats(0, 20), max_size=12)


@given(
    st.dictionaries(st.sampled_from([f"m{i}" for i in range(12)]), st.floats(-1, 1), min_size=1, max_size=12),
    hits,
    st.floats(0, 2),
)
def test_score_fusion_keeps_every_candidate_once_best_first_within_its_scale(
    similarity, bm25, weight
) -> None:
    dense = sorted(similarity.items(), key=lambda item: item[1], reverse=True)
    keyword = sorted(
        ((i, s) for i, s in bm25.items() if i in similarity), key=lambda item: item[1], reverse=True
    )
    fused = fuse_scores(dense, keyword, similarity, keyword_weight=weight, scale=1 / 61)
    assert sorted(f.id for f in fused) == sorted(similarity)
    assert [f.score for f in fused] == sorted((f.score for f in fused), reverse=True)
    assert all(0 <= f.score <= (1 + weight) / 61 + 1e-12 for f in fused)
    top = dense[0][0]
    if not keyword or keyword[0][0] == top:  # first in every ranking it is in: first overall
        assert fused[0].score == max(f.score for f in fused) and any(
            f.id == top and f.score == fused[0].score for f in fused
        )


def test_the_keyword_weight_follows_the_embedder_unless_set(make_manager) -> None:
    """Beside the two-tier blend the keyword ranking weighs half; with one embedder, or when the
    user sets it, as set (a memory first by meaning then beats one that shares an everyday word
    with the question and nothing else)."""
    from memory.retrieval.fusion import TWO_TIER_KEYWORD_WEIGHT, keyword_weight

    assert keyword_weight(None, two_tiers=True) == TWO_TIER_KEYWORD_WEIGHT == 0.5
    assert keyword_weight(None, two_tiers=False) == 1.0
    assert keyword_weight(0.8, two_tiers=True) == 0.8
    dense = [("meaning", 0.9), ("word", 0.55), ("other", 0.3)]
    fused = fuse_scores(dense, [("word", 3.0)], dict(dense), keyword_weight=0.5, scale=1 / 61)
    assert [f.id for f in fused] == ["meaning", "word", "other"]
    assert make_manager().retriever.core.search.two_tiers  # the default embedder: USE + E5
