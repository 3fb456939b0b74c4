"""The LoCoMo format: conversations as interaction units, questions with evidence, scoring."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

SCORED_CATEGORIES = (1, 2, 3, 4)
CATEGORY_NAMES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
_DIA = re.compile(r"^D(\d+):(\d+)$")


@dataclass(frozen=True)
class Unit:
    """One interaction: two consecutive turns of a session (or a lone last turn)."""

    user_input: str
    response: str
    timestamp: datetime
    session: int
    dia_ids: tuple[str, ...]

    @property
    def text(self) -> str:
        """Both turns, as a flat baseline indexes them."""
        return f"{self.user_input}\n{self.response}"


@dataclass(frozen=True)
class Question:
    """A scored question (categories 1-4) and the texts of its evidence turns."""

    question: str
    category: int
    evidence: tuple[str, ...]


@dataclass(frozen=True)
class Conversation:
    """One LoCoMo sample as units grouped by session, plus its questions."""

    sample_id: str
    sessions: list[tuple[datetime, list[Unit]]]
    questions: list[Question]
    adversarial: tuple[str, ...] = ()
    """Category 5 questions: nothing in the conversation answers them (the relevance floor's probe)."""

    @property
    def units(self) -> list[Unit]:
        """Every unit in order."""
        return [u for _, units in self.sessions for u in units]


def parse_date(text: str) -> datetime:
    """``"1:56 pm on 8 May, 2023"`` as an aware UTC datetime."""
    return datetime.strptime(text.strip(), "%I:%M %p on %d %B, %Y").replace(tzinfo=UTC)


def _turn_text(turn: dict[str, Any]) -> str:
    return f"{turn['speaker']}: {turn['text']}"


def load(path: Path) -> list[Conversation]:
    """Read a LoCoMo JSON file (a list of samples)."""
    samples = json.loads(path.read_text(encoding="utf-8"))
    return [_conversation(sample) for sample in samples]


def _conversation(sample: dict[str, Any]) -> Conversation:
    conv = sample["conversation"]
    numbers = sorted(int(k.split("_")[1]) for k in conv if re.fullmatch(r"session_\d+", k))
    turns_by_id: dict[str, str] = {}
    sessions: list[tuple[datetime, list[Unit]]] = []
    for number in numbers:
        turns = conv[f"session_{number}"]
        if not turns:
            continue
        date = parse_date(conv[f"session_{number}_date_time"])
        units: list[Unit] = []
        for index in range(0, len(turns), 2):
            pair = turns[index : index + 2]
            for turn in pair:
                turns_by_id[turn["dia_id"]] = turn["text"]
            texts = [_turn_text(t) for t in pair]
            units.append(
                Unit(
                    user_input=texts[0],
                    response=texts[1] if len(texts) > 1 else "…",
                    timestamp=date + timedelta(seconds=index),
                    session=number,
                    dia_ids=tuple(t["dia_id"] for t in pair),
                )
            )
        sessions.append((date, units))
    questions = []
    adversarial = tuple(str(qa["question"]) for qa in sample["qa"] if int(qa.get("category", 0)) == 5)
    for qa in sample["qa"]:
        category = int(qa.get("category", 0))
        evidence = [e for e in qa.get("evidence", []) if isinstance(e, str) and _DIA.match(e)]
        if category not in SCORED_CATEGORIES or not evidence:
            continue
        if any(e not in turns_by_id for e in evidence):
            continue  # malformed evidence ids: skipped, as in the reference table
        questions.append(Question(str(qa["question"]), category, tuple(turns_by_id[e] for e in evidence)))
    return Conversation(str(sample["sample_id"]), sessions, questions, adversarial)


def evidence_recall(question: Question, retrieved_text: str) -> tuple[float, bool]:
    """Fraction of the evidence turns whose text appears in what was retrieved, and all-found."""
    found = sum(1 for text in question.evidence if text in retrieved_text)
    return found / len(question.evidence), found == len(question.evidence)
