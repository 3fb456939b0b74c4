"""Child process for the resource test: opens and closes a manager many times in one process.

Usage: python cycle_child.py PERSONAS_DIR DATA_DIR CYCLES. Prints one JSON line: resident memory
(MB) and open file descriptors / threads after a warm-up cycle and after all cycles.
"""

from __future__ import annotations

import gc
import json
import os
import sys
import threading

from memory import MemoryConfig, MemoryManager


def _rss_mb() -> float:
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


def _state() -> dict[str, float]:
    gc.collect()
    return {"rss_mb": _rss_mb(), "fds": len(os.listdir("/proc/self/fd")), "threads": threading.active_count()}


WARM_CYCLES = 15
"""Cycles before the measure: they load the models and start what stays for the process on
purpose (the query threads; once the active window overflows, the background E5 threads and
the engine they first use)."""


def main() -> None:
    personas_dir, data_dir, cycles = sys.argv[1], sys.argv[2], int(sys.argv[3])
    config = MemoryConfig()
    config.personas_dir = personas_dir
    config.data_dir = f"{data_dir}/memory_store"
    config.archive_dir = f"{data_dir}/archive"

    def cycle(i: int) -> None:
        with MemoryManager("karin", config) as manager:
            manager.record_interaction_sync(f"第{i}次见面 / meeting {i}", "你好呀～")
            manager.retrieve("你好", user_id=f"user-{i % 3}")
            manager.flush(enrich=True)  # enriched here, not by the worker in its own time

    for i in range(WARM_CYCLES):
        cycle(i)
    before = _state()
    for i in range(WARM_CYCLES, WARM_CYCLES + cycles):
        cycle(i)
    print(json.dumps({"before": before, "after": _state()}))


if __name__ == "__main__":
    main()
