"""Splitting a text into sentences: what the extractive summary keeps, and the lines a summary
is scored by (:mod:`memory.layers.summary_lines`)."""

from __future__ import annotations

import re

_SENTENCE_END = re.compile(r"(?<=[。！？!?；;\n])|(?<=\.)\s+")


def sentences(text: str) -> list[str]:
    """The sentences of ``text``, whitespace folded, empty ones dropped."""
    return [s for s in (" ".join(p.split()) for p in _SENTENCE_END.split(text)) if s]
