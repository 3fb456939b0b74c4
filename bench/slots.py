"""``python -m bench slots``: the shipped slot classifier on statements it never trained on, and
on those it did.

Sets of statements that set a slot of the user's own life or statements that set
none (about someone else, negated, wished, asked, planned, past only, small talk, other facts):

- the retention bench's scripts (:data:`bench.retention.HALVES`), every fact, update and
  non-update statement, read as single statements;
- a set written apart (``bench/slots_apart.jsonl``, 480 lines, zh and en): a helper session wrote
  it from a brief (the 14 slots and the forms of "none") without reading any file of the project;
- episodes and changes written apart (``bench/episodes_apart.jsonl``, 252 lines, zh and en), by
  another helper session from a brief, reading no file of the project: per slot and language six
  one-off episodes that touch the slot and set none (a meal tonight, a taxi in the rain, a game
  watched) and three changes of the user's own value. Split once by a digest of each text
  (:func:`episodes`): one may tune on the first half; the second is reported, never tuned on;
- the sets written to train on, by five other helper sessions (``memory/samples/
  slot_statements.jsonl``, 2,407 lines, :mod:`memory.domain.slot_written`): the classifier trains
  on them, so their row shows what it learned, not how it carries;
- small talk: the distinct lines of the benches' filler (:mod:`bench.filler`) and the chit-chat
  queries (:mod:`bench.chitchat`), none of which sets a slot.

Each statement is judged twice, as the engine does: by its words alone (a write) and as indexed,
where the USE vector of the interaction adds to the words (:mod:`memory.write.said_slots`).
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console
from rich.table import Table

from bench.chitchat import CHITCHAT, CHITCHAT_APART
from bench.filler import filler_turns
from bench.recall import share
from bench.retention import HALVES
from bench.retention_sets import Script
from memory.domain import slots
from memory.domain.slot_corpus import NONE
from memory.index.use import UniversalSentenceEncoderEmbeddings
from memory.write.slot_training import as_indexed

APART = Path(__file__).with_name("slots_apart.jsonl")
EPISODES = Path(__file__).with_name("episodes_apart.jsonl")
HALVES_OF_EPISODES = ("tune", "held-out")
WRITTEN = Path(__file__).parent.parent / "memory" / "samples" / "slot_statements.jsonl"
FILLER_TURNS = 3000


@dataclass(frozen=True)
class Statement:
    text: str
    label: str  # a slot, or "none"
    form: str


def of_script(half: Script) -> list[Statement]:
    """A retention half's statements: facts (their slot, or none), updates (their fact's slot),
    statements that are no update (none)."""
    slot_of_fact = {fact.name: fact.slot or NONE for fact in half.facts}
    return [
        *(Statement(f.statement, f.slot or NONE, "fact" if f.slot else "other_fact") for f in half.facts),
        *(Statement(u.statement, slot_of_fact[u.name], "update") for u in half.updates),
        *(Statement(n.text, NONE, n.kind) for n in half.non_updates),
    ]


def written(path: Path) -> list[Statement]:
    """A written set: one JSON object a line (text, label, lang, form)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return [Statement(row["text"], row["label"], row["form"]) for row in map(json.loads, lines)]


def episodes(half: str) -> list[Statement]:
    """One half of the episodes and changes written apart: a text's half is the parity of the first
    byte of its SHA-256 (even: ``tune``), fixed once for every later run."""
    wanted = HALVES_OF_EPISODES.index(half)
    return [s for s in written(EPISODES) if hashlib.sha256(s.text.encode()).digest()[0] % 2 == wanted]


def small_talk() -> list[Statement]:
    """The filler's distinct lines and the chit-chat queries."""
    filler = dict.fromkeys(text for text, _ in itertools.islice(filler_turns(), FILLER_TURNS))
    return [Statement(text, NONE, "smalltalk") for text in [*filler, *CHITCHAT, *CHITCHAT_APART]]


def judged(
    statements: Sequence[Statement], use: UniversalSentenceEncoderEmbeddings
) -> list[tuple[str | None, str | None]]:
    """Per statement, the slot it sets by its words alone and as indexed."""
    vectors = use.embed_documents(as_indexed([s.text for s in statements]))
    looks = slots.vector_looks([s.text for s in statements], vectors)
    verdicts = []
    for statement, vector, (maybe, _) in zip(statements, vectors, looks, strict=True):
        by_words = slots.slot_of(statement.text)
        with_vector = slots.slots_with_vector(statement.text, vector)[1] if maybe else None
        verdicts.append((by_words, by_words or with_vector))
    return verdicts


def row(statements: Sequence[Statement], verdicts: Sequence[tuple[str | None, str | None]]) -> list[str]:
    """Found (words; as indexed), a wrong slot, and statements of none that set one (by form)."""
    told = [(s, v) for s, v in zip(statements, verdicts, strict=True) if s.label != NONE]
    other = [(s, v) for s, v in zip(statements, verdicts, strict=True) if s.label == NONE]
    forms = Counter(s.form for s, (_, slot) in other if slot is not None)
    return [
        share(sum(v[0] == s.label for s, v in told), len(told)),
        share(sum(v[1] == s.label for s, v in told), len(told)),
        str(sum(v[1] not in (None, s.label) for s, v in told)),
        share(sum(forms.values()), len(other)),
        ", ".join(f"{form} {count}" for form, count in forms.most_common()) or "-",
    ]


def main(argv: list[str]) -> int:
    """Entry point of ``python -m bench slots``."""
    parser = argparse.ArgumentParser(prog="python -m bench slots", description=__doc__)
    parser.parse_args(argv)
    use = UniversalSentenceEncoderEmbeddings(threads=2)
    table = Table(title="The slot classifier on statements it never trained on (and on those it did)")
    for column in (
        "set",
        "slot statements found: words",
        "as indexed",
        "wrong slot",
        "statements of none that set a slot",
        "by form",
    ):
        table.add_column(column)
    sets = {
        **{f"retention {name}": of_script(half) for name, half in HALVES.items()},
        "written apart": written(APART),
        **{f"episodes and changes apart, {half}": episodes(half) for half in HALVES_OF_EPISODES},
        "written to train on (trained on)": written(WRITTEN),
        "small talk": small_talk(),
    }
    for name, statements in sets.items():
        table.add_row(name, *row(statements, judged(statements, use)))
    Console(width=max(Console().width, 160)).print(table)
    return 0
