"""Many machines, simulated on one: four worker processes share one PostgreSQL record and one
Chroma server, 200 users, each worker retrieving and recording concurrently and running the
summary job; one worker is killed with SIGKILL mid-run (bounded, loopback only)."""

from __future__ import annotations

import collections
import os
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from helpers.chroma_server import ChromaServer
from helpers.paths import HELPERS
from helpers.store import sql, write_persona
from memory import Layer, MemoryConfig, MemoryManager, StoreMode

pytestmark = [pytest.mark.postgres, pytest.mark.slow]

WORKER = HELPERS / "load_worker.py"
WORKERS, USERS, SECONDS = 4, 200, 8.0


class Worker:
    """One worker process and the ids it acknowledged (read as it prints them)."""

    def __init__(self, command: list[str], log: Path) -> None:
        self.log = log
        with log.open("w") as stderr:
            self.process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=stderr, text=True)
        self.acked: list[str] = []
        self.ready = threading.Event()
        self.done = False
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            if not line.endswith("\n"):
                break  # cut by the kill: not an acknowledgement
            word = line.strip()
            if word == "ready":
                self.ready.set()
            elif word == "done":
                self.done = True
            else:
                self.acked.append(word)

    def wait_ready(self, timeout: float) -> None:
        """Fail with the worker's own error output when it does not start."""
        if not self.ready.wait(timeout=timeout):
            raise AssertionError(f"a worker did not start:\n{self.log.read_text()[-3000:]}")


def test_four_workers_one_killed_lose_nothing_and_summarise_nothing_twice(
    tmp_path: Path, postgres_dsn: str
) -> None:
    server = ChromaServer(tmp_path / "chroma").start()
    personas = write_persona(tmp_path / "personas")
    archive = tmp_path / "archive"
    try:
        workers = [
            Worker(
                [
                    sys.executable,
                    str(WORKER),
                    str(personas),
                    str(tmp_path / f"worker{n}"),
                    str(archive),
                    str(server.port),
                    postgres_dsn,
                    str(n),
                    str(USERS),
                    str(SECONDS),
                ],
                tmp_path / f"worker{n}.log",
            )
            for n in range(WORKERS)
        ]
        for worker in workers:
            worker.wait_ready(timeout=120)
        started = time.monotonic()  # kill the first worker mid-run, once it has done some work
        while len(workers[0].acked) < 5 and time.monotonic() - started < 60:
            time.sleep(0.05)
        time.sleep(random.Random(7).uniform(0.5, 1.5))
        os.kill(workers[0].process.pid, signal.SIGKILL)
        for worker in workers:
            worker.process.wait(timeout=180)
            worker.reader.join(timeout=10)
        assert all(w.done for w in workers[1:]), "a surviving worker did not finish"
        acked = [i for w in workers for i in w.acked]
        assert len(acked) > 100 and workers[0].acked, "too little work to mean anything"

        config = MemoryConfig()
        config.personas_dir = str(personas)
        config.data_dir = str(tmp_path / "check")
        config.archive_dir = str(archive)
        config.store.mode = StoreMode.HTTP
        config.store.port = server.port
        config.store.record = "postgres"  # type: ignore[assignment]
        config.store.postgres_dsn = postgres_dsn  # type: ignore[assignment]
        manager = MemoryManager("karin", config)  # opening repairs the index from the record
        try:
            recorded = [str(r[0]) for r in sql(manager, "SELECT id FROM interactions")]
            assert set(acked) <= set(recorded), "an acknowledged interaction is missing"
            assert len(recorded) == len(set(recorded)) and len(acked) == len(set(acked))

            summaries = sql(
                manager,
                "SELECT content FROM entries WHERE layer = ? OR archived_layer = ?",
                (Layer.SUMMARY.value, Layer.SUMMARY.value),
            )
            lines = collections.Counter(
                line for (content,) in summaries for line in str(content).splitlines() if "号窗口" in line
            )
            assert lines, "no summary was written"
            print(
                f"acknowledged {len(acked)} ({len(workers[0].acked)} by the killed worker), "
                f"recorded {len(recorded)}, summary lines {sum(lines.values())}"
            )
            assert [line for line, n in lines.items() if n > 1] == [], "a line was summarised twice"

            engine = manager._engine  # the index against the record, collection by collection
            for layer, rag in engine.layers.rag.items():
                expected = set().union(*engine.entries.ids_by_scope(layer).values())
                indexed = set().union(*(rag.stores.by_name(n).ids() for n in rag.stores.existing_names()))
                assert indexed == expected, f"{layer.value}: index and record differ"
        finally:
            manager.close()
    finally:
        server.stop()
