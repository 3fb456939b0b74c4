"""``python -m bench record``: the same chat workload on the SQLite record and on the Postgres
record, side by side in one run (issue "Many users": Postgres retrieve p50 within 2x of SQLite).

``--users`` users (default 200) x ``--per-user`` interactions (default 20) are bulk-imported, then
``record_interaction_sync`` is timed over 300 calls and ``retrieve`` over 300 random users. Both
engines use the embedded Chroma store and the default config; the Postgres one is a local server
this command starts (``--dsn`` to use another, e.g. on another machine: network latency counts).
"""

from __future__ import annotations

import argparse
import contextlib
import random
import shutil
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from bench import QUERIES, latency_ms, repo_root, synthetic_texts
from bench.perf import make_config
from bench.pg_server import postgres_server
from memory.manager import MemoryManager

CALLS = 300
TARGET = 2.0
err = Console(stderr=True)


def _records(users: int, per_user: int) -> Iterator[dict[str, Any]]:
    rng = random.Random(3)
    for turn in range(per_user):
        for user in range(users):
            user_input, response = synthetic_texts(rng)
            yield {"user_input": f"{user_input}（{turn}）", "response": response, "user_id": f"u{user}"}


def _measure(folder: Path, users: int, per_user: int, dsn: str | None) -> dict[str, Any]:
    config = make_config(folder)
    if dsn is not None:
        config.store.record = "postgres"  # type: ignore[assignment]
        config.store.postgres_dsn = dsn  # type: ignore[assignment]
    manager = MemoryManager("karin", config)
    try:
        started = time.perf_counter()
        manager.import_interactions(_records(users, per_user), batch_size=2000)
        manager.flush()
        load = users * per_user / (time.perf_counter() - started)
        rng = random.Random(11)
        records, retrievals = [], []
        for _ in range(CALLS):
            user_input, response = synthetic_texts(rng)
            began = time.perf_counter()
            manager.record_interaction_sync(user_input, response, user_id=f"u{rng.randrange(users)}")
            records.append(time.perf_counter() - began)
        manager.flush()
        for index in range(CALLS + 10):
            query, user = rng.choice(QUERIES), f"u{rng.randrange(users)}"
            began = time.perf_counter()
            manager.retrieve(query, user_id=user)
            if index >= 10:
                retrievals.append(time.perf_counter() - began)
        return {"load": load, "record": latency_ms(records), "retrieve": latency_ms(retrievals)}
    finally:
        manager.close()


def run(users: int, per_user: int, dsn: str | None) -> dict[str, Any]:
    """Measure both records; returns the figures."""
    work = Path(tempfile.mkdtemp(prefix="bench-record-", dir=repo_root() / "data"))
    try:
        err.log("sqlite record")
        results = {"sqlite": _measure(work / "sqlite", users, per_user, None)}
        with contextlib.ExitStack() as stack:
            server = dsn or stack.enter_context(postgres_server())
            err.log("postgres record")
            results["postgres"] = _measure(work / "postgres", users, per_user, server)
        return results
    finally:
        shutil.rmtree(work, ignore_errors=True)


def render(results: dict[str, Any], users: int, per_user: int) -> Table:
    """The figures side by side, with the ratio and the target."""
    table = Table(title=f"system of record: SQLite vs PostgreSQL, {users:,} users x {per_user} (one run)")
    for column in ("metric", "sqlite", "postgres", "postgres / sqlite", "target"):
        table.add_column(column)
    lite, pg = results["sqlite"], results["postgres"]
    table.add_row(
        "bulk load end to end, interactions/s",
        f"{lite['load']:,.0f}",
        f"{pg['load']:,.0f}",
        f"{lite['load'] / pg['load']:.2f}x slower",
        "",
    )
    for name in ("record", "retrieve"):
        a, b = lite[name], pg[name]
        ratio = b["p50"] / a["p50"]
        verdict = "[green]met[/]" if ratio <= TARGET else "[red]MISSED[/]"
        target = f"<= {TARGET:g}x: {verdict}" if name == "retrieve" else ""
        table.add_row(
            f"{name} p50 / p95 ms",
            f"{a['p50']:.2f} / {a['p95']:.2f}",
            f"{b['p50']:.2f} / {b['p95']:.2f}",
            f"{ratio:.2f}x",
            target,
        )
    return table


def main(argv: list[str]) -> int:
    """Parse options, run, print the table."""
    parser = argparse.ArgumentParser(prog="python -m bench record", description=__doc__)
    parser.add_argument("--users", type=int, default=200)
    parser.add_argument("--per-user", type=int, default=20)
    parser.add_argument("--dsn", default=None, help="a Postgres server to use (default: start a local one)")
    args = parser.parse_args(argv)
    results = run(args.users, args.per_user, args.dsn)
    Console(width=160).print(render(results, args.users, args.per_user))
    return 0
