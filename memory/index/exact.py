"""Exact cosine ranking of vectors held in memory (a pooled scope's, a shared layer's, a
summary's sentences), and the merging of two collections' hits."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from memory.index.vector import Vector
from memory.index.vectors import StoreHit


def best_hits(hits: Sequence[StoreHit], depth: int) -> list[StoreHit]:
    """The ``depth`` best hits, each id once (its first hit: a full vector's, listed first)."""
    best: dict[str, StoreHit] = {}
    for hit in hits:
        best.setdefault(hit.id, hit)
    return sorted(best.values(), key=lambda hit: (-hit.similarity, hit.id))[:depth]


def unit_matrix(rows: Sequence[Vector]) -> np.ndarray:
    """Vectors as the rows of a float32 matrix, each of length 1."""
    matrix = np.asarray(rows, dtype=np.float32)
    matrix /= np.maximum(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-12)
    return matrix


def closest(matrix: np.ndarray, vector: Vector, depth: int) -> list[tuple[int, float]]:
    """The ``depth`` rows of a :func:`unit_matrix` nearest to ``vector`` by cosine, best first
    (exact): (row, cosine)."""
    query = np.asarray(vector, dtype=np.float32)
    scores = matrix @ (query / (np.linalg.norm(query) or 1.0))
    best = np.argsort(-scores, kind="stable")[:depth]
    return [(int(i), float(scores[i])) for i in best]


def nearest(vector: Vector, vectors: Mapping[str, Vector], depth: int) -> list[StoreHit]:
    """The ``depth`` ids whose vectors are nearest to ``vector`` by cosine, best first (exact)."""
    if not vectors or depth <= 0:
        return []
    ids = list(vectors)
    matrix = unit_matrix([vectors[i] for i in ids])
    return [StoreHit(ids[i], score) for i, score in closest(matrix, vector, depth)]
