"""``python -m bench quality --dataset PATH``: evidence recall on LoCoMo-format conversations.

Protocol (fixed so numbers compare across versions): per conversation one fresh persona store;
every turn ingested in order, consecutive turns paired into one interaction, timestamped with
the session's date; at each session boundary the summary and clean-up jobs run once with the clock
at the session's date; then every question of categories 1-4 goes through ``retrieve()`` (one
decay tick each). Recall@k: k memories from the RAG layers plus the active layer. The flat
baselines index the same interaction units and return k.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import shutil
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path

import numpy as np
from rich.console import Console
from rich.table import Table

from bench.locomo import CATEGORY_NAMES, Conversation, evidence_recall, load
from memory.config import EmbeddingConfig, MemoryConfig
from memory.embeddings import PACKAGED_MINILM, get_embeddings
from memory.manager import MemoryManager

PROVIDERS = {
    "use": EmbeddingConfig(),
    "minilm": EmbeddingConfig(provider="huggingface", model_name=PACKAGED_MINILM),
}
_WORD = re.compile(r"\w+")


@dataclass
class Score:
    """Evidence recall of one retriever at one k, per category."""

    recall: dict[int, list[float]] = field(default_factory=dict)
    complete: dict[int, list[bool]] = field(default_factory=dict)
    held: int = 0
    units: int = 0

    def add(self, category: int, recall: float, complete: bool) -> None:
        self.recall.setdefault(category, []).append(recall)
        self.complete.setdefault(category, []).append(complete)

    def mean(self, category: int | None = None) -> float:
        values = [v for c, vs in self.recall.items() if category in (None, c) for v in vs]
        return 100.0 * sum(values) / len(values) if values else 0.0

    def all_found(self) -> float:
        values = [v for vs in self.complete.values() for v in vs]
        return 100.0 * sum(values) / len(values) if values else 0.0


class Clock:
    """The replay clock handed to the engine."""

    def __init__(self) -> None:
        self.moment: datetime | None = None

    def __call__(self) -> datetime:
        assert self.moment is not None
        return self.moment


def run_engine(
    conv: Conversation,
    k: int,
    embedding: EmbeddingConfig,
    work: Path,
    *,
    mode: str,
    forgetting: bool,
    summaries: bool,
) -> Score:
    """Replay one conversation into a fresh engine and score its retrievals."""
    folder = Path(tempfile.mkdtemp(dir=work))
    (folder / "personas" / "locomo" / "static_memories").mkdir(parents=True)
    config = MemoryConfig()
    config.locale = "en"
    config.personas_dir = str(folder / "personas")
    config.embedding = EmbeddingConfig(**vars(embedding))
    config.embedding.persist_dir = str(folder / "store")
    config.archive_dir = str(folder / "archive")
    config.retrieval.mode = mode  # type: ignore[assignment]
    config.retrieval.top_k = k
    quota_summary = 2 if summaries else 0
    config.retrieval.quotas = {"temporary": k - quota_summary, "summary": quota_summary, "static": 0}
    if not forgetting:
        config.temporary.decay_coefficient = 1.0
        config.summary.decay_coefficient = 1.0
        config.summary.cleanup_ratio = 0.0
    clock = Clock()
    clock.moment = conv.sessions[0][0]
    manager = MemoryManager("locomo", config, now=clock)
    score = Score(units=len(conv.units))
    try:
        for date, units in conv.sessions:
            manager.import_interactions(
                {"user_input": u.user_input, "response": u.response, "timestamp": u.timestamp} for u in units
            )
            clock.moment = max(date, units[-1].timestamp)
            asyncio.run(manager.run_summary_now())
            asyncio.run(manager.run_cleanup_now())
        clock.moment = (clock.moment or datetime.now()) + timedelta(days=1)
        for question in conv.questions:
            result = manager.retriever.retrieve_memories(question.question)
            score.add(question.category, *evidence_recall(question, result.active_text + result.rag_text))
        state = manager.debug_state()
        score.held = state["active_count"] + state["temporary_count"] + state["summary_count"]
    finally:
        manager.close()
        shutil.rmtree(folder, ignore_errors=True)
    return score


def _tokens(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def flat_rankings(conv: Conversation, embedding: EmbeddingConfig | None) -> list[list[int]]:
    """Per question, unit indices best first: dense (exact cosine) or BM25 when embedding is None."""
    texts = [u.text for u in conv.units]
    if embedding is None:
        from rank_bm25 import BM25Okapi

        bm25 = BM25Okapi([_tokens(t) for t in texts])
        return [
            list(np.argsort(-bm25.get_scores(_tokens(q.question)), kind="stable")) for q in conv.questions
        ]
    model = get_embeddings(embedding)
    units = np.asarray(model.embed_documents(texts))
    units /= np.linalg.norm(units, axis=1, keepdims=True)
    rankings = []
    for question in conv.questions:
        vector = np.asarray(model.embed_query(question.question))
        rankings.append(list(np.argsort(-(units @ vector), kind="stable")))
    return rankings


def rrf(*rankings: list[int], k: int = 60) -> list[int]:
    """Reciprocal-rank fusion of rankings."""
    scores: dict[int, float] = {}
    for ranking in rankings:
        for rank, index in enumerate(ranking, start=1):
            scores[index] = scores.get(index, 0.0) + 1.0 / (k + rank)
    return sorted(scores, key=lambda i: -scores[i])


def score_flat(conv: Conversation, rankings: list[list[int]], k: int) -> Score:
    """Score the top k units of each ranking."""
    score = Score(units=len(conv.units), held=len(conv.units))
    for question, ranking in zip(conv.questions, rankings, strict=True):
        text = "\n".join(conv.units[i].text for i in ranking[:k])
        score.add(question.category, *evidence_recall(question, text))
    return score


def merge(scores: list[Score]) -> Score:
    """One score over several conversations."""
    total = Score()
    for score in scores:
        for category, values in score.recall.items():
            total.recall.setdefault(category, []).extend(values)
            total.complete.setdefault(category, []).extend(score.complete[category])
        total.held += score.held
        total.units += score.units
    return total


def evaluate(
    convs: list[Conversation],
    ks: list[int],
    providers: list[str],
    modes: list[str],
    work: Path,
    log: Callable[[str], None],
) -> dict[str, dict[int, Score]]:
    """Every retriever at every k, merged over conversations."""
    results: dict[str, dict[int, Score]] = {}
    bm25 = [flat_rankings(c, None) for c in convs]
    for k in ks:
        results.setdefault("flat BM25", {})[k] = merge(
            [score_flat(c, r, k) for c, r in zip(convs, bm25, strict=True)]
        )
    for name in providers:
        embedding = PROVIDERS[name]
        dense = [flat_rankings(c, embedding) for c in convs]
        for k in ks:
            results.setdefault(f"flat dense ({name})", {})[k] = merge(
                [score_flat(c, r, k) for c, r in zip(convs, dense, strict=True)]
            )
            results.setdefault(f"flat RRF({name}+BM25)", {})[k] = merge(
                [
                    score_flat(c, [rrf(dq, bq) for dq, bq in zip(d, b, strict=True)], k)
                    for c, d, b in zip(convs, dense, bm25, strict=True)
                ]
            )
        for mode in modes:
            for forgetting in (True, False):
                label = f"engine {mode} ({name}), forgetting {'on' if forgetting else 'off'}"
                for k in ks:
                    started = time.perf_counter()
                    results.setdefault(label, {})[k] = merge(
                        [
                            run_engine(
                                c, k, embedding, work, mode=mode, forgetting=forgetting, summaries=False
                            )
                            for c in convs
                        ]
                    )
                    log(f"{label} @{k}: {time.perf_counter() - started:.1f}s")
    return results


def render(results: dict[str, dict[int, Score]], ks: list[int]) -> Table:
    """The results table."""
    table = Table(title="LoCoMo evidence recall (%), categories 1-4")
    table.add_column("retriever")
    for k in ks:
        table.add_column(f"R@{k}", justify="right")
    last = ks[-1]
    for name in CATEGORY_NAMES.values():
        table.add_column(f"{name} @{last}", justify="right")
    table.add_column(f"all found @{last}", justify="right")
    table.add_column("memories held", justify="right")
    for label, by_k in results.items():
        score = by_k[last]
        table.add_row(
            label,
            *(f"{by_k[k].mean():.1f}" for k in ks),
            *(f"{score.mean(c):.1f}" for c in CATEGORY_NAMES),
            f"{score.all_found():.1f}",
            f"{score.held}/{score.units}",
        )
    return table


def main(argv: list[str]) -> int:
    """Entry point of ``python -m bench quality``."""
    parser = argparse.ArgumentParser(prog="python -m bench quality")
    parser.add_argument("--dataset", required=True, type=Path)
    parser.add_argument("--k", default="5,10", help="comma-separated k values")
    parser.add_argument("--providers", default="use,minilm", help=f"of {', '.join(PROVIDERS)}")
    parser.add_argument("--modes", default="quota,hybrid", help="engine retrieval modes")
    parser.add_argument("--limit", type=int, default=0, help="first N conversations only")
    parser.add_argument("--out", type=Path, help="write the results as JSON")
    args = parser.parse_args(argv)
    console = Console(width=max(Console().width, 160))
    ks = [int(k) for k in args.k.split(",")]
    convs = load(args.dataset)[: args.limit or None]
    console.print(
        f"{len(convs)} conversations, {sum(len(c.questions) for c in convs)} scored "
        f"questions, {sum(len(c.units) for c in convs)} interaction units"
    )
    started = time.perf_counter()
    work = Path(tempfile.mkdtemp(prefix="persona-memory-quality-"))
    try:
        results = evaluate(
            convs,
            ks,
            args.providers.split(","),
            args.modes.split(","),
            work,
            lambda line: console.print(f"[dim]{line}[/]"),
        )
    finally:
        shutil.rmtree(work, ignore_errors=True)
    console.print(render(results, ks))
    console.print(f"quality run took {time.perf_counter() - started:.0f}s")
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(
            json.dumps(
                {
                    label: {
                        str(k): {
                            "recall": s.mean(),
                            "all_found": s.all_found(),
                            "held": s.held,
                            "units": s.units,
                            **{CATEGORY_NAMES[c]: s.mean(c) for c in CATEGORY_NAMES},
                        }
                        for k, s in by_k.items()
                    }
                    for label, by_k in results.items()
                },
                indent=2,
            ),
            encoding="utf-8",
        )
    return 0
