"""Which profile facts reach a prompt: all of them while they fit, else the ones the query needs.

A user's keyed facts (:mod:`memory.record.profile`) go ahead of the memories in every prompt, within a
budget of characters (``retrieval.profile_chars``) and of facts (``retrieval.profile_budget``).
While every current fact fits, all are shown, most recently set first. When they do not, the
facts are ranked by how well they match the query (cosine of the query to ``key: value``, the
same embedder as the memories; a key or value word in the query counts as a full match), and
the best are shown while they fit: "我对什么过敏？" finds the allergy set first among a thousand
keys. A fact longer than the whole budget is shown cut, never the budget blown.

Fact vectors come from :mod:`memory.layers.fact_vectors` (stored with each fact, filled in the
background: a thousand keys cost a retrieval no more than a hundred).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence

import numpy as np

from memory.domain.types import ProfileFact
from memory.index.vector import Vector
from memory.layers.fact_vectors import FactVectors

ELLIPSIS = "…"
LINE_OVERHEAD = 4
"""Characters a fact's line adds beside its key and value ("- ", the separator, the newline)."""
_WORD = re.compile(r"[a-z0-9]+")
_HAN = re.compile(r"[\u3400-\u9fff]")


def line_chars(fact: ProfileFact) -> int:
    """Characters a fact takes in the prompt."""
    return len(fact.key) + len(fact.value) + LINE_OVERHEAD


def cut(fact: ProfileFact, chars: int) -> ProfileFact | None:
    """The fact with its value shortened to fit ``chars`` (None when not even the key fits)."""
    room = chars - len(fact.key) - LINE_OVERHEAD - len(ELLIPSIS)
    if room <= 0:
        return None
    return dataclasses.replace(fact, value=fact.value[:room] + ELLIPSIS)


class ProfileSelector:
    """Picks the facts of one prompt (see the module docstring).

    Args:
        vectors: the facts' embeddings.
        max_chars: the prompt's budget for facts, in characters (``profile_chars``).
        max_facts: the most facts shown (``profile_budget``).
    """

    def __init__(self, vectors: FactVectors, max_chars: int, max_facts: int) -> None:
        self.vectors = vectors
        self.max_chars = max_chars
        self.max_facts = max_facts

    def select(
        self, facts: Sequence[ProfileFact], query_vector: Vector, query_terms: set[str]
    ) -> list[ProfileFact]:
        """The facts to show for a query, from the user's current ones (most recent first)."""
        if self.max_facts <= 0 or self.max_chars <= 0 or not facts:
            return []
        if len(facts) <= self.max_facts and sum(line_chars(f) for f in facts) <= self.max_chars:
            return list(facts)
        return self.fill(self._ranked(facts, query_vector, query_terms))

    def fill(self, ranked: Sequence[ProfileFact]) -> list[ProfileFact]:
        """The first facts of ``ranked`` that fit the budgets (the first one cut if it alone is
        too long); what a retrieval shows when it cannot rank (its embedder failed)."""
        if self.max_facts <= 0 or self.max_chars <= 0:
            return []
        shown: list[ProfileFact] = []
        left = self.max_chars
        for fact in ranked:
            if len(shown) == self.max_facts or left <= 0:
                break
            if line_chars(fact) <= left:
                shown.append(fact)
                left -= line_chars(fact)
            elif not shown:  # the best fact alone is too long: shown cut
                short = cut(fact, left)
                if short is not None:
                    shown.append(short)
                    left -= line_chars(short)
        return shown

    def _ranked(
        self, facts: Sequence[ProfileFact], query_vector: Vector, query_terms: set[str]
    ) -> list[ProfileFact]:
        vectors = self.vectors.of(facts)
        query = np.asarray(query_vector, dtype=np.float32)
        query /= np.linalg.norm(query) or 1.0
        terms = {t.lower() for t in query_terms}
        scores = [
            _named(fact, terms) or _cosine(vectors.get(fact.id), query) for fact in facts
        ]  # a named key or value outranks any cosine
        order = sorted(range(len(facts)), key=lambda i: -scores[i])  # stable: newer first on ties
        return [facts[i] for i in order]


def _cosine(vector: np.ndarray | None, query: np.ndarray) -> float:
    return -1.0 if vector is None else float(vector @ query)


def _named(fact: ProfileFact, terms: set[str]) -> float:
    """0 when no query word is one of the key's or value's words (or, Chinese, inside either);
    else above any cosine: 1, plus the share of the key's words the query holds (asking for
    ``fact_0500`` ranks that key above ``fact_0499``), plus 0.5 when the value is named too."""
    key, value = fact.key.lower(), fact.value.lower()

    def hits(text: str) -> set[str]:
        words = set(_WORD.findall(text.replace("_", " ")))
        return {t for t in terms if t in words or (_HAN.search(t) and len(t) >= 2 and t in text)}

    in_key, in_value = hits(key), hits(value)
    if not in_key and not in_value:
        return 0.0
    key_words = set(_WORD.findall(key.replace("_", " "))) or {key}
    covered = sum(1 for w in key_words if w in in_key or any(t in w for t in in_key if _HAN.search(t)))
    return 1.0 + covered / len(key_words) + (0.5 if in_value else 0.0)
