"""``python -m bench quality --dataset PATH``: evidence recall on LoCoMo-format conversations.

Two protocols. ``--protocol replay`` (the default; fixed so numbers compare across versions): per
conversation one fresh persona store; every turn ingested in order by bulk import, consecutive
turns paired into one interaction, timestamped with the session's date; at each session boundary
the summary and clean-up jobs run once with the clock at the session's date; then every question
of categories 1-4 goes through ``retrieve()`` (one decay tick each). Recall@k: k memories from the
RAG layers plus the active layer. The flat baselines index the same interaction units and return
k. ``--protocol chat`` replays the conversation through the reply path instead (see
:mod:`bench.quality_chat`).
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
import time
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from bench.engine import PROVIDERS, Clock, Engine, Settings, embedder
from bench.locomo import CATEGORY_NAMES, Conversation, evidence_recall, load
from bench.recall import Ranking, Score, bm25_rankings, dense_rankings, merge, rrf

PERSONA = "locomo"


def persona_folder(work: Path) -> Path:
    """A personas folder holding one empty persona (no static memories) for LoCoMo."""
    personas = work / "personas"
    (personas / PERSONA / "static_memories").mkdir(parents=True, exist_ok=True)
    return personas


def run_engine(
    conv: Conversation,
    k: int,
    provider: str,
    work: Path,
    *,
    mode: str,
    forgetting: bool,
    summaries: bool,
) -> Score:
    """Replay one conversation into a fresh engine and score its retrievals."""
    quota_summary = 2 if summaries else 0
    settings = Settings(
        PERSONA,
        persona_folder(work),
        locale="en",
        provider=provider,
        forgetting=forgetting,
        mode=mode,
        quotas={"temporary": k - quota_summary, "summary": quota_summary, "static": 0},
        top_k=k,
        no_cleanup=not forgetting,
    )
    clock = Clock(conv.sessions[0][0])
    engine = Engine(settings, clock, Path(tempfile.mkdtemp(dir=work)))
    score = Score(units=len(conv.units))
    try:
        for date, units in conv.sessions:
            engine.import_turns((u.user_input, u.response, u.timestamp) for u in units)
            clock.moment = max(date, units[-1].timestamp)
            engine.run_jobs()
        clock.moment = clock() + timedelta(days=1)
        for question in conv.questions:
            recalled = engine.recall(question.question)
            score.add(question.category, *evidence_recall(question, recalled.text))
            score.shown.append(recalled.shown)
        counts = engine.counts()
        score.held = counts.active + counts.temporary + counts.summary
    finally:
        engine.discard()
    return score


def flat_rankings(conv: Conversation, provider: str | None) -> list[Ranking]:
    """Per question, unit indices best first: dense (exact cosine) or BM25 when provider is None."""
    texts = [u.text for u in conv.units]
    queries = [q.question for q in conv.questions]
    if provider is None:
        return bm25_rankings(texts, queries)
    return dense_rankings(texts, queries, embedder(provider))


def score_flat(conv: Conversation, rankings: list[Ranking], k: int) -> Score:
    """Score the top k units of each ranking."""
    score = Score(units=len(conv.units), held=len(conv.units))
    for question, ranking in zip(conv.questions, rankings, strict=True):
        text = "\n".join(conv.units[i].text for i in ranking[:k])
        score.add(question.category, *evidence_recall(question, text))
        score.shown.append(min(k, len(ranking)))
    return score


def flat_scores(
    convs: list[Conversation], ks: list[int], provider: str | None, bm25: list[list[Ranking]]
) -> dict[str, dict[int, Score]]:
    """Flat BM25 (``provider`` None), else flat dense and flat RRF(dense+BM25) of one provider."""
    if provider is None:
        return {
            "flat BM25": {
                k: merge([score_flat(c, r, k) for c, r in zip(convs, bm25, strict=True)]) for k in ks
            }
        }
    dense = [flat_rankings(c, provider) for c in convs]
    fused = [[rrf(dq, bq) for dq, bq in zip(d, b, strict=True)] for d, b in zip(dense, bm25, strict=True)]
    return {
        label: {k: merge([score_flat(c, r, k) for c, r in zip(convs, rankings, strict=True)]) for k in ks}
        for label, rankings in ((f"flat dense ({provider})", dense), (f"flat RRF({provider}+BM25)", fused))
    }


def evaluate(
    convs: list[Conversation],
    ks: list[int],
    providers: list[str],
    modes: list[str],
    work: Path,
    log: Callable[[str], None],
) -> dict[str, dict[int, Score]]:
    """Every retriever at every k, merged over conversations."""
    bm25 = [flat_rankings(c, None) for c in convs]
    results = flat_scores(convs, ks, None, bm25)
    for name in providers:
        results.update(flat_scores(convs, ks, name, bm25))
        for mode in modes:
            for forgetting in (True, False):
                label = f"engine {mode} ({name}), forgetting {'on' if forgetting else 'off'}"
                for k in ks:
                    started = time.perf_counter()
                    results.setdefault(label, {})[k] = merge(
                        [
                            run_engine(c, k, name, work, mode=mode, forgetting=forgetting, summaries=False)
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


def to_json(results: dict[str, dict[int, Score]]) -> dict[str, Any]:
    """The results as JSON-ready figures."""
    return {
        label: {
            str(k): {
                "recall": s.mean(),
                "all_found": s.all_found(),
                "held": s.held,
                "units": s.units,
                "summaries": s.summaries,
                "mean_shown": s.mean_shown(),
                **{CATEGORY_NAMES[c]: s.mean(c) for c in CATEGORY_NAMES},
            }
            for k, s in by_k.items()
        }
        for label, by_k in results.items()
    }


def main(argv: list[str]) -> int:
    """Entry point of ``python -m bench quality``."""
    parser = argparse.ArgumentParser(prog="python -m bench quality")
    parser.add_argument("--dataset", required=True, type=Path)
    parser.add_argument("--protocol", choices=("replay", "chat"), default="replay")
    parser.add_argument("--k", default="5,10", help="comma-separated k values (replay)")
    parser.add_argument(
        "--providers", default=None, help=f"of {', '.join(PROVIDERS)} (replay: use,minilm; chat: use)"
    )
    parser.add_argument("--modes", default="quota,hybrid", help="engine retrieval modes (replay)")
    parser.add_argument("--ticking-questions", action="store_true", help="chat: questions tick in turn")
    parser.add_argument(
        "--variants", default="default,off", help="chat: engine rows (bench.quality_chat.VARIANTS)"
    )
    parser.add_argument("--limit", type=int, default=0, help="first N conversations only")
    parser.add_argument("--out", type=Path, help="write the results as JSON")
    args = parser.parse_args(argv)
    console = Console(width=max(Console().width, 160))
    convs = load(args.dataset)[: args.limit or None]
    console.print(
        f"{len(convs)} conversations, {sum(len(c.questions) for c in convs)} scored "
        f"questions, {sum(len(c.units) for c in convs)} interaction units, protocol {args.protocol}"
    )
    started = time.perf_counter()
    work = Path(tempfile.mkdtemp(prefix="persona-memory-quality-"))
    log: Callable[[str], None] = lambda line: console.print(f"[dim]{line}[/]")  # noqa: E731
    try:
        if args.protocol == "chat":
            from bench.quality_chat import evaluate as evaluate_chat

            providers = (args.providers or "use").split(",")
            from bench.quality_chat import VARIANTS

            variants = [VARIANTS[name] for name in args.variants.split(",")]
            results, table = evaluate_chat(convs, providers, work, log, args.ticking_questions, variants)
        else:
            ks = [int(k) for k in args.k.split(",")]
            providers = (args.providers or "use,minilm").split(",")
            results = evaluate(convs, ks, providers, args.modes.split(","), work, log)
            table = render(results, ks)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    console.print(table)
    seconds = time.perf_counter() - started
    console.print(f"quality run took {seconds:.0f}s")
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        payload = {"protocol": args.protocol, "seconds": seconds, "results": to_json(results)}
        args.out.write_text(json.dumps(payload, indent=2), encoding="utf-8")
    return 0
