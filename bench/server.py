"""``python -m bench server``: the REST server under load, loopback only, next to its baselines.

``--clients`` concurrent clients (default 20), one user each, each making ``--calls`` (default
50) turns of a chatbot: ``POST /retrieve`` with the user's message, then ``POST /interactions``
with the exchange. The server is ``python -m memory serve`` in its own process on 127.0.0.1; the
clients are asyncio tasks sharing one ``httpx.AsyncClient`` here. Baselines, in the same run and
on the same kind of data: the engine called in-process by one caller, and one HTTP client.

After the load the server gets SIGTERM (graceful: jobs stop, index flushed); the record is then
opened directly and every acknowledged interaction id is looked up: ``lost`` must be 0.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
from rich.console import Console
from rich.table import Table

from bench import latency_ms, synthetic_texts
from bench.perf import make_config
from memory.index.cores import cores
from memory.manager import MemoryManager

V1 = "/v1/personas/karin"
PACED_RATE = 10.0
"""Turns per second in all of the paced run."""
PACED_TURNS = 15
"""Turns per client in the paced run."""


def _port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _in_process(folder: Path, calls: int) -> dict[str, Any]:
    """The engine's own cost: the same turns, one caller, no HTTP."""
    rng = random.Random(5)
    retrieves, records = [], []
    with MemoryManager("karin", make_config(folder)) as manager:
        for turn in range(calls):
            user_input, response = synthetic_texts(rng)
            began = time.perf_counter()
            manager.retrieve(user_input, user_id="solo")
            retrieves.append(time.perf_counter() - began)
            began = time.perf_counter()
            manager.record_interaction_sync(f"{user_input}（{turn}）", response, user_id="solo")
            records.append(time.perf_counter() - began)
        e5_query = _e5_query_seconds(manager, calls)
    return {"retrieve": latency_ms(retrieves), "record": latency_ms(records), "e5_query": e5_query}


def _e5_query_seconds(manager: MemoryManager, calls: int) -> float | None:
    """Mean seconds of E5's query pass alone (one engine, one core) on the same kind of turns: the
    part of a retrieval no other work can share. None without E5."""
    pool = getattr(manager._engine.embeddings, "_e5", None)
    if pool is None:
        return None
    rng = random.Random(5)
    queries = [synthetic_texts(rng)[0] for _ in range(calls)]
    began = time.perf_counter()
    for query in queries:
        pool.encode([query], as_query=True)
    return (time.perf_counter() - began) / len(queries)


async def _client(
    http: httpx.AsyncClient, user: str, calls: int, seed: int, out: dict[str, Any], every: float = 0.0
) -> None:
    """``calls`` turns back to back, or one turn each ``every`` seconds (a paced user)."""
    rng = random.Random(seed)
    start = time.perf_counter() + rng.uniform(0, every)
    for turn in range(calls):
        if every:
            await asyncio.sleep(max(0.0, start + turn * every - time.perf_counter()))
        user_input, response = synthetic_texts(rng)
        began = time.perf_counter()
        found = await http.post(f"{V1}/retrieve", json={"user_id": user, "query": user_input})
        out["retrieve"].append(time.perf_counter() - began)
        if found.status_code != 200:
            out["errors"].append(found.status_code)
        body = {"user_id": user, "user_input": f"{user_input}（{turn}）", "response": response}
        began = time.perf_counter()
        made = await http.post(f"{V1}/interactions", json=body)
        out["record"].append(time.perf_counter() - began)
        if made.status_code == 201:
            out["acked"].append(made.json()["id"])
        else:
            out["errors"].append(made.status_code)


async def _load(base: str, clients: int, calls: int, prefix: str, every: float = 0.0) -> dict[str, Any]:
    out: dict[str, Any] = {"retrieve": [], "record": [], "acked": [], "errors": []}
    limits = httpx.Limits(max_connections=clients)
    async with httpx.AsyncClient(base_url=base, timeout=120, limits=limits) as http:
        began = time.perf_counter()
        await asyncio.gather(*(_client(http, f"{prefix}{i}", calls, i, out, every) for i in range(clients)))
        out["seconds"] = time.perf_counter() - began
    return out


def _cpu_seconds(pid: int) -> float | None:
    """CPU time a process has used so far (user + system), where ``/proc`` tells it."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _drained(base: str, limit: float = 600.0) -> tuple[int, float]:
    """The enrichment backlog now, and the seconds until the server has worked it off."""

    def backlog() -> int:
        return int(httpx.get(f"{base}{V1}/state", timeout=60).json()["store"]["pending_enrichment"])

    at_end, began = backlog(), time.perf_counter()
    while backlog() and time.perf_counter() - began < limit:
        time.sleep(1.0)
    return at_end, time.perf_counter() - began


def run(
    clients: int = 20, calls: int = 50, *, baseline_calls: int = 100, paced_turns: int = PACED_TURNS
) -> dict[str, Any]:
    """Start a server, run the baselines and the load, stop it, count what was kept."""
    folder = Path(tempfile.mkdtemp(prefix="bench-server-"))
    try:
        baseline = _in_process(folder / "solo", baseline_calls)
        config = make_config(folder / "served")
        port = _port()
        env = {
            **os.environ,
            "PERSONA_MEMORY__PERSONAS_DIR": config.personas_dir,
            "PERSONA_MEMORY__DATA_DIR": config.data_dir,
            "PERSONA_MEMORY__ARCHIVE_DIR": config.archive_dir,
        }
        command = [sys.executable, "-m", "memory", "serve", "--persona", "karin", "--port", str(port)]
        server = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        base = f"http://127.0.0.1:{port}"
        try:
            for _ in range(1200):
                try:
                    if httpx.get(f"{base}/v1/personas").status_code == 200:
                        break
                except httpx.TransportError:
                    time.sleep(0.1)
            one = asyncio.run(_load(base, 1, baseline_calls, "one"))
            cpu_before, clients_before = _cpu_seconds(server.pid), time.process_time()
            many = asyncio.run(_load(base, clients, calls, "u"))
            cpu_after, clients_cpu = _cpu_seconds(server.pid), time.process_time() - clients_before
            backlog, drain = _drained(base)
            paced = asyncio.run(_load(base, clients, paced_turns, "p", every=clients / PACED_RATE))
        finally:
            server.send_signal(signal.SIGTERM)
            server.wait(120)
        acked = one["acked"] + many["acked"] + paced["acked"]
        with MemoryManager("karin", config) as manager:
            lost = sum(1 for i in acked if manager.inspector.interaction(i) is None)
            pending = manager.inspector.pending_index()
        return {
            "clients": clients,
            "calls": calls,
            "baseline_calls": baseline_calls,
            "in_process": baseline,
            "one_client": {k: latency_ms(one[k]) for k in ("retrieve", "record")},
            "load": {k: latency_ms(many[k]) for k in ("retrieve", "record")},
            "paced": {k: latency_ms(paced[k]) for k in ("retrieve", "record")},
            "backlog_at_end": backlog,
            "drain_seconds": drain,
            "load_seconds": many["seconds"],
            "server_cpu": None if cpu_before is None or cpu_after is None else cpu_after - cpu_before,
            "clients_cpu": clients_cpu,
            "acked": len(many["acked"]) + len(paced["acked"]),
            "expected": clients * (calls + paced_turns),
            "errors": len(one["errors"]) + len(many["errors"]) + len(paced["errors"]),
            "lost": lost,
            "pending_index_after_shutdown": pending,
            "exit_code": server.returncode,
        }
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def render(results: dict[str, Any]) -> Table:
    """One table: p50/p95 per call in each setting, then what the load kept."""
    table = Table(title=f"REST server: {results['clients']} clients x {results['calls']} turns (loopback)")
    table.add_column("setting")
    table.add_column("retrieve p50 / p95 ms", justify="right")
    table.add_column("record p50 / p95 ms", justify="right")
    rows = [
        (f"in-process, 1 caller, {results['baseline_calls']} turns (baseline)", results["in_process"]),
        (f"HTTP, 1 client, {results['baseline_calls']} turns (baseline)", results["one_client"]),
        (f"HTTP, {results['clients']} concurrent clients", results["load"]),
        (f"HTTP, {results['clients']} clients at {PACED_RATE:g} turns/s in all", results["paced"]),
    ]
    for name, figures in rows:
        cells = [f"{figures[k]['p50']:.1f} / {figures[k]['p95']:.1f}" for k in ("retrieve", "record")]
        table.add_row(name, *cells)
    turns = results["clients"] * results["calls"] / results["load_seconds"]
    whole = results["lost"] == 0 and results["acked"] == results["expected"]
    kept = "[green]met[/]" if whole else "[red]MISSED[/]"
    table.caption = (
        f"{results['acked']}/{results['expected']} acknowledged, {results['errors']} errors, "
        f"{results['lost']} lost after SIGTERM and reopen (target 0: {kept}); "
        f"{turns:.1f} turns/s (target 35); enrichment backlog at the end of the load "
        f"{results['backlog_at_end']}, worked off {results['drain_seconds']:.0f} s later; paced retrieve "
        f"p95 {results['paced']['retrieve']['p95']:.0f} ms (target 150); index backlog after shutdown "
        f"{results['pending_index_after_shutdown']}."
    )
    if results["in_process"]["e5_query"] is not None:
        e5_ms = 1000 * results["in_process"]["e5_query"]
        table.caption += (
            f" E5's query pass alone takes {e5_ms:.1f} ms of one core a turn: {cores()} cores can give at "
            f"most {1000 * cores() / e5_ms:.0f} turns/s with nothing else to do."
        )
    if results["server_cpu"] is not None:
        seconds, turns_made = results["load_seconds"], results["clients"] * results["calls"]
        table.caption += (
            f" Under the load the server used {results['server_cpu'] / seconds:.2f} cores "
            f"({1000 * results['server_cpu'] / turns_made:.1f} ms of CPU a turn), "
            f"the clients {results['clients_cpu'] / seconds:.2f}."
        )
    return table


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench server", description=__doc__)
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--calls", type=int, default=50, help="turns per client (retrieve + record)")
    parser.add_argument("--baseline-calls", type=int, default=100)
    args = parser.parse_args(argv)
    results = run(args.clients, args.calls, baseline_calls=args.baseline_calls)
    Console(width=140).print(render(results))
    return 0 if results["lost"] == 0 and results["acked"] == results["expected"] else 1
