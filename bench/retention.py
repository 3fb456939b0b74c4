"""``python -m bench retention``: does the persona still know what one user told it, turns later?

A scripted user (one ``user_id``, persona karin) states the personal facts of
:mod:`bench.retention_facts`, each followed by a small-talk turn, then chats on with small talk
(:mod:`bench.filler`) through the reply path: ``retrieve(user text)``, then record the turn. The
summary job runs every 20 turns, the clean-up job every 240 (on the engine's clock, 20 turns a
day). At each checkpoint every fact question is asked of the store as the chat left it (a fresh
copy per question, so no question's decay tick changes what the next one finds). After the last
checkpoint the user updates some facts (each followed by small talk); the update questions are
asked 30 and 200 turns after the last update.

A question recalls its fact when the fact's key appears in the user's memories shown: the active
window and the RAG memories of the temporary and summary layers (the persona's static memories are
left out: karin's mention Hangzhou and Shanghai). The flat baseline ranks the same turns by
RRF(the engine's embedder, dense, + BM25 over jieba words) and shows the top ``BUDGET``, the
engine's default budget. The engine with USE alone (the default before USE + E5) runs beside.
"""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console

from bench.engine import BUDGET, DEFAULT_PROVIDER, HISTORY, Clock, Engine, Settings, embedder
from bench.filler import filler_turns, reply
from bench.recall import bm25_rankings, dense_rankings, jieba_tokens, rrf
from bench.retention_facts import FACTS, UPDATES, Probe
from bench.retention_report import render_facts, render_updates
from memory.domain.persona import SAMPLES

USER = "retention-user"
PERSONA = "karin"
SUMMARY_EVERY = 20
CLEANUP_EVERY = 240
UPDATE_OFFSETS = (30, 200)
START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


@dataclass(frozen=True)
class Turn:
    """One scripted interaction; ``name`` is the fact it states or updates."""

    user: str
    reply: str
    name: str | None = None


@dataclass(frozen=True)
class ProbePoint:
    """After ``turn`` turns, ask the fact questions (``"facts"``) or the update questions."""

    turn: int
    kind: str
    label: str


def script(checkpoints: list[int], seed: int) -> tuple[list[Turn], list[ProbePoint]]:
    """The whole chat and where it is probed."""
    import random

    rng = random.Random(seed)
    small_talk = filler_turns(seed)
    turns: list[Turn] = []
    for fact in FACTS:
        turns += [Turn(fact.statement, reply(rng, fact.lang), fact.name), Turn(*next(small_talk))]
    told = len(turns)
    while len(turns) < told + checkpoints[-1]:
        turns.append(Turn(*next(small_talk)))
    for update in UPDATES:
        turns += [Turn(update.statement, reply(rng, update.lang), update.name), Turn(*next(small_talk))]
    updated = len(turns)
    while len(turns) < updated + UPDATE_OFFSETS[-1]:
        turns.append(Turn(*next(small_talk)))
    points = [ProbePoint(told + c, "facts", f"@{c}") for c in checkpoints]
    points += [ProbePoint(updated + d, "updates", f"+{d}") for d in UPDATE_OFFSETS]
    return turns, points


def check_keys(turns: list[Turn]) -> None:
    """Every key appears only in the turn that states it (else recall could be a false hit)."""
    owners = [(f.key, f.statement) for f in FACTS] + [(u.key, u.statement) for u in UPDATES]
    for key, statement in owners:
        if key.lower() not in statement.lower():
            raise ValueError(f"key {key!r} is not in its own statement {statement!r}")
        for turn in turns:
            text = f"{turn.user}\n{turn.reply}".lower()
            if key.lower() in text and turn.user != statement:
                raise ValueError(f"key {key!r} also appears in {turn.user!r} / {turn.reply!r}")


@dataclass(frozen=True)
class Question:
    """A probe of one fact: the value to find and, for an update, the value it replaced."""

    fact: str
    key: str
    old_key: str | None
    probe: Probe
    stated_in: str


def questions_of(kind: str) -> list[Question]:
    """Every question of a kind (``"facts"`` or ``"updates"``), in order."""
    if kind == "facts":
        return [Question(f.name, f.key, None, p, f.lang) for f in FACTS for p in f.probes]
    old = {f.name: f.key for f in FACTS}
    return [Question(u.name, u.key, old[u.name], p, u.lang) for u in UPDATES for p in u.probes]


def position(key: str, texts: list[str], *, as_current: bool = False) -> int | None:
    """Index of the first shown text holding ``key`` (case-insensitive), or None; ``as_current``:
    of the first one not shown as history."""
    needle = key.lower()
    found = (i for i, text in enumerate(texts) if needle in text.lower())
    return next((i for i in found if not (as_current and texts[i].startswith(HISTORY))), None)


def _moment(turn: int) -> datetime:
    day, slot = divmod(turn - 1, SUMMARY_EVERY)
    return START + timedelta(days=day, minutes=3 * slot)


def score(point: ProbePoint, shown: list[list[str]]) -> list[dict[str, Any]]:
    """Per question of ``point``: where the new (and old) value shows in the ranked texts."""
    return [
        {
            "fact": question.fact,
            "question": question.probe.text,
            "cross_language": question.probe.lang != question.stated_in,
            "new": position(question.key, texts),
            "old": None if question.old_key is None else position(question.old_key, texts),
            "old_current": (
                None if question.old_key is None else position(question.old_key, texts, as_current=True)
            ),
        }
        for question, texts in zip(questions_of(point.kind), shown, strict=True)
    ]


def run_engine(
    turns: list[Turn],
    points: list[ProbePoint],
    *,
    forgetting: bool,
    log: Any,
    overrides: tuple[tuple[str, object], ...] = (),
    provider: str = DEFAULT_PROVIDER,
) -> dict[str, Any]:
    """Chat the script into a fresh engine; probe it at every point."""
    clock = Clock(START)
    settings = Settings(PERSONA, SAMPLES, forgetting=forgetting, retrieval=overrides, provider=provider)
    engine = Engine(settings, clock)
    at = {p.turn: p for p in points}
    result: dict[str, Any] = {"probes": {}, "counts": {}}
    try:
        for number, turn in enumerate(turns, start=1):
            clock.moment = _moment(number)
            engine.chat_turn(turn.user, turn.reply, user_id=USER, timestamp=clock.moment)
            if number % SUMMARY_EVERY == 0:
                engine.run_jobs(summary=True, cleanup=False)
            if number % CLEANUP_EVERY == 0:
                engine.run_jobs(summary=False, cleanup=True)
            point = at.get(number)
            if point is None:
                continue
            clock.moment = clock() + timedelta(minutes=1)
            queries = [q.probe.text for q in questions_of(point.kind)]
            recalled = engine.recall_each(queries, user_id=USER)
            shown = [r.ranked(without="static") for r in recalled]
            result["probes"][point.label] = score(point, shown)
            result["counts"][point.label] = vars(engine.counts())
            log(f"forgetting {'on' if forgetting else 'off'}: probed {point.label} (turn {number})")
    finally:
        engine.discard()
    return result


def run_flat(turns: list[Turn], points: list[ProbePoint]) -> dict[str, Any]:
    """The flat RRF(the engine's embedder + BM25 jieba) baseline over the same turns, top ``BUDGET``."""
    model = embedder(DEFAULT_PROVIDER)
    texts = [f"{t.user}\n{t.reply}" for t in turns]
    vectors = np.asarray(model.embed_documents(texts))
    result: dict[str, Any] = {"probes": {}, "counts": {}}
    for point in points:
        held = texts[: point.turn]
        queries = [q.probe.text for q in questions_of(point.kind)]
        dense = dense_rankings(held, queries, model, vectors[: point.turn])
        bm25 = bm25_rankings(held, queries, jieba_tokens)
        shown = [[held[i] for i in rrf(d, b)[:BUDGET]] for d, b in zip(dense, bm25, strict=True)]
        result["probes"][point.label] = score(point, shown)
    return result


def main(argv: list[str]) -> int:
    """Entry point of ``python -m bench retention``."""
    parser = argparse.ArgumentParser(prog="python -m bench retention", description=__doc__)
    parser.add_argument("--checkpoints", default="50,200,1000", help="probes, in turns after the last fact")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--out", type=Path, default=Path("data/bench-retention.json"))
    parser.add_argument("--set", action="append", default=[], help="one more engine row: retrieval x=JSON")
    args = parser.parse_args(argv)
    checkpoints = sorted(int(c) for c in args.checkpoints.split(","))
    console = Console(width=max(Console().width, 160))
    started = time.perf_counter()
    turns, points = script(checkpoints, args.seed)
    check_keys(turns)
    console.print(
        f"{len(FACTS)} facts ({sum(len(f.probes) for f in FACTS)} questions), {len(UPDATES)} updates, "
        f"{len(turns)} turns, probes at {', '.join(p.label for p in points)}"
    )

    def log(line: str) -> None:
        console.print(f"[dim]{line}[/]")

    results = {
        f"engine default ({DEFAULT_PROVIDER})": run_engine(turns, points, forgetting=True, log=log),
        "engine, forgetting off": run_engine(turns, points, forgetting=False, log=log),
        "engine with USE only (the former default)": run_engine(
            turns, points, forgetting=True, log=log, provider="use"
        ),
        f"flat RRF({DEFAULT_PROVIDER}+BM25 jieba)": run_flat(turns, points),
    }
    if args.set:
        overrides = tuple((f, json.loads(v)) for f, v in (item.split("=", 1) for item in args.set))
        row = run_engine(turns, points, forgetting=True, log=log, overrides=overrides)
        results[f"engine, {', '.join(args.set)}"] = row
    seconds = time.perf_counter() - started
    console.print(render_facts(results, [p for p in points if p.kind == "facts"]))
    console.print(render_updates(results, [p for p in points if p.kind == "updates"]))
    console.print(f"retention run took {seconds:.0f}s")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    payload = {"turns": len(turns), "budget": BUDGET, "seconds": seconds, "results": results}
    args.out.write_text(json.dumps(payload, ensure_ascii=False, indent=2), encoding="utf-8")
    return 0
