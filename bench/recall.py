"""Recall scoring and the flat baselines the quality and retention benchmarks share.

A flat baseline is what a plain RAG memory would do: every interaction kept, no layers, no decay;
the top k texts by exact cosine (the engine's embedder), by BM25, or by their reciprocal-rank
fusion. Dev-only dependency: ``rank_bm25``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
from langchain_core.embeddings import Embeddings

Ranking = list[int]
"""Indices into the indexed texts, best first."""
Tokenize = Callable[[str], list[str]]

_WORD = re.compile(r"\w+")


@dataclass
class Score:
    """Evidence recall of one retriever at one budget, per category."""

    recall: dict[int, list[float]] = field(default_factory=dict)
    complete: dict[int, list[bool]] = field(default_factory=dict)
    held: int = 0
    units: int = 0
    summaries: int = 0
    shown: list[int] = field(default_factory=list)
    slots: dict[str, list[float]] = field(default_factory=dict)
    """Memory slots filled per probe query, by probe set (the relevance floor's measure)."""
    summaries_shown: int = 0
    summaries_with_evidence: int = 0

    def add(self, category: int, recall: float, complete: bool) -> None:
        self.recall.setdefault(category, []).append(recall)
        self.complete.setdefault(category, []).append(complete)

    def mean(self, category: int | None = None) -> float:
        values = [v for c, vs in self.recall.items() if category in (None, c) for v in vs]
        return 100.0 * sum(values) / len(values) if values else 0.0

    def all_found(self) -> float:
        values = [v for vs in self.complete.values() for v in vs]
        return 100.0 * sum(values) / len(values) if values else 0.0

    def mean_shown(self) -> float:
        return sum(self.shown) / len(self.shown) if self.shown else 0.0


def merge(scores: Sequence[Score]) -> Score:
    """One score over several conversations."""
    total = Score()
    for score in scores:
        for category, values in score.recall.items():
            total.recall.setdefault(category, []).extend(values)
            total.complete.setdefault(category, []).extend(score.complete[category])
        total.held += score.held
        total.units += score.units
        total.summaries += score.summaries
        total.shown.extend(score.shown)
        for name, values in score.slots.items():
            total.slots.setdefault(name, []).extend(values)
        total.summaries_shown += score.summaries_shown
        total.summaries_with_evidence += score.summaries_with_evidence
    return total


def word_tokens(text: str) -> list[str]:
    """Lower-cased ``\\w+`` runs (English; a Chinese sentence is one token)."""
    return _WORD.findall(text.lower())


def jieba_tokens(text: str) -> list[str]:
    """Lower-cased jieba search-mode words (Chinese and English), punctuation dropped."""
    import jieba

    return [w for w in jieba.lcut_for_search(text.lower()) if _WORD.search(w)]


def bm25_rankings(
    texts: Sequence[str], queries: Sequence[str], tokenize: Tokenize = word_tokens
) -> list[Ranking]:
    """Per query, the texts ranked by BM25 (``rank_bm25.BM25Okapi``)."""
    from rank_bm25 import BM25Okapi

    bm25 = BM25Okapi([tokenize(t) or ["∅"] for t in texts])
    return [[int(i) for i in np.argsort(-bm25.get_scores(tokenize(q)), kind="stable")] for q in queries]


def dense_rankings(
    texts: Sequence[str], queries: Sequence[str], model: Embeddings, vectors: np.ndarray | None = None
) -> list[Ranking]:
    """Per query, the texts ranked by exact cosine similarity (``vectors`` when precomputed)."""
    units = np.asarray(model.embed_documents(list(texts))) if vectors is None else vectors
    units = units / np.linalg.norm(units, axis=1, keepdims=True)
    rankings = []
    for query in queries:
        vector = np.asarray(model.embed_query(query))
        rankings.append([int(i) for i in np.argsort(-(units @ vector), kind="stable")])
    return rankings


def rrf(*rankings: Ranking, k: int = 60) -> Ranking:
    """Reciprocal-rank fusion of rankings."""
    scores: dict[int, float] = {}
    for ranking in rankings:
        for rank, index in enumerate(ranking, start=1):
            scores[index] = scores.get(index, 0.0) + 1.0 / (k + rank)
    return sorted(scores, key=lambda i: -scores[i])


def share(part: int, whole: int) -> str:
    """``part`` of ``whole`` as printed in the benches' tables: "75% (3/4)", or "-" of nothing."""
    return f"{100.0 * part / whole:.0f}% ({part}/{whole})" if whole else "-"
