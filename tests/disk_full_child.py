"""Child process for the full-then-freed disk test: chats for three users on a small disk until it
is full, frees the space, chats on; a heartbeat thread measures the longest pause of the process.

Usage: python disk_full_child.py DISK PERSONAS. Prints "gap <seconds>" and "closed" at the end;
a process frozen (every thread stopped) prints nothing more, and the parent's timeout tells.
"""

from __future__ import annotations

import shutil
import sys
import threading
import time
from pathlib import Path

from memory import MemoryConfig, MemoryManager
from memory.errors import MemoryEngineError

LEAVE_FREE = 1_000_000
"""Bytes left when the filler stops: the record's next writes fit, the index's soon do not."""


def main() -> None:
    disk, personas = Path(sys.argv[1]), sys.argv[2]
    longest, last = [0.0], [time.monotonic()]

    def beat() -> None:
        while True:
            now = time.monotonic()
            longest[0], last[0] = max(longest[0], now - last[0]), now
            time.sleep(0.05)

    threading.Thread(target=beat, daemon=True).start()
    config = MemoryConfig()
    config.personas_dir, config.data_dir, config.archive_dir = (
        personas,
        str(disk / "store"),
        str(disk / "archive"),
    )
    config.active.capacity = 3
    manager = MemoryManager("karin", config)
    filler = disk / "filler.bin"
    with filler.open("wb") as handle:
        while shutil.disk_usage(disk).free > LEAVE_FREE:
            handle.write(b"\0" * 65536)
            handle.flush()
    for i in range(300):
        try:
            manager.record_interaction_sync(f"第{i}句：{'很长的闲聊内容' * 30}", "嗯嗯", user_id=f"u{i % 3}")
            manager.retrieve(f"闲聊{i}", user_id=f"u{i % 3}")
        except MemoryEngineError:
            pass
        if i == 250:
            filler.unlink()
    manager.record_interaction_sync("我家的柯基叫可乐", "好可爱", user_id="u0")
    print(
        "found" if "可乐" in "".join(manager.retrieve("我家的狗叫什么", user_id="u0")) else "lost", flush=True
    )
    manager.close()
    print(f"gap {longest[0]:.2f}", flush=True)
    print("closed", flush=True)


if __name__ == "__main__":
    main()
