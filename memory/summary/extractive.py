"""The extractive summary: what a summary keeps when no model writes it. A pure function.

It keeps the most important sentences (by :func:`memory.domain.importance.importance`) of what the
user said, and of the persona's replies only when they promise or state something that matters,
in time order, one line each, within the character budget, never the same line twice.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from memory.domain.importance import importance, said_in
from memory.domain.sentences import sentences
from memory.domain.types import Interaction

MIN_CUT_CHARS = 4
"""Least length of a cut line for it to count as quoting the sentence it starts (:func:`without_quotes`)."""
PERSONA_FLOOR = 0.5
"""A persona's sentence is kept only from this importance up (its replies are mostly chatter)."""


def extract(
    interactions: Sequence[Interaction],
    *,
    persona: str,
    labels: tuple[str, str],
    separator: str,
    max_chars: int,
    already: Iterable[str] = (),
) -> str:
    """A summary of the interactions: the kept sentences in time order, one line each.

    Args:
        labels: ``(user label, title)``, e.g. ``("用户", "对话摘要")``.
        already: lines earlier summaries of the same user hold (not written again).
    """
    user_label = labels[0]
    seen = {line.strip() for line in already}
    candidates: list[tuple[float, int, str]] = []  # (importance, position in time, line)
    for item in interactions:
        for speaker, text, floor in (
            (user_label, item.user_input, 0.0),
            (persona, item.response, PERSONA_FLOOR),
        ):
            for sentence in sentences(text):
                score = importance(sentence)
                line = f"{speaker}{separator}{sentence}"
                if score >= floor and line not in seen:
                    seen.add(line)
                    candidates.append((score, len(candidates), line))
    budget = max_chars
    kept: list[tuple[int, str]] = []
    for _, position, line in sorted(candidates, key=lambda c: (-c[0], c[1])):
        if len(line) + 1 <= budget:
            kept.append((position, line))
            budget -= len(line) + 1
    if not kept and candidates:  # one sentence longer than the whole budget: cut it
        kept.append((0, candidates[0][2][: max(1, budget)]))
    return "\n".join(line for _, line in sorted(kept))[:max_chars]


def without_quotes(summary: str, interaction: Interaction) -> str:
    """``summary`` without the lines it took from ``interaction`` (a line that quotes one of its
    sentences, whoever the speaker; a line cut to the budget quotes the start of one): what an
    extractive summary keeps when that interaction is erased. A model's summary words things its
    own way: it comes back whole (an erase removes it whole, :mod:`memory.write.erase`)."""
    quoted = {*sentences(interaction.user_input), *sentences(interaction.response)}

    def takes(line: str) -> bool:
        part = said_in(line).strip()
        if part in quoted:
            return True
        return len(part) >= MIN_CUT_CHARS and any(sentence.startswith(part) for sentence in quoted)

    return "\n".join(line for line in summary.splitlines() if line.strip() and not takes(line))
