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

import numpy as np
from langchain_core.embeddings import Embeddings

from memory.domain.validation import clean_text
from memory.errors import InputTypeError, InvalidInputError

OLDER_TURN_WEIGHT = 0.5
"""Each turn counts this much of the turn after it in the dialogue's turn-by-turn vector."""


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


def _unit(vector: np.ndarray) -> np.ndarray:
    norm = float(np.linalg.norm(vector))
    return vector / norm if norm > 0 else vector


def query_vector(query: Query, embeddings: Embeddings, max_chars: int) -> list[float]:
    """The query's vector: one embedding of a plain query; for a dialogue, the mean direction of
    the whole conversation and of its turns weighted newest first (one embedding call).

    Args:
        max_chars: characters of a text embedded (a dialogue's whole text keeps its newest ones).
    """
    if not query.is_dialogue:
        return embeddings.embed_query(query.text[:max_chars])
    texts = [query.text[-max_chars:], *(turn[:max_chars] for turn in query.turns)]
    # a model that embeds queries and documents apart (E5) says so with ``embed_queries``
    embed = getattr(embeddings, "embed_queries", embeddings.embed_documents)
    vectors = np.asarray(embed(texts), dtype=np.float64)
    whole, turns = _unit(vectors[0]), vectors[1:]
    weights = OLDER_TURN_WEIGHT ** np.arange(len(turns) - 1, -1, -1, dtype=np.float64)
    norms = np.maximum(np.linalg.norm(turns, axis=1, keepdims=True), 1e-12)
    recent = _unit((weights[:, None] * (turns / norms)).sum(axis=0))
    return [float(x) for x in _unit(whole + recent)]
