"""Plain statements that set a slot of the user's life: where they live, their job, car, phone,
partner, school and diet, their hometown, favourite food and drink, team, the instrument they
learn, their computer and commute, in Chinese and English. Each slot holds one current value (a
second pet is not a changed pet: pets are no slot).

"我搬家了，现在住在杭州西湖边" and "I switched jobs: now I teach chemistry" say what is true now;
the recorder makes such a statement the slot's current profile fact (``source = "said"``), so the
newest value is in every prompt and the one it replaced is history (:mod:`memory.record.profile`).
A memory that set the slot before is shown marked as history ("以前" / "before"), never as the
current value. Which slot a statement sets is learned (:mod:`memory.domain.slot_model`, a
classifier trained on a generated corpus), not matched against phrases: questions set nothing,
and neither does a statement about someone else, a negated, wished or planned one.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import datetime

import numpy as np

from memory.domain import slot_model
from memory.domain.importance import said_in
from memory.domain.sentences import asks_plainly, sentences
from memory.domain.slot_corpus import SLOTS
from memory.domain.types import Layer, ProfileFact, RetrievedMemory

SAID = "said"
"""The source of a profile fact set by what the user said."""
SLOT_THRESHOLD = 0.7
"""Least probability of the most likely class for a statement to set that slot (the n-grams)."""
SLOT_THRESHOLD_WITH_VECTOR = 0.75
"""The same for both regressions combined (what an indexed interaction's vector adds). With the
written statements, each writer's left out of the training in turn, and 964 lines of small talk
no classifier trained on (the benches' filler and chit-chat), both thresholds at 0.6: 497 of the
840 slot statements found, a slot set from 47 of the 600 that set none and from 43 of the small
talk's 2,892 (three trainings); at 0.7, 454, 33 and 14. With the statements that mark each
slot's boundaries trained on too, the vector's 0.75 against 0.7: the small talk sets no slot
instead of 3 times, and the four retention scripts one may tune on lose no statement found."""
HEAD_GATE = 0.2
"""Below this chance of any slot by the vector alone, the words are not read again."""
LEAN_FLOOR = 0.1
"""Least chance of a slot, by the words, for a statement made before that slot's current value to
be shown as history (:func:`leaning_slots`)."""
ABOUT_FLOOR = 0.35
"""Least chance of the likeliest slot by the words, whatever the chance of none, for an indexed
statement of the user's own life now to be likely about it, when its vector's regression likes
that slot best too (:func:`vector_looks`). On the four retention scripts one may tune on, 0.5
finds 45 of their 64 updates likely about their slot, 0.35 finds 49; of their 120 statements that
are no update, 1 and 2; of the filler's 3,000 turns, none and 30 (5 distinct lines)."""
MIN_QUOTE_CHARS = 4
"""Least length of a summary line's statement for it to count as part of a longer stored value."""
SENTENCES_READ = 24
"""Sentences of a message read one by one for a slot (a chat message's, not a pasted document's:
a 20,000-character text would take 0.1 s of the write)."""
MAX_VALUE_CHARS = 200
"""A statement longer than this is kept as a profile value cut to the sentence that speaks most of
its slot (:func:`value_of`), itself cut to this when longer."""
_CUT_AT = re.compile(r"(?<=[。！!.])\s*")


@functools.lru_cache(maxsize=4096)
def slot_of(text: str) -> str | None:
    """The slot a plain statement sets, or None (questions, statements about someone else,
    negated, wished or planned, and other text): the shipped classifier's answer from the words,
    for the whole message, else for the first of its sentences that sets one (in a long message
    the other sentences drown the one that tells the fact, and one asks while another tells)."""
    statement = text.strip()
    model = slot_model.shipped()
    found = model.slot(statement, SLOT_THRESHOLD) if statement and not asks_plainly(statement) else None
    parts = sentences(statement)[:SENTENCES_READ] if found is None else []
    told = (model.slot(part, SLOT_THRESHOLD) for part in parts if len(parts) > 1 and not asks_plainly(part))
    return found or next((slot for slot in told if slot is not None), None)


@functools.lru_cache(maxsize=4096)
def leaning_slots(text: str) -> tuple[str, ...]:
    """Every slot a statement may speak of, even when it is likelier about none: each whose
    chance by its words is at least :data:`LEAN_FLOOR`, likeliest first (questions lean nowhere).
    Weaker evidence than :func:`slot_of`, enough to show a statement as history once the user said
    that slot changed after it; a statement can speak of two ("I drive my Skoda to work")."""
    statement = text.strip()
    if not statement or asks_plainly(statement):
        return ()
    return slot_model.shipped().leanings(statement, LEAN_FLOOR)


def vector_looks(texts: Sequence[str], vectors: Sequence[object]) -> list[tuple[bool, str | None]]:
    """Per statement, with the USE vector of its interaction as indexed (one product for a batch,
    before any statement's words are read for it):

    - whether it may set a slot by :func:`slots_with_vector` (the vector's own regression gives
      some slot at least :data:`HEAD_GATE`);
    - the slot it is likely about, sure enough or not to set it: its words' likeliest slot from
      :data:`ABOUT_FLOOR` (whatever the chance of none) in a statement of the user's own life
      now, when the vector's regression likes that slot best too (two views of the statement that
      agree). What an indexed interaction is stored as leaning to, so that a question about the
      slot finds the newest such statement ("Lately it's oat flat whites every morning for me",
      said after an older favourite drink) when no ranking would."""
    model = slot_model.shipped()
    chances = model.head_chances(vectors) if vectors else None
    if chances is None:
        return [(False, None)] * len(texts)

    def look(text: str, by_vector: Sequence[float]) -> tuple[bool, str | None]:
        maybe = bool(max(by_vector[: len(SLOTS)]) >= HEAD_GATE)
        statement = text.strip()
        slot = None if not statement or asks_plainly(statement) else model.leaning(statement, ABOUT_FLOOR)
        agreed = slot is not None and SLOTS[int(np.argmax(by_vector[: len(SLOTS)]))] == slot
        return maybe, slot if agreed and model.of_user_now(statement) else None

    return [look(text, row) for text, row in zip(texts, chances, strict=True)]


def slots_with_vector(text: str, vector: object) -> tuple[str | None, str | None]:
    """The slot a statement sets by its words alone (:func:`slot_of`) and with the USE vector of
    the interaction as indexed too (both regressions)."""
    statement = text.strip()
    if not statement or asks_plainly(statement):
        return None, None
    return slot_model.shipped().slots(statement, vector, (SLOT_THRESHOLD, SLOT_THRESHOLD_WITH_VECTOR))


def value_of(text: str, slot: str) -> str:
    """The profile value a statement setting ``slot`` is stored as: the statement, or when long
    the part of it whose words give the slot the highest chance (the first of equals). A long
    message may tell its fact in any sentence ("Moved again! We found a flat in Chorlton ...")."""
    parts = _parts(text)
    if len(parts) == 1:
        return parts[0]
    model, column = slot_model.shipped(), SLOTS.index(slot)
    chances = [float(model.probabilities(part)[column]) for part in parts]
    return parts[chances.index(max(chances))]


def values_of(text: str) -> set[str]:
    """Every value :func:`value_of` may store a statement as, whatever the slot and the weights
    (an erase finds what an older classifier stored)."""
    return set(_parts(text))


def _parts(text: str) -> list[str]:
    """The statement whitespace folded when short, else its sentences (each cut when long)."""
    statement = " ".join(text.split())
    if len(statement) <= MAX_VALUE_CHARS:
        return [statement]
    parts = [p for p in _CUT_AT.split(statement) if p] or [statement]
    return [p if len(p) <= MAX_VALUE_CHARS else p[: MAX_VALUE_CHARS - 1] + "…" for p in parts]


def said_values(memories: Sequence[RetrievedMemory]) -> set[str]:
    """The profile values the user's statements in ``memories`` would be stored as: what
    :func:`mark_superseded` looks up in the profile's history (an interaction's statement, each
    line of a summary; persona memories have none)."""
    values: set[str] = set()
    for m in memories:
        if m.entry.layer == Layer.SUMMARY:
            lines = (said_in(line) for line in m.entry.content.splitlines() if line.strip())
            values.update(value for line in lines for value in values_of(line))
        elif m.entry.layer != Layer.STATIC:
            values.update(values_of(said_in(m.entry.content)))
    return values


Related = Callable[[Sequence[tuple[str, str, str]]], Sequence[bool]]
"""Whether each ``(statement, slot, fact value)`` speaks of the same thing, judged by meaning."""
About = Callable[[str, ProfileFact], bool]
"""Whether a statement leaning to a slot speaks of the slot's current fact (its words alone do not
tell)."""


def mark_superseded(
    memories: Sequence[RetrievedMemory],
    known: Sequence[ProfileFact],
    replaced: Sequence[ProfileFact] = (),
    related: Related | None = None,
    asked: str | None = None,
) -> list[RetrievedMemory]:
    """The memories, those whose statement spoke of a slot whose current fact (in ``known``) was
    set later marked :attr:`~memory.domain.types.RetrievedMemory.superseded` (persona memories
    never). A statement spoke of a slot when it is one of the ``replaced`` values (what the
    profile kept as history; those of :func:`said_values` suffice), when the classifier says it
    sets the slot (:func:`slot_of`), or when it leans to it by its words (:func:`leaning_slots`:
    the slot changed after it, so it tells the past even when the classifier was not sure enough
    for it to set the slot) or the query ``asked`` about that slot (read only with ``related``:
    a statement's words that do not lean to the slot are no evidence), and ``related`` finds it
    speaks of the current fact.

    A summary's lines are judged one by one (:func:`outdated_lines`)."""
    current = {f.key: f for f in known if f.key in SLOTS}
    if not current:
        return list(memories)
    history = {f.value: f.key for f in replaced}
    answers: dict[tuple[str, str, str], bool] = {}
    asked = asked if related is not None else None
    if related is not None:  # every pair asked first, then answered in one batch
        pairs: dict[tuple[str, str, str], bool] = {}
        _marked(memories, current, history, lambda s, f: pairs.setdefault((s, f.key, f.value), True), asked)
        answers = dict(zip(pairs, related(list(pairs)), strict=True)) if pairs else {}
    return _marked(memories, current, history, lambda s, f: answers.get((s, f.key, f.value), True), asked)


def _marked(
    memories: Sequence[RetrievedMemory],
    current: dict[str, ProfileFact],
    history: dict[str, str],
    about: About,
    asked: str | None,
) -> list[RetrievedMemory]:
    def marked(m: RetrievedMemory) -> RetrievedMemory:
        if m.entry.layer == Layer.STATIC:
            return m
        if m.entry.layer == Layer.SUMMARY:
            quoted = outdated_lines(m.entry.content, m.entry.created_at, current, history, about, asked)
            return replace(m, outdated=quoted) if quoted else m
        said = said_in(m.entry.content)
        surely = next((history[v] for v in _parts(said) if v in history), None)
        spoken = _spoken(said, surely, asked)
        newer = [s for s in spoken if s in current and current[s].since > m.entry.created_at]
        return (
            replace(m, superseded=True)
            if any(_spoke_of(said, s, surely, current, about) for s in newer)
            else m
        )

    return [marked(m) for m in memories]


def _spoken(said: str, surely: str | None, asked: str | None) -> tuple[str, ...]:
    """The slots a statement may speak of: the one whose replaced value it is, else its leanings
    and, unless it asks, the slot the query asked about."""
    if surely:
        return (surely,)
    leanings = leaning_slots(said)
    if asked is None or asked in leanings or not said.strip() or asks_plainly(said.strip()):
        return leanings
    return (*leanings, asked)


def _spoke_of(
    said: str, slot: str | None, surely: str | None, current: dict[str, ProfileFact], about: About
) -> bool:
    """Whether a statement leaning to a ``slot`` with a current fact speaks of it: for sure (a
    value it replaced, or the classifier's slot), else when ``about`` says so."""
    if slot not in current:
        return False
    return slot in (surely, slot_of(said)) or about(said, current[slot])


def outdated_lines(
    summary: str,
    made: datetime,
    current: dict[str, ProfileFact],
    history: dict[str, str],
    about: About = lambda said, fact: True,
    asked: str | None = None,
) -> tuple[str, ...]:
    """The lines of a summary (made at ``made``) that speak of a slot as it was before its
    ``current`` fact.

    A line speaks of the slot whose replaced value (``history``: value -> slot) it quotes, or of
    the one it leans to or the query ``asked`` about when ``about`` confirms it. It is outdated
    when the slot was set after the summary was made; when the summary holds the line stating the
    current value, when it comes before that line (a summary's lines keep their order in time);
    else only when it sets the slot for sure (a replaced value, or the classifier's
    :func:`slot_of`): such a statement is not the current one, so it came first.
    """
    lines = [line for line in summary.splitlines() if line.strip()]
    said = [said_in(line).strip() for line in lines]
    stated = {
        key: next(
            (i for i, part in enumerate(said) if len(part) >= MIN_QUOTE_CHARS and part in fact.value), None
        )
        for key, fact in current.items()
    }

    def replaced(line: str, part: str) -> str | None:
        quoted = (v for v in history if v in line or (len(part) >= MIN_QUOTE_CHARS and part in v))
        return history.get(next(quoted, ""))

    def older(i: int) -> bool:
        surely = replaced(lines[i], said[i])
        return any(older_as(i, slot, surely) for slot in _spoken(said[i], surely, asked))

    def older_as(i: int, slot: str, surely: str | None) -> bool:
        if slot not in current:
            return False
        if current[slot].since > made:
            return _spoke_of(said[i], slot, surely, current, about)
        where = stated[slot]
        if where is not None:
            return i < where and _spoke_of(said[i], slot, surely, current, about)
        return slot in (surely, slot_of(said[i]))

    return tuple(line for i, line in enumerate(lines) if older(i))
