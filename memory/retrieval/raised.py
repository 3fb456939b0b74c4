"""Memories a query points at by more than their similarity, raised above every other memory.

- A time the query names ("what did I do in April?"): the memories made then
  (:func:`dated`), beside their own ranking by similarity.
- A slot of the user's life the query asks about ("what's my favourite drink now?", read from its
  words or its USE vector, :func:`asked`): the user's newest statement likely about it
  (:func:`memory.domain.slots.vector_looks`, stored when it was indexed), when it is newer than
  the slot's current profile fact (:class:`Asked`). A statement the classifier was not sure
  enough of to set the slot ("Lately it's oat flat whites every morning for me") is often found
  by neither ranking: the embedders do not tie it to the question.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime

from memory.domain import slot_model
from memory.domain.importance import said_in
from memory.domain.slots import SAID
from memory.domain.types import DECAYING_LAYERS, ProfileFact, RetrievedMemory
from memory.domain.when import Window, window_of
from memory.retrieval import ranking

RAISED = 1.0
"""Added to the score of a memory the query points at (fused scores are below 0.1)."""
LIKELY_FLOOR = 0.5
"""Least chance of the likeliest slot by a query's words alone, whatever the chance of none, for
the query to ask about that slot."""
ASKED_FLOOR = 0.7
"""Least share of a slot, by the regression over a query's USE vector and the chance of none left
out, for a query its words give none to ask about it (:meth:`~memory.domain.slot_model.SlotModel.asked`).
On the four retention scripts one may tune on, 217 of their 240 questions about a slot ask it
(127 by the words alone), 13 of their 308 other questions ask one (3) and 5 of 130 chit-chat
queries (2); at 0.75, 207, 7 and 3."""


@dataclass(frozen=True)
class Asked:
    """The slot a query asks about, and when its current profile fact was set (None: it has none)."""

    slot: str
    since: datetime | None


def asked(query: str, facts: Sequence[ProfileFact], vector: Sequence[float] | None = None) -> Asked | None:
    """The slot ``query`` asks about, by its words, else by its USE ``vector`` (None: the vector
    does not begin with USE's), and when its fact among the user's current ``facts`` was set; or
    None."""
    text, model = query.strip(), slot_model.shipped()
    slot = model.leaning(text, LIKELY_FLOOR) if text else None
    if slot is None and text and vector is not None:
        slot = model.asked(vector, ASKED_FLOOR)
    return None if slot is None else Asked(slot, next((f.since for f in facts if f.key == slot), None))


def dated(memories: list[RetrievedMemory], window: Window) -> list[RetrievedMemory]:
    """A user's memories made in the window the query names, raised above every other time,
    with those told at another time that name a time themselves ("we went to Kyoto in April",
    said in March) and match the query better than all of them: by score, or by place in the
    dense or keyword ranking (the window's ranking lifts the score of all made then)."""
    deep = [m for m in memories if m.entry.layer in DECAYING_LAYERS]
    inside = {m.entry.id for m in deep if window.holds(m.entry.created_at)}
    best = max((m.score for m in deep if m.entry.id in inside), default=math.inf)
    best_place = min((ranking.place(m) for m in deep if m.entry.id in inside), default=0)
    better = (m for m in deep if m.score > best or ranking.place(m) < best_place)
    raised = inside | {m.entry.id for m in better if window_of(said_in(m.entry.content), m.entry.created_at)}
    dated = [replace(m, score=m.score + RAISED) if m.entry.id in raised else m for m in memories]
    return sorted(dated, key=lambda m: -m.score)


def said_later(memories: list[RetrievedMemory], later: RetrievedMemory) -> list[RetrievedMemory]:
    """``memories`` with ``later`` (the newest statement about the slot asked, found by the
    rankings or not) raised above them."""
    found = next((m for m in memories if m.entry.id == later.entry.id), None)
    raised = replace(found or later, score=(found.score if found else 0.0) + RAISED)
    others = [m for m in memories if m.entry.id != later.entry.id]
    return sorted([raised, *others], key=lambda m: -m.score)


def standing(known: Sequence[ProfileFact], memories: Sequence[RetrievedMemory]) -> list[ProfileFact]:
    """The user's current facts as this retrieval knows them: ``known``, and where the slot asked
    has no profile fact, the user's newest statement likely about it (the memory that
    :attr:`~memory.domain.types.RetrievedMemory.answers` it) as its value, so the older statements
    shown are judged against it. A profile fact stays: a statement not sure enough to set the
    slot is often no change ("next spring I might start cycling", a neighbour's new car)."""
    newest = next((m for m in memories if m.answers is not None), None)
    if newest is None or newest.answers is None or any(f.key == newest.answers for f in known):
        return list(known)
    said = newest.entry
    return [
        *known,
        ProfileFact(said.id, newest.answers, said_in(said.content), said.created_at, SAID, said.user_id),
    ]
