"""``python -m bench cold``: a fresh process on an existing store, from starting Python to its first
answer; ``--help`` and a command that needs no model.

Each figure is the wall time of a new ``python`` process measured from outside (the median of
``--runs``). The first start on a machine builds the user-cache files (the keyword bridge, USE's
tokenizer: see :mod:`memory.cache_files`) and, in a checkout, the engine's bytecode; it is
timed once, with an empty cache folder, and reported apart.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from bench import repo_root, synthetic_records
from bench.perf import make_config

USER = "bench-user"
FIRST_ANSWER = f"""
import sys, time
from memory import MemoryConfig, MemoryManager
manager = MemoryManager("karin", MemoryConfig())
_, rag = manager.retrieve("我上次说我喜欢什么运动？", user_id={USER!r})
print(time.time(), flush=True)
manager.close()
"""
TARGET_FIRST_ANSWER = 3.0
TARGET_HELP = 0.5


def _env(folder: Path, cache: Path) -> dict[str, str]:
    config = make_config(folder)
    # an installed package has its bytecode; a checkout run with PYTHONDONTWRITEBYTECODE would
    # compile every module of the engine at every start (half a second): the first start writes it
    inherited = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    return {
        **inherited,
        "PERSONA_MEMORY__PERSONAS_DIR": config.personas_dir,
        "PERSONA_MEMORY__DATA_DIR": config.data_dir,
        "PERSONA_MEMORY__ARCHIVE_DIR": config.archive_dir,
        "PERSONA_MEMORY__EMBEDDING__PROVIDER": config.embedding.provider,
        "XDG_CACHE_HOME": str(cache),
    }


def _first_answer(env: dict[str, str]) -> float:
    started = time.time()
    done = subprocess.run(
        [sys.executable, "-c", FIRST_ANSWER], env=env, capture_output=True, text=True, check=True
    )
    return float(done.stdout.split()[0]) - started


def _whole(argv: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "memory", *argv], env=env, capture_output=True, check=True)
    return time.perf_counter() - started


def _build(folder: Path, size: int) -> None:
    from memory.manager import MemoryManager

    with MemoryManager("karin", make_config(folder)) as manager:
        manager.import_interactions(synthetic_records(size, user_id=USER))
        manager.flush(enrich=True)


def run(size: int, runs: int) -> dict[str, float]:
    """Build a store of ``size`` interactions, then time fresh processes on it."""
    work = Path(tempfile.mkdtemp(prefix="bench-cold-", dir=repo_root() / "data"))
    try:
        _build(work / "store", size)
        env = _env(work / "store", work / "cache")
        figures = {"first_answer_empty_cache": _first_answer(env)}
        figures["first_answer"] = statistics.median(_first_answer(env) for _ in range(runs))
        figures["help"] = statistics.median(_whole(["--help"], env) for _ in range(runs))
        figures["state"] = statistics.median(
            _whole(["state", "--persona", "karin"], env) for _ in range(runs)
        )
        return figures
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main(argv: list[str]) -> int:
    """Entry point of ``python -m bench cold``."""
    parser = argparse.ArgumentParser(prog="python -m bench cold", description=__doc__)
    parser.add_argument("--size", type=int, default=2000, help="interactions in the store")
    parser.add_argument("--runs", type=int, default=5, help="processes timed per figure (median)")
    parser.add_argument("--provider", default=None, help="embedding.provider (default: the engine's)")
    parser.add_argument("--out", type=Path, default=None, help="also write the figures as JSON")
    args = parser.parse_args(argv)
    if args.provider:
        import bench.perf

        bench.perf.PROVIDER = args.provider
    figures = run(args.size, args.runs)
    table = Table(
        title=f"cold start on a store of {args.size:,} interactions (median of {args.runs} processes)"
    )
    for column in ("figure", "seconds", "target"):
        table.add_column(column)
    table.add_row(
        "fresh process to its first answer", f"{figures['first_answer']:.2f}", f"<= {TARGET_FIRST_ANSWER}"
    )
    table.add_row(
        "  the same, first start on the machine (user cache built)",
        f"{figures['first_answer_empty_cache']:.2f}",
        "",
    )
    table.add_row("python -m memory --help", f"{figures['help']:.2f}", f"<= {TARGET_HELP}")
    table.add_row("python -m memory state (no model loaded)", f"{figures['state']:.2f}", "")
    Console(width=140).print(table)
    if args.out is not None:
        args.out.write_text(json.dumps(figures, indent=2), encoding="utf-8")
    return 0
