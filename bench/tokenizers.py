"""``python -m bench tokenizers``: jieba words vs FTS5 trigrams on the Chinese sample dialogue.

For each tokenizer: a fresh engine in hybrid mode replays the karin sample dialogue (days apart,
so active overflows), then each sample question is asked twice: through the keyword index alone
(top 3 FTS5 bm25 hits over every layer) and through hybrid retrieval. A question counts as found
when its expected keyword appears in what came back.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from rich.console import Console
from rich.table import Table

from memory.config import MemoryConfig
from memory.demo import load_sample, timeline
from memory.domain import tokens
from memory.manager import MemoryManager
from memory.personas import SAMPLES

REPO_PERSONAS = SAMPLES


def measure(tokenizer: str, personas_dir: Path) -> dict[str, float]:
    """Keyword-only and hybrid hits, and the query-side cost, for one tokenizer."""
    work = Path(tempfile.mkdtemp(prefix="persona-memory-tok-"))
    config = MemoryConfig()
    config.personas_dir = str(personas_dir)
    config.data_dir = str(work / "store")
    config.archive_dir = str(work / "archive")
    config.retrieval.mode = "hybrid"  # type: ignore[assignment]
    config.retrieval.keyword_tokenizer = tokenizer
    sample = load_sample()
    manager = MemoryManager("karin", config)
    try:
        manager.import_interactions(
            {"user_input": i["user_input"], "response": i["response"], "timestamp": t}
            for i, t in zip(sample["interactions"], timeline(sample, datetime.now(UTC)), strict=True)
        )
        keyword_hits = hybrid_hits = 0
        started = time.perf_counter()
        for question in sample["questions"]:
            terms = tokens.query_terms(question["query"], tokenizer)
            texts: list[str] = []
            for layer in ("temporary", "summary"):
                hits = manager._engine.retriever.keywords.search(terms, layer=layer, scope="", limit=3)
                found = manager._engine.entries.by_ids(None, [entry_id for entry_id, _ in hits])
                texts.extend(e.content for e in found)
            keyword_hits += any(question["keyword"] in t for t in texts)
        keyword_ms = (time.perf_counter() - started) * 1000 / len(sample["questions"])
        for question in sample["questions"]:
            result = manager.retrieve_memories(question["query"])
            hybrid_hits += question["keyword"] in result.rag_text + result.active_text
        return {
            "questions": len(sample["questions"]),
            "keyword_only_top3": keyword_hits,
            "hybrid": hybrid_hits,
            "keyword_query_ms": keyword_ms,
        }
    finally:
        manager.close()
        shutil.rmtree(work, ignore_errors=True)


def main(argv: list[str]) -> int:
    """Entry point of ``python -m bench tokenizers``."""
    personas_dir = Path(argv[0]) if argv else REPO_PERSONAS
    table = Table(title="keyword tokenizers on the Chinese sample dialogue (karin)")
    for column in (
        "tokenizer",
        "questions",
        "found by keywords alone (top 3)",
        "found by hybrid",
        "keyword query ms",
    ):
        table.add_column(column)
    for tokenizer in (tokens.JIEBA, tokens.TRIGRAM):
        row = measure(tokenizer, personas_dir)
        table.add_row(
            tokenizer,
            str(int(row["questions"])),
            str(int(row["keyword_only_top3"])),
            str(int(row["hybrid"])),
            f"{row['keyword_query_ms']:.2f}",
        )
    Console(width=120).print(table)
    return 0
