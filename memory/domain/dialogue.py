"""A retrieval's query: one text, or the recent dialogue (turns oldest first, the newest last).

A chatbot retrieves before it answers, and what it must answer is the user's newest turn; the
turns before it say what the conversation is about ("那天晚上" means the party named three turns
earlier). A dialogue query is embedded twice over: the whole conversation as one text, and each
turn on its own, the newest counting most (each older turn half the next). The keyword side reads
every turn's words; the retriever trusts it less as the words grow many (see
:mod:`memory.retrieval.candidates`).
"""

from __future__ import annotations

from dataclasses import dataclass

from memory.domain.validation import clean_text
from memory.errors import InputTypeError, InvalidInputError


@dataclass(frozen=True)
class Query:
    """What a retrieval searches for: ``turns``, oldest first (one turn: a plain query)."""

    turns: tuple[str, ...]

    @property
    def text(self) -> str:
        """The whole query as one text (the turns, one a line)."""
        return "\n".join(self.turns)

    @property
    def latest(self) -> str:
        """The newest turn: what the answer is to."""
        return self.turns[-1]

    @property
    def is_dialogue(self) -> bool:
        """More than one turn."""
        return len(self.turns) > 1


def parse_query(value: object, *, max_chars: int, max_turns: int) -> Query:
    """A :class:`Query` of a str, or of a sequence of turn strs (oldest first, newest ``max_turns`` kept).

    Raises:
        InputTypeError: neither a str nor a list or tuple of strs (the turn is named: ``query[2]``).
        InvalidInputError, InputTooLargeError: an empty dialogue, or an empty or too long turn.
    """
    if isinstance(value, str):
        return Query((clean_text("query", value, max_chars),))
    if not isinstance(value, list | tuple):
        raise InputTypeError("query", "a str or a list of turn strs (oldest first)", value)
    if not value:
        raise InvalidInputError("query", "a dialogue needs at least one turn")
    first = len(value) - min(len(value), max_turns)
    return Query(tuple(clean_text(f"query[{i}]", value[i], max_chars) for i in range(first, len(value))))
