"""``python -m bench quality --dataset PATH``: evidence recall on LoCoMo-format conversations.

Two protocols, both at the engine's default budget (the active window of 10 plus 7 memory slots)
for every row (:mod:`bench.quality_chat`). ``--protocol replay`` (the default): per conversation
one fresh persona store; each session bulk-imported in order, consecutive turns paired into one
interaction, timestamped with the session's date; at each session boundary the summary and
clean-up jobs run once with the clock at the session's date; then every question of categories
1-4 goes through ``retrieve()`` in turn (one decay tick each). ``--protocol chat`` replays the
conversation through the reply path instead. The flat baselines index the same interaction units
and show the last 10 of them plus their best 7 of the rest.
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rich.console import Console

from bench.engine import PROVIDERS, embedder
from bench.locomo import CATEGORY_NAMES, Conversation, load
from bench.recall import Ranking, Score, bm25_rankings, dense_rankings

PERSONA = "locomo"


def persona_folder(work: Path) -> Path:
    """A personas folder holding one empty persona (no static memories) for LoCoMo."""
    personas = work / "personas"
    (personas / PERSONA / "static_memories").mkdir(parents=True, exist_ok=True)
    return personas


def flat_rankings(conv: Conversation, provider: str | None) -> list[Ranking]:
    """Per question, unit indices best first: dense (exact cosine) or BM25 when provider is None."""
    texts = [u.text for u in conv.units]
    queries = [q.question for q in conv.questions]
    if provider is None:
        return bm25_rankings(texts, queries)
    return dense_rankings(texts, queries, embedder(provider))


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
                "summaries_shown": s.summaries_shown,
                "summaries_with_evidence": s.summaries_with_evidence,
                "mean_slots_filled": {n: sum(v) / len(v) for n, v in s.slots.items() if v},
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
    parser.add_argument("--providers", default="use-e5,use", help=f"of {', '.join(PROVIDERS)}")
    parser.add_argument("--ticking-questions", action="store_true", help="chat: questions tick in turn")
    parser.add_argument("--variants", default="default,off", help="engine rows (bench.quality_chat.VARIANTS)")
    parser.add_argument(
        "--set", action="append", default=[], help="one more engine row with retrieval field=JSON"
    )
    parser.add_argument("--limit", type=int, default=0, help="first N conversations only")
    parser.add_argument("--out", type=Path, help="write the results as JSON")
    parser.add_argument(
        "--before-enrichment",
        action="store_true",
        help="ask with no memory enriched (the store right after an import: cheap vectors only)",
    )
    args = parser.parse_args(argv)
    if args.before_enrichment:
        import bench.engine

        bench.engine.ENRICHED = False
    console = Console(width=max(Console().width, 160))
    convs = load(args.dataset)[: args.limit or None]
    console.print(
        f"{len(convs)} conversations, {sum(len(c.questions) for c in convs)} scored "
        f"questions, {sum(len(c.units) for c in convs)} interaction units, protocol {args.protocol}, "
        + ("BEFORE enrichment (cheap vectors only)" if args.before_enrichment else "once enriched")
    )
    started = time.perf_counter()
    work = Path(tempfile.mkdtemp(prefix="persona-memory-quality-"))
    log: Callable[[str], None] = lambda line: console.print(f"[dim]{line}[/]")  # noqa: E731
    try:
        from bench.quality_chat import VARIANTS, evaluate

        variants = [VARIANTS[name] for name in args.variants.split(",") if name]
        if args.set:
            pairs = tuple((f, json.loads(v)) for f, v in (item.split("=", 1) for item in args.set))
            settings = ", ".join(args.set).replace("{", "{{").replace("}", "}}")  # a format string
            variants.append((f"engine, {settings} ({{provider}})", True, pairs))
        replay = args.protocol == "replay"
        providers = args.providers.split(",")
        results, table = evaluate(
            convs, providers, work, log, args.ticking_questions, variants, replay=replay
        )
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
