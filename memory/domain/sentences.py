"""Splitting a text into sentences (what the extractive summary keeps, and the lines a summary
is scored by: :mod:`memory.layers.summary_lines`), whether one asks rather than tells, and whether
one speaks of the user."""

from __future__ import annotations

import re
from collections.abc import Sequence

_SENTENCE_END = re.compile(r"(?<=[。！？!?；;\n])|(?<=\.)\s+")
_MARKED = re.compile(
    r"[?？]|[吗呢嘛]\s*[。！!～~]*\s*$|"
    r"^(what|where|which|who|when|why|how|do|does|did|is|are|am|can|could|would|should)\b",
    re.IGNORECASE,
)
_ASKING_WORD = re.compile("什么|哪|谁|多少|怎么")
_CLAUSE = re.compile(r"[，,、；;。！!]\s*\S")
_OF_THE_USER = re.compile(
    r"\b(?:i|me|my|mine|myself|we|us|our|ours|user|users)\b|[我咱俺]|用户", re.IGNORECASE
)


def sentences(text: str) -> list[str]:
    """The sentences of ``text``, whitespace folded, empty ones dropped."""
    return [s for s in (" ".join(p.split()) for p in _SENTENCE_END.split(text)) if s]


def is_question(text: str) -> bool:
    """Whether a text asks rather than tells (it weighs less as a memory): :func:`asks_plainly`,
    or a Chinese question word anywhere ("你家有多少只猫")."""
    return asks_plainly(text) or bool(_ASKING_WORD.search(text))


def asks_plainly(text: str) -> bool:
    """Whether a text is plainly a question (it sets no slot): a question mark, 吗, 呢 or 嘛 at its
    end, an English question word first, or a Chinese question word in a text of one clause ("你住
    在哪里呀"). In a longer message one is often part of a statement ("用了一个礼拜还是找不到设置在
    哪"): the slot classifier's form regression reads it."""
    said = text.strip()
    return bool(_MARKED.search(said) or (_ASKING_WORD.search(said) and not _CLAUSE.search(said)))


def speaks_of_user(text: str, terms: Sequence[str] = ()) -> bool:
    """Whether a text a user sent speaks of that user: a first-person pronoun ("I", "my", "我",
    "咱们"), "the user" (an agent's tool call), or one of ``terms``, the names the user goes by
    (a persona's way of addressing them: "前辈")."""
    return bool(_OF_THE_USER.search(text)) or any(
        term and term.casefold() in text.casefold() for term in terms
    )
