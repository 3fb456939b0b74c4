"""``python -m bench tiers``: what deep recall costs a retrieval, at 10,000 memories of one user.

Three engines hold the same synthetic interactions of one user (default config otherwise):

- ``hot only``: forgetting off (temporary decay 1.0): every memory hot, one tier searched;
- ``cold tier``: forgetting on, fast (decay 0.5 during a warm-up of retrievals), so nearly
  every memory is cold, then deep recall searches both tiers (the default);
- ``cold tier, deep recall off``: the same store, the cold tier not searched.

Retrieval p50/p95 over the benchmark queries (each retrieval a decay tick, as in a chat).
Target (issue "Memory that survives forgetting"): cold tier p50 within 1.3x of hot only.
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from bench import QUERIES, synthetic_records
from bench.perf import USER, make_config, retrieve_latency
from memory.config import MemoryConfig
from memory.manager import MemoryManager

TARGET = 1.3
DEFAULT_DECAY = MemoryConfig().temporary.decay_coefficient
err = Console(stderr=True)


def _engine(folder: Path, size: int, *, forgetting: bool) -> MemoryManager:
    config = make_config(folder, decay=0.5 if forgetting else 1.0)
    manager = MemoryManager("karin", config)
    manager.import_interactions(synthetic_records(size, user_id=USER), batch_size=2000)
    manager.flush()
    if forgetting:
        for query in QUERIES[:8]:  # each untouched memory falls below 0.1 after 3 ticks at 0.5
            manager.retrieve(query, user_id=USER)
        manager.flush()
        config.temporary.decay_coefficient = DEFAULT_DECAY  # then the default, as timed
    return manager


def run(size: int, repeats: int) -> dict[str, Any]:
    """Measure the three engines; returns the figures."""
    work = Path(tempfile.mkdtemp(prefix="bench-tiers-"))
    results: dict[str, Any] = {"size": size}
    try:
        hot = _engine(work / "hot", size, forgetting=False)
        try:
            results["hot only"] = {**retrieve_latency(hot, repeats), **_tiers(hot)}
        finally:
            hot.close()
        cold = _engine(work / "cold", size, forgetting=True)
        try:
            results["cold tier"] = {**retrieve_latency(cold, repeats), **_tiers(cold)}
            cold.config.retrieval.deep_recall = False
            cold.close()
            cold = MemoryManager("karin", cold.config)
            results["cold tier, deep recall off"] = {**retrieve_latency(cold, repeats), **_tiers(cold)}
        finally:
            cold.close()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    results["ratio"] = results["cold tier"]["p50"] / results["hot only"]["p50"]
    return results


def _tiers(manager: MemoryManager) -> dict[str, float]:
    tiers = manager.debug_state()["tiers"]["temporary"]
    return {"hot": float(tiers["hot"]), "cold": float(tiers["cold"])}


def render(results: dict[str, Any]) -> Table:
    """The table of the three engines and the verdict."""
    table = Table(title=f"Retrieval with and without the cold tier, {results['size']:,} memories, one user")
    for column in ("engine", "p50 ms", "p95 ms", "hot", "cold"):
        table.add_column(column, justify="left" if column == "engine" else "right")
    for label in ("hot only", "cold tier", "cold tier, deep recall off"):
        row = results[label]
        table.add_row(
            label, f"{row['p50']:.2f}", f"{row['p95']:.2f}", f"{row['hot']:,.0f}", f"{row['cold']:,.0f}"
        )
    verdict = "met" if results["ratio"] <= TARGET else "MISSED"
    table.caption = f"cold tier p50 / hot only p50 = {results['ratio']:.2f}x (target <= {TARGET}x: {verdict})"
    return table


def main(argv: list[str]) -> int:
    """Entry point of ``python -m bench tiers``."""
    parser = argparse.ArgumentParser(prog="python -m bench tiers", description=__doc__)
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=3, help="passes over the 50 queries")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    results = run(args.size, args.repeats)
    Console(width=140).print(render(results))
    err.log(f"tiers run took {time.perf_counter() - started:.0f}s")
    return 0
