"""Child process for the full-then-freed disk test: chats for three users on a small disk until it
is full, frees the space, chats on; a heartbeat thread measures the longest pause of the process.

Usage: python disk_full_child.py DISK PERSONAS. Prints "in vain <n>" (calls reaching Chroma
while the disk was still full after one had failed on it), "gap <seconds>" and "closed" at the
end; a process frozen (every thread stopped) prints nothing more, and the parent's timeout tells.
"""

from __future__ import annotations

import shutil
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from memory import MemoryConfig, MemoryManager
from memory.errors import MemoryEngineError
from memory.index import chroma as store
from memory.index import vectors

LEAVE_FREE = 1_000_000
"""Bytes left when the filler stops: the record's next writes fit, the index's soon do not."""
FULL_SECONDS = 5.0
"""How long the disk stays full after the first index write failed on it."""


def main() -> None:
    disk, personas = Path(sys.argv[1]), sys.argv[2]
    longest, last = [0.0], [time.monotonic()]

    def beat() -> None:
        while True:
            now = time.monotonic()
            longest[0], last[0] = max(longest[0], now - last[0]), now
            time.sleep(0.05)

    threading.Thread(target=beat, daemon=True).start()
    filler = disk / "filler.bin"
    failed_at, in_vain = [0.0], [0]

    def counted(call: Callable[..., Any]) -> Callable[..., Any]:
        def run(*args: Any, **kwargs: Any) -> Any:
            if failed_at[0] and filler.exists():
                in_vain[0] += 1
            try:
                return call(*args, **kwargs)
            except Exception:
                if not failed_at[0] and filler.exists():
                    failed_at[0] = time.monotonic()
                raise

        return run

    vectors._upsert, vectors._settle, vectors._delete = map(
        counted, (vectors._upsert, vectors._settle, vectors._delete)
    )
    # reopening the client and fetching a collection reach Chroma on the full disk as well
    store.ChromaBackend._replace_client = counted(store.ChromaBackend._replace_client)  # type: ignore[method-assign]
    store.ChromaBackend.collection = counted(store.ChromaBackend.collection)  # type: ignore[method-assign]
    config = MemoryConfig()
    config.personas_dir, config.data_dir, config.archive_dir = (
        personas,
        str(disk / "store"),
        str(disk / "archive"),
    )
    config.active.capacity = 3
    manager = MemoryManager("karin", config)
    with filler.open("wb") as handle:
        while shutil.disk_usage(disk).free > LEAVE_FREE:
            handle.write(b"\0" * 65536)
            handle.flush()
    i, freed_at, full_since = 0, -1, time.monotonic()
    while freed_at < 0 or i < freed_at + 30:
        try:
            manager.record_interaction_sync(f"第{i}句：{'很长的闲聊内容' * 30}", "嗯嗯", user_id=f"u{i % 3}")
            manager.retrieve(f"闲聊{i}", user_id=f"u{i % 3}")
        except MemoryEngineError:
            pass
        # the disk stays full for seconds after an index write failed on it: the breaker probes
        now = time.monotonic()
        if freed_at < 0 and (now - full_since > 60 or (failed_at[0] and now - failed_at[0] > FULL_SECONDS)):
            filler.unlink()
            freed_at = i
        i += 1
    manager.record_interaction_sync("我家的柯基叫可乐", "好可爱", user_id="u0")
    print(
        "found" if "可乐" in "".join(manager.retrieve("我家的狗叫什么", user_id="u0")) else "lost", flush=True
    )
    manager.close()
    print(f"in vain {in_vain[0]}", flush=True)
    print(f"gap {longest[0]:.2f}", flush=True)
    print("closed", flush=True)


if __name__ == "__main__":
    main()
