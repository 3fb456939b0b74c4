"""``python -m bench madial --data DIR``: Chinese memory recall on MADial-Bench (zh dev half).

The task a persona bot faces on every turn: the conversation so far is the query, the user's life
events are the memories, and the memories that matter at the test turn are known. Per user one
store; each event is remembered (a pinned memory of that user) as the string of its {scene,
emotion, event} dict, the text the benchmark's own embedders embedded. Each dialogue is asked as
the engine would be asked in a chat: its turns up to the test turn, as a dialogue query. Scored
as the benchmark's ``embedding_score_new.py``: recall@k = |top k and relevant| / |relevant|, and
nDCG@5, means in %. Beside the engine: the same engine asked the whole dialogue as one string,
its embedder alone (exact cosine over the same texts, whole dialogue as one query), BM25 over
jieba words, and the benchmark's published embedders' top-20 lists for the same dialogues.

The floor probe: the 50 chit-chat queries of :mod:`bench.chitchat` asked of each user's store;
the mean number of memory slots filled.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import shutil
import tempfile
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console
from rich.table import Table

from bench.chitchat import CHITCHAT
from bench.engine import DEFAULT_PROVIDER, Clock, Engine, Settings, embedder
from bench.recall import bm25_rankings, jieba_tokens

KS = (1, 3, 5, 7)
HALVES = ("tune", "held")
"""The dev dialogues split once, by a hash of their id: changes are tuned on ``tune``; ``held``
is reported beside it, untouched, to show what a change fits rather than finds."""


def half_of(dialogue_id: int) -> str:
    """The half a dialogue belongs to (fixed: a hash of its id, not its position)."""
    return HALVES[hashlib.blake2b(str(dialogue_id).encode(), digest_size=1).digest()[0] % 2]


PERSONA = "madial"
ANCHORS = {
    "BGE-M3 dense": "BGE_M3_dense_zh_top_20_ids-dev.json",
    "BGE-M3 colbert": "BGE_M3_colbert_zh_top_20_ids-dev.json",
    "Stella-large-zh": "Stella_zh_top_20_ids-dev.json",
    "Dmeta-zh": "Dmeta_zh_top_20_ids-dev.json",
    "Acge": "Acge_zh_top_20_ids-dev.json",
    "OpenAI text-embedding-3-large": "openai_zh_top_20_ids-dev.json",
}


@dataclass(frozen=True)
class Dialogue:
    """One test dialogue: the turns before the test turn, the relevant memory ids, the user."""

    id: int
    turns: list[str]
    relevant: list[int]
    user: int


def memory_text(event: dict[str, Any]) -> str:
    """A memory as the benchmark's embedders saw it: the string of its {scene, emotion, event}."""
    return str({key: event[key] for key in ("scene", "emotion", "event")})


def load(folder: Path) -> tuple[dict[int, dict[str, Any]], list[Dialogue]]:
    """The memories by id and the dialogues of the dev half."""
    memories: dict[int, dict[str, Any]] = {}
    for line in (folder / "MADial-Bench-zh-memory.json").read_text(encoding="utf-8").splitlines():
        if line.strip():
            memories.update({int(k): v for k, v in json.loads(line).items()})
    dialogues = []
    for line in (folder / "MADial-Bench-zh-dialogue-dev.json").read_text(encoding="utf-8").splitlines():
        if line.strip():
            raw = json.loads(line)
            t = int(raw["test-turn"][0])
            turns = [turn.strip() for turn in raw["dialogue"][1:t] if turn.strip()]
            dialogues.append(
                Dialogue(int(raw["id"]), turns, [int(i) for i in raw["relevant-id"]], int(raw["user-id"]))
            )
    return memories, dialogues


def split_scores(rankings: dict[int, list[int]], dialogues: list[Dialogue]) -> dict[str, dict[str, float]]:
    """:func:`scores` on the whole set and on each half."""
    found = {"all": scores(rankings, dialogues)}
    for half in HALVES:
        found[half] = scores(rankings, [d for d in dialogues if half_of(d.id) == half])
    return found


def scores(rankings: dict[int, list[int]], dialogues: list[Dialogue]) -> dict[str, float]:
    """Recall@k and nDCG@5 in %, means over the dialogues (a missing ranking scores 0)."""
    recall: dict[int, list[float]] = {k: [] for k in KS}
    ndcg: list[float] = []
    for dialogue in dialogues:
        ranked, relevant = rankings.get(dialogue.id, []), set(dialogue.relevant)
        for k in KS:
            recall[k].append(len(set(ranked[:k]) & relevant) / len(relevant))
        gain = sum(1 / math.log2(i + 2) for i, mid in enumerate(ranked[:5]) if mid in relevant)
        ideal = sum(1 / math.log2(i + 2) for i in range(min(5, len(relevant))))
        ndcg.append(gain / ideal)
    result = {f"R@{k}": 100 * float(np.mean(v)) for k, v in recall.items()}
    result["nDCG@5"] = 100 * float(np.mean(ndcg))
    return result


def engine_rankings(
    memories: dict[int, dict[str, Any]],
    dialogues: list[Dialogue],
    work: Path,
    *,
    as_dialogue: bool,
    overrides: tuple[tuple[str, object], ...] = (),
    provider: str = DEFAULT_PROVIDER,
) -> tuple[dict[int, list[int]], dict[str, float]]:
    """The engine's top 7 per dialogue (memory ids), and the chit-chat slots filled per user."""
    personas = work / "personas"
    (personas / PERSONA / "static_memories").mkdir(parents=True, exist_ok=True)
    clock = Clock(max(_day(m["time"]) for m in memories.values()))
    engine = Engine(
        Settings(PERSONA, personas, locale="zh", retrieval=overrides, provider=provider),
        clock,
        Path(tempfile.mkdtemp(dir=work)),
    )
    by_text: dict[str, int] = {}
    try:
        manager = engine.manager
        assert manager is not None
        for mid, event in sorted(memories.items()):
            manager.remember(memory_text(event), user_id=str(event["user-id"]))
            by_text[memory_text(event)] = mid
        manager.flush()
        rankings = {}
        for dialogue in dialogues:
            query: str | list[str] = dialogue.turns if as_dialogue else "".join(dialogue.turns)
            recalled = engine.recall(query, user_id=str(dialogue.user))
            rankings[dialogue.id] = [by_text[text] for _, text in recalled.memories if text in by_text]
        users = sorted({str(m["user-id"]) for m in memories.values()})
        filled = {
            user: float(np.mean([len(engine.recall(q, user_id=user).memories) for q in CHITCHAT]))
            for user in users
        }
    finally:
        engine.discard()
    return rankings, filled


def _day(text: str) -> datetime:
    return datetime.strptime(text, "%Y-%m-%d").replace(tzinfo=UTC)


def flat_rankings(
    memories: dict[int, dict[str, Any]], dialogues: list[Dialogue]
) -> dict[str, dict[int, list[int]]]:
    """Each embedder alone (exact cosine, whole dialogue as one query: the engine's, and USE, its
    former default) and BM25 (jieba)."""
    models = {
        "USE + E5 alone (the engine's embedder)": embedder(DEFAULT_PROVIDER),
        "USE alone": embedder("use"),
    }
    dense: dict[str, dict[int, list[int]]] = {name: {} for name in models}
    bm25: dict[int, list[int]] = {}
    for user in sorted({m["user-id"] for m in memories.values()}):
        ids = [mid for mid, m in sorted(memories.items()) if m["user-id"] == user]
        texts = [memory_text(memories[mid]) for mid in ids]
        asked = [d for d in dialogues if d.user == user]
        queries = ["".join(d.turns) for d in asked]
        for name, model in models.items():
            matrix = np.asarray(model.embed_documents(texts))
            for dialogue, query in zip(asked, queries, strict=True):
                vector = np.asarray(model.embed_query(query))
                dense[name][dialogue.id] = [ids[i] for i in np.argsort(-(matrix @ vector), kind="stable")]
        for dialogue, ranking in zip(asked, bm25_rankings(texts, queries, jieba_tokens), strict=True):
            bm25[dialogue.id] = [ids[i] for i in ranking]
    return {
        **{f"{name}, whole dialogue": rankings for name, rankings in dense.items()},
        "BM25 (jieba words), whole dialogue": bm25,
    }


def anchor_rankings(folder: Path) -> dict[str, dict[int, list[int]]]:
    """The benchmark's published embedders' top-20 lists, by name."""
    found = {}
    for name, file in ANCHORS.items():
        path = folder / file
        if path.exists():
            rows = [
                json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()
            ]
            found[f"{name} (published top 20)"] = {
                int(r["id"]): [int(i) for i in r["top_20_ids"]] for r in rows
            }
    return found


def main(argv: list[str]) -> int:
    """Entry point of ``python -m bench madial``."""
    parser = argparse.ArgumentParser(prog="python -m bench madial")
    parser.add_argument("--data", type=Path, default=Path("../shared/bench/madial-zh-dev"))
    parser.add_argument("--out", type=Path, help="write the results as JSON")
    parser.add_argument("--set", action="append", default=[], help="a retrieval setting, field=JSON value")
    parser.add_argument("--before-enrichment", action="store_true", help="cheap vectors only (no enrichment)")
    args = parser.parse_args(argv)
    if args.before_enrichment:
        import bench.engine

        bench.engine.ENRICHED = False
    overrides = tuple((f, json.loads(v)) for f, v in (item.split("=", 1) for item in args.set))
    console = Console(width=max(Console().width, 140))
    memories, dialogues = load(args.data)
    started = time.perf_counter()
    work = Path(tempfile.mkdtemp(prefix="persona-memory-madial-"))
    results: dict[str, dict[str, dict[str, float]]] = {}
    floor: dict[str, dict[str, float]] = {}
    try:
        rows = (
            (True, "engine default, dialogue query", (), DEFAULT_PROVIDER),
            (False, "engine default, one string", (), DEFAULT_PROVIDER),
            (
                True,
                "engine, relevance floor on, dialogue query",
                (("relevance_floor", True),),
                DEFAULT_PROVIDER,
            ),
            (True, "engine with USE only (the former default), dialogue query", (), "use"),
        )
        for as_dialogue, label, extra, provider in rows:
            rankings, floor[label] = engine_rankings(
                memories,
                dialogues,
                work,
                as_dialogue=as_dialogue,
                overrides=(*overrides, *extra),
                provider=provider,
            )
            results[label] = split_scores(rankings, dialogues)
        for label, rankings in {**flat_rankings(memories, dialogues), **anchor_rankings(args.data)}.items():
            results[label] = split_scores(rankings, dialogues)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    sizes = {h: sum(1 for d in dialogues if half_of(d.id) == h) for h in HALVES}
    table = Table(
        title=f"MADial-Bench zh dev: {len(dialogues)} dialogues ({sizes['tune']} tune / {sizes['held']} "
        f"held aside), {len(memories)} memories, recall (%)"
    )
    table.add_column("retriever")
    columns = [(h, f"R@{k}") for h in ("all", *HALVES) for k in KS] + [("all", "nDCG@5")]
    for half, column in columns:
        table.add_column(f"{half} {column}", justify="right")
    for label, row in results.items():
        table.add_row(label, *(f"{row[h][c]:.1f}" for h, c in columns))
    table.caption = (
        "Engine rows: the top 7 memory slots (the relevance floor may leave some empty; an empty slot "
        "scores nothing). Chit-chat probe, memory slots filled per query (mean, per user): "
        + "; ".join(f"{label}: {filled}" for label, filled in floor.items())
    )
    console.print(table)
    seconds = time.perf_counter() - started
    console.print(f"madial run took {seconds:.0f}s")
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        payload = {"seconds": seconds, "results": results, "chit_chat_slots": floor}
        args.out.write_text(json.dumps(payload, indent=2, ensure_ascii=False), encoding="utf-8")
    return 0
