"""``python -m memory.write.slot_training [PATH]``: train the slot classifier and write the weights
that ship with the package (:mod:`memory.domain.slot_model`).

The second and third regressions read USE and E5 vectors of interactions as they are indexed and
enriched, so the corpus's statements are rendered as interactions (a persona's name, a short reply,
the user label of either locale) before they are embedded (the E5 pass: about five minutes on two
cores). Deterministic: the same corpus and models give the same weights.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Sequence
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from memory.domain import slot_model
from memory.domain.formatter import render_interaction
from memory.domain.slot_corpus import corpus
from memory.domain.types import Interaction
from memory.index.e5 import BlendedEmbeddings, parts
from memory.index.use import UniversalSentenceEncoderEmbeddings

HEAD_STEPS = 400
HEAD_L2 = 1e-4
HEAD_LEARNING_RATE = 0.05
_REPLIES = {
    "zh": ["嗯嗯，我记住啦", "哇，真的吗？", "辛苦啦～", "好呀", "原来如此", "听起来不错呢", "加油哦"],
    "en": [
        "Got it!",
        "Oh really?",
        "That sounds nice.",
        "Good for you!",
        "I see.",
        "Tell me more!",
        "Noted~",
    ],
}
_PERSONAS = ["karin", "Mika", "小助手", "Aria"]
_MOMENT = datetime(2026, 1, 1, tzinfo=UTC)


def as_indexed(statements: Sequence[str], seed: int = 3) -> list[str]:
    """``statements`` as indexed interactions (seeded replies, personas and labels): the text a
    USE vector is taken of when an interaction is indexed."""
    rng = random.Random(seed)
    texts = []
    for number, statement in enumerate(statements):
        lang = "zh" if any("\u4e00" <= ch <= "\u9fff" for ch in statement) else "en"
        said = Interaction(str(number), statement, rng.choice(_REPLIES[lang]), _MOMENT)
        texts.append(render_interaction(said, rng.choice(_PERSONAS), rng.choice(("zh", "en"))))
    return texts


def rendered(seed: int = 3) -> list[str]:
    """The corpus's statements as indexed interactions (:func:`as_indexed`)."""
    return as_indexed([statement for statement, _ in corpus()], seed)


def train_head(vectors: np.ndarray[Any, Any]) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """The softmax regression over the corpus's USE ``vectors`` (Adam, full batch, each class
    weighted to the same total)."""
    labels = np.array([slot_model.CLASSES.index(label) for _, label in corpus()])
    classes = len(slot_model.CLASSES)
    count, width = vectors.shape
    weight = (count / (classes * np.bincount(labels, minlength=classes)))[labels][:, None] / count
    target = np.eye(classes)[labels]
    params = [np.zeros((width, classes)), np.zeros(classes)]
    moments = [[np.zeros_like(p), np.zeros_like(p)] for p in params]
    for step in range(1, HEAD_STEPS + 1):
        score = vectors @ params[0] + params[1]
        score = np.exp(score - score.max(axis=1, keepdims=True))
        error = (score / score.sum(axis=1, keepdims=True) - target) * weight
        grads = [vectors.T @ error + HEAD_L2 * params[0], error.sum(axis=0)]
        for param, grad, (first, second) in zip(params, grads, moments, strict=True):
            first *= 0.9
            first += 0.1 * grad
            second *= 0.999
            second += 0.001 * grad * grad
            param -= (
                HEAD_LEARNING_RATE * (first / (1 - 0.9**step)) / (np.sqrt(second / (1 - 0.999**step)) + 1e-8)
            )
    return params[0].astype(np.float32), params[1].astype(np.float32)


def train() -> dict[str, np.ndarray[Any, Any]]:
    """The regressions' weights, as shipped."""
    fitted = slot_model.train()
    use = UniversalSentenceEncoderEmbeddings(threads=2)
    texts = rendered()
    vectors = np.asarray(use.embed_documents(texts), dtype=np.float32)
    fitted["use_weights"], fitted["use_bias"] = train_head(vectors)
    distinct = list(dict.fromkeys(texts))
    blended = dict(zip(distinct, BlendedEmbeddings(use).embed_documents(distinct), strict=True))
    _, e5 = parts([blended[text] for text in texts])
    fitted["e5_weights"], fitted["e5_bias"] = train_head(e5)
    return fitted


def main(argv: list[str]) -> int:
    """Train and write the weights (to ``argv[0]``, else the package's own file)."""
    target = (
        Path(argv[0]) if argv else Path(str(resources.files("memory.samples").joinpath(slot_model.WEIGHTS)))
    )
    np.savez_compressed(target, **train())  # type: ignore[arg-type]
    print(f"wrote {target}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
