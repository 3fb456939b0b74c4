"""The relevance floor: a memory counts only when it matches the query better than small talk does.

Cosine similarities mean different things for different queries and models: an unrelated pair
scores about 0.1 with USE and 0.5 with MiniLM, and a chit-chat query ("今天天气怎么样") lies close
to every chatty memory. So the bar is the query's own, set by its similarities to a fixed set of
generic small-talk sentences, Chinese and English (``samples/background.json``), embedded once by
the same model: a memory must rise half the way from the query's mean similarity to those
sentences to its best one. Below that it says little a generic sentence would not; leaving its
slot empty keeps noise and tokens out of the prompt. A question that names something specific
("what am I allergic to?") lies far from small talk, so its bar is low.

A query that does not speak of the user needs more (no "I", "my", "我", no "user", no name the
persona calls the user by, no slot of the user's profile asked about: a question about the world,
the persona or someone else): a memory past the nearest of those sentences and of a second set,
what keeps a conversation going without asking for anything ("Talk to me", "你觉得呢？"). Only a
query about the user's own life may ask in small talk's plain words ("what do I do?" lies near
"what can you do?"); a memory that matches any other query no better than small talk does is
about something else ("will people live on Mars one day?" and the user's job).

A memory the keyword ranking also found (it shares a word the user's memories rarely hold) needs
only half of that way, two kinds of evidence: a quarter from the mean to the best small talk for
a query about the user, half for any other. A memory said in the query's other language is
measured against the small talk of its own language where that bar is lower: across languages
every similarity is lower, small talk's too.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

import numpy as np
from langchain_core.embeddings import Embeddings

from memory.domain.importance import said_in
from memory.domain.language import in_chinese
from memory.domain.sentences import speaks_of_user
from memory.domain.types import RetrievedMemory
from memory.samples import background_sentences, floor_sentences

DENSE_SHARE = 0.5
"""A memory must rise this share of the way from the query's mean similarity to small talk to its best."""
KEYWORD_SHARE = 0.25
"""The same share for a memory the keyword ranking also found."""
IMPERSONAL_SHARES = (1.0, 0.5)
"""The two shares for a query that does not speak of the user."""


@dataclass(frozen=True)
class Bar:
    """One query's floor: ``high`` for a dense match alone, ``low`` for one keywords also found;
    ``said_in`` holds a lower pair for a memory said in one language (Chinese: True)."""

    high: float
    low: float
    said_in: Mapping[bool, tuple[float, float]] = field(default_factory=dict)

    def passes(self, similarity: float, keyword_match: bool, text: str = "") -> bool:
        """Whether a memory of this cosine similarity to the query (saying ``text``) clears the
        floor."""
        high, low = (self.high, self.low)
        if text:
            high, low = self.said_in.get(in_chinese(text), (high, low))
        return similarity >= (low if keyword_match else high)


class RelevanceFloor:
    """The per-query bar of :mod:`memory.retrieval.relevance`.

    Args:
        embeddings: the retrieval's model (the background is embedded once, at first use).
        margin: added to the bar (a cosine; negative lowers it).
        user_terms: what the persona calls the user: a query naming it speaks of the user.
    """

    def __init__(self, embeddings: Embeddings, margin: float, user_terms: Sequence[str] = ()) -> None:
        self.embeddings = embeddings
        self.margin = margin
        self.user_terms = tuple(user_terms)
        self._matrix: np.ndarray | None = None
        self._languages: np.ndarray | None = None
        self._lock = threading.Lock()
        self._small_talk = len(background_sentences())
        """The background's first rows: small talk, a personal query's whole background."""

    def _background(self) -> tuple[np.ndarray, np.ndarray]:
        """The background's unit vectors and, per sentence, whether it is Chinese (made once)."""
        if self._matrix is not None and self._languages is not None:
            return self._matrix, self._languages
        with self._lock:
            if self._matrix is None or self._languages is None:
                sentences = floor_sentences()
                matrix = np.asarray(self.embeddings.embed_documents(sentences), dtype=np.float32)
                self._languages = np.array([in_chinese(s) for s in sentences], dtype=bool)
                self._matrix = matrix / np.maximum(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-12)
            return self._matrix, self._languages

    def bar(self, vector: Sequence[float], query: str | None = None, asks_slot: bool = False) -> Bar:
        """The similarities a memory must reach for ``vector``'s query (cosines, margin added):
        above small talk, or above small talk in the memory's own language when that is lower (a
        query is nearer every sentence of its own language: a fact said in the other one matches
        it less, and so does small talk in that language). The ``query``'s text, when given, and
        whether it ``asks_slot`` of the user's profile, tell whether it speaks of the user."""
        matrix, chinese = self._background()
        personal = query is None or asks_slot or speaks_of_user(query, self.user_terms)
        if personal:
            matrix, chinese = matrix[: self._small_talk], chinese[: self._small_talk]
        if not len(matrix):
            return Bar(self.margin, self.margin)
        unit = np.asarray(vector, dtype=np.float32)
        similarities = matrix @ (unit / (np.linalg.norm(unit) or 1.0))
        shares = (DENSE_SHARE, KEYWORD_SHARE) if personal else IMPERSONAL_SHARES
        high, low = self._pair(similarities, shares)
        said_in: dict[bool, tuple[float, float]] = {}
        for language in (True, False):
            part = similarities[chinese == language]
            if len(part):
                pair = self._pair(part, shares)
                said_in[language] = (min(high, pair[0]), min(low, pair[1]))
        return Bar(high, low, said_in)

    def _pair(self, similarities: np.ndarray, shares: tuple[float, float]) -> tuple[float, float]:
        top, mean = float(np.max(similarities)), float(np.mean(similarities))
        dense, keyword = (mean + share * (top - mean) + self.margin for share in shares)
        return dense, keyword


def floored(memory: RetrievedMemory, bar: Bar | None) -> RetrievedMemory:
    """``memory``, marked ``below_floor`` when it matches the query no better than ``bar``
    (``None``: no floor)."""
    matched = memory.keyword_rank is not None
    # similarity 0.0 is a keyword hit not embedded yet (an index backlog): keywords vouch for it
    if bar is None or (matched and memory.similarity == 0.0):
        return memory
    passes = bar.passes(memory.similarity, matched, said_in(memory.entry.content))
    return memory if passes else replace(memory, below_floor=True)
