"""The slot classifier: which slot of the user's life a statement sets, if any.

A softmax regression over hashed character and word n-grams, learned from the generated corpus
of :mod:`memory.domain.slot_corpus` (statements in the first person set a slot; the same said of
someone else, negated, wished, planned or asked set none). It costs about 65 microseconds a
statement, needs no embedder, and its weights ship with the package
(``memory/samples/slot_model.npz``, made by ``python -m memory.domain.slot_model``); a test
checks they match a fresh training on the current corpus.
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import re
import sys
import unicodedata
import zlib
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from memory.domain.slot_corpus import NONE, SLOTS, corpus

BUCKETS = 1 << 18
"""Hashed feature space."""
EPOCHS = 10
BATCH = 128
LEARNING_RATE = 0.5
L2 = 1e-6
WEIGHTS = "slot_model.npz"
CLASSES = (*SLOTS, NONE)
_WORD = re.compile(r"[a-z0-9']+|[\u4e00-\u9fff]")


def features(text: str) -> np.ndarray[Any, np.dtype[np.int64]]:
    """The hashed feature ids of a text: character 1-3-grams, word 1-2-grams, its first words."""
    norm = unicodedata.normalize("NFKC", text).lower()
    norm = re.sub(r"\d", "0", " ".join(norm.split()))
    grams: set[str] = set()
    padded = f"^{norm}$"
    for n in (1, 2, 3):
        grams.update(f"c{n}:{padded[i : i + n]}" for i in range(len(padded) - n + 1))
    words = _WORD.findall(norm)
    grams.update(f"w:{w}" for w in words)
    grams.update(f"b:{a} {b}" for a, b in itertools.pairwise(words))
    grams.update(f"s{i}:{w}" for i, w in enumerate(words[:3]))
    return np.fromiter((zlib.crc32(g.encode()) % BUCKETS for g in grams), dtype=np.int64, count=len(grams))


class SlotModel:
    """Trained weights: ``ids`` (the feature buckets used) and their rows of ``weights``."""

    def __init__(
        self, ids: np.ndarray[Any, Any], weights: np.ndarray[Any, Any], bias: np.ndarray[Any, Any]
    ) -> None:
        self._row = {int(i): r for r, i in enumerate(ids)}
        self.weights = weights.astype(np.float32)
        self.bias = bias.astype(np.float32)

    def probabilities(self, text: str) -> np.ndarray[Any, np.dtype[np.float32]]:
        """Each class's probability (in :data:`CLASSES` order)."""
        rows = [r for r in (self._row.get(int(f)) for f in features(text)) if r is not None]
        score = self.bias + (self.weights[rows].sum(axis=0) if rows else 0.0) / max(len(rows), 1) ** 0.5
        score = np.exp(score - score.max())
        return score / score.sum()  # type: ignore[no-any-return]

    def slot(self, text: str, threshold: float = 0.5) -> str | None:
        """The slot a statement sets (its class is a slot with at least ``threshold``), or None."""
        probabilities = self.probabilities(text)
        best = int(probabilities.argmax())
        return CLASSES[best] if CLASSES[best] != NONE and probabilities[best] >= threshold else None


def corpus_digest() -> str:
    """A digest of the training corpus (the shipped weights record the one they learned)."""
    text = "\n".join(f"{label}\t{statement}" for statement, label in corpus())
    return hashlib.sha256(f"{BUCKETS}|{EPOCHS}|{BATCH}|{LEARNING_RATE}|{L2}\n{text}".encode()).hexdigest()


def train() -> dict[str, np.ndarray[Any, Any]]:
    """Fit the weights on :func:`corpus`: seeded mini-batches, AdaGrad steps, each class weighted
    to the same total (the same corpus gives the same weights)."""
    rows = corpus()
    labels = np.array([CLASSES.index(label) for _, label in rows])
    feats = [features(text) for text, _ in rows]
    ids = np.unique(np.concatenate(feats))
    cols = [np.searchsorted(ids, f) for f in feats]
    counts = np.bincount(labels, minlength=len(CLASSES))
    sample_weight = (len(rows) / (len(CLASSES) * counts))[labels]
    weights = np.zeros((len(ids), len(CLASSES)))
    bias = np.zeros(len(CLASSES))
    square_w, square_b = np.full_like(weights, 1e-8), np.full_like(bias, 1e-8)
    rng = np.random.default_rng(0)
    for _ in range(EPOCHS):
        for batch in np.array_split(rng.permutation(len(rows)), max(1, len(rows) // BATCH)):
            parts = [cols[i] for i in batch]
            owner = np.repeat(np.arange(len(batch)), [len(p) for p in parts])
            flat = np.concatenate(parts)
            scale = (1.0 / np.sqrt([len(p) for p in parts]))[owner][:, None]
            score = np.zeros((len(batch), len(CLASSES)))
            np.add.at(score, owner, weights[flat] * scale)
            score = np.exp(score + bias - (score + bias).max(axis=1, keepdims=True))
            error = score / score.sum(axis=1, keepdims=True)
            error[np.arange(len(batch)), labels[batch]] -= 1.0
            error *= sample_weight[batch][:, None] / len(batch)
            touched, where = np.unique(flat, return_inverse=True)
            grad = np.zeros((len(touched), len(CLASSES)))
            np.add.at(grad, where, error[owner] * scale)
            grad += L2 * weights[touched]
            square_w[touched] += grad**2
            weights[touched] -= LEARNING_RATE * grad / np.sqrt(square_w[touched])
            grad_b = error.sum(axis=0)
            square_b += grad_b**2
            bias -= LEARNING_RATE * grad_b / np.sqrt(square_b)
    return {
        "ids": ids,
        "weights": weights.astype(np.float16),
        "bias": bias,
        "digest": np.array(corpus_digest()),
    }


@functools.cache
def shipped() -> SlotModel:
    """The weights that ship with the package (loaded once)."""
    with resources.files("memory.samples").joinpath(WEIGHTS).open("rb") as file, np.load(file) as data:
        return SlotModel(data["ids"], data["weights"], data["bias"])


def main(argv: list[str]) -> int:
    """``python -m memory.domain.slot_model [PATH]``: train and write the weights."""
    target = Path(argv[0]) if argv else Path(str(resources.files("memory.samples").joinpath(WEIGHTS)))
    fitted = train()
    np.savez_compressed(
        target, ids=fitted["ids"], weights=fitted["weights"], bias=fitted["bias"], digest=fitted["digest"]
    )
    print(f"wrote {target}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
