"""The slot classifier: which slot of the user's life a statement sets, if any.

Two softmax regressions learned from the corpus of :mod:`memory.domain.slot_corpus` (statements
in the first person set a slot; the same said of someone else, negated, wished, planned or asked
set none):

- over hashed character and word n-grams of the statement: about 65 microseconds, no embedder
  (what a write decides at once, with the form's regression below);
- over the USE vector of the interaction as indexed (the statement and the persona's reply): it
  carries to words the corpus never used. Its answer is combined with the first (a geometric
  mean) when that vector is at hand, when the interaction is indexed;
- over the E5 half of the interaction's full vector (:func:`memory.index.e5.parts`), read with
  the other two once the interaction is enriched (:meth:`SlotModel.agreed`).

A third regression over the same n-grams reads only the form of a written statement: said of the
user as true now, or of someone else, negated, wished, asked, planned or past. A statement sets
a slot only when it gives the first at least :data:`SAID_FLOOR`: the written corpus teaches
"my daughter's", "if only", "used to" apart from whatever slot the statement is about.

The weights ship with the package (``memory/samples/slot_model.npz``, made by
``python -m memory.write.slot_training``); a test checks they match a fresh training.
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import re
import unicodedata
import zlib
from collections.abc import Sequence
from importlib import resources
from typing import Any

import numpy as np

from memory.domain.slot_corpus import FORMS, NONE, SLOTS, corpus, forms

BUCKETS = 1 << 18
"""Hashed feature space."""
EPOCHS = 10
BATCH = 128
LEARNING_RATE = 0.5
L2 = 1e-6
WEIGHTS = "slot_model.npz"
CLASSES = (*SLOTS, NONE)
USE_DIMENSIONS = 512
"""Length of the vectors the second regression reads (USE's)."""
SAID_FLOOR = 0.5
"""Least chance by the form regression that a statement is said of the user as true now, for it
to set a slot. Chosen on the first three writers' statements, each writer's left out of the
training in turn (all three regressions): of their 840 statements that set a slot the classifier found 473
without the form and 454 with it; of their 600 that set none, 53 set one without it and 33 with
it (at 0.3: 461 and 36)."""
WORDS_KEPT = 4096
"""Statements whose chances by the words are kept (a write reads them, then its indexing)."""
_WORD = re.compile(r"[a-z0-9']+|[\u4e00-\u9fff]")
_DIGIT = re.compile(r"\d")


def features(text: str) -> np.ndarray[Any, np.dtype[np.int64]]:
    """The hashed feature ids of a text: character 1-3-grams, word 1-2-grams, its first words."""
    norm = _DIGIT.sub("0", " ".join(unicodedata.normalize("NFKC", text).lower().split()))
    padded = f"^{norm}$"
    grams = {"c1:" + c for c in padded}
    grams.update(["c2:" + padded[i : i + 2] for i in range(len(padded) - 1)])
    grams.update(["c3:" + padded[i : i + 3] for i in range(len(padded) - 2)])
    words = _WORD.findall(norm)
    grams.update(["w:" + w for w in words])
    grams.update([f"b:{a} {b}" for a, b in itertools.pairwise(words)])
    grams.update([f"s{i}:{w}" for i, w in enumerate(words[:3])])
    hashes = np.fromiter(map(zlib.crc32, map(str.encode, grams)), dtype=np.int64, count=len(grams))
    return hashes % BUCKETS  # type: ignore[no-any-return]


class Ngrams:
    """A softmax regression over hashed n-grams: ``ids`` (the feature buckets used), their rows
    of ``weights``, and ``bias``."""

    def __init__(
        self, ids: np.ndarray[Any, Any], weights: np.ndarray[Any, Any], bias: np.ndarray[Any, Any]
    ) -> None:
        self._row = np.full(BUCKETS, -1, dtype=np.int32)
        self._row[np.asarray(ids, dtype=np.int64)] = np.arange(len(ids), dtype=np.int32)
        self.weights = weights.astype(np.float32)
        self.bias = bias.astype(np.float32)

    def chances(self, text: str) -> np.ndarray[Any, np.dtype[np.float32]]:
        """Each class's probability for ``text``."""
        rows = self._row[features(text)]
        rows = rows[rows >= 0]
        score = self.bias + (self.weights[rows].sum(axis=0) if len(rows) else 0.0) / max(len(rows), 1) ** 0.5
        chances = np.exp(score - score.max())
        chances /= chances.sum()
        chances.flags.writeable = False  # shared by every caller of a cache
        return chances  # type: ignore[no-any-return]


class SlotModel:
    """Trained weights: the n-gram regression of the slots, the one of the form (when shipped)
    and the regression over USE vectors (when shipped)."""

    def __init__(
        self,
        words: Ngrams,
        head: tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]] | None = None,
        form: Ngrams | None = None,
        e5_head: tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]] | None = None,
    ) -> None:
        self._by_words = functools.lru_cache(maxsize=WORDS_KEPT)(words.chances)
        self._said = functools.lru_cache(maxsize=WORDS_KEPT)(
            (lambda text: float(form.chances(text)[0])) if form is not None else (lambda text: 1.0)
        )
        self.head = _floats(head)
        self.e5_head = _floats(e5_head)

    def probabilities(self, text: str, vector: Any = None) -> np.ndarray[Any, np.dtype[np.float32]]:
        """Each class's probability (in :data:`CLASSES` order); with the USE ``vector`` of the
        interaction, both regressions combined."""
        chances = self._by_words(text)
        return chances if vector is None else self._combined(chances, vector)

    def _combined(self, chances: np.ndarray[Any, Any], vector: Any) -> np.ndarray[Any, np.dtype[np.float32]]:
        if self.head is None:
            return chances
        logits = np.asarray(vector, dtype=np.float32)[:USE_DIMENSIONS] @ self.head[0] + self.head[1]
        other = np.exp(logits - logits.max())
        combined = np.sqrt(chances * other / other.sum())
        return combined / combined.sum()  # type: ignore[no-any-return]

    def slots(self, text: str, vector: Any, thresholds: tuple[float, float]) -> tuple[str | None, str | None]:
        """The slot by the words alone and by both regressions (``thresholds`` in that order),
        the words read once; none when the form says the statement is not of the user now."""
        if not self.of_user_now(text):
            return None, None
        chances = self._by_words(text)
        return _pick(chances, thresholds[0]), _pick(self._combined(chances, vector), thresholds[1])

    def head_chances(self, vectors: Any) -> np.ndarray[Any, np.dtype[np.float32]] | None:
        """Each class's probability for a batch of USE vectors by the second regression alone
        (rows in :data:`CLASSES` order), or None when none shipped."""
        if self.head is None:
            return None
        return _softmax(np.asarray(vectors, dtype=np.float32)[:, :USE_DIMENSIONS], self.head)

    def agreed(self, texts: Sequence[str], use: Any, e5: Any, floor: float) -> list[str | None]:
        """Per statement, the slot three views agree it is about: the words, the regression over
        its interaction's USE vector and the one over its E5 vector (rows of ``use`` and ``e5``),
        their chances combined (a geometric mean); the likeliest slot when its combined chance is
        at least ``floor`` and the form reads the statement as the user's own life now. All None
        when no E5 regression shipped."""
        if self.head is None or self.e5_head is None or not len(texts):
            return [None] * len(texts)
        by_use = _softmax(np.asarray(use, dtype=np.float32)[:, :USE_DIMENSIONS], self.head)
        by_e5 = _softmax(np.asarray(e5, dtype=np.float32), self.e5_head)
        found: list[str | None] = []
        for text, use_row, e5_row in zip(texts, by_use, by_e5, strict=True):
            combined = np.cbrt(self._by_words(text) * use_row * e5_row)
            best = int(combined[: len(SLOTS)].argmax())
            sure = float(combined[best] / combined.sum()) >= floor
            found.append(SLOTS[best] if sure and self.of_user_now(text) else None)
        return found

    def leaning(self, text: str, floor: float) -> str | None:
        """The likeliest slot by the words, whatever the chance of none, when its own chance is at
        least ``floor``; else None."""
        return next(iter(self.leanings(text, floor)), None)

    def leanings(self, text: str, floor: float) -> tuple[str, ...]:
        """Every slot whose chance by the words is at least ``floor``, likeliest first."""
        chances = self._by_words(text)[: len(SLOTS)]
        return tuple(SLOTS[i] for i in np.argsort(-chances, kind="stable") if chances[i] >= floor)

    def asked(self, vector: Any, floor: float) -> str | None:
        """The slot a query asks about by the regression over its USE ``vector``, the chance of none
        left out (to a classifier of statements a question is none): the likeliest slot when its
        share is at least ``floor``; None when no vector regression shipped."""
        by_vector = self.head_chances(np.asarray(vector, dtype=np.float32)[None, :])
        if by_vector is None:
            return None
        share = by_vector[0, : len(SLOTS)] / max(float(by_vector[0, : len(SLOTS)].sum()), 1e-12)
        best = int(share.argmax())
        return SLOTS[best] if share[best] >= floor else None

    def of_user_now(self, text: str) -> bool:
        """Whether the form regression reads ``text`` as the user's own life now (not someone
        else's, negated, wished, planned or past only); True when none shipped."""
        return self._said(text) >= SAID_FLOOR

    def slot(self, text: str, threshold: float, vector: Any = None) -> str | None:
        """The slot a statement sets (its class is a slot with at least ``threshold`` and its form
        is of the user now), or None."""
        if not self.of_user_now(text):
            return None
        return _pick(self.probabilities(text, vector), threshold)


def _floats(
    head: tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]] | None,
) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]] | None:
    return None if head is None else (head[0].astype(np.float32), head[1].astype(np.float32))


def _softmax(rows: np.ndarray[Any, Any], head: tuple[np.ndarray[Any, Any], ...]) -> np.ndarray[Any, Any]:
    logits = rows @ head[0] + head[1]
    chances = np.exp(logits - logits.max(axis=1, keepdims=True))
    return chances / chances.sum(axis=1, keepdims=True)  # type: ignore[no-any-return]


def _pick(probabilities: np.ndarray[Any, Any], threshold: float) -> str | None:
    best = int(probabilities.argmax())
    return CLASSES[best] if CLASSES[best] != NONE and probabilities[best] >= threshold else None


def corpus_digest() -> str:
    """A digest of the training corpus (the shipped weights record the one they learned)."""
    text = "\n".join(f"{label}\t{statement}" for statement, label in [*corpus(), *forms()])
    return hashlib.sha256(f"{BUCKETS}|{EPOCHS}|{BATCH}|{LEARNING_RATE}|{L2}\n{text}".encode()).hexdigest()


def train() -> dict[str, np.ndarray[Any, Any]]:
    """Fit the slots' and the form's n-gram regressions on :func:`corpus` and :func:`forms`."""
    ids, weights, bias = _fit(corpus(), CLASSES)
    form_ids, form_weights, form_bias = _fit(forms(), FORMS)
    return {
        "ids": ids,
        "weights": weights.astype(np.float16),
        "bias": bias,
        "form_ids": form_ids,
        "form_weights": form_weights.astype(np.float16),
        "form_bias": form_bias,
        "digest": np.array(corpus_digest()),
    }


def _fit(rows: list[tuple[str, str]], classes: tuple[str, ...]) -> tuple[np.ndarray[Any, Any], ...]:
    """Seeded mini-batches, AdaGrad steps, each class weighted to the same total (the same rows
    give the same weights): the buckets used, their weights and the bias."""
    labels = np.array([classes.index(label) for _, label in rows])
    feats = [features(text) for text, _ in rows]
    ids = np.unique(np.concatenate(feats))
    cols = [np.searchsorted(ids, f) for f in feats]
    counts = np.bincount(labels, minlength=len(classes))
    sample_weight = (len(rows) / (len(classes) * counts))[labels]
    weights = np.zeros((len(ids), len(classes)))
    bias = np.zeros(len(classes))
    square_w, square_b = np.full_like(weights, 1e-8), np.full_like(bias, 1e-8)
    rng = np.random.default_rng(0)
    for _ in range(EPOCHS):
        for batch in np.array_split(rng.permutation(len(rows)), max(1, len(rows) // BATCH)):
            parts = [cols[i] for i in batch]
            owner = np.repeat(np.arange(len(batch)), [len(p) for p in parts])
            flat = np.concatenate(parts)
            scale = (1.0 / np.sqrt([len(p) for p in parts]))[owner][:, None]
            score = np.zeros((len(batch), len(classes)))
            np.add.at(score, owner, weights[flat] * scale)
            score = np.exp(score + bias - (score + bias).max(axis=1, keepdims=True))
            error = score / score.sum(axis=1, keepdims=True)
            error[np.arange(len(batch)), labels[batch]] -= 1.0
            error *= sample_weight[batch][:, None] / len(batch)
            touched, where = np.unique(flat, return_inverse=True)
            grad = np.zeros((len(touched), len(classes)))
            np.add.at(grad, where, error[owner] * scale)
            grad += L2 * weights[touched]
            square_w[touched] += grad**2
            weights[touched] -= LEARNING_RATE * grad / np.sqrt(square_w[touched])
            grad_b = error.sum(axis=0)
            square_b += grad_b**2
            bias -= LEARNING_RATE * grad_b / np.sqrt(square_b)
    return ids, weights, bias


@functools.cache
def shipped() -> SlotModel:
    """The weights that ship with the package (loaded once)."""
    with resources.files("memory.samples").joinpath(WEIGHTS).open("rb") as file, np.load(file) as data:
        return SlotModel(
            Ngrams(data["ids"], data["weights"], data["bias"]),
            (data["use_weights"], data["use_bias"]) if "use_weights" in data.files else None,
            Ngrams(data["form_ids"], data["form_weights"], data["form_bias"])
            if "form_ids" in data.files
            else None,
            (data["e5_weights"], data["e5_bias"]) if "e5_weights" in data.files else None,
        )
