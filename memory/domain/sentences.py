"""Splitting a text into sentences (what the extractive summary keeps, and the lines a summary
is scored by: :mod:`memory.layers.summary_lines`), and whether one asks rather than tells."""

from __future__ import annotations

import re

_SENTENCE_END = re.compile(r"(?<=[。！？!?；;\n])|(?<=\.)\s+")
_QUESTION = re.compile(
    r"[?？]|[吗呢嘛]\s*[。！!～~]*\s*$|什么|哪|谁|多少|怎么|"
    r"^(what|where|which|who|when|why|how|do|does|did|is|are|am|can|could|would|should)\b",
    re.IGNORECASE,
)


def sentences(text: str) -> list[str]:
    """The sentences of ``text``, whitespace folded, empty ones dropped."""
    return [s for s in (" ".join(p.split()) for p in _SENTENCE_END.split(text)) if s]


def is_question(text: str) -> bool:
    """Whether a text asks rather than tells (it sets no slot and weighs less as a memory)."""
    return bool(_QUESTION.search(text.strip()))
