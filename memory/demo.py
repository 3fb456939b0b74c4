"""``python -m memory demo``: replay the sample dialogue and show what the engine recalls."""

from __future__ import annotations

import asyncio
import json
import shutil
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from importlib import resources
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.panel import Panel
from rich.table import Table

from memory.config import MemoryConfig
from memory.domain.types import RetrievedMemory
from memory.errors import InvalidInputError
from memory.manager import MemoryManager
from memory.personas import load_persona

SAMPLE = "karin_dialogue.json"
MARKER = ".persona-memory-demo"
"""The file that marks a folder the demo made (and may empty again at its next run)."""
MADE = ("memory_store", "archive", MARKER)
"""What the demo writes in its folder: all it ever deletes there."""


@dataclass
class ReplayClock:
    """The demo's clock: follows the replayed timestamps, then real time."""

    moment: datetime | None = None

    def __call__(self) -> datetime:
        return self.moment or datetime.now(UTC)


def load_sample(name: str = SAMPLE) -> dict[str, Any]:
    """The shipped sample dialogue."""
    text = resources.files("memory.samples").joinpath(name).read_text(encoding="utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


def timeline(sample: dict[str, Any], end: datetime) -> list[datetime]:
    """Timestamps of the sample's interactions, the last day ending today."""
    last_day = max(int(i["day"]) for i in sample["interactions"])
    start = (end - timedelta(days=last_day)).replace(hour=0, minute=0, second=0, microsecond=0)
    stamps = []
    for item in sample["interactions"]:
        hour, minute = (int(p) for p in item["time"].split(":"))
        stamps.append(start + timedelta(days=int(item["day"]), hours=hour, minutes=minute))
    return [min(s, end) for s in stamps]


def run_demo(persona: str, *, personas_dir: str, data_dir: str) -> int:
    """Replay, summarise, clean up, ask, and print everything; returns the exit code."""
    console = Console()
    started = time.perf_counter()
    folder = Path(data_dir)
    config = MemoryConfig.from_env()
    config.personas_dir = personas_dir
    load_persona(Path(personas_dir), persona)  # a wrong name fails before the folder is touched
    prepare_folder(folder)
    config.data_dir = str(folder / "memory_store")
    config.archive_dir = str(folder / "archive")
    clock = ReplayClock()
    manager = MemoryManager(persona, config, now=clock)
    try:
        asyncio.run(_walkthrough(console, manager, clock))
    finally:
        manager.close()
    console.print(
        f"\n[bold green]demo finished in {time.perf_counter() - started:.1f}s[/] "
        f"(data in {folder}/, emptied by the next demo run)"
    )
    return 0


def prepare_folder(folder: Path) -> None:
    """Make ``folder`` the demo's: create and mark it, or empty what an earlier demo wrote there.

    Raises:
        InvalidInputError: ``--data-dir``: the folder holds files and no demo made it (the demo
            never deletes what it did not create).
    """
    marker = folder / MARKER
    if folder.is_symlink() or (folder.exists() and not folder.is_dir()):
        raise InvalidInputError("--data-dir", f"{folder} is not a folder the demo can use")
    if folder.exists() and not marker.is_file() and any(folder.iterdir()):
        raise InvalidInputError(
            "--data-dir",
            f"{folder} is not empty and no demo made it: the demo starts fresh each run and "
            "deletes its own data; name a new or empty folder",
        )
    for name in MADE[:-1]:
        made = folder / name
        if made.is_symlink() or made.is_file():
            made.unlink()
        elif made.exists():
            shutil.rmtree(made)
    folder.mkdir(parents=True, exist_ok=True)
    marker.write_text("made by `persona-memory demo`: it empties memory_store/ and archive/ here\n")


async def _walkthrough(console: Console, manager: MemoryManager, clock: ReplayClock) -> None:
    sample = load_sample()
    stamps = timeline(sample, datetime.now(UTC))
    console.rule(f"[bold]persona-memory demo: {manager.persona.name}")
    state = manager.debug_state()
    console.print(
        f"static memories loaded: {state['static_count']}  |  "
        f"active capacity: {manager.config.active.capacity}  |  "
        f"embedding: {state['embedding_model']}"
    )
    day = None
    for item, stamp in zip(sample["interactions"], stamps, strict=True):
        if day is not None and item["day"] != day:
            clock.moment = stamp
            await manager.run_summary_now()  # what the scheduled job does, once per replayed day
        day = item["day"]
        clock.moment = stamp
        manager.record_interaction_sync(item["user_input"], item["response"], timestamp=stamp)
    clock.moment = None
    summaries = await manager.run_summary_now()
    cleaned = await manager.run_cleanup_now()
    state = manager.debug_state()
    console.print(
        f"replayed {len(stamps)} interactions over {sample['interactions'][-1]['day'] + 1}"
        f" days -> active {state['active_count']}, temporary {state['temporary_count']}, "
        f"summaries {state['summary_count']} (last job wrote {summaries}), "
        f"clean-up removed {cleaned}"
    )
    shown_active: str | None = None
    verdicts: list[tuple[str, bool]] = []
    for number, question in enumerate(sample["questions"], start=1):
        result = manager.retrieve_memories(question["query"])
        console.rule(f"[bold cyan]Q{number}: {question['query']}")
        console.print(f"[dim]expected: {question['expect']}[/]")
        if result.active_text != shown_active:
            console.print(Panel(result.active_text or "(empty)", title="active_text", style="dim"))
            shown_active = result.active_text
        else:
            console.print("[dim]active_text: the same window as above[/]")
        console.print(Panel(result.rag_text or "(empty)", title="rag_text"))
        console.print(_scores(result.memories))
        hit = question["keyword"] in result.rag_text + result.active_text
        verdicts.append((f"Q{number}: {question['query']} -> {question['keyword']!r}", hit))
        console.print(
            f"[{'green' if hit else 'red'}]{'found' if hit else 'NOT found'}: "
            f"{question['keyword']!r} in the recalled text[/]"
        )
    console.rule("[bold]debug_state()")
    console.print(_state_table(manager.debug_state()))
    found = sum(hit for _, hit in verdicts)  # the verdict last, where a reader's eye ends up
    console.rule(f"[bold]{found}/{len(verdicts)} questions found their memory")
    for line, hit in verdicts:
        console.print(f"[{'green' if hit else 'red'}]{'found    ' if hit else 'NOT found'}[/] {line}")


def _scores(memories: list[RetrievedMemory]) -> Table:
    table = Table(title="per-memory scores", show_lines=False)
    for column in ("layer", "score", "similarity", "significance", "memory"):
        table.add_column(column)
    for memory in memories:
        text = memory.entry.display_text.replace("\n", " / ")
        table.add_row(
            memory.entry.layer.value,
            f"{memory.score:.3f}",
            f"{memory.similarity:.3f}",
            f"{memory.significance:.3f}",
            text[:60] + ("…" if len(text) > 60 else ""),
        )
    return table


def _state_table(state: dict[str, Any]) -> Table:
    table = Table(title="engine state")
    table.add_column("key")
    table.add_column("value")
    for key, value in state.items():
        shown = json.dumps(value, ensure_ascii=False) if isinstance(value, dict | list) else str(value)
        table.add_row(key, shown)
    return table
