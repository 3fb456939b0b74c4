"""The default embedder compares meanings, not languages: unrelated texts are not made alike by
sharing a language, so a question finds a statement made in the other language."""

from __future__ import annotations

import numpy as np

from memory.config import MemoryConfig
from memory.index.embeddings import get_embeddings

CHINESE = [
    "我对花生过敏。",
    "我每天骑自行车上班。",
    "我女朋友是小学老师。",
    "我在海边长大。",
    "我家的猫十二岁了。",
]
ENGLISH = [
    "The weather has been lovely this week.",
    "I watched a movie last night.",
    "Traffic was terrible today.",
    "I had noodles for lunch.",
    "I'm learning to bake bread.",
]


def _mean_cosine(a: np.ndarray, b: np.ndarray, *, same: bool) -> float:
    scores = a @ b.T
    if same:
        return float((scores.sum() - np.trace(scores)) / (len(a) * len(a) - len(a)))
    return float(scores.mean())


def test_unrelated_texts_are_not_made_alike_by_their_language() -> None:
    embeddings = get_embeddings(MemoryConfig().embedding)
    chinese = np.asarray(embeddings.embed_documents(CHINESE))
    english = np.asarray(embeddings.embed_documents(ENGLISH))
    within = (_mean_cosine(chinese, chinese, same=True) + _mean_cosine(english, english, same=True)) / 2
    across = _mean_cosine(chinese, english, same=False)
    # one mean for both languages left 0.18 between them
    assert within - across < 0.1, (within, across)


def test_a_question_finds_its_answer_across_languages_before_small_talk_in_its_own() -> None:
    embeddings = get_embeddings(MemoryConfig().embedding)
    memories = np.asarray(embeddings.embed_documents(CHINESE + ENGLISH))
    questions = [
        "Am I allergic to anything?",
        "How do I get to work?",
        "Where did I grow up?",
        "我学做什么吃的？",
    ]
    answers = [0, 1, 3, 9]
    for question, answer in zip(questions, answers, strict=True):
        scores = memories @ np.asarray(embeddings.embed_query(question))
        assert int(np.argmax(scores)) == answer, question
