"""Statements written by hand for the slot classifier (:mod:`memory.domain.slot_model`).

``memory/samples/slot_statements.jsonl`` holds chat messages that five helper sessions wrote
from a brief (the slots, the forms of a statement that sets none), each for another kind of user,
reading no file of the project: other hands than the generator's of
:mod:`memory.domain.slot_corpus`, so the classifier learns more than one idea of how people say
things. Three wrote the slots and the forms that set none; two more wrote each slot's boundaries,
what is near a slot but sets none (a "near miss": a one-off episode, a goal or a mood about the
slot's area, a temporary situation). Each line has its text, its label (a slot or "none"), its
language and its form: an update or a state of the user's own life, or said of someone else,
negated, wished, asked, planned, past only, a near miss, small talk, another fact.
"""

from __future__ import annotations

import json
from importlib import resources

WRITTEN = "slot_statements.jsonl"
FORMS = ("said", "not")
"""The classes of a statement's form (:func:`forms`)."""
SAID_FORMS = ("update", "state")
NOT_SAID_FORMS = ("third_person", "negation", "hypothetical", "question", "plan", "past_only")


def written() -> list[tuple[str, str]]:
    """The statements written by hand, ``(text, slot or "none")``."""
    return [(row["text"], row["label"]) for row in _written_rows()]


def written_forms() -> list[tuple[str, str]]:
    """The written statements that speak of a slot's kind of value, by form ``(text, "said" or
    "not")``: said of the user as true now, or of someone else, negated, wished, asked, planned
    or past only (small talk and other facts have no such form)."""
    said, other = FORMS
    return [
        (row["text"], said if row["form"] in SAID_FORMS else other)
        for row in _written_rows()
        if row["form"] in SAID_FORMS or row["form"] in NOT_SAID_FORMS
    ]


def _written_rows() -> list[dict[str, str]]:
    lines = resources.files("memory.samples").joinpath(WRITTEN).read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]
