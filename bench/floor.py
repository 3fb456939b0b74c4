"""``python -m bench floor``: what the relevance floor costs questions about the user that say no
"I", and what it keeps out of the prompt for chit-chat, on two sets written apart.

- ``bench/about_user_apart.jsonl`` (40 facts, zh and en): a helper session wrote each fact as a
  user tells it, with four later questions that name no first-person pronoun: in the persona's
  name for the user ("前辈..."), about "the user" (an agent's tool call), about the topic alone,
  and a bare keyword. Each fact is told among 24 turns of the benches' filler (1,000 turns, imported,
  then the summary and clean-up jobs run once).
- ``bench/chitchat_third.jsonl`` (100 messages, zh and en, by kind): greetings, thanks, reactions,
  questions about the world or the chatbot, requests, and messages that say "me" or "我" without
  being about the user ("给我出个谜语猜猜").

Both were written from a brief, reading no file of the project, and are split once by a digest of
each text (:func:`half`): one may tune on ``tune``; ``held-out`` is reported, never tuned on. The
persona is ``karin`` (it calls the user 前辈), with forgetting off so that no question changes what
the next one finds. Columns: the floor off (every memory that ranks); on, every query held to the
bar of a query about the user (the floor of the forty-seventh session); on, for a copy of the
persona that declares no name for the user; on, as shipped.
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import shutil
import tempfile
from collections import defaultdict
from datetime import UTC, datetime, timedelta
from pathlib import Path
from unittest import mock

from rich.console import Console
from rich.table import Table

from bench.engine import DEFAULT_PROVIDER, Clock, Engine, Settings
from bench.filler import filler_turns
from memory.domain.types import Layer
from memory.personas import SAMPLES
from memory.retrieval import relevance

FACTS = Path(__file__).with_name("about_user_apart.jsonl")
CHITCHAT = Path(__file__).with_name("chitchat_third.jsonl")
HALVES = ("tune", "held-out")
FORMS = ("前辈 (the persona's name for the user)", "the user", "the topic", "a keyword")
FILLER_PER_FACT = 24
PERSONA = "karin"


def half(text: str) -> str:
    """A text's half: the parity of the first byte of its SHA-256 (even: ``tune``), fixed once."""
    return HALVES[hashlib.sha256(text.encode()).digest()[0] % 2]


def _rows(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _personas(work: Path, named: bool) -> Path:
    """The shipped personas, or a copy of ``karin`` that declares no name for the user."""
    if named:
        return SAMPLES
    folder = work / "personas" / PERSONA
    shutil.copytree(SAMPLES / PERSONA, folder)
    toml = folder / "persona.toml"
    kept = [line for line in toml.read_text(encoding="utf-8").splitlines() if "addresses_user_as" not in line]
    toml.write_text("\n".join(kept) + "\n", encoding="utf-8")
    return folder.parent


def column(
    work: Path, floor: bool, named: bool, personal: bool = False
) -> dict[tuple[str, str], list[float]]:
    """Per (half, row): 1/0 per question (its fact among the memories) or, for chit-chat, the
    memories it got (the persona's own not counted); ``personal``: every query is held to the bar
    of a query about the user (the floor before it told them apart)."""
    if personal:
        with mock.patch.object(relevance, "speaks_of_user", lambda text, terms=(): True):
            return column(work, floor, named)
    start = datetime(2026, 3, 1, 9, tzinfo=UTC)
    settings = Settings(
        PERSONA, _personas(work, named), forgetting=False, provider=DEFAULT_PROVIDER,
        retrieval=(("relevance_floor", floor),),
    )  # fmt: skip
    clock = Clock(start)
    engine = Engine(settings, clock, Path(tempfile.mkdtemp(dir=work)))
    facts, filler, turns, moment = _rows(FACTS), filler_turns(), [], start
    for fact in facts:
        for said, reply in itertools.islice(filler, FILLER_PER_FACT):
            turns.append((said, reply, moment))
            moment += timedelta(minutes=7)
        turns.append((str(fact["fact"]), "记住啦～" if fact["lang"] == "zh" else "Got it!", moment))
        moment += timedelta(minutes=7)
    found: dict[tuple[str, str], list[float]] = defaultdict(list)
    try:
        engine.import_turns(turns)
        clock.moment = moment
        engine.run_jobs()  # the summaries and the clean-up a day of chat would have run
        clock.moment = moment + timedelta(days=1)
        for fact in facts:
            told = str(fact["fact"])
            for form, question in zip(FORMS, fact["questions"], strict=True):  # type: ignore[call-overload]
                memories = engine.recall(str(question)).memories
                found[(half(told), form)].append(float(any(told[:12] in text for _, text in memories)))
        for message in _rows(CHITCHAT):
            text = str(message["text"])
            memories = [m for m in engine.recall(text).memories if m[0] != Layer.STATIC.value]
            for row in ("chit-chat, all", f"chit-chat, {message['lang']}", f"chit-chat: {message['kind']}"):
                found[(half(text), row)].append(float(len(memories)))
    finally:
        engine.discard()
    return found


def main(argv: list[str]) -> int:
    """Entry point of ``python -m bench floor``."""
    parser = argparse.ArgumentParser(prog="python -m bench floor", description=__doc__)
    parser.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="persona-memory-floor-"))
    try:
        columns = {
            "floor off": column(work, floor=False, named=True),
            "on, every query as about the user": column(work, floor=True, named=True, personal=True),
            "on, no name for the user": column(work, floor=True, named=False),
            "on (shipped)": column(work, floor=True, named=True),
        }
    finally:
        shutil.rmtree(work, ignore_errors=True)
    table = Table(title="Questions about the user without 'I' (found, of asked); chit-chat (memories, of 7)")
    for name in ("half", "row", *columns):
        table.add_column(name)
    for key in sorted(next(iter(columns.values())), key=lambda k: (HALVES.index(k[0]), "chit" in k[1], k[1])):
        cells = []
        for values in (found[key] for found in columns.values()):
            asked = key[1] in FORMS
            cells.append(f"{int(sum(values))}/{len(values)}" if asked else f"{sum(values) / len(values):.2f}")
        table.add_row(*key, *cells)
    Console(width=max(Console().width, 140)).print(table)
    return 0
