"""``python -m bench users``: many light users in one embedded engine (issue "Many users").

``--users`` users (default 10,000) x ``--per-user`` interactions (default 20) of synthetic
Chinese and English chat, default config. Measured in one run, one process:

- bulk load: ``import_interactions`` of every interaction, then ``flush()`` until the vector
  index holds every overflowed memory (end to end, interactions per second);
- live path: ``record_interaction_sync`` of 2,000 more interactions across random users, then
  ``flush()`` (what a chatbot backend does, end to end);
- retrieval p50/p95 for random users, next to a flat ``langchain_chroma`` similarity search over
  the same memories (one collection, same vectors, no users), the two taking turns query by query;
- open file descriptors, resident memory, collections and disk after the load;
- a fresh manager on the same folder: open time and its first retrieval.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from bench import QUERIES, folder_bytes, latency_ms, paired_latency, repo_root, synthetic_texts
from bench.perf import make_config
from memory.config import MemoryConfig
from memory.manager import MemoryManager

TARGETS = {"fds": 200, "rss_mb": 1536, "rate": 300.0, "vs_flat": 1.5, "first_retrieval_s": 2.0}
LIVE_RECORDS = 2000
RETRIEVALS = 300
err = Console(stderr=True)


def _records(users: int, per_user: int) -> Any:
    """Interactions round-robin over the users (as they arrive in a chat backend)."""
    rng = random.Random(5)
    for turn in range(per_user):
        for user in range(users):
            user_input, response = synthetic_texts(rng)
            yield {"user_input": f"{user_input}（第{turn}次）", "response": response, "user_id": f"u{user}"}


def _resident_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def _load(manager: MemoryManager, users: int, per_user: int) -> dict[str, float]:
    total = users * per_user
    started = time.perf_counter()
    done = {"n": 0, "next": total // 10}

    def progress(batch: int) -> None:
        done["n"] += batch
        if done["n"] >= done["next"]:
            err.log(f"  imported {done['n']:,}/{total:,}")
            done["next"] += total // 10

    manager.import_interactions(_records(users, per_user), batch_size=2000, progress=progress)
    manager.flush()
    seconds = time.perf_counter() - started
    return {"interactions": float(total), "seconds": seconds, "rate": total / seconds}


def _live(manager: MemoryManager, users: int) -> dict[str, float]:
    rng = random.Random(9)
    started = time.perf_counter()
    durations = []
    for _ in range(LIVE_RECORDS):
        user_input, response = synthetic_texts(rng)
        call = time.perf_counter()
        manager.record_interaction_sync(user_input, response, user_id=f"u{rng.randrange(users)}")
        durations.append(time.perf_counter() - call)
    manager.flush()
    seconds = time.perf_counter() - started
    return {"seconds": seconds, "rate": LIVE_RECORDS / seconds, **latency_ms(durations)}


def _retrievals(manager: MemoryManager, users: int) -> None:
    """Retrievals for random users before the engine's files and memory are counted (not timed:
    :func:`_timed` times them beside the flat search)."""
    rng = random.Random(13)
    for _ in range(RETRIEVALS):
        manager.retrieve(rng.choice(QUERIES), user_id=f"u{rng.randrange(users)}")


def _timed(manager: MemoryManager, config: MemoryConfig, folder: Path, users: int) -> dict[str, Any]:
    """Retrieval for random users and a flat search over a copy of every memory, taking turns
    query by query (:func:`bench.paired_latency`)."""
    from bench.flat import FlatBaseline, engine_hnsw

    parts = manager._engine  # the bench reads the engine's own collections to copy them
    backend = next(iter(parts.layers.rag.values())).stores.backend
    names = [name for rag in parts.layers.rag.values() for name in sorted(rag.stores.existing_names())]
    baseline = FlatBaseline(folder, parts.embeddings, engine_hnsw(config.store))
    try:
        copied, _ = baseline.copy_from([backend.collection(name) for name in names])
        k = sum(int(v) for v in config.retrieval.quotas.values())
        flat, rng = baseline.store, random.Random(17)
        queries = [rng.choice(QUERIES) for _ in range(RETRIEVALS)]
        timed = paired_latency(
            {
                "engine": lambda query: manager.retrieve(query, user_id=f"u{rng.randrange(users)}"),
                "flat": lambda query: flat.similarity_search(query, k=k),
            },
            queries,
            repeats=1,
        )
        return {"count": copied, **timed}
    finally:
        baseline.close()


def run(users: int, per_user: int) -> dict[str, Any]:
    """Measure everything in a temporary folder under ``data/``; returns the figures."""
    os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
    base = repo_root() / "data"
    base.mkdir(exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="bench-users-", dir=base))
    results: dict[str, Any] = {"users": users, "per_user": per_user, "cpus": os.cpu_count()}
    config = make_config(work)
    try:
        manager = MemoryManager("karin", config)
        try:
            err.log(f"{users:,} users x {per_user}: bulk load")
            results["load"] = _load(manager, users, per_user)
            err.log("live records")
            results["live"] = _live(manager, users)
            err.log("retrieval")
            _retrievals(manager, users)
            results["fds"] = len(os.listdir("/proc/self/fd"))
            results["rss_mb"] = _resident_mb()
            results["collections"] = len(manager.inspector.collection_names())
            results["temporary"] = manager.debug_state(user_id="u0")["temporary_count"]
            err.log("retrieval beside the flat baseline")
            timed = _timed(manager, config, work / "flat", users)
            results["retrieve"] = timed["engine"]
            results["flat"] = {"count": timed["count"], **timed["flat"]}
        finally:
            manager.close()
        results["disk_mb"] = folder_bytes(Path(config.data_dir), Path(config.archive_dir)) / 1e6
        opened = time.perf_counter()
        fresh = MemoryManager("karin", config)
        try:
            results["open_s"] = time.perf_counter() - opened
            started = time.perf_counter()
            fresh.retrieve(QUERIES[0], user_id="u7")
            results["first_retrieval_s"] = time.perf_counter() - started
        finally:
            fresh.close()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return results


def render(results: dict[str, Any]) -> Table:
    """One table: each figure, its target, met or missed."""
    ok = {
        "fds": results["fds"] < TARGETS["fds"],
        "rss": results["rss_mb"] < TARGETS["rss_mb"],
        "rate": results["load"]["rate"] >= TARGETS["rate"],
        "live": results["live"]["rate"] >= TARGETS["rate"],
        "flat": results["retrieve"]["p50"] <= TARGETS["vs_flat"] * results["flat"]["p50"],
        "first": results["first_retrieval_s"] < TARGETS["first_retrieval_s"],
    }
    verdict = {k: "[green]met[/]" if v else "[red]MISSED[/]" for k, v in ok.items()}
    n = f"{results['users']:,} users x {results['per_user']}"
    table = Table(title=f"persona-memory, many users: {n} (embedded, default config, one run)")
    for column in ("metric", "value", "target", "status"):
        table.add_column(column)
    load, live, ret, flat = results["load"], results["live"], results["retrieve"], results["flat"]
    table.add_row(
        "bulk load end to end (import + index), interactions/s",
        f"{load['rate']:,.0f} ({load['seconds']:.0f} s)",
        ">= 300",
        verdict["rate"],
    )
    table.add_row(
        f"live record_interaction_sync x {LIVE_RECORDS:,} + index, interactions/s (call p50/p95 ms)",
        f"{live['rate']:,.0f} ({live['p50']:.1f} / {live['p95']:.1f})",
        ">= 300",
        verdict["live"],
    )
    table.add_row("retrieve p50 / p95 ms, random users", f"{ret['p50']:.2f} / {ret['p95']:.2f}", "", "")
    table.add_row(
        f"flat similarity_search p50 / p95 ms, {flat['count']:,} memories, one collection",
        f"{flat['p50']:.2f} / {flat['p95']:.2f}",
        "",
        "",
    )
    table.add_row(
        "retrieve p50 / flat p50",
        f"{ret['p50'] / flat['p50']:.2f}x",
        f"<= {TARGETS['vs_flat']}x",
        verdict["flat"],
    )
    table.add_row("open file descriptors", str(results["fds"]), "< 200", verdict["fds"])
    table.add_row("resident memory MB", f"{results['rss_mb']:,.0f}", "< 1,536", verdict["rss"])
    table.add_row("Chroma collections", str(results["collections"]), "", "")
    table.add_row("disk MB (SQLite + Chroma + archive)", f"{results['disk_mb']:,.0f}", "", "")
    table.add_row(
        "fresh manager: open s / first retrieval s",
        f"{results['open_s']:.2f} / {results['first_retrieval_s']:.3f}",
        "first < 2 s",
        verdict["first"],
    )
    return table


def main(argv: list[str]) -> int:
    """Parse options, run, print the table."""
    parser = argparse.ArgumentParser(prog="python -m bench users", description=__doc__)
    parser.add_argument("--users", type=int, default=10_000)
    parser.add_argument("--per-user", type=int, default=20)
    args = parser.parse_args(argv)
    Console(width=160).print(render(run(args.users, args.per_user)))
    return 0
