"""A summary ranked by its best sentence as well as by its whole text.

A summary is one vector over up to a few hundred characters of mostly unrelated sentences, so a
question about one of them matches it weakly (at a thousand turns of small talk the facts a
user stated live only in summaries, and their summaries did not rank among those shown). Each
sentence of a summary therefore gets its own vector, made with the memories' full embedder by
the background enrichment (or when it is indexed, with a one-tier embedder) and stored with the
summary's row, so it is erased with it. A dense search of the summary layer scores a summary by
the better of its own vector and its best sentence's; no model runs on the read path.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from memory.domain.sentences import is_question, sentences
from memory.index.exact import unit_matrix
from memory.index.vector import Vector

LINE_SCORED = 200
"""A user's newest summaries scored by their sentences at most (older ones by their text alone):
200 summaries of 6 sentences are 4 MB read and 0.2 ms of products a retrieval."""
LINE_WEIGHT = 0.85
"""A sentence's cosine counts this much against a whole memory's: a sentence is shorter than an
interaction (the user's turn and the reply), so its cosine runs higher. LoCoMo dev chat replay
R@17: 71.6 at 1.0 (summaries took 230 of the slots), 73.3 at 0.85 and at 0.7, 73.6 with no
sentence vectors; the retention bench's tune half: 88 % at @1000 at 1.0 and 0.85, 87 % without."""
MIN_LINE_CHARS = 4
"""Shorter sentences get no vector of their own."""
LINES_RULE = "2"
"""Which rule :func:`lines_of` follows (2: a sentence that asks gets no vector); a record whose
sentence vectors an earlier rule made has its summaries indexed again once."""


def lines_of(text: str) -> list[str]:
    """The sentences of a summary that get a vector: none in a summary of one sentence (its own
    vector is that sentence's), and none that asks (a question the user put to the persona tells
    nothing about the user, yet matched every question on its topic)."""
    found = [s for s in sentences(text) if len(s) >= MIN_LINE_CHARS]
    return [s for s in found if not is_question(s)] if len(found) > 1 else []


def pack(vectors: Sequence[Vector]) -> bytes:
    """Sentence vectors as stored: unit rows, float32 (read back without a conversion: float16
    took 5.8 ms to widen for 500 summaries, the products 0.4 ms)."""
    return unit_matrix(vectors).tobytes()


def best_lines(vector: Vector, stored: Sequence[tuple[str, bytes]]) -> dict[str, float]:
    """Each summary's best cosine between ``vector`` and its sentences (a summary whose stored
    vectors do not have the query's length, made by another embedder, is left out)."""
    query = np.asarray(vector, dtype=np.float32)
    query /= np.linalg.norm(query) or 1.0
    row_bytes = 4 * len(query)
    kept = [(i, blob) for i, blob in stored if blob and len(blob) % row_bytes == 0]
    if not kept:
        return {}
    matrix = np.frombuffer(b"".join(blob for _, blob in kept), dtype=np.float32).reshape(-1, len(query))
    scores = matrix @ query
    starts = np.cumsum([0] + [len(blob) // row_bytes for _, blob in kept[:-1]])
    best = np.maximum.reduceat(scores, starts)
    return {i: float(score) for (i, _), score in zip(kept, best, strict=True)}
